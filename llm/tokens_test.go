package llm_test

import (
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/llm"
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

func TestTokenCounterFunc(t *testing.T) {
	const text = "Qual o prazo de entrega?"
	if got := llm.EstimateTokens(text); got != 6 {
		t.Errorf("EstimateTokens = %d, want 6", got)
	}
	if got := llm.TokenCounterFunc(func(string) int { return 7 }).CountTokens(text); got != 7 {
		t.Errorf("TokenCounterFunc = %d", got)
	}
}
