package rag_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// A FAQ answer or document section that opens with a rule, a fence or a
// bare heading must not crash the offline answerer.
func TestExtractiveAnswererOddOpenings(t *testing.T) {
	for _, answer := range []string{"---\nVocê pode devolver em até 7 dias.", "```\ncode\n```\nDevolva em 7 dias.", "#", "##\n\n---"} {
		req := rag.AnswerRequest{
			Message:   "como devolver um produto com defeito?",
			FAQs:      []rag.Hit[storage.FAQ]{{ID: "f", Record: storage.FAQ{Question: "Como devolver?", Answer: answer}}},
			Documents: []rag.Hit[storage.Document]{{ID: "d", Record: storage.Document{Title: "T", Content: answer}, Snippet: answer}},
		}
		if _, err := (offline.ExtractiveAnswerer{}).Answer(context.Background(), req); err != nil {
			t.Errorf("answer %q: %v", answer, err)
		}
	}
}

// An item added after the vocabulary was built is still judged on what
// it holds: its name is not an "unknown" word.
func TestEvidenceStaleVocabulary(t *testing.T) {
	ctx := context.Background()
	st, err := memory.New(memory.Options{Dimensions: 256}).Tenant("t")
	if err != nil {
		t.Fatal(err)
	}
	emb := hashEmbedderDims(t, 256)
	ix := ingest.NewIndexer(st, emb, ingest.IndexerOptions{})
	if _, err := ix.IndexItems(ctx, []storage.CatalogItem{{ID: "a", Name: "Fungiprot 250 SC", Category: "Fungicida"}}); err != nil {
		t.Fatal(err)
	}
	s := rag.NewSearcher(st, emb, rag.SearcherOptions{})
	if _, err := s.SearchCatalog(ctx, rag.Query{Text: "fungicida"}); err != nil { // builds the vocabulary
		t.Fatal(err)
	}
	if _, err := ix.IndexItems(ctx, []storage.CatalogItem{{ID: "b", Name: "Zetaprox 500 SC", Category: "Fungicida"}}); err != nil {
		t.Fatal(err)
	}
	res, err := s.SearchCatalog(ctx, rag.Query{Text: "vocês vendem Zetaprox?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].ID != "b" || !res.Hits[0].Evidence.Relevant {
		t.Errorf("new item: %+v", res.Hits)
	}
}

// nanEmbedder returns a vector holding NaN.
type nanEmbedder struct{ vector.Embedder }

func (e nanEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	v, err := e.Embedder.Embed(ctx, texts)
	if err == nil && len(v) > 0 {
		v[0][0] = float32(math.NaN())
	}
	return v, err
}

func TestEvidenceNaNQueryVector(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	s := rag.NewSearcher(store, nanEmbedder{emb}, rag.SearcherOptions{})
	res, err := s.SearchCatalog(context.Background(), rag.Query{Text: "fungicida para videira"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if b := h.Evidence.Background; b != nil && (math.IsNaN(b.Median) || math.IsNaN(b.Scale())) {
			t.Fatalf("%s: background %+v", h.ID, b)
		}
		if math.IsNaN(h.Evidence.Relevance) {
			t.Fatalf("%s: relevance NaN", h.ID)
		}
	}
}

// downStore fails every lexical search, as a store outage does.
func downStore(st storage.Store) storage.Store { return ragtest.FailSearch(st, errDown) }

var errDown = errors.New("store down")

func TestPipelineStoreOutageIsNotAbstention(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	p, err := rag.NewPipeline(rag.NewSearcher(downStore(store), emb, rag.SearcherOptions{}), offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: "tem fungicida para videira?"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Abstained || !resp.Debug.AnswerFallback || resp.Answer != rag.DefaultFallbackMessage || len(resp.Debug.Errors) == 0 {
		t.Errorf("outage: abstained %v fallback %v answer %q errors %v", resp.Abstained, resp.Debug.AnswerFallback, resp.Answer, resp.Debug.Errors)
	}
}
