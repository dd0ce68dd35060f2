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

func TestGeneral(t *testing.T) {
	f := lexicon.General()
	if f.Len() < 15000 {
		t.Fatalf("General().Len() = %d, want the 10,000 most common words of each language", f.Len())
	}
	// Function words are stopwords and among the most common.
	for _, w := range []string{"você", "VOCÊS", "que", "the", "your"} {
		u, ok := f.Lookup(w)
		if !ok || !u.Stop || u.Rank < 1 || u.Rank > 200 {
			t.Errorf("Lookup(%q) = %+v, %t; want a common stopword", w, u, ok)
		}
	}
	// Everyday nouns are common but not stopwords; a store's technical
	// words are not among the common words at all.
	for _, w := range []string{"carro", "sábado", "car", "weather"} {
		u, ok := f.Lookup(w)
		if !ok || u.Stop || u.Rank < 100 || u.Rank > 5000 {
			t.Errorf("Lookup(%q) = %+v, %t; want a common content word", w, u, ok)
		}
	}
	for _, w := range []string{"fungicida", "glifosato", "azoxistrobina", "fungicide", ""} {
		if u, ok := f.Lookup(w); ok {
			t.Errorf("Lookup(%q) = %+v, want not among the common words", w, u)
		}
	}
	if _, ok := (*lexicon.Frequencies)(nil).Lookup("que"); ok {
		t.Error("a nil Frequencies holds a word")
	}
	n := 0
	for w, u := range f.All() {
		if w == "" || u.Rank < 0 {
			t.Fatalf("All yields %q %+v", w, u)
		}
		n++
	}
	if n != f.Len() {
		t.Errorf("All yields %d words, Len says %d", n, f.Len())
	}
}
