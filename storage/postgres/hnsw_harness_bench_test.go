package postgres_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/hybridrag/hybridrag/storage"
)

// BenchmarkHNSWExp is the hand-run harness behind BENCHMARKS.md's HNSW
// build-parameter table (issue 14 item 2): recall@10 and latency of the
// store's vector SQL over the chunk table HRX_TABLE (a copy of
// hrbench_<HRX_N>_<dims>.item_chunks carrying the HNSW index under test) at
// each ef_search in HRX_EF (comma-separated) and query set in HRX_Q
// ("short", "doc"), fetching HRX_K candidates (default 26) and keeping the
// 10 nearest. It needs the seeded benchmark schema (BenchmarkPostgresCatalog
// creates it) and is skipped unless HRX_N and HRX_TABLE are set:
//
//	HRX_N=100000 HRX_TABLE=hrexp_100000.item_chunks HRX_EF=40,200,400 HRX_Q=short,doc \
//	HYBRIDRAG_BENCH_LARGE=1 HYBRIDRAG_TEST_DATABASE_URL=... \
//	go test -run '^$' -bench BenchmarkHNSWExp -benchtime 1x ./storage/postgres
func BenchmarkHNSWExp(b *testing.B) {
	n, _ := strconv.Atoi(os.Getenv("HRX_N"))
	table := os.Getenv("HRX_TABLE")
	if n <= 0 || table == "" {
		b.Skip("hand-run harness: set HRX_N and HRX_TABLE (see its doc comment)")
	}
	k, _ := strconv.Atoi(os.Getenv("HRX_K"))
	if k == 0 {
		k = 26
	}
	bd := openBench(b, n, benchDims())
	owners := fmt.Sprintf("hrbench_%d_%d.items", n, bd.dims)
	for _, efs := range strings.Split(os.Getenv("HRX_EF"), ",") {
		ef, _ := strconv.Atoi(efs)
		for _, qk := range strings.Split(os.Getenv("HRX_Q"), ",") {
			b.Run(fmt.Sprintf("ef=%d/k=%d/q=%s", ef, k, qk), func(b *testing.B) {
				ctx := context.Background()
				qs := vectorQueries(bd, qk, 50)
				sql := `WITH c AS MATERIALIZED (
		SELECT c.owner_id, c.embedding <#> $2 AS d
		FROM ` + table + ` c
		JOIN ` + owners + ` o ON o.tenant_id = c.tenant_id AND o.id = c.owner_id
		WHERE c.tenant_id = $1 AND c.embedding IS NOT NULL AND o.active
		ORDER BY c.embedding <#> $2
		LIMIT $3)
	SELECT c.owner_id FROM c ORDER BY c.d, c.owner_id LIMIT 10`
				search := func(v []float32) []string {
					var ids []string
					err := pgx.BeginFunc(ctx, bd.pool, func(tx pgx.Tx) error {
						if _, err := tx.Exec(ctx, "SELECT set_config('jit','off',true), set_config('hnsw.ef_search',$1,true), set_config('hnsw.iterative_scan','relaxed_order',true)", strconv.Itoa(ef)); err != nil {
							return err
						}
						rows, err := tx.Query(ctx, sql, benchTenant, pgvector.NewVector(v), k)
						if err != nil {
							return err
						}
						ids, err = pgx.CollectRows(rows, pgx.RowTo[string])
						return err
					})
					if err != nil {
						b.Fatal(err)
					}
					return ids
				}
				for _, v := range qs[:10] {
					search(v)
				}
				lat := make(latencies, 0, b.N)
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					start := time.Now()
					search(qs[i%len(qs)])
					lat = append(lat, time.Since(start))
				}
				lat.report(b)
				var hits, total int
				for _, v := range qs {
					exact, err := bd.exact.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindItem, Vector: v, Limit: 10, MaxDistance: storage.NoThreshold})
					if err != nil {
						b.Fatal(err)
					}
					want := matchIDs(exact)
					for _, id := range search(v) {
						if slices.Contains(want, id) {
							hits++
						}
					}
					total += len(want)
				}
				b.ReportMetric(float64(hits)/float64(total), "recall@10")
			})
		}
	}
}

// BenchmarkHNSWGeom reports the mean exact inner product of the 1st, 10th,
// 100th and 1000th nearest chunk for the short and document-like query sets
// over the benchmark schema of HRX_N items (the "geometry" line of BENCHMARKS.md's HNSW
// table). Hand-run, like BenchmarkHNSWExp; skipped unless HRX_N is set.
func BenchmarkHNSWGeom(b *testing.B) {
	n, _ := strconv.Atoi(os.Getenv("HRX_N"))
	if n <= 0 {
		b.Skip("hand-run harness: set HRX_N (see BenchmarkHNSWExp)")
	}
	bd := openBench(b, n, benchDims())
	for _, qk := range []string{"short", "doc"} {
		b.Run("q="+qk, func(b *testing.B) {
			ctx := context.Background()
			qs := vectorQueries(bd, qk, 20)
			var s [4]float64
			for b.Loop() {
			}
			for _, v := range qs {
				rows, err := bd.pool.Query(ctx, `SELECT (embedding <#> $1)::float8 FROM `+bd.db.Options().Schema+`.item_chunks ORDER BY (embedding <#> $1) + 0 LIMIT 1000`, pgvector.NewVector(v))
				if err != nil {
					b.Fatal(err)
				}
				ds, err := pgx.CollectRows(rows, pgx.RowTo[float64])
				if err != nil {
					b.Fatal(err)
				}
				for i, r := range []int{0, 9, 99, 999} {
					s[i] += -ds[r] / float64(len(qs))
				}
			}
			for i, name := range []string{"ip@1", "ip@10", "ip@100", "ip@1000"} {
				b.ReportMetric(s[i], name)
			}
		})
	}
}
