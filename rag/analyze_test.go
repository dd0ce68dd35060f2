package rag_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
)

// analyzingStore is a memory store that records the Indexer's Analyze
// calls (rag.Analyzer) and fails them with err.
type analyzingStore struct {
	storage.Backend
	calls []storage.OwnerKind
	err   error
}

func (s *analyzingStore) Analyze(_ context.Context, kind storage.OwnerKind) error {
	s.calls = append(s.calls, kind)
	return s.err
}

func TestIndexerAnalyzesAfterLargeWrites(t *testing.T) {
	ctx := context.Background()
	open := func(t *testing.T) *analyzingStore {
		mem, err := memory.New(memory.Options{Dimensions: ragtest.Dims}).Tenant("t")
		if err != nil {
			t.Fatal(err)
		}
		return &analyzingStore{Backend: mem}
	}
	emb := ragtest.HashEmbedder(t)
	items := ragtest.SampleItems(5)

	t.Run("threshold", func(t *testing.T) {
		s := open(t)
		ix := ingest.NewIndexer(s, emb, ingest.IndexerOptions{AnalyzeAfter: 3})
		if _, err := ix.IndexItems(ctx, items); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s.calls, []storage.OwnerKind{storage.KindItem}) {
			t.Fatalf("Analyze calls %v after writing 5 items, want [item]", s.calls)
		}
		// Unchanged: nothing written, no Analyze.
		if st, err := ix.IndexItems(ctx, items); err != nil || st.Written != 0 {
			t.Fatalf("re-run: written %d, err %v", st.Written, err)
		}
		// Below the threshold: two items changed.
		changed := slices.Clone(items[:2])
		for i := range changed {
			changed[i].Description += " (nova formulação)"
		}
		if _, err := ix.IndexItems(ctx, changed); err != nil {
			t.Fatal(err)
		}
		if len(s.calls) != 1 {
			t.Fatalf("Analyze calls %v, want only the first run's", s.calls)
		}
	})

	t.Run("default and off", func(t *testing.T) {
		s := open(t)
		if _, err := ingest.NewIndexer(s, emb, ingest.IndexerOptions{}).IndexItems(ctx, items); err != nil {
			t.Fatal(err)
		}
		if len(s.calls) != 0 {
			t.Errorf("5 items analyzed with the default threshold (200)")
		}
		s = open(t)
		if _, err := ingest.NewIndexer(s, emb, ingest.IndexerOptions{AnalyzeAfter: -1}).IndexItems(ctx, items); err != nil {
			t.Fatal(err)
		}
		if len(s.calls) != 0 {
			t.Error("analyzed with AnalyzeAfter -1")
		}
	})

	t.Run("failure keeps the writes", func(t *testing.T) {
		s := open(t)
		s.err = errors.New("connection reset")
		st, err := ingest.NewIndexer(s, emb, ingest.IndexerOptions{AnalyzeAfter: 1}).IndexItems(ctx, items)
		if !errors.Is(err, s.err) {
			t.Fatalf("err %v, want the Analyze error", err)
		}
		if st.Written != len(items) || st.Failed != 0 {
			t.Errorf("written %d failed %d, want %d and 0", st.Written, st.Failed, len(items))
		}
		if n := ragtest.StoreCounts(t, s.Backend).Items; n != len(items) {
			t.Errorf("%d items stored, want %d", n, len(items))
		}
	})

	t.Run("postgres", func(t *testing.T) {
		store, err := ragtest.PostgresDB(t).Tenant(ragtest.TenantName(t))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ingest.NewIndexer(store, emb, ingest.IndexerOptions{AnalyzeAfter: 1}).IndexItems(ctx, items); err != nil {
			t.Fatalf("IndexItems with ANALYZE on PostgreSQL: %v", err)
		}
	})
}
