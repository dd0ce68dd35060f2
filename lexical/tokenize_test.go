package lexical

import (
	"slices"
	"strings"
	"testing"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"white space only", "  \t ", nil},
		{"simple query", "fungicida para videira", []string{"fungicida", "videira"}},
		{"accents and case", "Herbicida para CANA-DE-AÇÚCAR", []string{"herbicida", "cana-de-acucar", "cana", "acucar"}},
		{"chat question", "Olá, qual o melhor produto pra pulgão no tomateiro?", []string{"melhor", "produto", "pulgao", "tomateiro"}},
		{"herbicide 2,4-D stays whole", "2,4-D para pastagem", []string{"2,4-d", "pastagem"}},
		{"NPK formula stays whole", "adubo NPK 10-10-10", []string{"adubo", "npk", "10-10-10"}},
		{"decimal number", "dose de 0,5 L/ha", []string{"dose", "0,5"}},
		{"comma between words splits", "soja,milho;trigo", []string{"soja", "milho", "trigo"}},
		{"trailing hyphen", "pré- e pós-emergente", []string{"pre", "pos-emergente", "pos", "emergente"}},
		{"compound with stopword part", "mosca-das-frutas", []string{"mosca-das-frutas", "mosca", "frutas"}},
		{"dedupe keeps first", "soja Soja SOJA milho soja", []string{"soja", "milho"}},
		{"short tokens dropped", "x y z uva", []string{"uva"}},
		{"english stopwords", "what is the best fungicide for grapes", []string{"best", "fungicide", "grapes"}},
		{"at most eight", "a1 b2 c3 d4 e5 f6 g7 h8 i9 j10", []string{"a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8"}},
		{"fallback to whole query", "O que é isso?", []string{"o que e isso?"}},
		{"fallback single stopword", "de", []string{"de"}},
		{"apostrophe splits", "olho-d'água", []string{"olho-d", "olho", "agua"}},
		{"non latin script", "Фунгицид для винограда", []string{"фунгицид", "для", "винограда"}},
		{"invalid utf-8", "soja\xffmilho", []string{"soja", "milho"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Tokens(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestTokenizerOptions(t *testing.T) {
	tests := []struct {
		name string
		tok  Tokenizer
		in   string
		want []string
	}{
		{"compounds only", Tokenizer{Compounds: CompoundsOnly}, "cana-de-açúcar e soja", []string{"cana-de-acucar", "soja"}},
		{"parts only", Tokenizer{Compounds: PartsOnly}, "cana-de-açúcar e soja", []string{"cana", "acucar", "soja"}},
		{"parts only keeps numbers whole", Tokenizer{Compounds: PartsOnly}, "2,4-D", []string{"2,4-d"}},
		{"min length 4", Tokenizer{MinLength: 4}, "uva soja pé", []string{"soja"}},
		{"negative min length keeps all", Tokenizer{MinLength: -1, Stopwords: NewStopwordSet()}, "a b", []string{"a", "b"}},
		{"max tokens 2", Tokenizer{MaxTokens: 2}, "soja milho trigo", []string{"soja", "milho"}},
		{"no cap", Tokenizer{MaxTokens: -1}, "a1 b2 c3 d4 e5 f6 g7 h8 i9 j10", []string{"a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8", "i9", "j10"}},
		{"no stopwords", Tokenizer{Stopwords: NewStopwordSet()}, "fungicida para uva", []string{"fungicida", "para", "uva"}},
		{"custom stopwords", Tokenizer{Stopwords: DefaultStopwords().With("Produto", "controle")}, "produto para controle de lagarta", []string{"lagarta"}},
		{"stemming filter", Tokenizer{Filters: []TokenFilter{StemFilter{}}}, "fungicidas para lagartas e pulgões", []string{"fungicida", "lagarta", "pulg"}},
		{"stemming dedupes", Tokenizer{Filters: []TokenFilter{StemFilter{}}}, "lagarta lagartas", []string{"lagarta"}},
		{"filter func", Tokenizer{Filters: []TokenFilter{TokenFilterFunc(func(ts []string) []string {
			return slices.DeleteFunc(ts, func(s string) bool { return s == "milho" })
		})}}, "soja milho", []string{"soja"}},
		{"nil filter skipped", Tokenizer{Filters: []TokenFilter{nil}}, "soja", []string{"soja"}},
		{"filter emptying falls back", Tokenizer{Filters: []TokenFilter{TokenFilterFunc(func([]string) []string { return nil })}}, "Soja Milho", []string{"soja milho"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.tok.Tokens(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Tokens(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestAnalyzeFallback(t *testing.T) {
	tests := []struct {
		in           string
		wantFallback bool
	}{
		{"o que é isso", true},
		{"soja", false},
		{"", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, fb := Tokenizer{}.Analyze(tt.in)
			if fb != tt.wantFallback {
				t.Errorf("Analyze(%q) fallback = %v, want %v", tt.in, fb, tt.wantFallback)
			}
		})
	}
}

func TestStopwordSet(t *testing.T) {
	d := DefaultStopwords()
	for _, w := range []string{"de", "para", "nao", "voce", "the", "quero", "estao"} {
		if !d.Contains(w) {
			t.Errorf("default stopwords lack %q", w)
		}
	}
	for _, w := range []string{"soja", "uva", "fungicida", "dias", "são"} {
		if d.Contains(w) {
			t.Errorf("default stopwords hold content word %q", w)
		}
	}
	more := d.With("Produto")
	if !more.Contains("produto") || d.Contains("produto") {
		t.Error("With must return an extended copy and leave the receiver alone")
	}
	less := d.Without("Não")
	if less.Contains("nao") || !d.Contains("nao") {
		t.Error("Without must return a reduced copy and leave the receiver alone")
	}
	var nilSet *StopwordSet
	if nilSet.Contains("de") || nilSet.Len() != 0 {
		t.Error("nil set must be empty")
	}
	if got := nilSet.With("x"); !got.Contains("x") {
		t.Error("With on nil set")
	}
	for _, w := range parseWordList(stopwordsPT + stopwordsEN) {
		if Normalize(w) != w || strings.ContainsAny(w, " -") {
			t.Errorf("stopword list entry %q is not a normalized single word", w)
		}
	}
}

func TestCompoundModeString(t *testing.T) {
	for m, want := range map[CompoundMode]string{CompoundsAndParts: "compounds+parts", CompoundsOnly: "compounds", PartsOnly: "parts", 9: "CompoundMode(9)"} {
		if got := m.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", m, got, want)
		}
	}
}
