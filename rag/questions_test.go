package rag_test

import (
	"context"
	"slices"
	"testing"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
)

// TestChatDeliveryTimeParaphrase: "quanto tempo demora", "demorar" stand
// for the FAQs' "prazo" (the question synonyms of the FAQ and document
// scorers), and "entregar" is not corrected to "entrar": the delivery
// FAQ answers.
func TestChatDeliveryTimeParaphrase(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	for _, msg := range []string{
		"quanto tempo demora pra entregar em Goiás?",
		"quanto tempo demora a entrega?",
		"vai demorar muito pra chegar meu pedido?",
	} {
		res, err := p.Chat(context.Background(), rag.ChatRequest{Message: msg})
		if err != nil {
			t.Fatal(err)
		}
		if res.Abstained || !slices.ContainsFunc(res.Sources, func(c rag.Citation) bool { return c.ID == "faq-001" }) {
			t.Errorf("%q: abstained %v, sources %v; want faq-001 (prazo de entrega) cited", msg, res.Abstained, res.Sources)
		}
	}
}

// TestSearchFAQsQuestionSynonyms: the default FAQ scorer expands
// "quanto tempo demora" to "prazo" and judges the delivery FAQ relevant.
func TestSearchFAQsQuestionSynonyms(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	res, err := rag.NewSearcher(store, emb, rag.SearcherOptions{}).SearchFAQs(context.Background(), rag.Query{Text: "quanto tempo demora a entrega?", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Query.Terms, "praz") {
		t.Errorf("terms %v, want the stem of prazo", res.Query.Terms)
	}
	if len(res.Hits) == 0 || res.Hits[0].ID != "faq-001" || res.Hits[0].Evidence == nil || !res.Hits[0].Evidence.Relevant {
		t.Errorf("hits %v, want faq-001 first and relevant", hitIDs(res.Hits))
	}
}
