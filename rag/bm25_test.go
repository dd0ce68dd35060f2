package rag_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/fields"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
)

// TestFAQScorerBM25 checks the default FAQ scoring on a real memory store:
// the question a taxpayer asks, in other inflections, finds the FAQ whose
// question says it, above a long FAQ whose answer merely mentions the same
// words; and the lexical evidence shows BM25 term frequencies.
func TestFAQScorerBM25(t *testing.T) {
	ctx := context.Background()
	store, err := memory.New(memory.Options{Dimensions: 8}).Tenant("t")
	if err != nil {
		t.Fatal(err)
	}
	filler := strings.Repeat("Outras regras gerais do imposto valem para todos os casos descritos neste manual. ", 40)
	faqs := []storage.FAQ{
		{ID: "long", Question: "Quais são as regras gerais do imposto?", Answer: filler + "A declaração deve ser entregue no prazo; há multa por atraso."},
		{ID: "deadline", Question: "Qual é o prazo de entrega da declaração?", Answer: "Até 31 de maio."},
		{ID: "other", Question: "Como incluir dependentes?", Answer: "Informe o CPF de cada dependente."},
	}
	if err := store.Apply(ctx, storage.Batch{FAQs: faqs}); err != nil {
		t.Fatal(err)
	}
	if o := fields.FAQScorer(); o.BM25 == nil || o.Match != lexical.MatchWordPrefix {
		t.Fatalf("FAQScorerOptions = %+v, want BM25 and word-prefix matching", o)
	}
	s := rag.NewSearcher(store, nil, rag.SearcherOptions{})
	res, err := s.SearchFAQs(ctx, rag.Query{Text: "até quando posso entregar minha declaração?", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) < 2 || res.Hits[0].Record.ID != "deadline" {
		t.Fatalf("hits %v, want deadline first", faqIDs(res.Hits))
	}
	if !containsStem(res.Query.Terms, "entreg") {
		t.Errorf("terms %q, want the Snowball stem entreg", res.Query.Terms)
	}
	sig := res.Hits[0].Lexical.Signals
	if sig == nil || len(sig.Matched) == 0 || sig.Matched[0].TF <= 0 {
		t.Fatalf("signals %+v, want BM25 term frequencies", sig)
	}
	// The same search with the seeds' presence scoring: the long FAQ's
	// answer holds every word and wins.
	presence := fields.FAQScorer()
	presence.BM25 = nil
	s2 := rag.NewSearcher(store, nil, rag.SearcherOptions{Kinds: rag.KindsOptions{FAQs: rag.KindOptions{Scorer: lexical.NewScorer(presence)}}})
	res2, err := s2.SearchFAQs(ctx, rag.Query{Text: "até quando posso entregar minha declaração?", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	var longBM25, longPresence float64
	for _, h := range res.Hits {
		if h.Record.ID == "long" {
			longBM25 = h.Lexical.Score
		}
	}
	for _, h := range res2.Hits {
		if h.Record.ID == "long" {
			longPresence = h.Lexical.Score
		}
	}
	if !(longBM25 < longPresence) {
		t.Errorf("long FAQ scored %v with BM25, %v with presence scoring; want length to cost it", longBM25, longPresence)
	}
}

func containsStem(terms []string, stem string) bool {
	for _, t := range terms {
		if t == stem {
			return true
		}
	}
	return false
}

func faqIDs(hits []rag.Hit[storage.FAQ]) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Record.ID
	}
	return out
}
