package postgres

import (
	"cmp"
	"context"
	"fmt"
	"slices"
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
			// work is mostly index lookups. The full count of a query whose
			// levels fall short hashes every owner of its terms' postings:
			// 59k owners of 100k took 8 MB and spilled to disk at the
			// default 4 MB.
			if _, err := tx.Exec(ctx, "SET LOCAL jit = off; SET LOCAL work_mem = '32MB'"); err != nil {
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

// maxStreamWords is the most dictionary words whose postings one level
// of lexicalSQL merges (one ordered index scan each); a single term with
// more words has its postings sorted instead.
const maxStreamWords = 32

// maxLevels is the most levels lexicalSQL walks before the full count.
const maxLevels = 4

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
// exact, and in the common cases bounded by the limit rather than by the
// postings of common terms.
//
// A term without separators (see isWordSep) is contained in a text exactly
// when it is contained in one of its words, so its matches are the
// postings of its dictionary words; a term with separators ("2,4-d") takes
// the owners posted under the words containing its longest run and
// confirms each with strpos on the owner's search text; a term made only
// of separators ("%") is checked with strpos against every active owner.
// Postings exist for active owners only and carry the owner's created_at.
//
// The ranking is found level by level, from T (every term matched) down:
// an owner matching at least L of the T terms holds one of the T-L+1
// rarest terms. Level L (CTE pL) walks the postings of the words of those
// terms newest first (one ordered index scan per word, merged; the postings
// of one owner are adjacent and grouped), computes each walked owner's
// exact count (probing the other terms' postings by index, or strpos) and
// keeps the newest owners matching exactly L terms, up to the limit minus
// what the levels above found. A level that falls short has found every
// owner of its level, so the next one continues; once the levels hold the
// limit's owners, they are the answer. The levels stop after maxLevels, at
// a term made only of separators or when a walk would merge more than
// maxStreamWords words; if they end short of the limit, the full count
// (every owner of every term's postings, ranked) is the answer instead.
// PostgreSQL skips a LIMIT 0 level and a subplan whose one-time filter is
// false, so only the levels needed run.
func (s *Store) lexicalSQL(kind storage.OwnerKind, cols string, lts []lexTerm, filters []storage.Filter, limit int) (string, args) {
	tb := &s.db.tb
	owner, postings := tb.owners[kind], tb.postings[kind]
	a := args{s.tenant, limit}
	T := len(lts)
	// Parameters are added when first used: PostgreSQL cannot type an
	// unused one.
	idsP := make([]string, T)
	rawP := make([]string, T)
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
	var filt string
	if len(filters) > 0 {
		filt = filterSQL("o", filters, &a)
	}
	// Terms by rarity: walkable terms by postings (exact ones first on a
	// tie), separator-only terms last.
	order := make([]int, T)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		lx, ly := &lts[x], &lts[y]
		switch {
		case (lx.run == "") != (ly.run == ""):
			if lx.run == "" {
				return 1
			}
			return -1
		case lx.postings != ly.postings:
			return cmp.Compare(lx.postings, ly.postings)
		case lx.exact != ly.exact:
			if lx.exact {
				return -1
			}
			return 1
		}
		return 0
	})
	bit := func(i int) string { return strconv.FormatInt(int64(1)<<i, 10) }

	var (
		b      strings.Builder
		levels []string // the level CTE names, best first
		found  = "0"    // the count of owners the levels hold, as SQL
	)
	b.WriteString("WITH ")
	walkedWords := 0
	for n := 1; n <= T && n <= maxLevels; n++ {
		t := order[n-1]
		if lts[t].run == "" {
			break
		}
		walkedWords += len(lts[t].wids)
		eager := false
		if walkedWords > maxStreamWords {
			if n > 1 {
				break
			}
			eager = true // one term with many words: sort its postings
		}
		walked := order[:n]
		L := T - n + 1
		var walk string
		if eager {
			walk = "SELECT p.owner_id, p.created_at, " + bit(t) + "::int8 AS b FROM " + postings +
				" p WHERE p.tenant_id = $1 AND p.word_id = ANY(" + ids(t) + ")"
		} else {
			var subs []string
			for _, i := range walked {
				for _, w := range lts[i].wids {
					subs = append(subs, "(SELECT p.owner_id, p.created_at, "+bit(i)+"::int8 AS b FROM "+postings+
						" p WHERE p.tenant_id = $1 AND p.word_id = "+a.add(w)+" ORDER BY p.created_at DESC, p.owner_id)")
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
		// m is the exact number of terms g matches; text terms need the
		// owner row (o).
		var counts []string
		needText := filt != ""
		for i := range lts {
			inWalk := slices.Contains(walked, i)
			switch {
			case inWalk && lts[i].exact:
				counts = append(counts, "(g.bits & "+bit(i)+" <> 0)::int")
			case inWalk:
				counts = append(counts, "(g.bits & "+bit(i)+" <> 0 AND strpos(o.search_text, "+raw(i)+") > 0)::int")
				needText = true
			case lts[i].exact:
				counts = append(counts, "(EXISTS (SELECT FROM "+postings+" q WHERE q.tenant_id = $1 AND q.word_id = ANY("+ids(i)+
					") AND q.created_at = g.created_at AND q.owner_id = g.owner_id"+probeFence+"))::int")
			default:
				counts = append(counts, "(strpos(o.search_text, "+raw(i)+") > 0)::int")
				needText = true
			}
		}
		cond := strings.Join(counts, " + ") + " = " + strconv.Itoa(L)
		if needText {
			cond = "EXISTS (SELECT FROM " + owner + " o WHERE o.tenant_id = $1 AND o.id = g.owner_id" + filt + " AND " + cond + probeFence + ")"
		}
		name := "p" + strconv.Itoa(L)
		b.WriteString(name + " AS MATERIALIZED (SELECT g.owner_id, g.created_at FROM (SELECT x.owner_id, x.created_at, bit_or(x.b) AS bits FROM (" +
			walk + ") x GROUP BY x.created_at, x.owner_id ORDER BY x.created_at DESC, x.owner_id) g WHERE " + cond +
			" ORDER BY g.created_at DESC, g.owner_id LIMIT greatest($2 - (" + found + "), 0)),\n")
		levels = append(levels, name)
		if found == "0" {
			found = "(SELECT count(*) FROM " + name + ")"
		} else {
			found += " + (SELECT count(*) FROM " + name + ")"
		}
	}
	var top []string
	for _, name := range levels {
		top = append(top, "SELECT owner_id, created_at, "+name[1:]+"::int4 AS m FROM "+name)
	}
	complete := len(levels) > 0 && strings.TrimPrefix(levels[len(levels)-1], "p") == "1"
	if complete {
		// The levels went down to one term: they hold every match.
		b.WriteString("r AS (" + strings.Join(top, "\n\tUNION ALL ") + ")\n")
	} else {
		gate := ""
		if len(levels) > 0 {
			gate = " AND " + found + " < $2"
			for i := range top {
				top[i] += " WHERE " + found + " >= $2"
			}
		}
		// The full count: one branch per term, each owner at most once.
		hits := make([]string, 0, T)
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
		b.WriteString("r AS (" + strings.Join(append(top, "("+ranked+")"), "\n\tUNION ALL ") + ")\n")
	}
	b.WriteString("SELECT " + cols + ", r.m FROM r JOIN " + owner + " i ON i.tenant_id = $1 AND i.id = r.owner_id" +
		" ORDER BY r.m DESC, r.created_at DESC, r.owner_id")
	return b.String(), a
}

// prefixAnd returns " AND c1 AND c2 ..." for conds, or "".
func prefixAnd(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return " AND " + strings.Join(conds, " AND ")
}
