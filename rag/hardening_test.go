package rag_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
)

// A message or query of NUL and control bytes only is empty (issue 16).
func TestControlOnlyTextIsEmpty(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	store, emb := ragtest.Fixture(t)
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

// countingSummarizer records what it was given.
type countingSummarizer struct{ turns, chars int }

func (c *countingSummarizer) Summarize(_ context.Context, history []rag.Turn) (rag.Summary, error) {
	c.turns = len(history)
	for _, t := range history {
		c.chars += len([]rune(t.Content))
	}
	return rag.Summary{Text: "resumo"}, nil
}

// A 20,000-turn history reaches the summarizer bounded (issue 16 item 7).
func TestSummarizerHistoryBounded(t *testing.T) {
	sum := &countingSummarizer{}
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{Summarizer: sum})
	hist := make([]rag.Turn, 20000)
	for i := range hist {
		hist[i] = rag.Turn{Role: "user", Content: strings.Repeat("fungicida para uva ", 50)}
	}
	if _, err := p.Chat(context.Background(), rag.ChatRequest{Message: "e qual a dose?", History: hist}); err != nil {
		t.Fatal(err)
	}
	if sum.turns == 0 || sum.turns > rag.DefaultMaxHistoryTurns || sum.chars > rag.DefaultMaxHistoryChars {
		t.Errorf("summarizer got %d turns, %d chars", sum.turns, sum.chars)
	}
}
