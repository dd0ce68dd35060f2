package lexicon_test

import (
	"testing"

	"github.com/hybridrag/hybridrag/lexical/lexicon"
)

func TestDefaultKnowsWords(t *testing.T) {
	l := lexicon.Default()
	if l.Len() < 100_000 {
		t.Fatalf("default lexicon holds %d stems, want the embedded list", l.Len())
	}
	// Words of the language, in any inflection, case or accents, whether
	// a store holds them or not.
	for _, w := range []string{"sábado", "SÁBADO", "sabado", "aérea", "aéreas", "entregar", "entregou", "remédio",
		"remédios", "carro", "vocês", "previsão", "amanhã", "passagem", "vendem", "abrem", "times", "return", "bought", "mistake"} {
		if !l.Known(w) {
			t.Errorf("%q is not known", w)
		}
	}
	// Typos of words the store holds are not.
	for _, w := range []string{"fungisida", "insetisida", "funjicida", "inceticida", "ferujem", "glifosfato", "herbicda", "fertilisante"} {
		if l.Known(w) {
			t.Errorf("typo %q is known", w)
		}
	}
	if l.Known("") || (*lexicon.Lexicon)(nil).Known("sábado") {
		t.Error("the empty word or a nil lexicon knows a word")
	}
}

func TestNew(t *testing.T) {
	l := lexicon.New([]string{"Fungicidas", "café", "pulgão", "café"})
	if l.Len() != 3 {
		t.Errorf("Len = %d, want 3 distinct stems", l.Len())
	}
	for w, want := range map[string]bool{"fungicida": true, "CAFE": true, "pulgao": true, "cafezal": false, "milho": false} {
		if got := l.Known(w); got != want {
			t.Errorf("Known(%q) = %t, want %t", w, got, want)
		}
	}
}

func BenchmarkKnown(b *testing.B) {
	l := lexicon.Default()
	for b.Loop() {
		l.Known("sábado")
	}
}
