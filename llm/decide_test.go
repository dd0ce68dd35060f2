package llm_test

import (
	"testing"

	"github.com/hybridrag/hybridrag/llm"
)

func TestKeywordDecision(t *testing.T) {
	for _, tc := range []struct {
		reply string
		want  llm.DecisionKind
	}{
		// Seed 003 §9.3's confirmations, pt-BR and English.
		{"sim", llm.DecisionConfirm},
		{"Sim!", llm.DecisionConfirm},
		{"confirmo", llm.DecisionConfirm},
		{"pode", llm.DecisionConfirm},
		{"pode sim, por favor", llm.DecisionConfirm},
		{"ok", llm.DecisionConfirm},
		{"Beleza", llm.DecisionConfirm},
		{"manda ver", llm.DecisionConfirm},
		{"tá certo", llm.DecisionConfirm},
		{"Tá bom", llm.DecisionConfirm},
		{"bora", llm.DecisionConfirm},
		{"com certeza", llm.DecisionConfirm},
		{"pode enviar a cotação", llm.DecisionCorrect}, // "cotação" is content
		{"yes", llm.DecisionConfirm},
		{"Yes, go ahead.", llm.DecisionConfirm},
		{"sure, please do it", llm.DecisionConfirm},
		// Refusals.
		{"não", llm.DecisionReject},
		{"NÃO", llm.DecisionReject},
		{"nao", llm.DecisionReject},
		{"cancela", llm.DecisionReject},
		{"deixa pra lá", llm.DecisionReject},
		{"esquece", llm.DecisionReject},
		{"não precisa, obrigado", llm.DecisionReject},
		{"ok, cancela", llm.DecisionReject}, // a doubt runs nothing
		{"pode cancelar", llm.DecisionReject},
		{"no", llm.DecisionReject},
		{"don't", llm.DecisionReject},
		{"never mind", llm.DecisionReject},
		// Corrections (seed 003 §9.4) and anything else.
		{"não, 500 litros", llm.DecisionCorrect},
		{"na verdade é 82.5kg", llm.DecisionCorrect},
		{"sim, mas em Goiânia", llm.DecisionCorrect},
		{"quero 200", llm.DecisionCorrect},
		{"qual o prazo de entrega?", llm.DecisionCorrect},
		{"", llm.DecisionCorrect},
		{"  ...  ", llm.DecisionCorrect},
		{"obrigado", llm.DecisionCorrect},
	} {
		t.Run(tc.reply, func(t *testing.T) {
			if got := llm.KeywordDecision(tc.reply); got != tc.want {
				t.Errorf("KeywordDecision(%q) = %s, want %s", tc.reply, got, tc.want)
			}
		})
	}
}
