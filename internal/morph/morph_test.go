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
