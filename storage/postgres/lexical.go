package postgres

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hybridrag/hybridrag/internal/storeutil"
	"github.com/hybridrag/hybridrag/storage"
)

// searchLexical returns lexical candidates among the active records of
// kind k, ranked by the number of distinct terms matched, then CreatedAt
// descending, then ID: exactly the memory store's results. It reads the
// kind's word index (migration 0003): lookupTerms finds each term's
// dictionary words (or the wordCache has them, checked in the batch of the
// first statement after), then the levels of a lexPlan rank their
// postings, one statement per level, until the limit is filled. Each statement is one
// round trip, batched with its settings (a level sure to fall short goes
// in one statement with the next, lexPlan.levelPair); there is no explicit transaction
// (under READ COMMITTED, the statements of one would not share a snapshot
// either). Owner IDs and chunk filters restrict the candidates exactly
// (restriction).
func searchLexical[T any](ctx context.Context, s *Store, k pgKind[T], q storage.LexicalQuery) ([]storage.LexicalCandidate[T], error) {
	kind := k.kind
	if err := storage.ValidateFilters(kind, q.Filters, s.db.opts.AllowedMetadataKeys); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := storage.ValidateRestrictions(q.OwnerIDs, q.ChunkFilters); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	rs := restriction{ownerIDs: q.OwnerIDs, groups: storeutil.GroupChunkFilters(q.ChunkFilters)}
	terms := storeutil.NormalizeTerms(q.Terms)
	// Stored text never holds NUL (storage.ValidText), so such terms match
	// nothing; PostgreSQL could not even receive them.
	terms = dropNUL(terms)
	if len(terms) == 0 {
		return nil, s.db.ensure(ctx)
	}
	limit := storeutil.ClampLimit(q.Limit)
	var out []storage.LexicalCandidate[T]
	err := s.withConn(ctx, func(conn *pgxpool.Conn) error {
		c := conn.Conn()
		var lts []lexTerm
		lookup := func() error {
			var err error
			if lts, err = s.lookupTerms(ctx, c, kind, terms); err != nil {
				return wrapCtx(ctx, "search "+string(kind)+"s: look up words", err)
			}
			return nil
		}
		// check is the versionMark the cached lookups in lts were read
		// at, until a statement's batch has checked it (run).
		var check *versionMark
		if cached, mark, ok := s.db.words.get(s.tenant, kind, terms); ok {
			lts, check = cached, &mark
		}
		if check == nil && (rs.none() || kind == storage.KindDocument) {
			// A restricted item or FAQ search reads the search text of
			// the owners it admits, which needs no word lookup unless they
			// turn out to be many (cached lookups it uses: rare terms are
			// then counted from their postings).
			if err := lookup(); err != nil {
				return err
			}
		}
		// Each statement goes in one batch with its settings (lexSettings):
		// a batch runs in one implicit transaction, so set_config(..., true)
		// lasts for the statement alone and a search costs one round trip
		// per statement, with no BEGIN or COMMIT.
		// send sends a statement in one batch with its settings and, the
		// first time, the check of the cached lookups' mark; the caller
		// reads the statement's result and closes the batch.
		send := func(set, sql string, a args) (pgx.BatchResults, error) {
			batch := &pgx.Batch{}
			batch.Queue(set)
			verify := check != nil
			if verify {
				// The cached lookups' mark, read before the statement.
				batch.Queue(versionMarkSQL(s.db.tb.versions), s.tenant)
			}
			batch.Queue(sql, a...)
			br := c.SendBatch(ctx, batch)
			if _, err := br.Exec(); err != nil {
				br.Close()
				return nil, wrapCtx(ctx, "search "+string(kind)+"s: settings", err)
			}
			if verify {
				var m versionMark
				if err := br.QueryRow().Scan(&m.version, &m.xmin); err != nil {
					br.Close()
					return nil, wrapCtx(ctx, "search "+string(kind)+"s: version", err)
				}
				if m != *check {
					br.Close()
					return nil, errStaleWords
				}
				check = nil
			}
			return br, nil
		}
		run := func(set, sql string, a args) ([]storage.LexicalCandidate[T], error) {
			// A statement's text depends on the shape of the query (the
			// number of terms and of their words), not on the words
			// themselves, which are parameters: pgx prepares each shape
			// once per connection, and planning (about 1 ms a level) is
			// not paid on every search.
			br, err := send(set, sql, a)
			if err != nil {
				return nil, err
			}
			defer br.Close()
			rows, err := br.Query()
			if err != nil {
				return nil, wrapCtx(ctx, "search "+string(kind)+"s", err)
			}
			res, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.LexicalCandidate[T], error) {
				var m int32
				rec, err := k.scan(r, &m)
				return storage.LexicalCandidate[T]{Record: rec, TermsMatched: int(m)}, err
			})
			if err != nil {
				return nil, wrapCtx(ctx, "search "+string(kind)+"s", err)
			}
			if err := br.Close(); err != nil {
				return nil, wrapCtx(ctx, "search "+string(kind)+"s", err)
			}
			return res, nil
		}
		if !rs.none() {
			// One round trip: the ranking of the owners the restriction
			// admits (the listed owners, or those of the chunks passing
			// the chunk filters), with how many chunks pass (up to
			// exactScanChunks + 1), kept when they are few enough.
			restricted := func() ([]storage.LexicalCandidate[T], int64, error) {
				batch := &pgx.Batch{}
				batch.Queue(lexSettings)
				verify := check != nil
				if verify {
					// The cached lookups' mark, read before the statement.
					batch.Queue(versionMarkSQL(s.db.tb.versions), s.tenant)
				}
				sql, a, counted := restrictedLexical(s, kind, k.selectList(&s.db.tb), terms, lts, q.Filters, rs, limit)
				batch.Queue(sql, a...)
				br := c.SendBatch(ctx, batch)
				defer br.Close()
				if _, err := br.Exec(); err != nil {
					return nil, 0, wrapCtx(ctx, "search "+string(kind)+"s: settings", err)
				}
				if verify {
					var m versionMark
					if err := br.QueryRow().Scan(&m.version, &m.xmin); err != nil {
						return nil, 0, wrapCtx(ctx, "search "+string(kind)+"s: version", err)
					}
					if m != *check {
						return nil, 0, errStaleWords
					}
					check = nil
				}
				rows, err := br.Query()
				if err != nil {
					return nil, 0, wrapCtx(ctx, "search "+string(kind)+"s", err)
				}
				var n int64
				res, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.LexicalCandidate[T], error) {
					var m int32
					rec, err := k.scan(r, &m, &n)
					return storage.LexicalCandidate[T]{Record: rec, TermsMatched: int(m)}, err
				})
				if err != nil {
					return nil, 0, wrapCtx(ctx, "search "+string(kind)+"s", err)
				}
				if err := br.Close(); err != nil {
					return nil, 0, wrapCtx(ctx, "search "+string(kind)+"s", err)
				}
				if counted && len(res) == 0 {
					// No row to carry the count: count on its own.
					ca := args{s.tenant, exactScanChunks + 1}
					var err error
					meta := s.db.tb.meta[kind]
					n, err = countRestricted(ctx, c, lexSettings, "SELECT count(*) FROM (SELECT FROM "+meta+
						" m WHERE "+metaSQL(meta, "m", "$1", rs.ownerIDs, rs.groups, &ca)+" LIMIT $2) x", ca)
					if err != nil {
						return nil, 0, wrapCtx(ctx, "search "+string(kind)+"s: restriction", err)
					}
				}
				return res, n, nil
			}
			res, n, err := restricted()
			if errors.Is(err, errStaleWords) {
				s.db.words.drop(s.tenant, kind, terms)
				check = nil
				if err := lookup(); err != nil {
					return err
				}
				res, n, err = restricted()
			}
			if err != nil {
				return err
			}
			if n <= int64(exactScanChunks) {
				out = res
				return nil
			}
			if lts == nil {
				if err := lookup(); err != nil {
					return err
				}
			}
		}
		// rank ranks the owners matching lts into out, one statement per
		// level (lexPlan).
		rank := func() error {
			out = nil
			plan := newLexPlan(s, kind, k.selectList(&s.db.tb), lts, q.Filters, rs)
			for {
				// The next level, or the next two in one statement when
				// the first is sure to fall short (levelPair).
				sql, a, last, ok := plan.levelPair(limit - len(out))
				if !ok {
					break
				}
				res, err := run(plan.levelSettings(), sql, a)
				if err != nil {
					return err
				}
				out = append(out, res...)
				if len(out) >= limit || last {
					return nil
				}
			}
			// The levels ended short: every owner matching lastLevel terms or
			// more is in out. The rest of the ranking is bounded (MaxScore):
			// walk the rarest terms that can hold the owners of the next
			// level, and more only if the counts found prove it necessary.
			if below := plan.lastLevel(); below > 1 {
				// First the score-bounded top-k (maxScore), when the query
				// has common terms to leave out of the walk.
				if c := plan.commonTerms(below); c > 0 {
					need := limit - len(out)
					sql, a := plan.maxScore(c, need, below, limit)
					res, err := run(lexFullSettings, sql, a)
					if err != nil {
						return err
					}
					if len(res) == need {
						maxScoreKept.Add(1)
						out = append(out, res...)
						return nil
					}
				}
				T := len(lts)
				// The first walk: the terms of the next level, or, when
				// more, every rare term (rareWalk), which costs little
				// and, holding more of the owners' terms, proves a higher
				// bound more often.
				walk := max(T-below+2, plan.rareWalk())
				for try := 0; try < 2; try++ {
					need := limit - len(out)
					if !plan.boundedPays(walk, need) {
						break
					}
					sql, a, ok := plan.bounded(walk, need, below)
					if !ok {
						break
					}
					res, err := run(lexFullSettings, sql, a)
					if err != nil {
						return err
					}
					if walk >= T || try == 1 || (len(res) == need && res[need-1].TermsMatched > T-walk) {
						out = append(out, res...)
						return nil
					}
					if len(res) < need {
						// Fewer owners than needed among the walked terms'
						// postings: no bound below 1; rank every posting.
						break
					}
					walk = T - res[need-1].TermsMatched + 1
				}
			}
			sql, a := plan.full(limit)
			var err error
			out, err = run(lexFullSettings, sql, a)
			return err
		}
		err := rank()
		if errors.Is(err, errStaleWords) {
			// Cached lookups older than the tenant's last write: look the
			// terms up again and rank afresh.
			s.db.words.drop(s.tenant, kind, terms)
			check = nil
			if err := lookup(); err != nil {
				return err
			}
			err = rank()
		}
		return err
	})
	return out, err
}

// The settings batched with each lexical statement, for that statement
// alone (set_config's is_local in the batch's implicit transaction). JIT
// compilation costs more than these queries, whose cost estimates are
// high (the postings of a common word) but whose work is mostly index
// lookups; levels that walk records newest first need the *_recent index:
// the planner, misled by strpos estimates, would rather sort them all
// (enable_seqscan off); see searchLexical for enable_bitmapscan. The full
// count hashes every owner of the terms' postings: 59k owners of 100k
// took 8 MB and spilled to disk at the default work_mem of 4 MB.
//
// The word lookup and the levels are planned once per connection and
// statement shape (lexGeneric): their plans do not depend on the words
// looked up or walked, only on the shape, yet PostgreSQL keeps
// re-planning them on every execution (its generic plan's cost estimate,
// made without the LIKE patterns and word IDs, is higher than a custom
// plan's, although both run the same index scans), and planning took
// 0.2–0.75 ms of a 1–2 ms statement at AGROFIT's size. The bounded and
// full rankings, whose plans do depend on how many postings the terms
// have, and the restricted statements keep custom plans.
const (
	lexSettings          = "SELECT set_config('jit', 'off', true), set_config('enable_seqscan', 'off', true)"
	lexLevelSettings     = lexSettings + lexGeneric
	lexWalkLevelSettings = "SELECT set_config('jit', 'off', true), set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true)" + lexGeneric
	lexFullSettings      = "SELECT set_config('jit', 'off', true), set_config('enable_seqscan', 'off', true), set_config('work_mem', '32MB', true), set_config('max_parallel_workers_per_gather', '0', true)"
	lexGeneric           = ", set_config('plan_cache_mode', 'force_generic_plan', true)"
	lexPairSettings      = lexLevelSettings + ", set_config('max_parallel_workers_per_gather', '0', true)"
)

// batcher is what sends a batch: a connection or a transaction.
type batcher interface {
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

func dropNUL(terms []string) []string {
	out := terms[:0]
	for _, t := range terms {
		if !strings.Contains(t, "\x00") {
			out = append(out, t)
		}
	}
	return out
}

// isWordSep reports whether b separates words in the word index: an ASCII
// byte other than a letter or digit (the bytes of multi-byte UTF-8
// characters never are). search_words (migration 0003) splits the same way,
// and so does the memory store's word index.
func isWordSep(b byte) bool {
	return b < 0x80 && !('a' <= b && b <= 'z' || '0' <= b && b <= '9' || 'A' <= b && b <= 'Z')
}

// eachWord calls fn with every maximal run of non-separator bytes of s.
func eachWord(s string, fn func(w string)) {
	for i := 0; i < len(s); {
		for i < len(s) && isWordSep(s[i]) {
			i++
		}
		j := i
		for j < len(s) && !isWordSep(s[j]) {
			j++
		}
		if j > i {
			fn(s[i:j])
		}
		i = j
	}
}

// tokenStride and tokenMaxRunes shape the tokens of migration 0006: a
// token longer than tokenMaxRunes characters is indexed as its pieces of
// tokenMaxRunes starting every tokenStride characters, so a core of up to
// tokenStride characters is inside one piece.
const (
	tokenStride   = 128
	tokenMaxRunes = 2 * tokenStride
)

// isTokenSplit reports whether b separates tokens (migration 0006): space
// and newline, the only white space normalized search text holds.
func isTokenSplit(r rune) bool { return r == ' ' || r == '\n' }

// trimSeps returns s without the separator bytes (isWordSep) at its ends.
func trimSeps(s string) string {
	i, j := 0, len(s)
	for i < j && isWordSep(s[i]) {
		i++
	}
	for j > i && isWordSep(s[j-1]) {
		j--
	}
	return s[i:j]
}

// hasSep reports whether s holds a separator byte (isWordSep).
func hasSep(s string) bool {
	for i := 0; i < len(s); i++ {
		if isWordSep(s[i]) {
			return true
		}
	}
	return false
}

// eachToken calls fn with every token of s as search_tokens (migration
// 0006) finds them, possibly more than once: each maximal run of
// characters other than space and newline, trimmed of separators at both
// ends, that still holds a separator, or the pieces of a longer one.
func eachToken(s string, fn func(string)) {
	for _, run := range strings.FieldsFunc(s, isTokenSplit) {
		c := trimSeps(run)
		if !hasSep(c) {
			continue
		}
		if utf8.RuneCountInString(c) <= tokenMaxRunes {
			fn(c)
			continue
		}
		r := []rune(c)
		for st := 0; st < len(r)-tokenStride; st += tokenStride {
			fn(string(r[st:min(st+tokenMaxRunes, len(r))]))
		}
	}
}

// tokenCore returns the core of a term (the term trimmed of separators)
// and whether the tokens of migration 0006 answer it: the term holds no
// space or newline and its core holds a separator and at most tokenStride
// characters. Such a term is contained in a text only inside one token
// containing its core.
func tokenCore(t string) (string, bool) {
	if strings.ContainsFunc(t, isTokenSplit) {
		return "", false
	}
	c := trimSeps(t)
	if !hasSep(c) || utf8.RuneCountInString(c) > tokenStride {
		return "", false
	}
	return c, true
}

// minTrigramRunes is the shortest string the trigram index can look up:
// pg_trgm extracts no trigram from shorter LIKE patterns and would read the
// whole index, so shorter strings scan the tenant's dictionary instead.
const minTrigramRunes = 3

// postingsCap bounds the postings counted per term by lookupTerms: enough
// to tell a rare term from a common one. It is a variable for tests.
var postingsCap = 1024

// sampleOwners is the size of the sample that orders the terms with
// postingsCap postings or more (lexTerm.recent): the tenant's newest
// active owners. Each such term's postings in it are counted, at most
// sampleOwners: 256 tells a term in 2% of the records from one in 4%, at
// a quarter of the reads of the capped count itself. It is a variable for
// tests.
var sampleOwners = 256

// maxStreamWords is the most dictionary words whose postings one level
// of a lexPlan merges (one ordered index scan each); a level with more
// walks the records newest first instead.
const maxStreamWords = 32

// maxLevels is the most levels a lexPlan walks before the bounded ranking
// of the rest (lexPlan.bounded). It is a variable for tests.
var maxLevels = 4

// probeFence ends every probe subquery of a level (EXISTS): with OFFSET,
// PostgreSQL neither pulls an EXISTS up into a semi-join nor turns it into
// a hashed subplan, both of which read every row the probe could match
// (every owner, for a strpos probe) before the walk's first row; the probe
// stays an index lookup per walked row, and the walk stops at the limit.
const probeFence = " OFFSET 0"

// lexTerm is one normalized query term and what the word index holds for
// it.
type lexTerm struct {
	text string
	// run is what the dictionary is searched for: the term's core for a
	// term the tokens answer (tokenCore), else its longest run of
	// non-separator bytes; "" when the term is made of separators only.
	run string
	// token: run is a core, looked up in the tokens (migration 0006).
	token bool
	// exact: the term is its own run (a word without separators, or a
	// token core), so the postings of wids are its matches; otherwise they
	// are candidates confirmed with strpos.
	exact bool
	// wids are the dictionary words (or tokens) containing run.
	wids []int64
	// postings is the number of postings of wids, at most postingsCap.
	postings int64
	// recent, for a term with postingsCap postings or more, is the number
	// of its postings among the tenant's sampleOwners newest active owners
	// (at most sampleOwners): its frequency in a sample, which orders the
	// common terms by rarity where the capped count ties them all.
	recent int64
}

// rarer orders terms by their number of postings: the count, then, among
// terms with at least postingsCap, the count in the newest owners.
func (lt *lexTerm) rarer(o *lexTerm) int {
	if c := cmp.Compare(lt.postings, o.postings); c != 0 {
		return c
	}
	return cmp.Compare(lt.recent, o.recent)
}

// lookupTerms finds, in one statement, the dictionary words containing
// each term's longest run and counts (up to postingsCap) their postings.
// The OFFSET 0 keeps each term's word list a subquery computed once: pulled
// up, its ARRAY would be computed twice, for the output and for the count
// (a scan of the dictionary for short terms).
// It runs with lexLevelSettings (a generic plan). The statement also
// reads the tenant's versionMark, and the terms are cached with it
// (wordCache).
func (s *Store) lookupTerms(ctx context.Context, c batcher, kind storage.OwnerKind, terms []string) ([]lexTerm, error) {
	lts := make([]lexTerm, len(terms))
	a := args{s.tenant}
	var parts []string
	for i, t := range terms {
		lt := lexTerm{text: t}
		runs := 0
		dict := s.db.tb.words[kind]
		if core, ok := tokenCore(t); ok {
			lt.run, lt.token, lt.exact = core, true, core == t
			runs = 1
			dict = s.db.tb.tokens[kind]
		} else {
			eachWord(t, func(w string) {
				runs++
				if len(w) > len(lt.run) {
					lt.run = w
				}
			})
			lt.exact = runs == 1 && len(lt.run) == len(t)
		}
		lts[i] = lt
		if runs == 0 {
			continue
		}
		var cond string
		if utf8.RuneCountInString(lt.run) >= minTrigramRunes {
			cond = "d.word LIKE " + a.add("%"+likeEscaper.Replace(lt.run)+"%") + likeEscape
		} else {
			cond = "strpos(d.word, " + a.add(lt.run) + ") > 0"
		}
		sample := "0"
		if len(terms) > 1 {
			// Only to order terms: one term needs no sample.
			sample = "CASE WHEN z.n = " + strconv.Itoa(postingsCap) +
				" THEN (SELECT count(*) FROM (SELECT FROM " + s.db.tb.postings[kind] + " p WHERE p.tenant_id = $1 AND p.word_id = ANY(z.ids)" +
				" AND p.created_at >= (SELECT r.c FROM recent r) LIMIT " + strconv.Itoa(sampleOwners) + ") y) ELSE 0 END"
		}
		parts = append(parts, "SELECT "+strconv.Itoa(i)+", z.ids, z.n, "+sample+
			" FROM (SELECT w.ids, (SELECT count(*) FROM (SELECT FROM "+s.db.tb.postings[kind]+
			" p WHERE p.tenant_id = $1 AND p.word_id = ANY(w.ids) LIMIT "+strconv.Itoa(postingsCap)+") x) AS n"+
			" FROM (SELECT ARRAY(SELECT d.id FROM "+dict+" d WHERE d.tenant_id = $1 AND "+cond+" ORDER BY d.id) AS ids OFFSET 0) w OFFSET 0) z")
	}
	if len(parts) == 0 {
		// Only separator terms: nothing to look up.
		return lts, nil
	}
	// recent is the created_at of the tenant's sampleOwners-th newest
	// active owner (the *_recent index), read only when a term has
	// postingsCap postings: the start of the sample that orders common
	// terms.
	recent := "WITH recent AS MATERIALIZED (SELECT coalesce((SELECT o.created_at FROM " + s.db.tb.owners[kind] +
		" o WHERE o.tenant_id = $1 AND o.active ORDER BY o.created_at DESC, o.id OFFSET " + strconv.Itoa(sampleOwners-1) +
		" LIMIT 1), '-infinity'::timestamptz) AS c)\n"
	// One round trip with its settings; the statement's text depends only
	// on the number and kind of terms, so pgx prepares it once per
	// connection and shape.
	// The last row, numbered -1, is the tenant's versionMark, read in the
	// statement's snapshot.
	parts = append(parts, "SELECT -1, NULL::int8[], m.version, m.xmin FROM ("+versionMarkSQL(s.db.tb.versions)+") m")
	batch := &pgx.Batch{}
	batch.Queue(lexLevelSettings)
	batch.Queue(recent+strings.Join(parts, "\nUNION ALL "), a...)
	br := c.SendBatch(ctx, batch)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	var (
		i             int32
		ids           []int64
		npos, nrecent int64
	)
	var mark versionMark
	_, err = pgx.ForEachRow(rows, []any{&i, &ids, &npos, &nrecent}, func() error {
		switch {
		case i == -1:
			mark = versionMark{npos, nrecent}
		case int(i) < len(lts):
			lts[i].wids, lts[i].postings, lts[i].recent = ids, npos, nrecent
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := br.Close(); err != nil {
		return nil, err
	}
	s.db.words.put(s.tenant, kind, mark, lts)
	return lts, nil
}

// lexPlan ranks the owners matching lexTerms (found by lookupTerms),
// exactly, and in the common cases reading about as many postings as the
// limit rather than every posting of common terms.
//
// A term without separators (see isWordSep) is contained in a text exactly
// when it is contained in one of its words, so its matches are the
// postings of its dictionary words; likewise a term whose core holds a
// separator ("l/ha", tokenCore) and the tokens containing its core
// (migration 0006), confirmed with strpos when the term is more than its
// core; another term with separators ("100%") takes the owners posted
// under the words containing its longest run and confirms each with strpos
// on the owner's search text; a term made only of separators ("%") is
// checked with strpos against every active owner.
// Postings exist for active owners only and carry the owner's created_at.
//
// The ranking is found level by level, from T (every term matched) down:
// an owner matching at least L of the T terms holds one of the T-L+1
// rarest terms. Level L walks the postings of the words of those terms
// newest first (one ordered index scan per word, merged; the postings of
// one owner are then adjacent and grouped), computes each walked owner's
// exact count (probing the other terms' postings by index, or strpos) and
// returns the newest owners matching exactly L terms, up to what the limit
// still needs. A level that returns fewer has found every owner of its
// level, so the next one continues; the levels above hold the better
// owners. Each level is its own statement, planned only when needed. A
// level whose walked terms include one made only of separators, or whose
// words exceed maxStreamWords (substrings such as "a" or the "2" of
// "2,4-d", in most records), walks the records themselves newest first
// instead and counts every term with strpos. The levels stop after
// maxLevels; if they end short of the limit, full counts every owner of
// every term's postings and ranks them instead.
type lexPlan struct {
	s       *Store
	kind    storage.OwnerKind
	cols    string
	lts     []lexTerm
	filters []storage.Filter
	// restrict is the query's owner IDs and chunk filters (empty: none).
	restrict restriction
	order    []int // term indexes, rarest first
	n        int   // levels returned so far
	// walksRecords: the last level returned walks the owner records
	// newest first (terms of separators, or substrings of many words).
	walksRecords bool
	// paired: the last statement returned holds two levels (levelPair).
	paired bool
}

func newLexPlan(s *Store, kind storage.OwnerKind, cols string, lts []lexTerm, filters []storage.Filter, restrict restriction) *lexPlan {
	order := make([]int, len(lts))
	for i := range order {
		order[i] = i
	}
	// Walkable terms by postings (exact ones first on a tie), then terms
	// in more than maxStreamWords dictionary words ("sc", "ec": a level
	// walking one of them walks the records), terms made of separators
	// last. Any T-L+1 terms bound level L, so the terms that force a
	// record walk are left to the last levels, where most records match
	// and the walk stops soon ("diflubenzuron 480 sc …", 8 terms at 100k
	// items: 459 ms with "sc" walked early, 41 ms without "sc").
	class := func(lt *lexTerm) int {
		switch {
		case lt.run == "":
			return 2
		case len(lt.wids) > maxStreamWords:
			return 1
		}
		return 0
	}
	slices.SortStableFunc(order, func(x, y int) int {
		lx, ly := &lts[x], &lts[y]
		switch {
		case class(lx) != class(ly):
			return cmp.Compare(class(lx), class(ly))
		case lx.rarer(ly) != 0:
			return lx.rarer(ly)
		case lx.exact != ly.exact:
			if lx.exact {
				return -1
			}
			return 1
		}
		return 0
	})
	return &lexPlan{s: s, kind: kind, cols: cols, lts: lts, filters: filters, restrict: restrict, order: order}
}

// probeOrder is the order in which a level's chains of ANDed postings
// probes test the terms: cheapest first (probeWords: a probe costs one
// index descent per word, or a text probe), then rarest. The order of ANDed tests does not
// change a result, only how soon a failing chain stops: a term in 24
// words probed first cost every walked owner 24 descents (a level at 100k
// items: 138 ms).
func (p *lexPlan) probeOrder() []int {
	order := slices.Clone(p.order)
	slices.SortStableFunc(order, func(x, y int) int {
		if c := cmp.Compare(p.probeWords(x), p.probeWords(y)); c != 0 {
			return c
		}
		return p.lts[x].rarer(&p.lts[y])
	})
	return order
}

// textProbeWords is the most dictionary words of a term whose postings
// are probed for a walked item or FAQ (one index descent per word); a
// term in more ("480", "fumo": substrings of dozens of words) is tested
// on the owner's search text instead: one primary-key lookup and a
// strpos, which is the definition of a match (see lexPlan). At 100k
// items a walked owner's probe of a term in 130 words read 263 buffers
// (a 9-term question's level: 15.6 of its 31 ms for 110 owners).
// Documents, whose texts are long, keep the postings probes. It is a
// variable for tests.
var textProbeWords = 8

// probeWords is what probing exact term i costs a walked owner, in index
// descents: one per dictionary word, or about textProbeWords for a text
// probe (probe).
func (p *lexPlan) probeWords(i int) int {
	n := len(p.lts[i].wids)
	if p.kind != storage.KindDocument {
		n = min(n, textProbeWords)
	}
	return n
}

// probe returns the test that the walked owner g (its owner_id and
// created_at) holds exact term i: its postings probed by index, or, for
// a term in more than textProbeWords words of an item or FAQ dictionary,
// the owner's search text.
func (p *lexPlan) probe(i int, x *lexArgs) string {
	tb := &p.s.db.tb
	if p.kind != storage.KindDocument && len(p.lts[i].wids) > textProbeWords {
		return "EXISTS (SELECT FROM " + tb.owners[p.kind] + " t WHERE t.tenant_id = $1 AND t.id = g.owner_id AND strpos(t.search_text, " +
			x.text(i) + ") > 0" + probeFence + ")"
	}
	return "EXISTS (SELECT FROM " + tb.postings[p.kind] + " q WHERE q.tenant_id = $1 AND q.word_id = ANY(" + x.wordIDs(i) +
		") AND q.created_at = g.created_at AND q.owner_id = g.owner_id" + probeFence + ")"
}

// hasCond reports whether owners are filtered (Filters, OwnerIDs or
// ChunkFilters).
func (p *lexPlan) hasCond() bool { return len(p.filters) > 0 || !p.restrict.none() }

// cond returns the " AND ..." conditions on the owner alias o of the
// query's filters and restriction.
func (p *lexPlan) cond(o string, a *args) string {
	return filterSQL(o, p.filters, a) + p.restrict.ownerSQL(p.s, p.kind, o, a)
}

// lexArgs builds one statement's parameters: $1 the tenant, $2 the limit,
// then each term's word IDs and text when first used (PostgreSQL cannot
// type an unused parameter).
type lexArgs struct {
	a        args
	ids, raw []string
	lts      []lexTerm
}

func newLexArgs(tenant string, limit int, lts []lexTerm) *lexArgs {
	return &lexArgs{a: args{tenant, limit}, ids: make([]string, len(lts)), raw: make([]string, len(lts)), lts: lts}
}

func (x *lexArgs) wordIDs(i int) string {
	if x.ids[i] == "" {
		x.ids[i] = x.a.add(x.lts[i].wids)
	}
	return x.ids[i]
}

func (x *lexArgs) text(i int) string {
	if x.raw[i] == "" {
		x.raw[i] = x.a.add(x.lts[i].text)
	}
	return x.raw[i]
}

// termBit is the bigint with bit i set (i < 64), as a typed literal: bit
// 63 is the negative -2^63, which an unquoted literal cannot spell (the
// minus would apply to 2^63, out of range).
func termBit(i int) string { return "'" + strconv.FormatInt(int64(1)<<i, 10) + "'::int8" }

// level returns the statement of the next level, asking for need owners,
// and whether it is the last (level 1: it completes the ranking); ok is
// false when the levels have ended.
func (p *lexPlan) level(need int) (sql string, a args, last, ok bool) {
	x := newLexArgs(p.s.tenant, need, p.lts)
	sql, last, ok = p.levelWith(x)
	return sql, x.a, last, ok
}

// levelPair returns, when the next level is sure to fall short of need
// (short) and the level after it walks postings too (not the records), one
// statement for both: the next level's rows, then the following level's,
// UNION ALL, cut at need. PostgreSQL runs the second only after the
// first has returned all its rows, and stops it at the limit, so it walks
// what it would alone, asked for what is left, and the search saves a
// round trip. Otherwise it returns the next level alone (level).
func (p *lexPlan) levelPair(need int) (sql string, a args, last, ok bool) {
	p.paired = false
	n, walks := p.n, p.walksRecords
	x := newLexArgs(p.s.tenant, need, p.lts)
	first, last, ok := p.levelWith(x)
	if !ok || last || p.walksRecords || !p.short(need) {
		return first, x.a, last, ok
	}
	second, last2, ok2 := p.levelWith(x)
	switch {
	case !ok2:
		// No level after it (nothing was planned).
		return first, x.a, last, ok
	case !p.walksRecords:
		levelsBatched.Add(1)
		p.paired = true
		return "(" + first + ") UNION ALL (" + second + ") LIMIT $2", x.a, last2, true
	}
	// The second walks the records (other settings): plan the first
	// again, alone, without the second's arguments.
	p.n, p.walksRecords = n, walks
	return p.level(need)
}

// levelWith is level with the statement's arguments in x.
func (p *lexPlan) levelWith(x *lexArgs) (sql string, last, ok bool) {
	need := x.a[1].(int)
	T := len(p.lts)
	// Terms in no posting (walked first: they are the rarest) match
	// nothing, so the levels that walk only them are empty: skip them
	// without a statement, and without counting them against maxLevels.
	zeros := 0
	for _, i := range p.order {
		if p.lts[i].run == "" || p.lts[i].postings > 0 {
			break
		}
		zeros++
	}
	n := max(p.n+1, min(zeros+1, T))
	if n > T || n > maxLevels+zeros || need < 1 {
		return "", false, false
	}
	walked := p.order[:n]
	words, byText := 0, false
	for _, i := range walked {
		if p.lts[i].run == "" {
			byText = true
		}
		words += len(p.lts[i].wids)
	}
	// j: the walked terms an owner of the level must hold (pairWalk).
	j := 1
	if !byText && p.pairWalk(n, words) {
		j = 2
		walked = p.order[:n+1]
		words += len(p.lts[p.order[n]].wids)
	}
	p.n = n
	tb := &p.s.db.tb
	owner, postings := tb.owners[p.kind], tb.postings[p.kind]
	L := T - n + 1
	p.walksRecords = byText || words > maxStreamWords
	if p.walksRecords {
		// A term of separators only, or substrings in many words ("a",
		// the "2" of "2,4-d"): such terms are in most records, so the
		// level walks the records themselves newest first (the *_recent
		// index; searches run with enable_seqscan off) and counts every
		// term with strpos on the text, which is the definition of a
		// match. An owner matching L terms holds one of any T-L+1 of them,
		// so no walked-term condition is needed.
		counts := make([]string, len(p.lts))
		for i := range p.lts {
			counts[i] = "(strpos(i.search_text, " + x.text(i) + ") > 0)::int"
		}
		var filt string
		filt = p.cond("i", &x.a)
		sql = "SELECT " + p.cols + ", " + strconv.Itoa(L) + " FROM " + owner + " i WHERE i.tenant_id = $1 AND i.active" + filt +
			" AND " + strings.Join(counts, " + ") + " = " + strconv.Itoa(L) + " ORDER BY i.created_at DESC, i.id LIMIT $2"
		return sql, L == 1, true
	}
	var walk string
	{
		var subs []string
		for _, i := range walked {
			for _, w := range p.lts[i].wids {
				subs = append(subs, "(SELECT p.owner_id, p.created_at, "+termBit(i)+" AS b FROM "+postings+
					" p WHERE p.tenant_id = $1 AND p.word_id = "+x.a.add(w)+" ORDER BY p.created_at DESC, p.owner_id)")
			}
		}
		if len(subs) == 0 {
			// The walked terms are in no word: no owner matches L terms.
			subs = []string{"(SELECT NULL::text AS owner_id, NULL::timestamptz AS created_at, 0::int8 AS b WHERE false)"}
		}
		walk = strings.Join(subs, " UNION ALL ")
		if len(subs) > 1 {
			walk += " ORDER BY created_at DESC, owner_id"
		}
	}
	var filt string
	filt = p.cond("o", &x.a)
	// The exact number of terms owner g matches; terms matched on the text
	// need the owner row o.
	counts := make([]string, 0, T)
	needText := filt != ""
	for i, lt := range p.lts {
		inWalk := slices.Contains(walked, i)
		switch {
		case inWalk && lt.exact:
			counts = append(counts, "(g.bits & "+termBit(i)+" <> 0)::int")
		case inWalk:
			counts = append(counts, "(g.bits & "+termBit(i)+" <> 0 AND strpos(o.search_text, "+x.text(i)+") > 0)::int")
			needText = true
		case lt.exact:
			counts = append(counts, "("+p.probe(i, x)+")::int")
		default:
			counts = append(counts, "(strpos(o.search_text, "+x.text(i)+") > 0)::int")
			needText = true
		}
	}
	cond := strings.Join(counts, " + ") + " = " + strconv.Itoa(L)
	if needText {
		cond = "EXISTS (SELECT FROM " + owner + " o WHERE o.tenant_id = $1 AND o.id = g.owner_id" + filt + " AND " + cond + probeFence + ")"
	}
	if L < T && L > 1 && filt == "" && !needText {
		// Every term exact, no filter: an owner holding one walked term
		// (the usual case) must hold every other term, which a chain of
		// ANDs tests stopping at the first missing one.
		var walkedBits, probes []string
		for _, i := range p.probeOrder() {
			if slices.Contains(walked, i) {
				walkedBits = append(walkedBits, "(g.bits & "+termBit(i)+" <> 0)::int")
			} else {
				probes = append(probes, p.probe(i, x))
			}
		}
		cond = "CASE " + strings.Join(walkedBits, " + ") + " WHEN " + strconv.Itoa(j) + " THEN " + strings.Join(probes, " AND ") +
			" ELSE " + cond + " END"
	}
	if j > 1 {
		// Owners holding fewer than j walked terms are not probed.
		cond = "bit_count(g.bits::bit(64)) >= " + strconv.Itoa(j) + " AND " + cond
	}
	if L == T {
		// Every term must match (one term walked): a chain of ANDs stops at
		// the first term an owner lacks, where the sum above would probe
		// every term. The owner row (text terms, filters) comes last.
		var ands, texts []string
		for _, i := range p.probeOrder() {
			lt := p.lts[i]
			switch {
			case i == walked[0] && lt.exact:
				// Matched: its postings are the walk.
			case lt.exact:
				ands = append(ands, p.probe(i, x))
			default:
				texts = append(texts, "strpos(o.search_text, "+x.text(i)+") > 0")
			}
		}
		if len(texts) > 0 || filt != "" {
			ands = append(ands, "EXISTS (SELECT FROM "+owner+" o WHERE o.tenant_id = $1 AND o.id = g.owner_id"+filt+
				prefixAnd(texts)+probeFence+")")
		}
		cond = "true"
		if len(ands) > 0 {
			cond = strings.Join(ands, " AND ")
		}
	}
	sql = "SELECT " + p.cols + ", " + strconv.Itoa(L) + " FROM (SELECT g.owner_id, g.created_at FROM (" +
		"SELECT x.owner_id, x.created_at, bit_or(x.b) AS bits FROM (" + walk + ") x" +
		" GROUP BY x.created_at, x.owner_id ORDER BY x.created_at DESC, x.owner_id) g WHERE " + cond +
		" ORDER BY g.created_at DESC, g.owner_id LIMIT $2) r JOIN " + owner + " i ON i.tenant_id = $1 AND i.id = r.owner_id" +
		" ORDER BY r.created_at DESC, r.owner_id"
	return sql, L == 1, true
}

// pairWalk reports whether level n (L = T - n + 1 terms matched), whose
// n rarest terms walked have words dictionary words, should walk one term
// more and keep only the owners holding two walked terms: an owner
// matching L of T terms misses at most n - 1, so it holds at least two
// of any n + 1 of them. It does when 1 < L < T, a term is left unwalked,
// the next term is walkable
// in the same way, and the n rarest terms already walk a common one
// (postingsCap postings or more) no rarer than a quarter of the next:
// then every walked owner would be probed (most hold one walked term and
// fail their first probe), where the pairs are few. At 100k items,
// "diflubenzuron 480 sc …" (9 terms) walked "480" (about 5,900 owners)
// at level 7 to find 14 owners: 19 ms.
func (p *lexPlan) pairWalk(n, words int) bool {
	T := len(p.lts)
	L := T - n + 1
	if L <= 1 || L >= T || n+1 >= T {
		return false
	}
	next := &p.lts[p.order[n]]
	if next.run == "" || words+len(next.wids) > maxStreamWords {
		return false
	}
	var walkedDensity float64
	for _, i := range p.order[:n] {
		walkedDensity += p.density(i)
	}
	return walkedDensity > 0 && p.density(p.order[n]) <= 4*walkedDensity
}

// levelSettings returns the settings of the statement last returned by
// levelPair.
func (p *lexPlan) levelSettings() string {
	if p.paired {
		// The two levels' rows must come in their order: a parallel
		// Append could interleave them.
		return lexPairSettings
	}
	if p.walksRecords {
		// The planner, misled by strpos estimates (1 row in 200 for a
		// substring in most records), would rather read every record of
		// the tenant through a bitmap scan and sort them than walk
		// *_recent and stop at the limit (a level over "ec" at 10k
		// items: 41 ms against 0.8 ms). Only here: other statements need
		// bitmap scans.
		return lexWalkLevelSettings
	}
	return lexLevelSettings
}

// short reports whether the level last returned finds fewer than need
// owners for certain: it walks the postings of its rarest terms (p.n of
// them, or one more with pairWalk, whose owners then hold one of the p.n
// too), and those have fewer than need postings, each counted exactly
// (under postingsCap). A level walking the records is never short. The
// counts are those of the word lookups, which the statement's batch
// checks are current (versionMark); a level that returns more anyway is
// cut at the limit like any other.
func (p *lexPlan) short(need int) bool {
	if p.walksRecords || p.n == 0 {
		return false
	}
	var sum int64
	for _, i := range p.order[:p.n] {
		lt := &p.lts[i]
		if lt.run == "" || lt.postings >= int64(postingsCap) {
			return false
		}
		sum += lt.postings
	}
	return sum < int64(need)
}

// lastLevel returns the level (number of terms matched) of the last
// statement level returned, or 0 before the first. When the levels end
// short of the limit, every owner matching at least that many terms has
// been returned.
func (p *lexPlan) lastLevel() int {
	if p.n == 0 {
		return 0
	}
	return len(p.lts) - p.n + 1
}

// bounded returns the statement that ranks the owners matching fewer than
// below terms (those matching below or more are returned already) among
// the owners posted under the walk rarest terms, asking for need: every
// walked owner's matched terms are counted exactly (its bits for the
// walked terms, probes or strpos for the others) and the best need
// returned. It is the score bound of a MaxScore top-k: a term adds at most
// one to an owner's count, so an owner holding none of the walk rarest
// terms matches at most T - walk of the T terms. The result is therefore
// the ranking's next need owners when it holds need owners and the last
// of them matches more than T - walk terms, or when walk is T; otherwise
// the need-th count it found, θ, is a lower bound of the true one, and the
// statement for walk = T - θ + 1 is exact (every owner matching θ or more
// terms holds one of the T - θ + 1 rarest). ok is false when a walked term
// is made of separators (not in the word index).
func (p *lexPlan) bounded(walk, need, below int) (sql string, a args, ok bool) {
	T := len(p.lts)
	walk = min(walk, T)
	walked := p.order[:walk]
	for _, i := range walked {
		if p.lts[i].run == "" {
			return "", nil, false
		}
	}
	owner, x, subs, filt := p.walkSetup(walked, need)
	needText := filt != ""
	counts := make([]string, 0, T)
	for i, lt := range p.lts {
		switch inWalk := slices.Contains(walked, i); {
		case inWalk && lt.exact:
			counts = append(counts, "(g.bits & "+termBit(i)+" <> 0)::int")
		case inWalk:
			counts = append(counts, "(g.bits & "+termBit(i)+" <> 0 AND strpos(o.search_text, "+x.text(i)+") > 0)::int")
			needText = true
		case lt.exact && len(lt.wids) == 0:
			// In no dictionary word: matches nothing.
		case lt.exact:
			counts = append(counts, "("+p.probe(i, x)+")::int")
		default:
			counts = append(counts, "(strpos(o.search_text, "+x.text(i)+") > 0)::int")
			needText = true
		}
	}
	from := "(SELECT x.owner_id, x.created_at, bit_or(x.b) AS bits FROM (" + strings.Join(subs, " UNION ALL ") +
		") x GROUP BY x.owner_id, x.created_at) g"
	if needText {
		from += " JOIN " + owner + " o ON o.tenant_id = $1 AND o.id = g.owner_id" + filt
	}
	// OFFSET 0: each owner's count (its probes) is computed once; pulled
	// up, it was computed for each of the two filters on c.m and again
	// for the ORDER BY (three probes of every term per walked owner).
	ranked := "SELECT c.owner_id, c.created_at, c.m FROM (SELECT g.owner_id, g.created_at, (" + strings.Join(counts, " + ") +
		")::int4 AS m FROM " + from + " OFFSET 0) c WHERE c.m > 0 AND c.m < " + strconv.Itoa(below) +
		" ORDER BY c.m DESC, c.created_at DESC, c.owner_id LIMIT $2"
	return "SELECT " + p.cols + ", r.m FROM (" + ranked + ") r JOIN " + owner + " i ON i.tenant_id = $1 AND i.id = r.owner_id" +
		" ORDER BY r.m DESC, r.created_at DESC, r.owner_id", x.a, true
}

// commonDensity is the share of the owners (lexPlan.density) from which a
// term is common: maxScore probes it for the candidates instead of walking
// its postings. At 100k items the slow questions' walked terms hold
// 0–4% of the records and their common terms 10–100%. It is a variable
// for tests.
var commonDensity = 0.10

// maxScoreRows is how many of the best candidates by walked terms
// maxScore counts exactly to find its threshold, in multiples of the
// limit (the owners the levels returned are among them).
const maxScoreRows = 8

// maxScoreMargin bounds the terms maxScore leaves out of its walk to
// below - maxScoreMargin: its threshold, at most below - 1 and often 2–3
// less (the slow questions at 100k: levels ending at 15, 9, 7, 6,
// thresholds 8, 7, 5, 4), must exceed them, and the candidates of a
// threshold that is 2 more than them hold two walked terms, not one.
const maxScoreMargin = 4

// maxScoreSample bounds the candidates maxScore counts for its threshold.
const maxScoreSample = 2048

// levelsBatched counts the levels sent in one statement with the level
// before them (lexPlan.levelPair), for tests.
var levelsBatched atomic.Int64

// maxScoreKept counts the maxScore rankings kept, for tests.
var maxScoreKept atomic.Int64

// commonTerms returns how many of the commonest terms (the end of the
// walk order) maxScore leaves out of its walk, for a ranking below level
// below: the terms in more than maxStreamWords dictionary words or made of
// separators, and those whose density is at least commonDensity, but at
// most below - maxScoreMargin (at least 1), never every term, and 0 when
// the rest are not all walkable.
func (p *lexPlan) commonTerms(below int) int {
	c := 0
	for k := len(p.order) - 1; k > 0; k-- {
		lt := &p.lts[p.order[k]]
		if lt.run != "" && len(lt.wids) <= maxStreamWords && p.density(p.order[k]) < commonDensity {
			break
		}
		c++
	}
	c = min(c, max(below-maxScoreMargin, 1))
	// The walked terms must be walkable: the order puts separator terms
	// and terms in many words last, so they are among the c left out.
	for _, i := range p.order[:len(p.order)-c] {
		if p.lts[i].run == "" {
			return 0
		}
	}
	return c
}

// maxScore returns the statement of an exact score-bounded top-k
// (MaxScore) of the owners matching fewer than below terms, asking for
// need of the search's limit, whose c commonest terms (commonTerms) are
// only probed, never walked. A term adds at most one to an owner's count,
// so, in one statement (its postings walked once):
//
//   - the candidates are the owners posted under the T - c walked terms,
//     each with e, the walked terms it holds (an upper bound when a
//     walked term is confirmed with strpos);
//   - the threshold θ: the maxScoreRows × limit candidates with the
//     highest e are counted exactly (probes of the c terms), and θ, the
//     need-th best count below below among them, is a lower bound of the
//     ranking's need-th count (0 when they hold fewer than need owners);
//   - when θ > c, an owner matching θ terms or more holds at least θ - c
//     walked terms, so it is a candidate with e ≥ θ - c; those are
//     counted exactly and ranked. A candidate with e + c = θ reaches θ
//     only if it holds every common term: a chain of ANDed probes,
//     cheapest first, stops at the first it lacks (most candidates of a
//     long question hold few walked terms and lack a common one).
//
// The statement returns the next need owners of the ranking exactly when
// θ > c; otherwise no row (an owner holding no walked term could reach
// θ), and the caller ranks another way. At 100k items, the 10-term
// question "osbar 500 wp …" walks 18,432 postings (16,528 candidates),
// counts 480 for θ = 5 and ranks the 1,619 with e ≥ 2: 32 ms where the
// full count walked every posting of every term (64 ms).
func (p *lexPlan) maxScore(c, need, below, limit int) (string, args) {
	T := len(p.lts)
	walked := p.order[:T-c]
	owner, x, subs, filt := p.walkSetup(walked, need)
	needText := filt != ""
	// walkedCount: the walked terms g holds, exactly; probes: whether g
	// holds each left-out term, cheapest first.
	var walkedCount, probes []string
	for _, i := range walked {
		lt := &p.lts[i]
		if lt.exact {
			walkedCount = append(walkedCount, "(g.bits & "+termBit(i)+" <> 0)::int")
		} else {
			walkedCount = append(walkedCount, "(g.bits & "+termBit(i)+" <> 0 AND strpos(o.search_text, "+x.text(i)+") > 0)::int")
			needText = true
		}
	}
	for _, i := range p.probeOrder() {
		if slices.Contains(walked, i) {
			continue
		}
		lt := &p.lts[i]
		switch {
		case lt.exact && len(lt.wids) == 0:
			probes = append(probes, "false")
		case lt.exact:
			probes = append(probes, p.probe(i, x))
		default:
			probes = append(probes, "strpos(o.search_text, "+x.text(i)+") > 0")
			needText = true
		}
	}
	counts := slices.Clone(walkedCount)
	for _, pr := range probes {
		counts = append(counts, "("+pr+")::int")
	}
	count := "(" + strings.Join(counts, " + ") + ")::int4"
	join := ""
	if needText {
		join = " JOIN " + owner + " o ON o.tenant_id = $1 AND o.id = g.owner_id"
	}
	// e is the number of bits set: the walk tags postings of walked terms
	// only (one bit_count where a sum of a test per term cost 2.4 of 32
	// ms for "osbar 500 wp …").
	cand := "WITH cand AS MATERIALIZED (SELECT g.owner_id, g.created_at, g.bits, bit_count(g.bits::bit(64))::int4 AS e FROM (" +
		"SELECT x.owner_id, x.created_at, bit_or(x.b) AS bits FROM (" + strings.Join(subs, " UNION ALL ") +
		") x GROUP BY x.owner_id, x.created_at) g)"
	bl := strconv.Itoa(below)
	// θ: the need-th best count below below among the candidates with the
	// most walked terms, each counted once (OFFSET 0); 0 when they hold
	// fewer than need such owners.
	top := x.a.add(min(maxScoreRows*limit, maxScoreSample))
	th := "th AS MATERIALIZED (SELECT coalesce((SELECT c.m FROM (SELECT " + count + " AS m FROM (SELECT g.* FROM cand g" + join + filt +
		" ORDER BY g.e DESC, g.created_at DESC, g.owner_id LIMIT " + top + ") g" + join + " OFFSET 0) c" +
		" WHERE c.m > 0 AND c.m < " + bl + " ORDER BY c.m DESC OFFSET $2::int8 - 1 LIMIT 1), 0) AS t) "
	// Every candidate that can reach θ, counted exactly once (OFFSET 0);
	// a count below θ is not needed (0). No row when θ ≤ c.
	cs := strconv.Itoa(c)
	sql := cand + ", " + th + "SELECT " + p.cols + ", r.m FROM (SELECT f.owner_id, f.created_at, f.m FROM (SELECT g.owner_id, g.created_at," +
		" CASE WHEN g.e + " + cs + " > th.t THEN " + count +
		" WHEN " + strings.Join(probes, " AND ") + " THEN (" + strings.Join(walkedCount, " + ") + " + " + cs + ")::int4 ELSE 0 END AS m" +
		" FROM th, cand g" + join + filt + " WHERE th.t > " + cs + " AND g.e >= th.t - " + cs + " OFFSET 0) f" +
		" WHERE f.m >= (SELECT th.t FROM th) AND f.m < " + bl + " ORDER BY f.m DESC, f.created_at DESC, f.owner_id LIMIT $2) r" +
		" JOIN " + owner + " i ON i.tenant_id = $1 AND i.id = r.owner_id ORDER BY r.m DESC, r.created_at DESC, r.owner_id"
	return sql, x.a
}

// rareWalk returns how many of the rarest terms (in walk order) have
// fewer than postingsCap postings, counted exactly, and can be walked
// (not made of separators): walking them all reads fewer than
// postingsCap postings each. A 9-term question at 100k items whose
// bounded ranking found count 1 after walking its 2 rarest terms walked
// all 9 next (62,635 postings, 60 ms) where its 6 rare terms (490
// postings) held the ranking (its 37th owner matched 4 terms).
func (p *lexPlan) rareWalk() int {
	n := 0
	for _, i := range p.order {
		lt := &p.lts[i]
		if lt.run == "" || lt.postings >= int64(postingsCap) {
			break
		}
		n++
	}
	return n
}

// density estimates the share of the tenant's owners holding term i: its
// postings among the newest owners for a term counted to postingsCap, 0
// for rarer terms (below postingsCap in all, negligible next to those).
func (p *lexPlan) density(i int) float64 {
	lt := &p.lts[i]
	if lt.postings < int64(postingsCap) {
		return 0
	}
	return float64(lt.recent) / float64(sampleOwners)
}

// probeCost is how many times more one posting probe (an index descent)
// costs than reading one posting in a scan of a word's postings, roughly,
// as measured at 100k items: bounded's probes of the walked owners against
// full's scan of every posting.
const probeCost = 20

// boundedPays reports whether bounded(walk, ...) should cost less than
// full: it probes each owner of the walked terms' postings once per
// dictionary word of every other term, where full reads every posting of
// every term once.
//
// It also reports false when the walked terms' postings are counted
// exactly (each below postingsCap) and number fewer than need: they hold
// fewer than need owners, so the bounded ranking could not be kept and
// full would run after it.
func (p *lexPlan) boundedPays(walk, need int) bool {
	var walked, all float64
	probes := 0
	var postings int64
	capped := false
	for k, i := range p.order {
		d := p.density(i)
		all += d
		if k < walk {
			walked += d
			postings += p.lts[i].postings
			capped = capped || p.lts[i].postings >= int64(postingsCap)
		} else if p.lts[i].exact {
			probes += p.probeWords(i)
		}
	}
	if !capped && postings < int64(need) {
		return false
	}
	return walked*float64(probes)*probeCost < all
}

// full returns the statement counting, for every owner in any term's
// postings, the terms it matches, and ranking them. Each term's branch
// tags its rows with the term's bit and one aggregate ORs them per owner:
// an owner posted under several words of a term is counted once without
// a DISTINCT per term (the slowest question of the lexical tail at 100k,
// 9 terms, 65,000 postings, the two statements alternated 8 times: 111–425
// ms, median 169, with a hashed DISTINCT per term; 60–81 ms, median 74,
// so; load 9–10).
func (p *lexPlan) full(limit int) (string, args) {
	tb := &p.s.db.tb
	owner, postings := tb.owners[p.kind], tb.postings[p.kind]
	x := newLexArgs(p.s.tenant, limit, p.lts)
	hits := make([]string, 0, len(p.lts))
	counts := make([]string, 0, len(p.lts))
	for i, lt := range p.lts {
		bit := termBit(i)
		counts = append(counts, "(g.bits & "+bit+" <> 0)::int")
		switch {
		case lt.run == "":
			hits = append(hits, "SELECT o.id AS owner_id, o.created_at, "+bit+" AS b FROM "+owner+
				" o WHERE o.tenant_id = $1 AND o.active AND strpos(o.search_text, "+x.text(i)+") > 0")
		case lt.exact:
			hits = append(hits, "SELECT p.owner_id, p.created_at, "+bit+" AS b FROM "+postings+
				" p WHERE p.tenant_id = $1 AND p.word_id = ANY("+x.wordIDs(i)+")")
		default:
			hits = append(hits, "SELECT o.id AS owner_id, o.created_at, "+bit+" AS b FROM "+owner+
				" o WHERE o.tenant_id = $1 AND o.id = ANY(ARRAY(SELECT DISTINCT p.owner_id FROM "+postings+
				" p WHERE p.tenant_id = $1 AND p.word_id = ANY("+x.wordIDs(i)+")))"+
				" AND o.active AND strpos(o.search_text, "+x.text(i)+") > 0")
		}
	}
	ranked := "SELECT c.owner_id, c.created_at, c.m FROM (SELECT g.owner_id, g.created_at, (" + strings.Join(counts, " + ") +
		")::int4 AS m FROM (SELECT h.owner_id, h.created_at, bit_or(h.b) AS bits FROM (" +
		strings.Join(hits, "\n\tUNION ALL ") + ") h GROUP BY h.owner_id, h.created_at) g) c"
	if p.hasCond() {
		ranked += " JOIN " + owner + " o ON o.tenant_id = $1 AND o.id = c.owner_id WHERE o.active" + p.cond("o", &x.a)
	}
	ranked += " ORDER BY c.m DESC, c.created_at DESC, c.owner_id LIMIT $2"
	return "SELECT " + p.cols + ", r.m FROM (" + ranked + ") r JOIN " + owner + " i ON i.tenant_id = $1 AND i.id = r.owner_id" +
		" ORDER BY r.m DESC, r.created_at DESC, r.owner_id", x.a
}

// prefixAnd returns " AND c1 AND c2 ..." for conds, or "".
func prefixAnd(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return " AND " + strings.Join(conds, " AND ")
}

// restriction is a lexical query's OwnerIDs and ChunkFilters (grouped).
type restriction struct {
	ownerIDs []string
	groups   []storeutil.ChunkFilterGroup
}

func (r restriction) none() bool { return len(r.ownerIDs) == 0 && len(r.groups) == 0 }

// ownerSQL returns the " AND ..." conditions on the owner alias o: listed,
// and holding a chunk that passes the chunk filters (a probe of the
// owner's chunks by primary key).
func (r restriction) ownerSQL(s *Store, kind storage.OwnerKind, o string, a *args) string {
	if r.none() {
		return ""
	}
	var b strings.Builder
	if len(r.ownerIDs) > 0 {
		b.WriteString(" AND " + o + ".id = ANY(" + a.add(r.ownerIDs) + "::text[])")
	}
	if len(r.groups) > 0 {
		b.WriteString(" AND EXISTS (SELECT FROM " + s.db.tb.meta[kind] + " m WHERE " +
			metaSQL(s.db.tb.meta[kind], "m", o+".tenant_id", nil, r.groups, a) + " AND m.owner_id = " + o + ".id)")
	}
	return b.String()
}

// restrictedLexical returns the statement ranking the owners the
// restriction admits by the terms each matches, counted exactly per owner,
// for a restriction admitting few: the listed owners, or the owners of at
// most exactScanChunks chunks passing the chunk filters (the GIN index on
// normalized chunk metadata). Each row ends with the term count and with
// how many chunks pass the chunk filters, up to exactScanChunks + 1 (0
// without chunk filters); counted reports chunk filters: the ranking is
// the search's only when that count is at most exactScanChunks (with
// more, the levels walk the terms' postings and probe each walked owner's
// chunks, restriction.ownerSQL), and a ranking with no row carries no
// count. A term is counted with strpos on the owner's search text,
// except an exact term in fewer than postingsCap postings (lts looked
// up), counted by whether the owner is among its postings' owners (one
// hashed read of them: such a term is absent from most of the owners,
// whose whole text strpos would read), and, for documents (long texts), a
// term without separators in at most maxProbeWords dictionary words,
// counted by probing its postings.
//
// lts are the terms' words (lookupTerms) or, for items and FAQs, nil: the
// terms are then all counted with strpos.
func restrictedLexical(s *Store, kind storage.OwnerKind, cols string, terms []string, lts []lexTerm, filters []storage.Filter, r restriction, limit int) (string, args, bool) {
	tb := &s.db.tb
	owner, postings := tb.owners[kind], tb.postings[kind]
	if lts == nil {
		lts = make([]lexTerm, len(terms))
		for i, t := range terms {
			lts[i] = lexTerm{text: t}
		}
	}
	x := newLexArgs(s.tenant, limit, lts)
	counts := []string{"0"}
	for i, lt := range lts {
		switch {
		case lt.exact && len(lt.wids) == 0:
			// In no dictionary word: matches nothing.
		case kind == storage.KindDocument && lt.exact && len(lt.wids) <= maxProbeWords:
			counts = append(counts, "(EXISTS (SELECT FROM "+postings+" q WHERE q.tenant_id = $1 AND q.word_id = ANY("+x.wordIDs(i)+
				") AND q.created_at = o.created_at AND q.owner_id = o.id))::int")
		case lt.exact && lt.postings < int64(postingsCap):
			counts = append(counts, "(o.id IN (SELECT q.owner_id FROM "+postings+" q WHERE q.tenant_id = $1 AND q.word_id = ANY("+
				x.wordIDs(i)+")))::int")
		default:
			counts = append(counts, "(strpos(o.search_text, "+x.text(i)+") > 0)::int")
		}
	}
	var with, ids, n string
	counted := len(r.groups) > 0
	if counted {
		lim := x.a.add(exactScanChunks + 1)
		with = "WITH f AS MATERIALIZED (SELECT m.owner_id FROM " + tb.meta[kind] + " m WHERE " +
			metaSQL(tb.meta[kind], "m", "$1", r.ownerIDs, r.groups, &x.a) + " LIMIT " + lim + ") "
		ids = "ARRAY(SELECT f.owner_id FROM f)"
		n = "(SELECT count(*) FROM f)"
	} else {
		ids = x.a.add(r.ownerIDs) + "::text[]"
		n = "0::int8"
	}
	filt := filterSQL("o", filters, &x.a)
	// OFFSET 0: the counts are computed once per owner; pulled up, they
	// were computed for the filter m > 0 and again for the ORDER BY.
	ranked := "SELECT o.id, o.created_at, (" + strings.Join(counts, " + ") + ")::int4 AS m FROM " + owner +
		" o WHERE o.tenant_id = $1 AND o.id = ANY(" + ids + ") AND o.active" + filt + " OFFSET 0"
	// The best limit owners are chosen before their records are read: with
	// the LIMIT after the join, the planner read the record of every
	// owner matching a term (609 of 1,000 admitted, at 100k items) and
	// sorted the wide rows.
	return with + "SELECT " + cols + ", r.m, " + n + " FROM (SELECT r.id, r.created_at, r.m FROM (" + ranked + ") r" +
		" WHERE r.m > 0 ORDER BY r.m DESC, r.created_at DESC, r.id LIMIT $2) r JOIN " + owner + " i ON i.tenant_id = $1 AND i.id = r.id" +
		" ORDER BY r.m DESC, r.created_at DESC, r.id", x.a, counted
}

// maxProbeWords is the most dictionary words of a term whose postings a
// restricted document search probes instead of reading the text.
const maxProbeWords = 4

// walkSetup returns what a walk of the walked terms' postings starts
// from: the owners table, the statement's arguments (need the row count
// wanted), the walked terms' SELECTs (walkedPostings) and the filter's
// condition on owners aliased "o".
func (p *lexPlan) walkSetup(walked []int, need int) (owner string, x *lexArgs, subs []string, filt string) {
	tb := &p.s.db.tb
	owner = tb.owners[p.kind]
	x = newLexArgs(p.s.tenant, need, p.lts)
	subs = p.walkedPostings(walked, tb.postings[p.kind], x)
	return owner, x, subs, p.cond("o", &x.a)
}

// walkedPostings returns one SELECT per walked term with word IDs: its
// postings' owners tagged with the term's bit; a SELECT of no row when
// none has any.
func (p *lexPlan) walkedPostings(walked []int, postings string, x *lexArgs) []string {
	var subs []string
	for _, i := range walked {
		if len(p.lts[i].wids) == 0 {
			continue
		}
		subs = append(subs, "SELECT p.owner_id, p.created_at, "+termBit(i)+" AS b FROM "+postings+
			" p WHERE p.tenant_id = $1 AND p.word_id = ANY("+x.wordIDs(i)+")")
	}
	if len(subs) == 0 {
		subs = []string{"SELECT NULL::text AS owner_id, NULL::timestamptz AS created_at, 0::int8 AS b WHERE false"}
	}
	return subs
}
