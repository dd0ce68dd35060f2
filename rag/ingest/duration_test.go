package ingest_test

import (
	"context"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// TestStatsDuration checks that every Indexer entry point reports the time
// it took: an embedder that sleeps pause per call makes each run last at
// least that long.
func TestStatsDuration(t *testing.T) {
	const pause = 5 * time.Millisecond
	hash := ragtest.HashEmbedder(t)
	slow := vector.EmbedderFunc{Dims: hash.Dimensions(), Fn: func(ctx context.Context, texts []string) ([][]float32, error) {
		time.Sleep(pause)
		return hash.Embed(ctx, texts)
	}}
	faqs := []storage.FAQ{{ID: "f1", Question: "Qual a dose de glifosato?", Answer: "Siga a bula do produto."}}
	docs := []load.ParsedDocument{{Document: storage.Document{ID: "d1", Title: "Bula", Content: "Aplicar em pós-emergência das plantas daninhas."}}}
	runs := []struct {
		name string
		run  func(context.Context, *ingest.Indexer) (ingest.Stats, error)
	}{
		{"IndexItems", func(ctx context.Context, ix *ingest.Indexer) (ingest.Stats, error) {
			return ix.IndexItems(ctx, ragtest.SampleItems(1))
		}},
		{"IndexFAQs", func(ctx context.Context, ix *ingest.Indexer) (ingest.Stats, error) { return ix.IndexFAQs(ctx, faqs) }},
		{"IndexDocuments", func(ctx context.Context, ix *ingest.Indexer) (ingest.Stats, error) {
			return ix.IndexDocuments(ctx, docs)
		}},
		{"Reindex", func(ctx context.Context, ix *ingest.Indexer) (ingest.Stats, error) {
			return ix.Reindex(ctx, ingest.Sources{Items: ragtest.SampleItems(1), FAQs: faqs, Documents: docs})
		}},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			store, err := memory.New(memory.Options{Dimensions: ragtest.Dims}).Tenant("t")
			if err != nil {
				t.Fatal(err)
			}
			st, err := r.run(context.Background(), ingest.NewIndexer(store, slow, ingest.IndexerOptions{}))
			if err != nil {
				t.Fatal(err)
			}
			if st.Embedded == 0 {
				t.Fatalf("nothing embedded: %v", st)
			}
			if st.Duration < pause {
				t.Errorf("Duration = %v, want at least %v (one embedder call)", st.Duration, pause)
			}
		})
	}
}
