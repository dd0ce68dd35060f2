package rag_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/storage"
)

// A nil splitter means the default one, not a panic (issue 16).
func TestChunksWithNilSplitter(t *testing.T) {
	it := storage.CatalogItem{ID: "a", Name: "Fungiprot", Files: []storage.CatalogFile{{Name: "bula.txt", Text: "Dose: 400 mL/ha."}}}
	if got := rag.ItemChunks(&it, nil); len(got) != 2 {
		t.Errorf("ItemChunks(nil splitter) = %d chunks, want 2", len(got))
	}
	f := storage.FAQ{ID: "f", Question: "Prazo?", Answer: "5 dias."}
	if got := rag.FAQChunks(&f, nil); len(got) != 2 {
		t.Errorf("FAQChunks(nil splitter) = %d chunks, want 2", len(got))
	}
}

// A message or query of NUL and control bytes only is empty (issue 16).
func TestControlOnlyTextIsEmpty(t *testing.T) {
	p := offlinePipeline(t, rag.PipelineOptions{})
	store, emb := fixture(t)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	for _, text := range []string{"\x00", "\x00\x00 \x00", " \t\x01\x7f\u200b"} {
		if _, err := p.Chat(context.Background(), rag.ChatRequest{Message: text}); !errors.Is(err, rag.ErrEmptyMessage) {
			t.Errorf("Chat(%q) error %v, want ErrEmptyMessage", text, err)
		}
		if _, err := s.SearchCatalog(context.Background(), rag.Query{Text: text}); !errors.Is(err, rag.ErrEmptyQuery) {
			t.Errorf("SearchCatalog(%q) error %v, want ErrEmptyQuery", text, err)
		}
		if _, err := s.SearchFAQs(context.Background(), rag.Query{Text: text}); !errors.Is(err, rag.ErrEmptyQuery) {
			t.Errorf("SearchFAQs(%q) error %v, want ErrEmptyQuery", text, err)
		}
	}
}
