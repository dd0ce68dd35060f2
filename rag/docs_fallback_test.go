package rag_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/storage"
)

// catalogFAQsDown fails the catalog's and the FAQs' lexical searches; the
// documents' search works.
func catalogFAQsDown(st storage.Store) storage.Store {
	down := ragtest.FailSearch(st, errDown)
	down.DocumentsFunc = nil
	return down
}

// TestPipelineOutageIsNotHiddenByDocumentsFallback: a catalog turn runs
// the documents' search only as a fallback, so when its own searches (the
// catalog's and the FAQs') fail and the fallback keeps nothing, every
// search the turn asked for failed: the fallback message (or ErrNoAnswer
// with Fallback Off), not "we have nothing on that".
func TestPipelineOutageIsNotHiddenByDocumentsFallback(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	s := rag.NewSearcher(catalogFAQsDown(store), emb, rag.SearcherOptions{})
	p, err := rag.NewPipeline(s, offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const msg = "tem fungicida para videira?"
	resp, err := p.Chat(ctx, rag.ChatRequest{Message: msg})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Intent.Intent != rag.IntentCatalog || !resp.Debug.Plan.Documents {
		t.Fatalf("intent %s plan %+v: want a catalog turn with the documents' fallback", resp.Intent.Intent, resp.Debug.Plan)
	}
	if resp.Abstained || !resp.Debug.AnswerFallback || resp.Answer != rag.DefaultFallbackMessage {
		t.Errorf("catalog and FAQs down: abstained %v fallback %v answer %q errors %v", resp.Abstained, resp.Debug.AnswerFallback, resp.Answer, resp.Debug.Errors)
	}
	off, err := rag.NewPipeline(s, offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{Fallback: rag.Off})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := off.Chat(ctx, rag.ChatRequest{Message: msg}); !errors.Is(err, rag.ErrNoAnswer) {
		t.Errorf("Fallback Off, catalog and FAQs down: error %v, want ErrNoAnswer", err)
	}
}
