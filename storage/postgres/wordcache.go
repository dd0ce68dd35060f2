package postgres

import (
	"errors"
	"sync"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/hybridrag/hybridrag/storage"
)

// wordCache keeps what lookupTerms found for each tenant, kind and term,
// so that a search whose terms were all looked up before skips that round
// trip (a third to a half of the lexical leg at AGROFIT's size). An entry
// is only as good as the dictionary it was read from: it carries the
// tenant's change marker (versionMark) read in the lookup's own
// statement, and a search using cached entries reads the marker again in
// the batch of its first statement, before it, dropping that statement's
// result and looking the terms up afresh when the marker moved. Every
// write that can add a dictionary word moves the marker when it commits
// (Apply adds a record's words just before the record's own transaction,
// whose triggers move it; EndBulkLoad's rebuild moves it itself), so a
// matching marker means the cached words are the dictionary's as of the
// check: the guarantee a lookup statement run just before the ranking
// ones gives (they never shared a snapshot). The entries of all tenants
// and kinds share one LRU of maxCachedTerms.
type wordCache struct {
	once sync.Once
	lru  *lru.Cache[wordCacheKey, cachedTerm]
}

type wordCacheKey struct {
	tenant string
	kind   storage.OwnerKind
	term   string
}

// cachedTerm is one term's lookup and the mark it was read at.
type cachedTerm struct {
	mark versionMark
	lt   lexTerm
}

// versionMark identifies one committed state of a tenant's records: the
// tenant_versions row's version and the transaction that wrote it (xmin),
// so that a schema dropped and created again, whose versions restart at
// 1, never matches a mark read before.
type versionMark struct {
	version, xmin int64
}

// maxCachedTerms bounds the cached terms of all tenants and kinds of a
// DB; the least recently used go first.
const maxCachedTerms = 16384

// versionMarkSQL selects the tenant's ($1) versionMark, (0, 0) for a
// tenant never written.
func versionMarkSQL(versions string) string {
	return "SELECT coalesce(max(v.version), 0) AS version, coalesce(max(v.xmin::text::int8), 0) AS xmin FROM " + versions + " v WHERE v.tenant_id = $1"
}

// errStaleWords reports that cached lookups were read before the tenant's
// last write: the statement's result is dropped and the terms looked up
// again.
var errStaleWords = errors.New("postgres: cached word lookups are stale")

func (c *wordCache) cache() *lru.Cache[wordCacheKey, cachedTerm] {
	c.once.Do(func() {
		// Only a size below 1 fails.
		c.lru, _ = lru.New[wordCacheKey, cachedTerm](maxCachedTerms)
	})
	return c.lru
}

// get returns the cached lookups of every term and the mark they were
// read at; ok is false unless every term is cached, all at one mark.
func (c *wordCache) get(tenant string, kind storage.OwnerKind, terms []string) ([]lexTerm, versionMark, bool) {
	cache := c.cache()
	lts := make([]lexTerm, len(terms))
	var mark versionMark
	for i, t := range terms {
		ct, ok := cache.Get(wordCacheKey{tenant, kind, t})
		if !ok || (i > 0 && ct.mark != mark) {
			return nil, versionMark{}, false
		}
		lts[i], mark = ct.lt, ct.mark
	}
	return lts, mark, true
}

// put caches lts, looked up at mark.
func (c *wordCache) put(tenant string, kind storage.OwnerKind, mark versionMark, lts []lexTerm) {
	cache := c.cache()
	for _, lt := range lts {
		cache.Add(wordCacheKey{tenant, kind, lt.text}, cachedTerm{mark, lt})
	}
}

// drop forgets the cached lookups of a tenant and kind's terms.
func (c *wordCache) drop(tenant string, kind storage.OwnerKind, terms []string) {
	cache := c.cache()
	for _, t := range terms {
		cache.Remove(wordCacheKey{tenant, kind, t})
	}
}
