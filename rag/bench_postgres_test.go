package rag_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage/postgres"
	"github.com/hybridrag/hybridrag/vector"
)

// Benchmarks of SearchCatalog through PostgreSQL + pgvector, exact and
// HNSW, and of two anchors over the same rows: Postgres full-text search
// ranked by ts_rank, and the seeds' ILIKE + translate() query. The data is
// AGROFIT replicated as in BenchmarkSearchCatalog, indexed once into a
// schema per size that is kept between runs (drop ragbench_* to rebuild).
//
//	HYBRIDRAG_TEST_DATABASE_URL=... go test -run '^$' -bench BenchmarkPostgresCatalog -benchtime 100x -timeout 60m ./rag
//	HYBRIDRAG_BENCH_LARGE=1 adds 100k items (indexing takes several minutes).

const seedAccents = "áàâãäéèêëíìîïóòôõöúùûüçÁÀÂÃÄÉÈÊËÍÌÎÏÓÒÔÕÖÚÙÛÜÇ"
const seedPlain = "aaaaaeeeeiiiiooooouuuucAAAAAEEEEIIIIOOOOOUUUUC"

func benchPostgres(b *testing.B, n int) (*pgxpool.Pool, string) {
	ctx := context.Background()
	pool := ragtest.BenchPool(b)
	schema := fmt.Sprintf("ragbench_%d_%d", n, ragtest.BenchDims)
	store := ragtest.BenchTenant(b, pool, schema)
	counts, err := store.Counts(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if counts.Items != n {
		items, err := load.LoadCatalog(ctx, ragtest.AgrofitPath(b), nil)
		if err != nil {
			b.Fatal(err)
		}
		emb, _ := vector.NewHashEmbedder(vector.HashOptions{Dimensions: ragtest.BenchDims})
		start := time.Now()
		st, err := ingest.NewIndexer(store, emb, ingest.IndexerOptions{Concurrency: 2, WriteConcurrency: 2}).IndexItems(ctx, replicate(items, n))
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("indexed %d items, %d chunks into %s in %v", st.Items, st.Chunks, schema, time.Since(start).Round(time.Millisecond))
		// What autovacuum does some time after a load: set the visibility
		// map, so that the lexical leg's index-only scans skip the heap (it
		// ran about 3× slower before: 14.5 against 4.9 ms p50 at AGROFIT's
		// size), and analyze the new rows. Without it the first runs after
		// seeding measure the load, not the search.
		for _, table := range []string{"items", "item_files", "item_chunks", "item_words", "item_postings"} {
			if _, err := pool.Exec(ctx, "VACUUM (ANALYZE) "+pgx.Identifier{schema, table}.Sanitize()); err != nil {
				b.Fatal(err)
			}
		}
	}
	// The full-text anchor gets the index a team would give it (through an
	// immutable wrapper, since array_to_string is only stable).
	s := pgx.Identifier{schema}.Sanitize()
	for _, ddl := range []string{
		`CREATE OR REPLACE FUNCTION ` + s + `.fts_doc(name text, descr text, cat text, manu text, tags text[]) RETURNS tsvector
			LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
			SELECT to_tsvector('portuguese'::regconfig, name || ' ' || descr || ' ' || cat || ' ' || manu || ' ' || array_to_string(tags, ' ')) $$`,
		`CREATE INDEX IF NOT EXISTS items_fts ON ` + s + `.items USING gin (` + s + `.fts_doc(name, description, category, manufacturer, tags))`,
	} {
		if _, err := pool.Exec(ctx, ddl); err != nil {
			b.Fatal(err)
		}
	}
	return pool, schema
}

func BenchmarkPostgresCatalog(b *testing.B) {
	sizes := []struct {
		name  string
		n     int
		large bool
	}{{"agrofit4220", 4220, false}, {"10k", 10_000, false}, {"100k", 100_000, true}}
	for _, size := range sizes {
		b.Run(size.name, func(b *testing.B) {
			if size.large && os.Getenv("HYBRIDRAG_BENCH_LARGE") == "" {
				b.Skip("set HYBRIDRAG_BENCH_LARGE=1 to run the 100k benchmark")
			}
			pool, schema := benchPostgres(b, size.n)
			emb, _ := vector.NewHashEmbedder(vector.HashOptions{Dimensions: ragtest.BenchDims})
			fixed := newFixedEmbedder(b, emb, benchQueries)
			for _, mode := range []string{"hnsw", "exact"} {
				b.Run("searchcatalog-"+mode, func(b *testing.B) {
					db := postgres.New(pool, postgres.Options{Dimensions: ragtest.BenchDims, Schema: schema, ExactSearch: mode == "exact"})
					store, err := db.Tenant("bench")
					if err != nil {
						b.Fatal(err)
					}
					runSearchBench(b, rag.NewSearcher(store, fixed, rag.SearcherOptions{}))
				})
			}
			b.Run("anchor-ts_rank", func(b *testing.B) {
				s := pgx.Identifier{schema}.Sanitize()
				doc := s + `.fts_doc(name, description, category, manufacturer, tags)`
				q := `SELECT id FROM ` + s + `.items
					WHERE tenant_id = 'bench' AND active AND ` + doc + ` @@ plainto_tsquery('portuguese', $1)
					ORDER BY ts_rank(` + doc + `, plainto_tsquery('portuguese', $1)) DESC, id
					LIMIT 10`
				runSQLBench(b, pool, func(text string) (string, []any) { return q, []any{text} })
			})
			b.Run("anchor-seed-ilike-translate", func(b *testing.B) {
				runSQLBench(b, pool, func(text string) (string, []any) { return seedQuery(schema, text) })
			})
		})
	}
}

// seedQuery is the seeds' lexical SQL (seed 000 §4.4): every token ILIKE
// every accent-stripped field, ORed, ranked by terms matched, then newest.
func seedQuery(schema, text string) (string, []any) {
	terms := lexical.Tokens(text)
	fields := []string{"name", "description", "category", "manufacturer", "array_to_string(tags, ' ')"}
	var where, rank []string
	var args []any
	for _, t := range terms {
		args = append(args, "%"+strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(t)+"%")
		p := fmt.Sprintf("$%d", len(args))
		var ors []string
		for _, f := range fields {
			ors = append(ors, fmt.Sprintf("translate(lower(%s), '%s', '%s') ILIKE %s", f, seedAccents, seedPlain, p))
		}
		cond := "(" + strings.Join(ors, " OR ") + ")"
		where = append(where, cond)
		rank = append(rank, "CASE WHEN "+cond+" THEN 1 ELSE 0 END")
	}
	q := `SELECT id FROM ` + pgx.Identifier{schema}.Sanitize() + `.items WHERE tenant_id = 'bench' AND active AND (` +
		strings.Join(where, " OR ") + `) ORDER BY (` + strings.Join(rank, " + ") + `) DESC, created_at DESC LIMIT 10`
	return q, args
}

func runSQLBench(b *testing.B, pool *pgxpool.Pool, build func(text string) (string, []any)) {
	ctx := context.Background()
	run := func(text string) {
		q, args := build(text)
		rows, err := pool.Query(ctx, q, args...)
		if err != nil {
			b.Fatal(err)
		}
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			b.Fatal(err)
		}
	}
	for _, q := range benchQueries {
		run(q)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		t := time.Now()
		run(benchQueries[i%len(benchQueries)])
		lat = append(lat, time.Since(t))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50_ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95_ms")
}
