package rag

import (
	"slices"
	"testing"
)

// TestSentences: a line splits at its sentences' ends, semicolons and
// bullets, not at the period of a number or an abbreviation.
func TestSentences(t *testing.T) {
	for line, want := range map[string][]string{
		"na cultura do feijao, controla vaquinha. dose: 0,5 kg/ha":  {"na cultura do feijao, controla vaquinha", " dose: 0,5 kg/ha"},
		"soja: pratylenchus spp. (nematoide-das-lesoes) — 0,5 l/ha": {"soja: pratylenchus spp. (nematoide-das-lesoes) — 0,5 l/ha"},
		"soja (glycine max l.): nematoide":                          {"soja (glycine max l.): nematoide"},
		"soja 1. 5 l/ha; milho: lagarta":                            {"soja 1. 5 l/ha", " milho: lagarta"},
		"• algodao: mosca-branca • feijao: vaquinha":                {"", " algodao: mosca-branca ", " feijao: vaquinha"},
		"fusarium oxysporum f. sp. phaseoli.":                       {"fusarium oxysporum f. sp. phaseoli", ""},
		"":                                                          {""},
	} {
		if got := sentences(line); !slices.Equal(got, want) {
			t.Errorf("sentences(%q) = %q, want %q", line, got, want)
		}
	}
}

// TestAskedKinds: a question asks for a kind of value by its cues or by
// a value of the kind it states itself.
func TestAskedKinds(t *testing.T) {
	for _, tt := range []struct {
		text string
		want []string
	}{
		{"quanto tempo demora a entrega?", []string{"#duration"}},
		{"quando o pessoal pode voltar pra lavoura?", []string{"#duration"}},
		{"qnd chega?", []string{"#duration"}},
		{"o inoculante aguenta 35 grau no galpao?", []string{"#temperature"}},
		{"da pra passar com 34 graus de tarde?", []string{"#temperature"}},
		{"apliquei ha 10 dias, posso colher?", []string{"#duration"}},
		{"qual a dose na soja?", nil},
		{"o estorno no cartao cai quando?", []string{"#duration"}},
		{"o que fazer quando aparece ferrugem na soja?", nil},
	} {
		if got := askedKinds(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("askedKinds(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestBrandWords: the words of a product name before its concentration.
func TestBrandWords(t *testing.T) {
	for name, want := range map[string]string{
		"vinhedo cobre 350 wp": "vinhedo cobre",
		"glifomax 720 wg":      "glifomax",
		"xy 20 ec":             "",
		"mancozan":             "",
		"500 wp":               "",
	} {
		if got := brandWords(name); got != want {
			t.Errorf("brandWords(%q) = %q, want %q", name, got, want)
		}
	}
}
