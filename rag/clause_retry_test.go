package rag_test

import (
	"context"
	"slices"
	"testing"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/scoring"
)

// A message that tells its story before it asks is searched again by the
// clause that asks, the story its context: it answers at low confidence
// at most; a story that leaves the store's domain still abstains, and so
// does a single-clause question nothing answers.
func TestPipelineAskingClause(t *testing.T) {
	ctx := context.Background()
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	for _, tc := range []struct {
		msg  string
		want string // "" abstains
	}{
		{"devolvi o pedido semana passada, o estorno no cartao cai quando?", "faq-009"},
		{"sabado vcs atendem? ate q hrs", "faq-028"},
		{"to pensando em deixar o dinheiro da safra numa LCA, compensa essa aplicação?", ""},
		{"meu cacau ta com vassoura de bruxa, oq passo?", ""},
		{"qual a previsão do tempo para amanhã em Campinas?", ""},
	} {
		resp, err := p.Chat(ctx, rag.ChatRequest{Message: tc.msg})
		if err != nil {
			t.Fatal(err)
		}
		ids := sourceIDs(resp)
		switch {
		case tc.want == "" && !resp.Abstained:
			t.Errorf("%q: answered %v at %v, want abstention", tc.msg, ids, resp.Confidence)
		case tc.want != "" && (resp.Abstained || !slices.Contains(ids, tc.want)):
			t.Errorf("%q: cited %v (abstained %v), want %s", tc.msg, ids, resp.Abstained, tc.want)
		case tc.want != "" && resp.Confidence > scoring.LevelLow:
			t.Errorf("%q: confidence %v, want low at most", tc.msg, resp.Confidence)
		}
	}
}
