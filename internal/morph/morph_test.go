package morph

import (
	"slices"
	"strings"
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

// FuzzVerbForm: any input is answered without panicking, and a word the
// table does not know as a verb form is not one once extended by letters
// no rule adds ("mandeiqx").
func FuzzVerbForm(f *testing.F) {
	for _, w := range []string{"mandei", "galao", "", "a", "áéí", "por", strings.Repeat("ar", 200), "\xff\xfe"} {
		f.Add(w)
	}
	f.Fuzz(func(t *testing.T, w string) {
		VerbForm(w)
		if VerbForm(w + "qx") {
			t.Errorf("VerbForm(%q) = true", w+"qx")
		}
	})
}
