package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hybridrag/hybridrag/storage"
)

// searchLexical returns lexical candidates among the active records of
// kind k, ranked by the number of distinct terms matched, then CreatedAt
// descending, then ID: exactly the memory store's results. It reads the
// kind's word index (migration 0003), in one transaction: lookupTerms finds
// each term's dictionary words, then lexicalSQL ranks their postings.
func searchLexical[T any](ctx context.Context, s *Store, k pgKind[T], q storage.LexicalQuery) ([]storage.LexicalCandidate[T], error) {
	kind := k.kind
	if err := storage.ValidateFilters(kind, q.Filters, s.db.opts.AllowedMetadataKeys); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	terms := storage.NormalizeTerms(q.Terms)
	// Stored text never holds NUL (storage.ValidText), so such terms match
	// nothing; PostgreSQL could not even receive them.
	terms = dropNUL(terms)
	if len(terms) == 0 {
		return nil, s.db.ensure(ctx)
	}
	limit := storage.ClampLimit(q.Limit)
	var out []storage.LexicalCandidate[T]
	err := s.withConn(ctx, func(conn *pgxpool.Conn) error {
		return pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
			// JIT compilation costs more than these queries, whose cost
			// estimates are high (the postings of a common word) but whose
			// work is mostly index lookups.
			if _, err := tx.Exec(ctx, "SET LOCAL jit = off"); err != nil {
				return wrapCtx(ctx, "search "+string(kind)+"s: settings", err)
			}
			lts, err := s.lookupTerms(ctx, tx, kind, terms)
			if err != nil {
				return wrapCtx(ctx, "search "+string(kind)+"s: look up words", err)
			}
			sql, a := s.lexicalSQL(kind, k.selectList(&s.db.tb), lts, q.Filters, limit)
			// QueryExecModeExec: an unnamed statement, planned with the
			// actual words. A cached generic plan would be one plan for
			// every query.
			rows, err := tx.Query(ctx, sql, append([]any{pgx.QueryExecModeExec}, a...)...)
			if err != nil {
				return wrapCtx(ctx, "search "+string(kind)+"s", err)
			}
			out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.LexicalCandidate[T], error) {
				var m int32
				rec, err := k.scan(r, &m)
				return storage.LexicalCandidate[T]{Record: rec, TermsMatched: int(m)}, err
			})
			if err != nil {
				return wrapCtx(ctx, "search "+string(kind)+"s", err)
			}
			return nil
		})
	})
	return out, err
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

// minTrigramRunes is the shortest string the trigram index can look up:
// pg_trgm extracts no trigram from shorter LIKE patterns and would read the
// whole index, so shorter strings scan the tenant's dictionary instead.
const minTrigramRunes = 3

// postingsCap bounds the postings counted per term by lookupTerms: enough
// to tell a rare term from a common one.
const postingsCap = 2048

// maxMergedWords is the most dictionary words whose postings the
// newest-first walk merges in order (one index scan each); a rarest term
// with more words is sorted instead.
const maxMergedWords = 8

// probeFence ends every probe subquery of the walk (EXISTS): with OFFSET,
// PostgreSQL neither pulls an EXISTS up into a semi-join nor turns it into
// a hashed subplan, both of which read every row the probe could match
// (every owner, for a strpos probe) before the walk's first row; the probe
// stays an index lookup per walked row, and the walk stops at the limit.
const probeFence = " OFFSET 0"

// lexTerm is one normalized query term and what the word index holds for
// it.
type lexTerm struct {
	text string
	// run is the term's longest run of non-separator bytes; "" when the
	// term is made of separators only.
	run string
	// exact: the term has no separator, so the postings of words are its
	// matches; otherwise they are candidates confirmed with strpos.
	exact bool
	// wids are the dictionary words containing run.
	wids []int64
	// postings is the number of postings of wids, at most postingsCap.
	postings int64
}

// lookupTerms finds, in one statement, the dictionary words containing
// each term's longest run and counts (up to postingsCap) their postings.
func (s *Store) lookupTerms(ctx context.Context, tx pgx.Tx, kind storage.OwnerKind, terms []string) ([]lexTerm, error) {
	lts := make([]lexTerm, len(terms))
	a := args{s.tenant}
	var parts []string
	for i, t := range terms {
		lt := lexTerm{text: t}
		runs := 0
		eachWord(t, func(w string) {
			runs++
			if len(w) > len(lt.run) {
				lt.run = w
			}
		})
		lt.exact = runs == 1 && len(lt.run) == len(t)
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
		parts = append(parts, "SELECT "+strconv.Itoa(i)+", w.ids, (SELECT count(*) FROM (SELECT FROM "+s.db.tb.postings[kind]+
			" p WHERE p.tenant_id = $1 AND p.word_id = ANY(w.ids) LIMIT "+strconv.Itoa(postingsCap)+") x)"+
			" FROM (SELECT ARRAY(SELECT d.id FROM "+s.db.tb.words[kind]+" d WHERE d.tenant_id = $1 AND "+cond+" ORDER BY d.id) AS ids) w")
	}
	if len(parts) == 0 {
		return lts, nil
	}
	rows, err := tx.Query(ctx, strings.Join(parts, "\nUNION ALL "), append([]any{pgx.QueryExecModeExec}, a...)...)
	if err != nil {
		return nil, err
	}
	var (
		i    int32
		ids  []int64
		npos int64
	)
	_, err = pgx.ForEachRow(rows, []any{&i, &ids, &npos}, func() error {
		if int(i) < len(lts) {
			lts[i].wids, lts[i].postings = ids, npos
		}
		return nil
	})
	return lts, err
}

// lexicalSQL builds the ranking query over terms looked up by lookupTerms:
// exact, and bounded by the postings of the terms rather than by the
// number of records.
//
// A term without separators (see isWordSep) is contained in a text exactly
// when it is contained in one of its words, so its matches are the
// postings of its dictionary words; a term with separators ("2,4-d") takes
// the owners posted under the words containing its longest run and
// confirms each with strpos on the owner's search text; a term made only
// of separators ("%") is checked with strpos against every active owner.
// Postings exist for active owners only and carry the owner's created_at.
//
// The query runs in two phases:
//
//  1. p1 walks the postings of the rarest term newest first (one ordered
//     index scan per word, merged) and keeps the owners matching every
//     term, up to the limit: each other term is probed with one index
//     lookup in its words' postings (or strpos). When it finds limit
//     owners, they are the answer: no owner matches more terms, and
//     these are the newest of those matching all. With one term, p1 is
//     the answer whatever it finds.
//  2. Otherwise (only then: PostgreSQL skips a subplan whose one-time
//     filter is false), c counts the terms each owner matches over the
//     union of the terms' postings and ranks them.
func (s *Store) lexicalSQL(kind storage.OwnerKind, cols string, lts []lexTerm, filters []storage.Filter, limit int) (string, args) {
	tb := &s.db.tb
	owner, postings := tb.owners[kind], tb.postings[kind]
	a := args{s.tenant, limit}
	T := strconv.Itoa(len(lts))
	// Parameters are added when first used: PostgreSQL cannot type an
	// unused one.
	idsP := make([]string, len(lts))
	rawP := make([]string, len(lts))
	ids := func(i int) string {
		if idsP[i] == "" {
			idsP[i] = a.add(lts[i].wids)
		}
		return idsP[i]
	}
	raw := func(i int) string {
		if rawP[i] == "" {
			rawP[i] = a.add(lts[i].text)
		}
		return rawP[i]
	}
	// The rarest term walkable through postings.
	r := -1
	for i, lt := range lts {
		if lt.run != "" && (r < 0 || lt.postings < lts[r].postings || lt.postings == lts[r].postings && lt.exact && !lts[r].exact) {
			r = i
		}
	}
	var filt string
	if len(filters) > 0 {
		filt = filterSQL("o", filters, &a)
	}

	var b strings.Builder
	b.WriteString("WITH ")
	gate, top := "", ""
	if r >= 0 {
		// Phase 1.
		var walk string
		rt := lts[r]
		if n := len(rt.wids); n >= 1 && n <= maxMergedWords {
			subs := make([]string, n)
			for j, w := range rt.wids {
				sub := "(SELECT p.owner_id, p.created_at FROM " + postings + " p WHERE p.tenant_id = $1 AND p.word_id = " + a.add(w)
				if j > 0 {
					// An owner holding several of the words is walked once,
					// under the first.
					sub += " AND NOT EXISTS (SELECT FROM " + postings + " q WHERE q.tenant_id = $1 AND q.word_id = ANY(" +
						a.add(rt.wids[:j]) + ") AND q.created_at = p.created_at AND q.owner_id = p.owner_id" + probeFence + ")"
				}
				subs[j] = sub + " ORDER BY p.created_at DESC, p.owner_id)"
			}
			walk = strings.Join(subs, " UNION ALL ")
			if n > 1 {
				walk += " ORDER BY created_at DESC, owner_id"
			}
		} else {
			walk = "SELECT DISTINCT p.owner_id, p.created_at FROM " + postings + " p WHERE p.tenant_id = $1 AND p.word_id = ANY(" +
				ids(r) + ") ORDER BY p.created_at DESC, p.owner_id"
		}
		var conds, text []string
		for i, lt := range lts {
			if !lt.exact {
				text = append(text, "strpos(o.search_text, "+raw(i)+") > 0")
			} else if i != r {
				conds = append(conds, "EXISTS (SELECT FROM "+postings+" q WHERE q.tenant_id = $1 AND q.word_id = ANY("+ids(i)+
					") AND q.created_at = u.created_at AND q.owner_id = u.owner_id"+probeFence+")")
			}
		}
		if len(text) > 0 || filt != "" {
			conds = append(conds, "EXISTS (SELECT FROM "+owner+" o WHERE o.tenant_id = $1 AND o.id = u.owner_id"+
				prefixAnd(text)+filt+probeFence+")")
		}
		where := ""
		if len(conds) > 0 {
			where = " WHERE " + strings.Join(conds, " AND ")
		}
		// The ORDER BY states the order the walk already has (it costs
		// nothing then) and guarantees it whatever the plan.
		b.WriteString("p1 AS MATERIALIZED (SELECT u.owner_id, u.created_at FROM (" + walk + ") u" + where +
			" ORDER BY u.created_at DESC, u.owner_id LIMIT $2)")
		if len(lts) == 1 {
			b.WriteString("\nSELECT " + cols + ", 1 FROM p1 JOIN " + owner + " i ON i.tenant_id = $1 AND i.id = p1.owner_id" +
				" ORDER BY p1.created_at DESC, p1.owner_id")
			return b.String(), a
		}
		b.WriteString(",\n")
		enough := "(SELECT count(*) FROM p1)"
		if p2 := s.streamSQL(kind, lts, filt, &a); p2 != "" {
			b.WriteString(p2)
			enough += " + (SELECT count(*) FROM p2)"
		}
		gate = " AND " + enough + " < $2"
		top = "SELECT owner_id, created_at, " + T + "::int4 AS m FROM p1 WHERE " + enough + " >= $2"
		if strings.Contains(enough, "p2") {
			top += "\n\tUNION ALL SELECT owner_id, created_at, " + strconv.Itoa(len(lts)-1) + " FROM p2 WHERE " + enough + " >= $2"
		}
	}

	// Phase 2: one branch per term, each owner at most once.
	hits := make([]string, 0, len(lts))
	for i, lt := range lts {
		switch {
		case lt.run == "":
			hits = append(hits, "SELECT o.id AS owner_id, o.created_at FROM "+owner+
				" o WHERE o.tenant_id = $1 AND o.active AND strpos(o.search_text, "+raw(i)+") > 0"+gate)
		case lt.exact && len(lt.wids) <= 1:
			hits = append(hits, "SELECT p.owner_id, p.created_at FROM "+postings+
				" p WHERE p.tenant_id = $1 AND p.word_id = ANY("+ids(i)+")"+gate)
		case lt.exact:
			hits = append(hits, "SELECT DISTINCT p.owner_id, p.created_at FROM "+postings+
				" p WHERE p.tenant_id = $1 AND p.word_id = ANY("+ids(i)+")"+gate)
		default:
			hits = append(hits, "SELECT o.id AS owner_id, o.created_at FROM "+owner+
				" o WHERE o.tenant_id = $1 AND o.id = ANY(ARRAY(SELECT DISTINCT p.owner_id FROM "+postings+
				" p WHERE p.tenant_id = $1 AND p.word_id = ANY("+ids(i)+")"+gate+"))"+
				" AND o.active AND strpos(o.search_text, "+raw(i)+") > 0"+gate)
		}
	}
	b.WriteString("c AS (SELECT h.owner_id, h.created_at, count(*)::int4 AS m FROM (" +
		strings.Join(hits, "\n\tUNION ALL ") + ") h GROUP BY h.owner_id, h.created_at),\n")
	ranked := "SELECT c.owner_id, c.created_at, c.m FROM c"
	if filt != "" {
		ranked += " JOIN " + owner + " o ON o.tenant_id = $1 AND o.id = c.owner_id WHERE o.active" + filt
	}
	ranked += " ORDER BY c.m DESC, c.created_at DESC, c.owner_id LIMIT $2"
	if top != "" {
		b.WriteString("r AS (" + top + "\n\tUNION ALL (" + ranked + "))\n")
	} else {
		b.WriteString("r AS (" + ranked + ")\n")
	}
	b.WriteString("SELECT " + cols + ", r.m FROM r JOIN " + owner + " i ON i.tenant_id = $1 AND i.id = r.owner_id" +
		" ORDER BY r.m DESC, r.created_at DESC, r.owner_id")
	return b.String(), a
}

// maxStreamWords is the most dictionary words (over all terms) whose
// postings streamSQL merges, one ordered index scan each.
const maxStreamWords = 32

// streamSQL returns the CTE p2 of lexicalSQL's second phase, or "" when it
// does not apply. When the walk p1 found fewer than the limit's owners
// matching every term, p1 holds all of them, and the next best owners are
// those matching all terms but one, newest first. p2 finds them by merging
// the postings of every word of every term newest first (the postings of
// one owner are then adjacent, so grouping them yields the exact set of
// terms it matches) and stops at the limit. It applies when every term is
// exact (no separators), between two and 62 terms, with at most
// maxStreamWords words in all; otherwise, and when p2 falls short too, the
// full count runs.
func (s *Store) streamSQL(kind storage.OwnerKind, lts []lexTerm, filt string, a *args) string {
	if len(lts) < 2 || len(lts) > 62 {
		return ""
	}
	words := 0
	for _, lt := range lts {
		if !lt.exact {
			return ""
		}
		words += len(lt.wids)
	}
	if words == 0 || words > maxStreamWords {
		return ""
	}
	postings := s.db.tb.postings[kind]
	var subs []string
	for i, lt := range lts {
		for _, w := range lt.wids {
			subs = append(subs, "(SELECT p.owner_id, p.created_at, "+strconv.FormatInt(int64(1)<<i, 10)+"::int8 AS b FROM "+postings+
				" p WHERE p.tenant_id = $1 AND p.word_id = "+a.add(w)+" ORDER BY p.created_at DESC, p.owner_id)")
		}
	}
	// missing is the set of terms an owner lacks: exactly one bit.
	missing := "(" + strconv.FormatInt(int64(1)<<len(lts)-1, 10) + "::int8 # g.bits)"
	cond := missing + " <> 0 AND (" + missing + " & (" + missing + " - 1)) = 0"
	if filt != "" {
		cond += " AND EXISTS (SELECT FROM " + s.db.tb.owners[kind] + " o WHERE o.tenant_id = $1 AND o.id = g.owner_id" +
			filt + probeFence + ")"
	}
	merged := strings.Join(subs, " UNION ALL ")
	if len(subs) > 1 {
		merged += " ORDER BY created_at DESC, owner_id"
	}
	return "p2 AS MATERIALIZED (SELECT g.owner_id, g.created_at FROM (SELECT x.owner_id, x.created_at, bit_or(x.b) AS bits FROM (" +
		merged + ") x" +
		" GROUP BY x.created_at, x.owner_id ORDER BY x.created_at DESC, x.owner_id) g WHERE " + cond +
		" LIMIT $2 - (SELECT count(*) FROM p1)),\n"
}

// prefixAnd returns " AND c1 AND c2 ..." for conds, or "".
func prefixAnd(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return " AND " + strings.Join(conds, " AND ")
}
