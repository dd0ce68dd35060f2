package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/postgres"
)

// TestWarm checks that Warm opens the connections asked for, leaves them in
// the pool, and fails cleanly on a missing schema and a cancelled context.
func TestWarm(t *testing.T) {
	db, pool := openDB(t, postgres.Options{Dimensions: 4})
	ctx := testCtx(t)
	store, err := db.Tenant("t1")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Apply(ctx, storage.Batch{Items: []storage.CatalogItem{{ID: "a", Name: "Fungicida A"}},
		Chunks: []storage.OwnerChunks{{Owner: storage.OwnerRef{Kind: storage.KindItem, ID: "a"},
			Chunks: []storage.Chunk{{Source: storage.SourceItem, Content: "Fungicida A", Embedding: []float32{1, 0, 0, 0}}}}}}); err != nil {
		t.Fatal(err)
	}
	want := min(3, int(pool.Config().MaxConns))
	if err := db.Warm(ctx, want); err != nil {
		t.Fatalf("Warm: %v", err)
	}
	if got := int(pool.Stat().TotalConns()); got < want {
		t.Errorf("pool holds %d connections after Warm(%d)", got, want)
	}
	if n := pool.Stat().AcquiredConns(); n != 0 {
		t.Errorf("Warm left %d connections acquired", n)
	}
	// Exact search has no index to warm: one inner product per kind.
	exact := postgres.New(pool, postgres.Options{Dimensions: 4, Schema: db.Options().Schema, ExactSearch: true})
	if err := exact.Warm(ctx, 1); err != nil {
		t.Errorf("Warm with ExactSearch: %v", err)
	}
	// More than the pool holds is clamped, not a wait that never ends.
	if err := db.Warm(ctx, int(pool.Config().MaxConns)+5); err != nil {
		t.Errorf("Warm(MaxConns+5): %v", err)
	}
	// Warmed connections still search correctly.
	res, err := store.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindItem, Vector: []float32{1, 0, 0, 0}, Limit: 5, MaxDistance: storage.NoThreshold})
	if err != nil || len(res) != 1 || res[0].Chunk.Owner.ID != "a" {
		t.Fatalf("search after Warm: %v, %v", res, err)
	}

	missing := postgres.New(pool, postgres.Options{Dimensions: 4, Schema: "hybridrag_no_such_schema"})
	if err := missing.Warm(ctx, 1); !errors.Is(err, storage.ErrSchemaMismatch) {
		t.Errorf("Warm on a missing schema: %v, want ErrSchemaMismatch", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := db.Warm(cancelled, 1); err == nil {
		t.Error("Warm with a cancelled context succeeded")
	}
}

// BenchmarkFirstSearch measures the first HNSW search on a new connection,
// without and with Warm (not timed), over the 10k benchmark schema.
func BenchmarkFirstSearch(b *testing.B) {
	bd := openBench(b, 10_000, benchDims())
	qs := vectorQueries(bd, "doc", 50)
	schema := fmt.Sprintf("hrbench_%d_%d", bd.n, bd.dims)
	for _, warm := range []bool{false, true} {
		b.Run(map[bool]string{false: "cold", true: "warm"}[warm], func(b *testing.B) {
			ctx := context.Background()
			cfg, err := pgxpool.ParseConfig(testDSN(b))
			if err != nil {
				b.Fatal(err)
			}
			cfg.MaxConns = 1
			postgres.ConfigurePool(cfg)
			var first, second latencies
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				pool, err := pgxpool.NewWithConfig(ctx, cfg)
				if err != nil {
					b.Fatal(err)
				}
				db := postgres.New(pool, postgres.Options{Schema: schema, Dimensions: bd.dims})
				if warm {
					if err := db.Warm(ctx, 1); err != nil {
						b.Fatal(err)
					}
				} else if err := db.Check(ctx); err != nil { // opens the connection too
					b.Fatal(err)
				}
				store, _ := db.Tenant(benchTenant)
				b.StartTimer()
				for k, lat := range []*latencies{&first, &second} {
					start := time.Now()
					if _, err := store.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindItem, Vector: qs[(2*i+k)%len(qs)], Limit: 10, MaxDistance: storage.NoThreshold}); err != nil {
						b.Fatal(err)
					}
					*lat = append(*lat, time.Since(start))
				}
				b.StopTimer()
				pool.Close()
				b.StartTimer()
			}
			b.ReportMetric(first.quantile(0.5), "first_p50_ms")
			b.ReportMetric(second.quantile(0.5), "second_p50_ms")
		})
	}
}
