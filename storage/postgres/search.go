package postgres

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
)

// args collects bound parameters while a statement is built; add returns
// the placeholder of the value. Every value from a query or filter goes
// through it: nothing from the caller is pasted into SQL.
type args []any

func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// filterSQL returns " AND ..." conditions on the owner alias o for filters
// (already validated for kind). Values are compared normalized, like
// storage.FilterValues.Match.
func filterSQL(o string, filters []storage.Filter, a *args) string {
	var b strings.Builder
	for _, f := range filters {
		v := lexical.Normalize(f.Value)
		switch f.Field {
		case storage.FieldCategory:
			b.WriteString(" AND " + o + ".category_norm = " + a.add(v))
		case storage.FieldManufacturer:
			b.WriteString(" AND " + o + ".manufacturer_norm = " + a.add(v))
		case storage.FieldSource:
			b.WriteString(" AND " + o + ".source_norm = " + a.add(v))
		case storage.FieldTag:
			b.WriteString(" AND " + a.add(v) + "::text = ANY(" + o + ".tags_norm)")
		case storage.FieldMetadata:
			b.WriteString(" AND " + o + ".metadata_norm ->> " + a.add(f.Key) + "::text = " + a.add(v))
		}
	}
	return b.String()
}

// likeEscaper makes a term a literal LIKE pattern body ('\' is the escape
// character, see likeEscape).
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// likeEscape is the ESCAPE clause of every LIKE. The escape string literal
// is written E'\\', which means one backslash whatever the server's
// standard_conforming_strings setting is.
const likeEscape = ` ESCAPE E'\\'`

// searchLexical returns lexical candidates among the active records of
// kind k, ranked by the number of distinct terms matched, then CreatedAt
// descending, then ID. It matches the normalized terms against the owners'
// search_text column (normalized in Go when written, indexed with pg_trgm
// GIN); the work is bounded by Options.LexicalWindow (see lexicalSQL and
// the package documentation for when the ranking may differ from the
// exhaustive one).
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
	sql, a, windowed := s.lexicalSQL(kind, k.selectList(&s.db.tb), terms, q.Filters, limit)
	settings := "SET LOCAL jit = off"
	if windowed {
		// Every part of the windowed query has an index path (the recency
		// index, the trigram index, the primary key); a sequential scan is
		// only ever chosen on a misestimate, and costs a LIKE per row.
		settings += "; SET LOCAL enable_seqscan = off"
	}
	var out []storage.LexicalCandidate[T]
	err := s.withConn(ctx, func(conn *pgxpool.Conn) error {
		return pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
			// JIT compilation costs 100+ ms on these plans, whose cost
			// estimates are high but whose real work is bounded.
			if _, err := tx.Exec(ctx, settings); err != nil {
				return wrapCtx(ctx, "search "+string(kind)+"s: settings", err)
			}
			// QueryExecModeExec: an unnamed statement, planned with the
			// actual terms, so that each window picks the right index. A
			// cached generic plan would pick one for every term.
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

// probeFactor is the ratio of a window's probe (the newest rows examined
// to tell common, medium and rare conditions apart) to the window size.
const probeFactor = 4

// maxWindowTerms is the most terms the windowed query handles (one bit per
// term and one for the all-terms window in an integer); queries with more
// terms use the exhaustive ranking.
const maxWindowTerms = 30

// lexicalWindow returns the window size for limit, or 0 for the exhaustive
// ranking.
func (o *Options) lexicalWindow(limit int) int {
	switch {
	case o.LexicalWindow < 0:
		return 0
	case o.LexicalWindow > 0:
		return max(o.LexicalWindow, limit)
	}
	return max(2*limit, 100)
}

// lexicalSQL builds the lexical candidate query.
//
// The ranking (distinct terms matched, then newest, then ID) is the seeds'
// semantics. Computed naively, it evaluates every term against every row
// matching any term, which costs seconds at 100k rows for a common word.
// The windowed query bounds that work: for each term it takes the W newest
// matching rows (scanning newest first for a common term, from the trigram
// index for a rare one; see win below), plus the W newest rows matching all
// terms; it then computes the
// exact number of terms matched for the union of those windows (strpos only
// where a window was cut short) and ranks it. The result equals the
// exhaustive ranking whenever no term matches more than W rows, and, for
// one or two terms, whenever W >= 2×limit (the default W is 2×limit, at
// least 100). With three or more common terms, a row matching several but
// not all of them can be missed when it is older than the W newest matches
// of each of its terms.
func (s *Store) lexicalSQL(kind storage.OwnerKind, cols string, terms []string, filters []storage.Filter, limit int) (sql string, a args, windowed bool) {
	owner := s.db.tb.owners[kind]
	window := s.db.opts.lexicalWindow(limit)
	a = args{s.tenant, limit}
	pats := make([]string, len(terms))
	for i, t := range terms {
		pats[i] = a.add("%" + likeEscaper.Replace(t) + "%")
	}
	base := "i.tenant_id = $1 AND i.active" + filterSQL("i", filters, &a)
	like := func(p string) string { return "i.search_text LIKE " + p + likeEscape }

	if window == 0 || len(terms) > maxWindowTerms {
		likes := make([]string, len(terms))
		for i, p := range pats {
			likes[i] = like(p)
		}
		return `WITH c AS (
		SELECT i.id, i.created_at, (` + strings.Join(likes, ")::int + (") + `)::int AS m
		FROM ` + owner + ` i
		WHERE ` + base + ` AND (` + strings.Join(likes, " OR ") + `)
		ORDER BY m DESC, i.created_at DESC, i.id
		LIMIT $2)
	SELECT ` + cols + `, c.m FROM c JOIN ` + owner + ` i ON i.tenant_id = $1 AND i.id = c.id
	ORDER BY c.m DESC, c.created_at DESC, c.id`, a, false
	}

	w := a.add(window)
	x := a.add(probeFactor * window)
	var (
		b      strings.Builder
		unions []string
		full   []string
		counts []string
	)
	b.WriteString("WITH ")
	// A window is the W newest rows matching a condition. The planner
	// cannot choose how to find them (its LIKE estimates on long text are
	// often off by 10×, and trigram false positives make the index scan
	// of a short term far costlier than its matches), so the query
	// decides from a probe of the P newest rows:
	//   - the probe holds W matches: the condition is common, done;
	//   - it holds at least W/16: medium, keep scanning newest first
	//     (about 16·P rows at most, on average);
	//   - fewer: rare, take every match from the trigram index and keep
	//     the W newest.
	// Scans test terms with strpos, about twice as fast as LIKE; the
	// trigram index needs LIKE.
	raws := make([]string, len(terms))
	for i, t := range terms {
		raws[i] = a.add(t)
	}
	contains := func(col string, idx ...int) string {
		cs := make([]string, len(idx))
		for k, i := range idx {
			cs[k] = "strpos(" + col + ", " + raws[i] + ") > 0"
		}
		return strings.Join(cs, " AND ")
	}
	medium := a.add(max(window/16, 1))
	win := func(name, cond string, idx ...int) {
		n := "(SELECT count(*) FROM " + name + "p)"
		newest := " ORDER BY i.created_at DESC, i.id LIMIT " + w
		b.WriteString(name + "p AS MATERIALIZED (SELECT r.id, r.created_at FROM (SELECT i.id, i.created_at, i.search_text FROM " +
			owner + " i WHERE " + base + " ORDER BY i.created_at DESC, i.id LIMIT " + x + ") r WHERE " +
			contains("r.search_text", idx...) + " LIMIT " + w + "),\n")
		b.WriteString(name + " AS MATERIALIZED (SELECT id, created_at FROM " + name + "p WHERE " + n + " >= " + w +
			"\n UNION ALL (SELECT i.id, i.created_at FROM " + owner + " i WHERE " + base + " AND " + n + " < " + w +
			" AND " + n + " >= " + medium + " AND " + contains("i.search_text", idx...) + newest + ")" +
			"\n UNION ALL (SELECT i.id, i.created_at FROM (SELECT i.id, i.created_at FROM " + owner + " i WHERE " + base +
			" AND " + cond + " AND " + n + " < " + medium + " OFFSET 0) i" + newest + ")),\n")
	}
	for i, p := range pats {
		name := "w" + strconv.Itoa(i)
		win(name, like(p), i)
		unions = append(unions, "SELECT id, created_at, "+strconv.Itoa(1<<i)+" AS b FROM "+name)
		counts = append(counts, "(SELECT count(*) FROM "+name+") >= "+w+" AS f"+strconv.Itoa(i))
		// Matched when the row is in the term's window, or, when the window
		// was cut short, when the term is in its text.
		full = append(full, "((u.seen & "+strconv.Itoa(1<<i)+") <> 0 OR (f.f"+strconv.Itoa(i)+
			" AND "+contains("i.search_text", i)+"))::int")
	}
	m := strings.Join(full, " + ")
	if len(pats) > 1 {
		likes := make([]string, len(pats))
		idx := make([]int, len(pats))
		for i, p := range pats {
			likes[i] = like(p)
			idx[i] = i
		}
		win("wall", strings.Join(likes, " AND "), idx...)
		all := 1 << len(pats)
		unions = append(unions, "SELECT id, created_at, "+strconv.Itoa(all)+" AS b FROM wall")
		m = "CASE WHEN (u.seen & " + strconv.Itoa(all) + ") <> 0 THEN " + strconv.Itoa(len(pats)) + " ELSE " + m + " END"
	}
	b.WriteString("u AS (SELECT id, max(created_at) AS created_at, bit_or(b) AS seen FROM (" +
		strings.Join(unions, " UNION ALL ") + ") x GROUP BY id),\n")
	b.WriteString("f AS (SELECT " + strings.Join(counts, ", ") + "),\n")
	b.WriteString("r AS (SELECT u.id, u.created_at, " + m + " AS m FROM u CROSS JOIN f JOIN " + owner +
		" i ON i.tenant_id = $1 AND i.id = u.id ORDER BY m DESC, u.created_at DESC, u.id LIMIT $2)\n")
	b.WriteString("SELECT " + cols + ", r.m FROM r JOIN " + owner + " i ON i.tenant_id = $1 AND i.id = r.id" +
		" ORDER BY r.m DESC, r.created_at DESC, r.id")
	return b.String(), a, true
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

// hnswTieSlack is how many rows past the limit an HNSW search fetches, so
// that chunks tied at the limit's distance are still ordered by owner ID,
// source and Seq like an exact search.
const hnswTieSlack = 16

// SearchChunks returns the chunks of active owners of q.Kind nearest to
// q.Vector by negative inner product (pgvector's <#>), closest first, ties
// by owner ID, source and Seq, dropping chunks farther than q.MaxDistance.
//
// Unless Options.ExactSearch is set, the search uses the kind's HNSW index
// with hnsw.ef_search and hnsw.iterative_scan set for the query only (SET
// LOCAL in a transaction), so that the tenant, active and metadata filters
// still leave up to q.Limit rows; HNSW is approximate (see the package
// documentation for measured recall).
func (s *Store) SearchChunks(ctx context.Context, q storage.VectorQuery) ([]storage.ChunkMatch, error) {
	if !q.Kind.Valid() {
		return nil, badKind(q.Kind)
	}
	if err := storage.ValidateQueryVector(q.Vector, s.db.opts.Dimensions); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := storage.ValidateFilters(q.Kind, q.Filters, s.db.opts.AllowedMetadataKeys); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if math.IsNaN(q.MaxDistance) {
		// No distance is <= NaN (in Go; PostgreSQL sorts NaN last and
		// would keep everything).
		return nil, s.db.ensure(ctx)
	}
	opts := &s.db.opts
	exact := opts.exactSearch()
	limit := storage.ClampLimit(q.Limit)
	inner := limit
	order := "c.embedding <#> $2"
	if exact {
		// "+ 0" is not the index's ordering operator, so the planner
		// cannot use the HNSW index and scans exactly.
		order = "(c.embedding <#> $2) + 0, c.owner_id, c.source, c.seq"
	} else {
		inner = limit + hnswTieSlack
	}
	a := args{s.tenant, pgvector.NewVector(q.Vector), inner, q.MaxDistance, limit}
	owner := s.db.tb.owners[q.Kind]
	// The CTE is MATERIALIZED so that the outer ORDER BY sorts every row it
	// returns: with relaxed_order the index returns rows only roughly by
	// distance, and a subquery would let the planner assume they are sorted
	// (an incremental sort that stops after the first few).
	sql := `WITH c AS MATERIALIZED (
		SELECT c.owner_id, c.source, c.seq, c.content, c.content_hash, c.start_offset, c.heading_path, c.file_name,
			c.metadata, c.embedding <#> $2 AS d
		FROM ` + s.db.tb.chunks[q.Kind] + ` c
		JOIN ` + owner + ` o ON o.tenant_id = c.tenant_id AND o.id = c.owner_id
		WHERE c.tenant_id = $1 AND c.embedding IS NOT NULL AND o.active` + filterSQL("o", q.Filters, &a) + `
		ORDER BY ` + order + `
		LIMIT $3)
	SELECT ` + chunkCols + `, c.d FROM c
	WHERE c.d <= $4
	ORDER BY c.d, c.owner_id, c.source, c.seq
	LIMIT $5`

	setup := &pgx.Batch{}
	// JIT compilation would cost more than the search (the HNSW scan's
	// cost estimate is high at 100k rows).
	setup.Queue("SELECT set_config('jit', 'off', true)")
	if !exact {
		ef := max(opts.EfSearch, inner)
		if ef > 1000 {
			ef = 1000
		}
		setup.Queue("SELECT set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', $2, true)",
			strconv.Itoa(ef), string(opts.IterativeScan))
		if opts.MaxScanTuples > 0 {
			setup.Queue("SELECT set_config('hnsw.max_scan_tuples', $1, true)", strconv.Itoa(opts.MaxScanTuples))
		}
	}
	var out []storage.ChunkMatch
	err := s.withConn(ctx, func(conn *pgxpool.Conn) error {
		return pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
			nSetup := setup.Len()
			setup.Queue(sql, a...)
			br := tx.SendBatch(ctx, setup)
			defer br.Close()
			for range nSetup {
				if _, err := br.Exec(); err != nil {
					return wrapCtx(ctx, "search chunks: settings", err)
				}
			}
			rows, err := br.Query()
			if err != nil {
				return wrapCtx(ctx, "search chunks", err)
			}
			out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.ChunkMatch, error) {
				var d float64
				c, err := scanChunk(r, q.Kind, &d)
				return storage.ChunkMatch{Chunk: c, Distance: d}, err
			})
			if err != nil {
				return wrapCtx(ctx, "search chunks", err)
			}
			if err := br.Close(); err != nil {
				return wrapCtx(ctx, "search chunks", err)
			}
			return nil
		})
	})
	return out, err
}
