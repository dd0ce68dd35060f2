package offline

import (
	"reflect"
	"testing"
)

func TestExtractAsksSafetyInterval(t *testing.T) {
	for q, want := range map[string]bool{
		"Qual a carência do Tebucor no trigo?":                                    true,
		"qual o intervalo de segurança do Fungiprot":                              true,
		"What is the safety interval of Mancozan on tomato?":                      true,
		"quantos dias antes da colheita posso aplicar?":                           true,
		"no programa, qual o intervalo entre as aplicações de fungicida?":         false,
		"depois de aplicar quanto tempo tenho que esperar pra entrar (reentrada)": false,
		"qual a dose do Fungiprot no café?":                                       false,
	} {
		if got := asksSafetyInterval(paddedWords(q)); got != want {
			t.Errorf("asksSafetyInterval(%q) = %v", q, got)
		}
	}
}

func TestExtractMatchTargets(t *testing.T) {
	targets := "capim-amargoso (Digitaria insularis), capim-colchão (Digitaria horizontalis) e capim-carrapicho (Cenchrus echinatus)"
	tests := []struct {
		words []string
		want  []string
	}{
		{contentWords("capim-amargoso"), []string{"capim-amargoso (Digitaria insularis)"}},
		{contentWords("capim"), []string{"capim-amargoso (Digitaria insularis)", "capim-colchão (Digitaria horizontalis)", "capim-carrapicho (Cenchrus echinatus)"}},
		{contentWords("buva"), nil},
	}
	for _, tt := range tests {
		if got, _ := matchTargets(targets, tt.words); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("matchTargets(%q) = %q, want %q", tt.words, got, tt.want)
		}
	}
}
