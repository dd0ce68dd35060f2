package offline

import (
	"reflect"
	"testing"
)

func TestExtractDefinitions(t *testing.T) {
	terms := []struct {
		q    string
		want []string
	}{
		{"o que é vazio sanitário?", []string{"vazio sanitario"}},
		{"O que é resistência de planta daninha a herbicida?", []string{"resistencia de planta daninha a herbicida", "resistencia"}},
		{"o que quer dizer PRNT no calcário?", []string{"prnt no calcario", "prnt"}},
		{"What does PRNT mean?", []string{"prnt"}},
		{"qual a dose do Fungiprot?", nil},
	}
	for _, tt := range terms {
		if got := definedTerms(tt.q); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("definedTerms(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
	defines := []struct {
		text  string
		terms []string
		want  bool
	}{
		{"O vazio sanitário é o período de pelo menos 60 dias sem plantas vivas de soja no campo.", []string{"vazio sanitario"}, true},
		{"Inicie as aplicações de forma preventiva, respeite o vazio sanitário e evite repetir o mesmo grupo.", []string{"vazio sanitario"}, false},
		{"Resistência é a capacidade herdável de uma população de plantas.", []string{"resistencia de planta daninha", "resistencia"}, true},
		{"Garantias: poder relativo de neutralização total (PRNT) 90%.", []string{"prnt"}, true},
	}
	for _, tt := range defines {
		if got := definesTerm(tt.text, tt.terms); got != tt.want {
			t.Errorf("definesTerm(%q, %q) = %v", tt.text, tt.terms, got)
		}
	}
}

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
