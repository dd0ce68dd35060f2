package lexical

import (
	"math"
	"slices"
	"testing"
)

// vocabDocs is a small pt-BR catalog: 8 documents.
var vocabDocs = []string{
	"Fungicida para uva e tomate",
	"Fungicida sistêmico para soja",
	"Fungicidas protetores para café",
	"Inseticida para lagarta-do-cartucho no milho",
	"Inseticida para percevejo na soja",
	"Herbicida para capim no algodão",
	"Herbicida seletivo para algodão e soja",
	"Acaricida para ácaro-rajado no algodão",
}

func TestVocabularyDocFreq(t *testing.T) {
	v := newVocabulary(vocabDocs)
	if v.Docs() != 8 {
		t.Fatalf("Docs = %d, want 8", v.Docs())
	}
	tests := []struct {
		term string
		want int
	}{
		{"soja", 3},
		{"algodao", 3},      // "algodão" normalized
		{"Algodão", 3},      // terms are normalized too
		{"fungicid", 3},     // prefix: fungicida ×2 + fungicidas ×1
		{"fungicida", 3},    // "fungicidas" starts with "fungicida"
		{"cartucho", 1},     // compound parts are words
		{"ferrugem", 0},     // absent
		{"para", 8},         // in every document
		{"acaro rajado", 1}, // several words: the rarest
		{"soja capim", 1},
		{"", 0},
	}
	for _, tt := range tests {
		t.Run(tt.term, func(t *testing.T) {
			if got := v.DocFreq(tt.term); got != tt.want {
				t.Errorf("DocFreq(%q) = %d, want %d", tt.term, got, tt.want)
			}
		})
	}
}

func TestVocabularyIDF(t *testing.T) {
	v := newVocabulary(vocabDocs)
	// BM25 idf with N = 8: soja (df 3) = ln(1 + 5.5/3.5); absent = ln(1 + 8.5/0.5).
	if got, want := v.IDF("soja"), math.Log(1+5.5/3.5); math.Abs(got-want) > 1e-12 {
		t.Errorf("IDF(soja) = %v, want %v", got, want)
	}
	if got, want := v.IDF("ferrugem"), math.Log(1+8.5/0.5); math.Abs(got-want) > 1e-12 {
		t.Errorf("IDF(ferrugem) = %v, want %v", got, want)
	}

	// Weights relative to a term in 10% of 8 documents: refDF = max(0.8,
	// 1) = 1, base = ln(1 + 7.5/1.5) = ln 6.
	w := v.IDFWeights(IDFOptions{})
	base := math.Log(6)
	tests := []struct {
		term string
		want float64
	}{
		{"cartucho", 1},                              // df 1: the reference itself
		{"soja", math.Log(1+5.5/3.5) / base},         // ≈ 0.53
		{"para", defaultIDFFloor},                    // df 8: ln(1+0.5/8.5)/ln 6 ≈ 0.03 → floor
		{"ferrugem", math.Log(1+8.5/0.5) / base},     // ≈ 1.61, under the cap
		{"fungicida", math.Log(1+5.5/3.5) / base},    // df 3
		{"algodao soja", math.Log(1+5.5/3.5) / base}, // the rarest word
	}
	for _, tt := range tests {
		t.Run(tt.term, func(t *testing.T) {
			if got := w(tt.term); math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("weight(%q) = %v, want %v", tt.term, got, tt.want)
			}
		})
	}
	if got := (IDFOptions{Cap: 1.2}); v.IDFWeights(got)("ferrugem") != 1.2 {
		t.Errorf("cap 1.2 not applied: %v", v.IDFWeights(got)("ferrugem"))
	}
	var empty *Vocabulary
	if got := empty.IDFWeights(IDFOptions{})("soja"); got != 1 {
		t.Errorf("nil vocabulary weight = %v, want 1", got)
	}
}

func TestVocabularyCorrect(t *testing.T) {
	v := newVocabulary(append(slices.Clone(vocabDocs), "Inseticida para tripes no algodão", "Fungicida para ferrugem na soja"))
	tests := []struct {
		token  string
		minDF  int
		want   string
		wantOK bool
	}{
		{"fungisida", 1, "fungicida", true},   // c → s
		{"insetisida", 1, "inseticida", true}, // c → s
		{"erbicida", 1, "herbicida", true},    // silent h dropped
		{"aglodao", 1, "algodao", true},       // transposition
		{"algodão", 1, "", false},             // known (accents fold)
		{"fungicidas", 1, "", false},          // known word
		{"fung", 1, "", false},                // too short
		{"soija", 1, "soja", true},            // insertion, 5 letters
		{"xyzwq", 1, "", false},               // nothing within one edit
		{"percevjo", 1, "percevejo", true},    // deletion
		{"percevejo", 1, "", false},           // known
		{"ferugem", 2, "", false},             // "ferrugem" is in 1 document only
		{"ferugem", 1, "ferrugem", true},
		{"2,4-d", 1, "", false},             // not letters
		{"fngcida", 1, "", false},           // two edits, 7 letters: one allowed
		{"fungixxda", 1, "fungicida", true}, // two edits from 8 letters on
	}
	for _, tt := range tests {
		t.Run(tt.token, func(t *testing.T) {
			got, ok := v.Correct(tt.token, tt.minDF)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("Correct(%q, %d) = %q, %v; want %q, %v", tt.token, tt.minDF, got, ok, tt.want, tt.wantOK)
			}
			// A second call hits the cache and answers the same.
			if got2, ok2 := v.Correct(tt.token, tt.minDF); got2 != got || ok2 != ok {
				t.Errorf("cached Correct(%q) = %q, %v", tt.token, got2, ok2)
			}
		})
	}
	var nilVocab *Vocabulary
	if _, ok := nilVocab.Correct("fungisida", 1); ok {
		t.Error("nil vocabulary corrected a token")
	}
}

func TestVocabularyCorrectPrefersFrequent(t *testing.T) {
	// "milha" is one edit from "milho" (3 documents) and "milhe" (1).
	v := newVocabulary([]string{"milho", "milho verde", "milho pipoca", "milhe"})
	if got, ok := v.Correct("milha", 1); !ok || got != "milho" {
		t.Errorf("Correct(milha) = %q, %v; want milho", got, ok)
	}
}

func TestCorrectText(t *testing.T) {
	v := newVocabulary(vocabDocs)
	tests := []struct {
		name, text, want string
		corrections      []Correction
		keep             func(string) bool
	}{
		{
			name: "typo replaced, rest kept as written", text: "Fungisida pra Uva!",
			want: "fungicida pra Uva!", corrections: []Correction{{From: "fungisida", To: "fungicida"}},
		},
		{
			name: "two corrections", text: "insetisida no aglodão",
			want:        "inseticida no algodao",
			corrections: []Correction{{From: "insetisida", To: "inseticida"}, {From: "aglodao", To: "algodao"}},
		},
		{name: "nothing to correct", text: "herbicida para soja", want: "herbicida para soja"},
		{
			name: "keep protects a word", text: "fungisida", want: "fungisida",
			keep: func(w string) bool { return w == "fungisida" },
		},
		{name: "empty", text: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, corr := v.CorrectText(tt.text, 1, tt.keep)
			if got != tt.want || !slices.Equal(corr, tt.corrections) {
				t.Errorf("CorrectText(%q) = %q, %v; want %q, %v", tt.text, got, corr, tt.want, tt.corrections)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b  string
		limit int
		want  int
	}{
		{"fungicida", "fungicida", 2, 0},
		{"fungisida", "fungicida", 2, 1},
		{"aglodao", "algodao", 2, 1}, // transposition counts 1
		{"erbicida", "herbicida", 2, 1},
		{"abc", "xyz", 2, 3},   // over the limit: limit+1
		{"abcdef", "ab", 2, 3}, // length difference alone exceeds it
		{"kitten", "sitting", 3, 3},
	}
	for _, tt := range tests {
		t.Run(tt.a+"/"+tt.b, func(t *testing.T) {
			if got := editDistance(tt.a, tt.b, tt.limit); got != tt.want {
				t.Errorf("editDistance(%q, %q, %d) = %d, want %d", tt.a, tt.b, tt.limit, got, tt.want)
			}
		})
	}
}

func TestScorerWithIDF(t *testing.T) {
	base := NewScorer(ScorerOptions{Fields: []FieldSpec{{Name: "text", Weight: 2}}, Synonyms: &Synonyms{}})
	idf := func(term string) float64 {
		if term == "azoxistrobina" {
			return 3
		}
		return 0.5
	}
	s := base.WithIDF(idf)
	if base.IDF() != nil {
		t.Fatal("WithIDF modified the original scorer")
	}
	rec := Fields{{Name: "text", Text: "azoxistrobina para soja"}}
	// Terms azoxistrobina (idf 3) and soja (0.5): fields 2×3 + 2×0.5 = 7,
	// match bonus 0.5×3 + 0.5×0.5 = 1.75.
	if got := s.Prepare("azoxistrobina soja").ScoreOnly(&rec); math.Abs(got-8.75) > 1e-12 {
		t.Errorf("score with IDF = %v, want 8.75", got)
	}
	// Without: 2 + 2 + 0.5 + 0.5.
	if got := base.Prepare("azoxistrobina soja").ScoreOnly(&rec); got != 5 {
		t.Errorf("score without IDF = %v, want 5", got)
	}
}

func BenchmarkVocabularyCorrect(b *testing.B) {
	docs := make([]string, 0, 2000)
	for i := range 2000 {
		docs = append(docs, vocabDocs[i%len(vocabDocs)]+" lote"+string(rune('a'+i%26))+string(rune('a'+i/26%26)))
	}
	v := newVocabulary(docs)
	b.ResetTimer()
	for i := range b.N {
		v.mu.Lock()
		v.cache = nil // measure the search, not the cache
		v.mu.Unlock()
		_, _ = v.Correct([]string{"fungisida", "insetisida", "aglodao"}[i%3], 1)
	}
}

func TestCorrectSkipsInflections(t *testing.T) {
	// "matar" is one deletion from "mata", but it extends it: an
	// inflection, left alone.
	v := newVocabulary([]string{"mata-pasto", "mata-pasto", "capim"})
	if got, ok := v.Correct("matar", 1); ok {
		t.Errorf("Correct(matar) = %q, want no correction", got)
	}
}
