package rag_test

import (
	"context"
	"slices"
	"testing"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/scoring"
)

// A message the follow-up rule takes for a new question (it names a
// subject of its own) that finds nothing alone is searched again with the
// history: it answers about the product the last answer named, at low
// confidence at most; a topic change the store knows nothing of still
// abstains.
func TestPipelineHistoryRetry(t *testing.T) {
	ctx := context.Background()
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	metomax := []rag.Turn{
		{Role: llm.RoleUser, Content: "vou usar o metomax no milho pra lagarta"},
		{Role: llm.RoleAssistant, Content: "O Metomax 215 SL é registrado para lagarta-do-cartucho no milho, a 0,6 L/ha."},
	}
	const reentry = "depois q passar qnto tempo o pessoal pode voltar pra roca sem epi?"
	alone, err := p.Chat(ctx, rag.ChatRequest{Message: reentry})
	if err != nil {
		t.Fatal(err)
	}
	if !alone.Abstained {
		t.Fatalf("%q alone: answered %v; the test needs a message that finds nothing alone", reentry, sourceIDs(alone))
	}
	delivery := []rag.Turn{
		{Role: llm.RoleUser, Content: "a entrega pra porto alegre demora qto?"},
		{Role: llm.RoleAssistant, Content: "Para capitais do Sul e Sudeste o prazo é de 2 a 5 dias úteis após o despacho."},
	}
	for _, tc := range []struct {
		history []rag.Turn
		msg     string
		want    string // "" abstains
	}{
		{metomax, reentry, "prd-043"},
		// Other domains: another corn insecticide the history's crop and
		// pest lift is not the referent.
		{metomax, "qual a previsão do tempo para amanhã em Campinas?", ""},
		{metomax, "quanto custa um carro usado?", ""},
		{metomax, "e vocês vendem passagem aérea?", ""},
		{delivery, "quanto custa um carro usado?", ""},
		{delivery, "e a previsão do tempo pra porto alegre?", ""},
	} {
		resp, err := p.Chat(ctx, rag.ChatRequest{Message: tc.msg, History: tc.history})
		if err != nil {
			t.Fatal(err)
		}
		ids := sourceIDs(resp)
		switch {
		case tc.want == "" && !resp.Abstained:
			t.Errorf("%q: answered %v at %v, want abstention", tc.msg, ids, resp.Confidence)
		case tc.want == "":
		case resp.Abstained || !slices.Contains(ids, tc.want):
			t.Errorf("%q: cited %v (abstained %v), want %s", tc.msg, ids, resp.Abstained, tc.want)
		case resp.Confidence > scoring.LevelLow:
			t.Errorf("%q: confidence %v, want low at most", tc.msg, resp.Confidence)
		case resp.Debug.FollowUp == nil || resp.Debug.FollowUp.Reason != "retry" || !resp.Debug.FollowUp.FollowUp:
			t.Errorf("%q: Debug.FollowUp %+v, want a follow-up for reason retry", tc.msg, resp.Debug.FollowUp)
		}
	}
}
