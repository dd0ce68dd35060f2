package lexical_test

// Tests and benchmarks of the scorer with the Snowball stemmer of
// lexical/snowball. They live in package lexical_test because
// lexical/snowball imports lexical; export_test.go lends them the internal
// helpers they need.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/lexical/snowball"
)

func TestMatcherMatchesReferenceSnowball(t *testing.T) {
	for _, mode := range []lexical.MatchMode{lexical.MatchSubstring, lexical.MatchWordPrefix} {
		t.Run(fmt.Sprint(mode), func(t *testing.T) {
			opts := lexical.ScorerOptions{Match: mode, BM25: &lexical.BM25{Proximity: 1}}
			opts.Tokenizer.Filters = []lexical.TokenFilter{snowball.Filter{}}
			lexical.CheckMatcherMatchesReference(t, opts)
		})
	}
}

// TestBM25Exact checks that BM25.Exact favours the query's own word over
// another word of the same stem, and changes nothing when off.
func TestBM25Exact(t *testing.T) {
	fields := []lexical.FieldSpec{{Name: "content", Weight: 1}}
	own := lexical.Fields{{Name: "content", Text: "a CPU contém registradores rápidos"}}
	other := lexical.Fields{{Name: "content", Text: "a secretaria registra os pedidos"}}
	score := func(exact float64, d lexical.Fields) float64 {
		s := lexical.NewScorer(lexical.ScorerOptions{Fields: fields, Synonyms: &lexical.Synonyms{}, Match: lexical.MatchWordPrefix,
			Tokenizer: lexical.Tokenizer{Filters: []lexical.TokenFilter{snowball.Filter{}}}, BM25: &lexical.BM25{Exact: exact}})
		sc, _ := s.Prepare("para que servem os registradores").Score(d)
		return sc
	}
	if a, b := score(0, own), score(0, other); a != b {
		t.Errorf("Exact 0: own word %v, same stem %v; want equal", a, b)
	}
	if a, b := score(1, own), score(1, other); !(a > b) {
		t.Errorf("Exact 1: own word %v, same stem %v; want the own word higher", a, b)
	}
	if a, b := score(1, other), score(0, other); a != b {
		t.Errorf("a record without the query's own word scores %v with Exact, %v without", a, b)
	}
}

// BenchmarkScoreBM25 is BenchmarkScore's ScoreOnly/normalized with BM25F
// and proximity (the FAQ and document scoring), and snowball.Stem.
func BenchmarkScoreBM25(b *testing.B) {
	s := lexical.NewScorer(lexical.ScorerOptions{
		BM25:      &lexical.BM25{Proximity: 0.5, AvgLengths: map[string]float64{lexical.FieldName: 3, lexical.FieldDescription: 20, lexical.FieldTags: 2}},
		Match:     lexical.MatchWordPrefix,
		Tokenizer: lexical.Tokenizer{Filters: []lexical.TokenFilter{snowball.Filter{}}},
	})
	q := s.Prepare(lexical.BenchQueries[0])
	recs := lexical.BenchRecords(200, true)
	b.Run("ScoreOnly/normalized", func(b *testing.B) {
		i := 0
		for b.Loop() {
			_ = q.ScoreOnly(&recs[i%len(recs)])
			i++
		}
	})
	b.Run("SnowballStem", func(b *testing.B) {
		words := strings.Fields("declaracao obrigatoria entregar restituicao dependentes aposentadoria rendimentos tributaveis")
		i := 0
		for b.Loop() {
			_ = snowball.Stem(words[i%len(words)])
			i++
		}
	})
}
