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

func TestDefaultFrequencies(t *testing.T) {
	f := lexicon.DefaultFrequencies()
	if f.Len() < 9000 {
		t.Fatalf("DefaultFrequencies().Len() = %d, want about 9,900 words", f.Len())
	}
	// Function words are the most common; everyday nouns common; a
	// store's technical words are not among the common words at all.
	for _, w := range []string{"que", "VOCÊS", "the", "your"} {
		if !f.Function(w) {
			t.Errorf("Function(%q) = false, want a function word", w)
		}
	}
	for _, w := range []string{"carro", "sábado", "fungicida"} {
		if f.Function(w) {
			t.Errorf("Function(%q) = true", w)
		}
	}
	for w, want := range map[string][2]int{"que": {1, 5}, "VOCÊS": {50, 150}, "carro": {100, 400}, "sábado": {1000, 3000}} {
		if r := f.Rank(w); r < want[0] || r > want[1] {
			t.Errorf("Rank(%q) = %d, want %d–%d", w, r, want[0], want[1])
		}
	}
	for _, w := range []string{"fungicida", "glifosato", "azoxistrobina", ""} {
		if r := f.Rank(w); r != 0 {
			t.Errorf("Rank(%q) = %d, want 0 (not a common word)", w, r)
		}
	}
	if (*lexicon.Frequencies)(nil).Rank("que") != 0 || (*lexicon.Frequencies)(nil).Len() != 0 {
		t.Error("a nil Frequencies holds a word")
	}
	n := 0
	for w, r := range f.All() {
		if w == "" || r < 1 {
			t.Fatalf("All yields %q %d", w, r)
		}
		n++
	}
	if n != f.Len() {
		t.Errorf("All yields %d words, Len says %d", n, f.Len())
	}
}

func TestNewFrequencies(t *testing.T) {
	f := lexicon.NewFrequencies(map[string]int{"Café": 7, "cafe": 3, "": 1, "zero": 0, "pão": 12}, []string{"Você", ""})
	if f.Len() != 2 || f.Rank("CAFÉ") != 3 || f.Rank("pao") != 12 || f.Rank("zero") != 0 {
		t.Errorf("NewFrequencies: Len %d, café %d, pão %d, zero %d; want 2, 3, 12, 0", f.Len(), f.Rank("CAFÉ"), f.Rank("pao"), f.Rank("zero"))
	}
	if !f.Function("voce") || f.Function("cafe") || f.Function("") {
		t.Error("Function: want voce only")
	}
	if e := lexicon.NewFrequencies(nil, nil); e.Len() != 0 || e.Function("voce") {
		t.Error("NewFrequencies(nil, nil) holds words")
	}
}
