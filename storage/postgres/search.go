package postgres

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

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
// descending, then ID: exactly the memory store's results. It reads the
// kind's word index (see lexicalSQL), never the owners' search text except
// to confirm terms holding separators.
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
	sql, a := s.lexicalSQL(kind, k.selectList(&s.db.tb), terms, q.Filters, limit)
	var out []storage.LexicalCandidate[T]
	err := s.withConn(ctx, func(conn *pgxpool.Conn) error {
		return pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
			// JIT compilation costs more than these queries, whose cost
			// estimates are high (the postings of a common word) but whose
			// work is index lookups.
			if _, err := tx.Exec(ctx, "SET LOCAL jit = off"); err != nil {
				return wrapCtx(ctx, "search "+string(kind)+"s: settings", err)
			}
			// QueryExecModeExec: an unnamed statement, planned with the
			// actual terms. A cached generic plan would be one plan for
			// every term.
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

// isWordSep reports whether b separates words in the word index: an ASCII
// byte other than a letter or digit (the bytes of multi-byte UTF-8
// characters never are). search_words (migration 0003) splits the same way.
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

// lexicalSQL builds the lexical candidate query: exact, and bounded by the
// postings of the terms rather than by the number of records.
//
// Every term is matched through the kind's word index (migration 0003):
//
//   - a term without separators (see isWordSep) is contained in a text
//     exactly when it is contained in one of its words, so its matches are
//     the postings of the dictionary words containing it (LIKE '%term%' on
//     the trigram index, or strpos over the tenant's dictionary when the
//     term is too short for trigrams);
//   - a term with separators ("2,4-d", "cana-de-acucar") takes the owners
//     posted under the words containing its longest run and confirms each
//     with strpos on the owner's search text;
//   - a term made only of separators ("%") is checked with strpos against
//     every active owner of the tenant.
//
// Postings exist for active owners only and carry the owner's created_at,
// so the number of distinct terms matched (one bit per term, at most
// storage.MaxLexicalTerms) and the ranking are computed from the index;
// only the limit's rows (and, with filters, the candidates) are read from
// the owner table.
func (s *Store) lexicalSQL(kind storage.OwnerKind, cols string, terms []string, filters []storage.Filter, limit int) (string, args) {
	tb := &s.db.tb
	owner, words, postings := tb.owners[kind], tb.words[kind], tb.postings[kind]
	a := args{s.tenant, limit}
	hits := make([]string, 0, len(terms))
	for i, t := range terms {
		bit := strconv.Itoa(i)
		longest, runs := "", 0
		eachWord(t, func(w string) {
			runs++
			if len(w) > len(longest) {
				longest = w
			}
		})
		if runs == 0 {
			hits = append(hits, "SELECT o.id AS owner_id, o.created_at, "+bit+" AS t FROM "+owner+
				" o WHERE o.tenant_id = $1 AND o.active AND strpos(o.search_text, "+a.add(t)+") > 0")
			continue
		}
		var cond string
		if utf8.RuneCountInString(longest) >= minTrigramRunes {
			cond = "d.word LIKE " + a.add("%"+likeEscaper.Replace(longest)+"%") + likeEscape
		} else {
			cond = "strpos(d.word, " + a.add(longest) + ") > 0"
		}
		wids := "ARRAY(SELECT d.id FROM " + words + " d WHERE d.tenant_id = $1 AND " + cond + ")"
		if len(longest) == len(t) {
			hits = append(hits, "SELECT p.owner_id, p.created_at, "+bit+" AS t FROM "+postings+
				" p WHERE p.tenant_id = $1 AND p.word_id = ANY("+wids+")")
			continue
		}
		hits = append(hits, "SELECT o.id AS owner_id, o.created_at, "+bit+" AS t FROM "+owner+
			" o WHERE o.tenant_id = $1 AND o.id = ANY(ARRAY(SELECT DISTINCT p.owner_id FROM "+postings+
			" p WHERE p.tenant_id = $1 AND p.word_id = ANY("+wids+")))"+
			" AND o.active AND strpos(o.search_text, "+a.add(t)+") > 0")
	}
	// c: every matching owner with the set of terms it matches (bit t).
	c := `c AS (SELECT h.owner_id, max(h.created_at) AS created_at, bit_count(bit_or(1::int8 << h.t)::bit(64))::int4 AS m
	FROM (` + strings.Join(hits, "\n\tUNION ALL ") + `) h GROUP BY h.owner_id)`
	r := `r AS (SELECT c.owner_id, c.created_at, c.m FROM c ORDER BY c.m DESC, c.created_at DESC, c.owner_id LIMIT $2)`
	if len(filters) > 0 {
		r = `r AS (SELECT c.owner_id, c.created_at, c.m FROM c JOIN ` + owner + ` i ON i.tenant_id = $1 AND i.id = c.owner_id
	WHERE i.active` + filterSQL("i", filters, &a) + `
	ORDER BY c.m DESC, c.created_at DESC, c.owner_id LIMIT $2)`
	}
	return "WITH " + c + ",\n" + r + "\nSELECT " + cols + ", r.m FROM r JOIN " + owner +
		" i ON i.tenant_id = $1 AND i.id = r.owner_id ORDER BY r.m DESC, r.created_at DESC, r.owner_id", a
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
