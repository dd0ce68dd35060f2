package rerank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hybridrag/hybridrag/lexical"
)

// off drops a keyword weight component (any negative weight does).
const off = -1.0

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func mustKeyword(t testing.TB, opts KeywordOptions) *Keyword {
	t.Helper()
	k, err := NewKeyword(opts)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// byID returns the result for id.
func byID(t *testing.T, rs []Result, id string) Result {
	t.Helper()
	for _, r := range rs {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no result for %q in %v", id, ids(rs))
	return Result{}
}

func TestKeywordWorkedExamples(t *testing.T) {
	// Query terms after normalization, stopwords and stemming:
	// "fungicida", "videir" (from "videiras"), "oidio".
	const query = "Fungicida para videiras com oídio"
	cands := []Candidate{
		// original 10 → (10-2)/(10-2) = 1; content: fungicida, videir, oidio (3/3); title: fungicida (1/3)
		{ID: "a", Title: "Fungicida X", Content: "Fungicida sistêmico para a Videira; controla o Oídio.", Score: 10},
		// original 6 → 0.5; content 0/3; title: videir, oidio (2/3)
		{ID: "b", Title: "Videira e oídio: guia", Content: "Texto sem os termos.", Score: 6},
		// original 2 → 0; content: fungicidas → fungicida (1/3); no title
		{ID: "c", Title: "", Content: "FUNGICIDAS em geral", Score: 2},
	}
	k := mustKeyword(t, KeywordOptions{})
	got, err := k.Rerank(context.Background(), query, cands)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		original, content, title, score float64
		contentMatched, titleMatched    []string
	}{
		"a": {1, 1, 1.0 / 3, 0.60 + 0.25 + 0.15/3, []string{"fungicida", "videir", "oidio"}, []string{"fungicida"}},
		"b": {0.5, 0, 2.0 / 3, 0.30 + 0.10, nil, []string{"videir", "oidio"}},
		"c": {0, 1.0 / 3, 0, 0.25 / 3, []string{"fungicida"}, nil},
	}
	if !slices.Equal(ids(got), []string{"a", "b", "c"}) {
		t.Errorf("order = %v, want [a b c]", ids(got))
	}
	if terms, _ := k.query.Analyze(query); !slices.Equal(terms, []string{"fungicida", "videir", "oidio"}) {
		t.Errorf("terms = %q", terms)
	}
	for id, w := range want {
		t.Run(id, func(t *testing.T) {
			r := byID(t, got, id)
			e := r.Explanation.Keyword
			if e == nil || r.Explanation.Method != MethodKeyword {
				t.Fatalf("explanation = %+v", r.Explanation)
			}
			if !approx(e.Original.Normalized, w.original) || !approx(e.Content.Normalized, w.content) || !approx(e.Title.Normalized, w.title) {
				t.Errorf("components = %v / %v / %v, want %v / %v / %v",
					e.Original.Normalized, e.Content.Normalized, e.Title.Normalized, w.original, w.content, w.title)
			}
			if !approx(r.Score, w.score) || !approx(r.Explanation.Raw, w.score) {
				t.Errorf("score = %v (raw %v), want %v", r.Score, r.Explanation.Raw, w.score)
			}
			sum := e.Original.Contribution + e.Content.Contribution + e.Title.Contribution
			if !approx(sum, r.Score) {
				t.Errorf("contributions sum to %v, score %v", sum, r.Score)
			}
			if !slices.Equal(e.ContentMatched, w.contentMatched) || !slices.Equal(e.TitleMatched, w.titleMatched) {
				t.Errorf("matched = %q / %q, want %q / %q", e.ContentMatched, e.TitleMatched, w.contentMatched, w.titleMatched)
			}
			if r.Original != cands[r.Index].Score || r.ID != cands[r.Index].ID {
				t.Errorf("result %+v does not match candidate %d", r, r.Index)
			}
		})
	}
}

func TestKeywordOriginalScale(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name   string
		scale  OriginalScale
		scores []float64
		want   []float64 // normalized original per candidate
	}{
		{"min-max", ScaleMinMax, []float64{3, 1, 2}, []float64{1, 0, 0.5}},
		{"min-max negative scores", ScaleMinMax, []float64{-1, -3}, []float64{1, 0}},
		{"min-max all equal", ScaleMinMax, []float64{0.2, 0.2, 0.2}, []float64{1, 1, 1}},
		{"min-max single", ScaleMinMax, []float64{-7}, []float64{1}},
		{"min-max non-finite", ScaleMinMax, []float64{math.NaN(), inf, -inf, 4, 2}, []float64{0, 1, 0, 1, 0}},
		{"min-max only non-finite", ScaleMinMax, []float64{math.NaN(), inf}, []float64{0, 1}},
		{"min-max extreme range", ScaleMinMax, []float64{math.MaxFloat64, -math.MaxFloat64, 0}, []float64{1, 0, 0.5}},
		{"unit clamps", ScaleUnit, []float64{0.3, 1.7, -2, math.NaN()}, []float64{0.3, 1, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Only the original component: content and title off.
			k := mustKeyword(t, KeywordOptions{Weights: KeywordWeights{Original: 1, Content: off, Title: off}, Scale: tt.scale})
			cands := make([]Candidate, len(tt.scores))
			for i, s := range tt.scores {
				cands[i] = Candidate{ID: fmt.Sprint(i), Content: "nada", Score: s}
			}
			got, err := k.Rerank(context.Background(), "termo", cands)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range got {
				if w := tt.want[r.Index]; !approx(r.Score, w) || !approx(r.Explanation.Keyword.Original.Normalized, w) {
					t.Errorf("candidate %d: score %v, want %v", r.Index, r.Score, w)
				}
			}
		})
	}
}

func TestKeywordOverlap(t *testing.T) {
	tests := []struct {
		name    string
		query   string
		text    string
		want    float64
		matched []string
	}{
		{"plural query finds singular", "uvas", "Uva Itália", 1, []string{"uva"}},
		{"singular query finds plural", "pulgão", "Controle de pulgões", 1, []string{"pulg"}},
		{"accents ignored", "MÍLDIO", "mildio da videira", 1, []string{"mildio"}},
		{"stopwords not counted", "o fungicida de uva", "fungicida", 0.5, []string{"fungicida"}},
		{"substring is not a match", "uva", "chuva forte", 0, nil},
		{"compound and its parts", "cana-de-açúcar", "plantio de cana", 1.0 / 3, []string{"cana"}},
		{"compound in text", "cana-de-açúcar", "Cana-de-Açúcar irrigada", 1, []string{"cana-de-acucar", "cana", "acucar"}},
		{"number token", "2,4-D", "herbicida 2,4-D amina", 1, []string{"2,4-d"}},
		{"empty text", "fungicida", "", 0, nil},
		{"stopword-only query as phrase", "o que é", "O que é manejo integrado?", 1, []string{"o que e"}},
		{"phrase needs word boundaries", "o que é", "o queijo", 0, nil},
	}
	k := mustKeyword(t, KeywordOptions{Weights: KeywordWeights{Original: off, Content: 1, Title: off}})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := k.Rerank(context.Background(), tt.query, []Candidate{{ID: "x", Content: tt.text}})
			if err != nil {
				t.Fatal(err)
			}
			e := got[0].Explanation.Keyword
			if !approx(got[0].Score, tt.want) || !approx(e.Content.Normalized, tt.want) {
				terms, _ := k.query.Analyze(tt.query)
				t.Errorf("overlap = %v, want %v (terms %q)", e.Content.Normalized, tt.want, terms)
			}
			if !slices.Equal(e.ContentMatched, tt.matched) {
				t.Errorf("matched = %q, want %q", e.ContentMatched, tt.matched)
			}
		})
	}
}

func TestKeywordWeights(t *testing.T) {
	cand := []Candidate{{ID: "x", Title: "nada", Content: "fungicida", Score: 1}}
	tests := []struct {
		name    string
		weights KeywordWeights
		want    KeywordWeights // effective
		score   float64        // original 1, content 1, title 0
	}{
		{"zero value is the seed's", KeywordWeights{}, KeywordWeights{0.60, 0.25, 0.15}, 0.85},
		{"relative weights are divided by their sum", KeywordWeights{2, 1, 1}, KeywordWeights{0.5, 0.25, 0.25}, 0.75},
		{"title only", KeywordWeights{Original: off, Content: off, Title: 3}, KeywordWeights{0, 0, 1}, 0},
		{"zero fields mean their defaults", KeywordWeights{Title: 1.15}, KeywordWeights{0.3, 0.125, 0.575}, 0.425},
		{"content off", KeywordWeights{Content: -2}, KeywordWeights{0.8, 0, 0.2}, 0.8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := mustKeyword(t, KeywordOptions{Weights: tt.weights})
			w := k.effectiveWeights()
			if !approx(w.Original, tt.want.Original) || !approx(w.Content, tt.want.Content) || !approx(w.Title, tt.want.Title) {
				t.Errorf("weights = %+v, want %+v", w, tt.want)
			}
			got, err := k.Rerank(context.Background(), "fungicida", cand)
			if err != nil {
				t.Fatal(err)
			}
			if !approx(got[0].Score, tt.score) {
				t.Errorf("score = %v, want %v", got[0].Score, tt.score)
			}
		})
	}
}

func TestNewKeywordInvalid(t *testing.T) {
	tests := []struct {
		name string
		opts KeywordOptions
	}{
		{"every component off", KeywordOptions{Weights: KeywordWeights{Original: off, Content: off, Title: -3}}},
		{"NaN weight", KeywordOptions{Weights: KeywordWeights{Content: math.NaN()}}},
		{"infinite weight", KeywordOptions{Weights: KeywordWeights{Title: math.Inf(1)}}},
		{"weights overflowing", KeywordOptions{Weights: KeywordWeights{math.MaxFloat64, math.MaxFloat64, 0}}},
		{"unknown scale", KeywordOptions{Scale: 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if k, err := NewKeyword(tt.opts); !errors.Is(err, ErrInvalidOptions) || k != nil {
				t.Errorf("NewKeyword = %v, %v; want ErrInvalidOptions", k, err)
			}
		})
	}
}

func TestKeywordCustomTokenizer(t *testing.T) {
	// Without the stem filter "videiras" no longer matches "videira".
	plain := &lexical.Tokenizer{}
	tests := []struct {
		name string
		tok  *lexical.Tokenizer
		want float64
	}{
		{"default stems", nil, 1},
		{"unstemmed tokenizer", plain, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := mustKeyword(t, KeywordOptions{Weights: KeywordWeights{Original: off, Content: 1, Title: off}, Tokenizer: tt.tok})
			got, err := k.Rerank(context.Background(), "videiras", []Candidate{{ID: "x", Content: "videira"}})
			if err != nil {
				t.Fatal(err)
			}
			if !approx(got[0].Score, tt.want) {
				t.Errorf("score = %v, want %v", got[0].Score, tt.want)
			}
		})
	}
}

func TestKeywordEdgeCases(t *testing.T) {
	k := mustKeyword(t, KeywordOptions{})
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	t.Run("blank query", func(t *testing.T) {
		for _, q := range []string{"", "  \n\t", "\u00ad"} {
			if _, err := k.Rerank(context.Background(), q, makeCands(2)); !errors.Is(err, ErrEmptyQuery) {
				t.Errorf("Rerank(%q) err = %v, want ErrEmptyQuery", q, err)
			}
		}
	})
	t.Run("no candidates", func(t *testing.T) {
		got, err := k.Rerank(context.Background(), "q", nil)
		if err != nil || got != nil {
			t.Errorf("got %v, %v", got, err)
		}
	})
	t.Run("canceled context", func(t *testing.T) {
		if _, err := k.Rerank(canceled, "q", makeCands(2)); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("invalid UTF-8", func(t *testing.T) {
		got, err := k.Rerank(context.Background(), "uva\xff", []Candidate{{ID: "x", Content: "uva \xfe\xff"}})
		if err != nil {
			t.Fatal(err)
		}
		if e := got[0].Explanation.Keyword; len(e.ContentMatched) == 0 {
			t.Errorf("uva not matched: %+v", e)
		}
	})
	t.Run("input not modified", func(t *testing.T) {
		cands := makeCands(5)
		before := slices.Clone(cands)
		if _, err := k.Rerank(context.Background(), "t", cands); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(cands, before) {
			t.Errorf("input modified")
		}
	})
}

func TestKeywordExplanationString(t *testing.T) {
	k := mustKeyword(t, KeywordOptions{})
	got, err := k.Rerank(context.Background(), "fungicida uva", []Candidate{
		{ID: "a", Title: "Uva", Content: "fungicida para uva", Score: 2},
		{ID: "b", Title: "Outro", Content: "nada", Score: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"0.60×1.000 (original) + 0.25×1.000 (content: fungicida uva) + 0.15×0.500 (title: uva)",
		"0.60×0.000 (original) + 0.25×0.000 (content) + 0.15×0.000 (title)",
	}
	for i, r := range got {
		if s := r.Explanation.Keyword.String(); s != want[i] {
			t.Errorf("String() = %q, want %q", s, want[i])
		}
	}
}

func TestKeywordConcurrentUse(t *testing.T) {
	k := mustKeyword(t, KeywordOptions{})
	cands := benchCandidates(20)
	want, err := k.Rerank(context.Background(), benchQuery, cands)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 5 {
				got, err := k.Rerank(context.Background(), benchQuery, cands)
				if err != nil || !slices.Equal(ids(got), ids(want)) {
					t.Errorf("concurrent Rerank = %v, %v", ids(got), err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestContainsPhrase(t *testing.T) {
	tests := []struct {
		name, text, phrase string
		want               bool
	}{
		{"whole text", "o que e", "o que e", true},
		{"inside", "veja o que e isso", "o que e", true},
		{"before punctuation", "o que e?", "o que e", true},
		{"glued left", "xo que e", "o que e", false},
		{"glued right", "o que es", "o que e", false},
		{"second occurrence", "do que e o que e", "o que e", true},
		{"accented neighbor", "ão que e", "o que e", false},
		{"empty phrase", "abc", "", false},
		{"longer phrase", "ab", "abc", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := containsPhrase(tt.text, tt.phrase); got != tt.want {
				t.Errorf("containsPhrase(%q, %q) = %v", tt.text, tt.phrase, got)
			}
		})
	}
}

const benchQuery = "fungicida sistêmico para videiras com míldio"

// benchCandidates returns n seeded catalog-like candidates with ~60-word
// contents.
func benchCandidates(n int) []Candidate {
	vocab := strings.Fields("fungicida inseticida herbicida videira uva soja milho café míldio oídio " +
		"ferrugem pulgão lagarta controle aplicação dose calda pulverização sistêmico contato " +
		"preventivo curativo folha fruto cultura praga doença produto registro mapa classe " +
		"toxicológica ambiental intervalo segurança dias hectare litros água de para com em o a")
	rng := rand.New(rand.NewPCG(42, 7))
	words := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			ws[i] = vocab[rng.IntN(len(vocab))]
		}
		return strings.Join(ws, " ")
	}
	out := make([]Candidate, n)
	for i := range out {
		out[i] = Candidate{ID: fmt.Sprintf("p%03d", i), Title: words(4), Content: words(60), Score: rng.Float64() * 10}
	}
	return out
}

func BenchmarkKeyword(b *testing.B) {
	for _, n := range []int{20, 200} {
		b.Run(fmt.Sprintf("candidates=%d", n), func(b *testing.B) {
			k := mustKeyword(b, KeywordOptions{})
			cands := benchCandidates(n)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := k.Rerank(ctx, benchQuery, cands); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkApplyKeyword(b *testing.B) {
	k := mustKeyword(b, KeywordOptions{})
	cands := benchCandidates(60)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Apply(ctx, k, benchQuery, cands, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestKeywordManyTerms(t *testing.T) {
	// More than 16 query terms switch the matcher to a map.
	tok := &lexical.Tokenizer{MaxTokens: -1, Filters: []lexical.TokenFilter{lexical.StemFilter{}}}
	k := mustKeyword(t, KeywordOptions{Weights: KeywordWeights{Original: off, Content: 1, Title: off}, Tokenizer: tok})
	words := make([]string, 20)
	for i := range words {
		words[i] = fmt.Sprintf("termo%02d", i)
	}
	content := strings.Join(words[:5], " ") + " outro " + words[19]
	got, err := k.Rerank(context.Background(), strings.Join(words, " "), []Candidate{{ID: "x", Content: content}})
	if err != nil {
		t.Fatal(err)
	}
	terms, _ := k.query.Analyze(strings.Join(words, " "))
	if len(terms) != 20 || !approx(got[0].Score, 6.0/20) {
		t.Errorf("terms %d, score %v; want 20, 0.3", len(terms), got[0].Score)
	}
	if want, e := append(slices.Clone(words[:5]), words[19]), got[0].Explanation.Keyword; !slices.Equal(e.ContentMatched, want) {
		t.Errorf("matched = %q, want %q", e.ContentMatched, want)
	}
}

// TestMatchFieldsAgreesWithFullTokenizing checks the field-by-field
// matcher against tokenizing whole texts, on seeded random texts full of
// the cases that could tell them apart: substrings of terms inside other
// words, compounds, numbers, punctuation, stopwords, plurals and accents.
func TestMatchFieldsAgreesWithFullTokenizing(t *testing.T) {
	vocab := strings.Fields("uva uvas Uvaia chuva videira videiras vide fungicida fungicidas " +
		"Fungicida-sistêmico cana-de-açúcar cana açúcar mosca-branca mosca branca 2,4-D 2,4 " +
		"10-10-10 0,5 0.5 pulgão pulgões (míldio) míldio, oídio. de da o a para com-de " +
		"x y é e-a mesmo mesmos café cafés cafezal – -uva uva- ç")
	queries := []string{"uvas videira", "fungicida sistêmico", "cana-de-açúcar", "2,4-D", "pulgões",
		"míldio oídio café", "mosca-branca", "10-10-10 0,5", "uva de mesa", "mesmos cafés"}
	tok := lexical.Tokenizer{Filters: []lexical.TokenFilter{lexical.StemFilter{}}}
	text := tok
	text.MaxTokens = -1
	rng := rand.New(rand.NewPCG(1, 2))
	for _, q := range queries {
		terms, phrase := tok.Analyze(q)
		if phrase {
			t.Fatalf("query %q fell back to a phrase", q)
		}
		m := newMatcher(terms, false, text)
		if !m.local {
			t.Fatal("default tokenizer should use the field matcher")
		}
		for range 300 {
			ws := make([]string, 1+rng.IntN(12))
			for i := range ws {
				ws[i] = vocab[rng.IntN(len(vocab))]
			}
			norm := lexical.Normalize(strings.Join(ws, " "))
			fields, all := make([]bool, len(terms)), make([]bool, len(terms))
			nf, na := m.matchFields(norm, fields), m.matchAll(norm, all)
			if nf != na || !slices.Equal(fields, all) {
				t.Fatalf("query %q, text %q: fields %v (%d), all %v (%d); terms %q", q, norm, fields, nf, all, na, terms)
			}
		}
	}
}
