package postgres

import (
	"errors"
	"sync"

	"github.com/hybridrag/hybridrag/storage"
)

// wordCache keeps what lookupTerms found for each tenant, kind and term,
// so that a search whose terms were all looked up before skips that round
// trip (about a third of the lexical leg at AGROFIT's size). An entry is
// only as good as the dictionary it was read from: each tenant's entries
// carry the tenant's change marker (versionMark) read in the lookup's own
// statement, and a search using them reads the marker again in the batch
// of its first statement (versionCheck), dropping that statement's result
// and looking the terms up afresh when it moved. Every write that can add
// a dictionary word (a record's search text, through the word index
// triggers, or EndBulkLoad's rebuild) moves the marker in the transaction
// that adds it, so a matching marker means the cached words are the
// dictionary's, as of the check: the same guarantee as a lookup statement
// run just before the ranking ones (they never shared a snapshot).
type wordCache struct {
	mu sync.Mutex
	m  map[wordCacheKey]*tenantWords
}

type wordCacheKey struct {
	tenant string
	kind   storage.OwnerKind
}

// tenantWords is one tenant and kind's cached lookups, all read at mark.
type tenantWords struct {
	mark  versionMark
	terms map[string]lexTerm
}

// versionMark identifies one committed state of a tenant's records: the
// tenant_versions row's version and the transaction that wrote it (xmin),
// so that a schema dropped and created again, whose versions restart at
// 1, never matches a mark read before.
type versionMark struct {
	version, xmin int64
}

// maxCachedTerms bounds each tenant and kind's cached terms; past it the
// cache of that tenant and kind starts over.
const maxCachedTerms = 4096

// versionMarkSQL selects the tenant's ($1) versionMark, (0, 0) for a
// tenant never written.
func versionMarkSQL(versions string) string {
	return "SELECT coalesce(max(v.version), 0) AS version, coalesce(max(v.xmin::text::int8), 0) AS xmin FROM " + versions + " v WHERE v.tenant_id = $1"
}

// errStaleWords reports that cached lookups were read before the tenant's
// last write: the statement's result is dropped and the terms looked up
// again.
var errStaleWords = errors.New("postgres: cached word lookups are stale")

// get returns the cached lookups of every term and the mark they were
// read at; ok is false unless every term is cached.
func (c *wordCache) get(tenant string, kind storage.OwnerKind, terms []string) ([]lexTerm, versionMark, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tw := c.m[wordCacheKey{tenant, kind}]
	if tw == nil {
		return nil, versionMark{}, false
	}
	lts := make([]lexTerm, len(terms))
	for i, t := range terms {
		lt, ok := tw.terms[t]
		if !ok {
			return nil, versionMark{}, false
		}
		lts[i] = lt
	}
	return lts, tw.mark, true
}

// put caches lts, looked up at mark; entries read at another mark go.
func (c *wordCache) put(tenant string, kind storage.OwnerKind, mark versionMark, lts []lexTerm) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[wordCacheKey]*tenantWords)
	}
	key := wordCacheKey{tenant, kind}
	tw := c.m[key]
	if tw == nil || tw.mark != mark || len(tw.terms)+len(lts) > maxCachedTerms {
		tw = &tenantWords{mark: mark, terms: make(map[string]lexTerm, len(lts))}
		c.m[key] = tw
	}
	for _, lt := range lts {
		tw.terms[lt.text] = lt
	}
}

// drop forgets a tenant and kind's cached lookups.
func (c *wordCache) drop(tenant string, kind storage.OwnerKind) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, wordCacheKey{tenant, kind})
}
