package llm_test

import (
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
)

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		name, text string
		want       int
	}{
		{"empty", "", 0},
		{"one rune", "a", 1},
		{"four runes", "soja", 1},
		{"five runes", "sojas", 2},
		{"accents count as runes, not bytes", "ação", 1},
		{"sentence", "Qual o prazo de entrega?", 6},
		{"long", strings.Repeat("x", 4001), 1001},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := llm.EstimateTokens(tt.text); got != tt.want {
				t.Errorf("EstimateTokens(%q) = %d, want %d", tt.text, got, tt.want)
			}
		})
	}
}

// countingModel is a ChatModel with its own tokenizer: one token a word.
type countingModel struct{ *llmtest.Model }

func (countingModel) CountTokens(text string) int { return len(strings.Fields(text)) }

func TestCountTokens(t *testing.T) {
	const text = "Qual o prazo de entrega?"
	tests := []struct {
		name  string
		model llm.ChatModel
		want  int
	}{
		{"nil model: estimate", nil, 6},
		{"model without a counter: estimate", llmtest.NewModel(), 6},
		{"model with a counter", countingModel{llmtest.NewModel()}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := llm.CountTokens(tt.model, text); got != tt.want {
				t.Errorf("CountTokens = %d, want %d", got, tt.want)
			}
		})
	}
	if got := llm.TokenCounterFunc(func(string) int { return 7 }).CountTokens(text); got != 7 {
		t.Errorf("TokenCounterFunc = %d", got)
	}
}
