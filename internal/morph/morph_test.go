package morph

import (
	"slices"
	"testing"
)

func TestUndiminish(t *testing.T) {
	for word, want := range map[string][]string{
		"lagartinha":   {"lagarta"},
		"mosquinha":    {"mosca"},
		"formiguinhas": {"formigas"},
		"pulgaozinho":  {"pulgao"},
		"bichinho":     {"bicho"},
		"soja":         nil,
		"minha":        nil,
	} {
		if got := Undiminish(word); !slices.Equal(got, want) {
			t.Errorf("Undiminish(%q) = %q, want %q", word, got, want)
		}
	}
}

// TestVerbForm: forms only a verb has are verb forms; nouns, the forms
// nouns share (participles, present singulars) and unknown words are not.
func TestVerbForm(t *testing.T) {
	for _, w := range []string{"mandei", "arrependi", "abrem", "ligar", "chegou", "devolver", "atendem", "comprei", "mandam", "criou", "queremos", "fazendo"} {
		if !VerbForm(w) {
			t.Errorf("VerbForm(%q) = false, want true", w)
		}
	}
	for _, w := range []string{"galao", "sabado", "paraguai", "entrega", "troca", "plano", "multa", "usado", "imposto", "aberto", "areia", "ataque", "semana", "dinheiro", "", "x", "zzzz"} {
		if VerbForm(w) {
			t.Errorf("VerbForm(%q) = true, want false", w)
		}
	}
}
