package ingest_test

import (
	"context"
	"github.com/hybridrag/hybridrag/storage"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/hybridrag/hybridrag/internal/testenv"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage/memory"
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
	root := filepath.Join(ragtest.RepoRoot(b), "..", "shared", "data")
	items, err := load.LoadCatalog(ctx, ragtest.AgrofitPath(b), nil)
	if err != nil {
		b.Fatal(err)
	}
	faqs, err := load.LoadFAQs(ctx, filepath.Join(root, "br_taxqa", "faqs.jsonl"), nil)
	if err != nil {
		testenv.Skip(b, testenv.Data, "IRPF FAQs: %v", err)
	}
	docs, err := load.LoadDocuments(ctx, filepath.Join(root, "faquad", "documents.jsonl"), nil)
	if err != nil {
		testenv.Skip(b, testenv.Data, "FaQuAD documents: %v", err)
	}
	emb, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: ragtest.BenchDims})
	if err != nil {
		b.Fatal(err)
	}
	sets := []struct {
		name string
		src  ingest.Sources
	}{
		{"agrofit4220", ingest.Sources{Items: items}},
		{"irpf-faqs715", ingest.Sources{FAQs: faqs}},
		{"faquad-docs249", ingest.Sources{Documents: docs}},
	}
	newMemory := func(b *testing.B) storage.Backend {
		db := memory.New(memory.Options{Dimensions: ragtest.BenchDims})
		store, err := db.Tenant("bench")
		if err != nil {
			b.Fatal(err)
		}
		return store
	}
	for _, set := range sets {
		b.Run("memory/"+set.name+"/first", func(b *testing.B) {
			var st ingest.Stats
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
			var st ingest.Stats
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
		pool := ragtest.BenchPool(b)
		schema := "ragbench_ingest"
		fresh := func(b *testing.B) storage.Backend {
			if _, err := pool.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{schema}.Sanitize()+` CASCADE`); err != nil {
				b.Fatal(err)
			}
			return ragtest.BenchTenant(b, pool, schema)
		}
		b.Run("first", func(b *testing.B) {
			var st ingest.Stats
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
			var st ingest.Stats
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

func reindex(b *testing.B, store storage.Backend, emb vector.Embedder, src ingest.Sources, writers int) ingest.Stats {
	b.Helper()
	st, err := ingest.NewIndexer(store, emb, ingest.IndexerOptions{WriteConcurrency: writers}).Reindex(context.Background(), src)
	if err != nil {
		b.Fatal(err)
	}
	if st.Failed != 0 {
		b.Fatalf("%d chunks failed", st.Failed)
	}
	return st
}

func reportIngest(b *testing.B, st ingest.Stats) {
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
