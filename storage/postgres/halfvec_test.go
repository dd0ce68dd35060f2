package postgres_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/postgres"
)

// indexNames returns the HNSW indexes of schema's item_chunks table.
func indexNames(t *testing.T, pool *pgxpool.Pool, schema string) []string {
	t.Helper()
	rows, err := pool.Query(testCtx(t), `SELECT indexname::text FROM pg_indexes
		WHERE schemaname = $1 AND tablename = 'item_chunks' AND indexdef LIKE '%USING hnsw%' ORDER BY 1`, schema)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return names
}

// negDot is pgvector's <#> in float64 over float32 inputs: the
// full-precision distance.
func negDot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return -s
}

// TestHalfPrecisionIndex switches a populated schema from the
// full-precision HNSW index to the half-precision one and back through
// Migrate: each time the other index is dropped, searches use the index
// the options name, and HNSW results carry full-precision distances (a
// half-precision distance is off by about 1e-3) with the exact scan's
// recall.
func TestHalfPrecisionIndex(t *testing.T) {
	const dims = 48
	db, pool := openDB(t, postgres.Options{Dimensions: dims})
	schema := db.Options().Schema
	ctx := testCtx(t)
	rng := rand.New(rand.NewPCG(3, 4))
	vecs := clustered(rng, 800, dims, 16, 0.6)
	full, _ := db.Tenant("t")
	seedChunks(t, full, vecs, 0, 0)
	exactDB := postgres.New(pool, postgres.Options{Dimensions: dims, Schema: schema, ExactSearch: true})
	exact, _ := exactDB.Tenant("t")
	var queries [][]float32
	for range 30 {
		v := slices.Clone(vecs[rng.IntN(len(vecs))])
		for j := range v {
			v[j] += float32(0.5 * rng.NormFloat64() / math.Sqrt(dims))
		}
		queries = append(queries, unit(v))
	}
	byID := map[string][]float32{}
	for i, v := range vecs {
		byID[itemID(i)] = v
	}

	check := func(t *testing.T, db *postgres.DB, wantIndex string) {
		t.Helper()
		if got := indexNames(t, pool, schema); !slices.Equal(got, []string{wantIndex}) {
			t.Fatalf("HNSW indexes = %v, want [%s]", got, wantIndex)
		}
		plan, err := postgres.ExplainVectorOrder(ctx, db, storage.KindItem, queries[0])
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, wantIndex) {
			t.Errorf("the search's ORDER BY does not use %s:\n%s", wantIndex, plan)
		}
		s, _ := db.Tenant("t")
		var hits, total int
		for _, qv := range queries {
			q := storage.VectorQuery{Kind: storage.KindItem, Vector: qv, Limit: 10, MaxDistance: storage.NoThreshold}
			got, err := s.SearchChunks(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			want, err := exact.SearchChunks(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 10 {
				t.Fatalf("%d results, want 10", len(got))
			}
			for i, m := range got {
				if d := negDot(byID[m.Chunk.Owner.ID], qv); math.Abs(m.Distance-d) > 1e-6 {
					t.Fatalf("%s: distance %v, full precision %v", m.Chunk.Owner.ID, m.Distance, d)
				}
				if i > 0 && m.Distance < got[i-1].Distance {
					t.Fatalf("results not sorted by distance: %v", got)
				}
			}
			wantIDs := matchIDs(want)
			for _, id := range matchIDs(got) {
				if slices.Contains(wantIDs, id) {
					hits++
				}
			}
			total += len(want)
		}
		if recall := float64(hits) / float64(total); recall < 0.9 {
			t.Errorf("recall@10 = %.3f, want >= 0.9", recall)
		}
	}

	t.Run("full", func(t *testing.T) { check(t, db, "item_chunks_embedding_hnsw") })
	half := postgres.New(pool, postgres.Options{Dimensions: dims, Schema: schema, HalfPrecisionIndex: true})
	if err := half.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	t.Run("half", func(t *testing.T) { check(t, half, "item_chunks_embedding_half_hnsw") })
	// Writes after the switch are indexed too.
	hs, _ := half.Tenant("t")
	extra := clustered(rng, 50, dims, 4, 0.6)
	seedChunks(t, hs, extra, len(vecs), 0)
	for i, v := range extra {
		byID[itemID(len(vecs)+i)] = v
	}
	t.Run("half after writes", func(t *testing.T) { check(t, half, "item_chunks_embedding_half_hnsw") })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	t.Run("full again", func(t *testing.T) { check(t, db, "item_chunks_embedding_hnsw") })

	// Bulk loads drop and rebuild the index of the options.
	if err := half.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if err := half.BeginBulkLoad(ctx); err != nil {
		t.Fatal(err)
	}
	// Migrate during a bulk load builds no index.
	if err := half.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if got := indexNames(t, pool, schema); len(got) != 0 {
		t.Fatalf("HNSW indexes during a bulk load = %v, want none", got)
	}
	if err := half.EndBulkLoad(ctx, postgres.BulkLoadOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Run("half after bulk load", func(t *testing.T) { check(t, half, "item_chunks_embedding_half_hnsw") })
}

// TestHalfPrecisionIndexWideVectors: pgvector indexes halfvec up to 4000
// dimensions, vector only up to 2000, so 3072-dimension embeddings get an
// HNSW index with the option and none without it.
func TestHalfPrecisionIndexWideVectors(t *testing.T) {
	const dims = 3072
	db, pool := openDB(t, postgres.Options{Dimensions: dims, HalfPrecisionIndex: true})
	if got := indexNames(t, pool, db.Options().Schema); !slices.Equal(got, []string{"item_chunks_embedding_half_hnsw"}) {
		t.Fatalf("HNSW indexes = %v, want [item_chunks_embedding_half_hnsw]", got)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	vecs := clustered(rng, 40, dims, 4, 0.6)
	s, _ := db.Tenant("t")
	seedChunks(t, s, vecs, 0, 0)
	ctx := testCtx(t)
	plan, err := postgres.ExplainVectorOrder(ctx, db, storage.KindItem, vecs[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "item_chunks_embedding_half_hnsw") {
		t.Errorf("the search does not use the half-precision index:\n%s", plan)
	}
	got, err := s.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindItem, Vector: vecs[7], Limit: 5, MaxDistance: storage.NoThreshold})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[0].Chunk.Owner.ID != itemID(7) || math.Abs(got[0].Distance-negDot(vecs[7], vecs[7])) > 1e-6 {
		t.Fatalf("nearest to item 7: %v", got)
	}
	plain := postgres.New(pool, postgres.Options{Dimensions: dims, Schema: uniqueSchema(t, pool, "hrt")})
	if err := plain.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if got := indexNames(t, pool, plain.Options().Schema); len(got) != 0 {
		t.Fatalf("HNSW indexes without the option at %d dims = %v, want none", dims, got)
	}
}

// itemID is seedChunks' ID of its i-th vector (offset included).
func itemID(i int) string { return fmt.Sprintf("item-%05d", i) }
