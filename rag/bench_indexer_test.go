package rag_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/storage/postgres"
	"github.com/hybridrag/hybridrag/vector"
)

// Ingestion throughput of the Indexer over the real data in ../shared/data
// with the offline hash embedder (1536 dims): the AGROFIT catalog (4,220
// items and their files), the 715 IRPF FAQs and the 249 FaQuAD documents.
// "first" indexes into an empty store on every iteration; "unchanged"
// re-runs over a store that already holds the same records, the path a
// periodic re-ingest takes (content hashes match, nothing is embedded or
// written). Each reports items (records) and chunks per second.
//
//	go test -run '^$' -bench BenchmarkIndexer -benchtime 5x ./rag
//	HYBRIDRAG_TEST_DATABASE_URL=... go test -run '^$' -bench 'BenchmarkIndexer/postgres' -benchtime 2x -timeout 30m ./rag
func BenchmarkIndexer(b *testing.B) {
	ctx := context.Background()
	root := filepath.Join(repoRoot(b), "..", "shared", "data")
	items, err := load.LoadCatalog(ctx, agrofitPath(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	faqs, err := load.LoadFAQs(ctx, filepath.Join(root, "br_taxqa", "faqs.jsonl"), nil)
	if err != nil {
		b.Skipf("IRPF FAQs: %v", err)
	}
	docs, err := load.LoadDocuments(ctx, filepath.Join(root, "faquad", "documents.jsonl"), nil)
	if err != nil {
		b.Skipf("FaQuAD documents: %v", err)
	}
	emb, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: benchDims})
	if err != nil {
		b.Fatal(err)
	}
	sets := []struct {
		name string
		src  rag.Sources
	}{
		{"agrofit4220", rag.Sources{Items: items}},
		{"irpf-faqs715", rag.Sources{FAQs: faqs}},
		{"faquad-docs249", rag.Sources{Documents: docs}},
	}
	newMemory := func(b *testing.B) rag.IndexStore {
		db := memory.New(memory.Options{Dimensions: benchDims})
		store, err := db.Tenant("bench")
		if err != nil {
			b.Fatal(err)
		}
		return store
	}
	for _, set := range sets {
		b.Run("memory/"+set.name+"/first", func(b *testing.B) {
			var st rag.Stats
			for b.Loop() {
				b.StopTimer()
				store := newMemory(b)
				b.StartTimer()
				st = reindex(b, store, emb, set.src, 1)
			}
			reportIngest(b, st)
		})
		b.Run("memory/"+set.name+"/unchanged", func(b *testing.B) {
			store := newMemory(b)
			reindex(b, store, emb, set.src, 1)
			var st rag.Stats
			for b.Loop() {
				st = reindex(b, store, emb, set.src, 1)
			}
			if st.Embedded != 0 {
				b.Fatalf("unchanged re-run embedded %d chunks", st.Embedded)
			}
			reportIngest(b, st)
		})
	}
	b.Run("postgres/agrofit4220", func(b *testing.B) {
		pool := benchPool(b)
		schema := "ragbench_ingest"
		fresh := func(b *testing.B) rag.IndexStore {
			if _, err := pool.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`); err != nil {
				b.Fatal(err)
			}
			return benchTenant(b, pool, schema)
		}
		b.Run("first", func(b *testing.B) {
			var st rag.Stats
			for b.Loop() {
				b.StopTimer()
				store := fresh(b)
				b.StartTimer()
				st = reindex(b, store, emb, sets[0].src, 2)
			}
			reportIngest(b, st)
		})
		b.Run("unchanged", func(b *testing.B) {
			store := fresh(b)
			reindex(b, store, emb, sets[0].src, 2)
			var st rag.Stats
			for b.Loop() {
				st = reindex(b, store, emb, sets[0].src, 2)
			}
			if st.Embedded != 0 {
				b.Fatalf("unchanged re-run embedded %d chunks", st.Embedded)
			}
			reportIngest(b, st)
		})
	})
}

func reindex(b *testing.B, store rag.IndexStore, emb vector.Embedder, src rag.Sources, writers int) rag.Stats {
	b.Helper()
	st, err := rag.NewIndexer(store, emb, rag.IndexerOptions{WriteConcurrency: writers}).Reindex(context.Background(), src)
	if err != nil {
		b.Fatal(err)
	}
	if st.Failed != 0 {
		b.Fatalf("%d chunks failed", st.Failed)
	}
	return st
}

func reportIngest(b *testing.B, st rag.Stats) {
	b.Helper()
	per := b.Elapsed().Seconds() / float64(b.N)
	if per <= 0 {
		return
	}
	records := st.Items + st.FAQs + st.Documents
	b.ReportMetric(float64(records)/per, "records/s")
	b.ReportMetric(float64(st.Chunks)/per, "chunks/s")
	b.ReportMetric(float64(st.Embedded), "embedded")
}

// benchPool connects to HYBRIDRAG_TEST_DATABASE_URL with a pool of 8,
// configured for pgvector, or skips the benchmark when it is unset.
func benchPool(b *testing.B) *pgxpool.Pool {
	b.Helper()
	dsn := os.Getenv("HYBRIDRAG_TEST_DATABASE_URL")
	if dsn == "" {
		b.Skip("HYBRIDRAG_TEST_DATABASE_URL is unset")
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns = 8
	postgres.ConfigurePool(cfg)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	return pool
}

// benchTenant migrates schema (benchDims dimensions) and returns its
// tenant "bench".
func benchTenant(b *testing.B, pool *pgxpool.Pool, schema string) *postgres.Store {
	b.Helper()
	db := postgres.New(pool, postgres.Options{Dimensions: benchDims, Schema: schema})
	if err := db.Migrate(context.Background()); err != nil {
		b.Fatal(err)
	}
	store, err := db.Tenant("bench")
	if err != nil {
		b.Fatal(err)
	}
	return store
}
