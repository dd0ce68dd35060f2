package rag_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/llmchat"
	"github.com/hybridrag/hybridrag/rag/offline"
)

// TestChatStreamResetsAFailedAnswer: a model whose stream fails after some
// tokens (or ends blank) leaves its partial text behind in the stream; a
// reset event must follow it and precede the fallback message, so that the
// tokens after the last reset are the answer. A stream that completes is
// never reset.
func TestChatStreamResetsAFailedAnswer(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	tests := []struct {
		name       string
		step       llmtest.Step
		wantKinds  string // the token and reset events, in order
		wantAnswer string
	}{
		{
			name:       "fails after two tokens",
			step:       llmtest.Step{Chunks: []string{"Resposta ", "do modelo"}, Err: errors.New("upstream: connection reset")},
			wantKinds:  "token token reset token",
			wantAnswer: rag.DefaultFallbackMessage,
		},
		{
			name:       "fails before any token",
			step:       llmtest.Fail(errors.New("upstream: 503")),
			wantKinds:  "token",
			wantAnswer: rag.DefaultFallbackMessage,
		},
		{
			name:       "blank answer",
			step:       llmtest.Step{Chunks: []string{" ", "\n"}, Response: llm.Response{Message: llm.AssistantMessage(" \n"), FinishReason: llm.FinishStop}},
			wantKinds:  "token token reset token",
			wantAnswer: llm.DefaultFallbackMessages().Empty, // seed 003 §10.4.2
		},
		{
			name:       "completes",
			step:       llmtest.Step{Chunks: []string{"Temos o ", "Fosetal."}, Response: llm.Response{Message: llm.AssistantMessage("Temos o Fosetal."), FinishReason: llm.FinishStop}},
			wantKinds:  "token token",
			wantAnswer: "Temos o Fosetal.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ans, err := llmchat.NewAnswerer(llmtest.NewModel(tt.step), llmchat.AnswererOptions{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := rag.NewPipeline(s, offline.KeywordClassifier{}, ans, rag.PipelineOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var (
				kinds []string
				shown strings.Builder
			)
			resp, err := ragtest.Drain(p.ChatStream(context.Background(), rag.ChatRequest{Message: "tem fungicida para videira?"}), func(e rag.Event) {
				switch e.Kind {
				case rag.EventToken:
					shown.WriteString(e.Token)
				case rag.EventReset:
					shown.Reset()
					if e.Token != "" || e.Response != nil {
						t.Errorf("reset event carries data: %+v", e)
					}
				default:
					return
				}
				kinds = append(kinds, string(e.Kind))
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(kinds, " "); got != tt.wantKinds {
				t.Errorf("answer events %q, want %q", got, tt.wantKinds)
			}
			if resp.Answer != tt.wantAnswer {
				t.Errorf("answer %q, want %q", resp.Answer, tt.wantAnswer)
			}
			if got := strings.TrimSpace(shown.String()); got != resp.Answer {
				t.Errorf("tokens after the last reset %q, want the answer %q", got, resp.Answer)
			}
		})
	}
}
