package lexical

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestMatcherMatchesReference scores seeded records with the compiled
// matcher and with the reference path (strings.Contains per term, word
// scan per field) and wants identical Signals. The Snowball variant is in
// snowball_test.go (package lexical_test, which may import
// lexical/snowball).
func TestMatcherMatchesReference(t *testing.T) {
	for _, mode := range []MatchMode{MatchSubstring, MatchWordPrefix} {
		for _, variant := range []string{"presence", "stem", "bm25"} {
			t.Run(fmt.Sprintf("%v/%s", mode, variant), func(t *testing.T) {
				opts := ScorerOptions{Match: mode}
				switch variant {
				case "stem":
					opts.Tokenizer.Filters = []TokenFilter{StemFilter{}}
				case "bm25":
					opts.BM25 = &BM25{Proximity: 0.5, AvgLengths: map[string]float64{FieldName: 3, FieldDescription: 12, FieldTags: 2}}
				}
				checkMatcherMatchesReference(t, opts)
			})
		}
	}
}

// checkMatcherMatchesReference scores seeded queries and records with a
// scorer built from opts, through the compiled matcher and through the
// reference path, and fails on any difference.
func checkMatcherMatchesReference(t *testing.T, opts ScorerOptions) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	var queries []string
	queries = append(queries, benchQueries...)
	queries = append(queries, "mato no tomate", "uva chuva", "erva daninha em canaviais", "o que é isso?", "ácaro-rajado no morangueiro", "фунгицид для винограда", "農薬 uva")
	for range 20 {
		ws := make([]string, 1+rng.IntN(6))
		for i := range ws {
			ws[i] = benchVocabulary[rng.IntN(len(benchVocabulary))]
		}
		queries = append(queries, strings.Join(ws, " "))
	}
	recs := append(benchRecords(25, true), benchRecords(25, false)...)
	recs = append(recs, productRecord{Name: "Фунгицид", Description: "фунгицид для винограда (uva) 農薬", Tags: []string{"Uva", "農薬"}})
	s := NewScorer(opts)
	for _, query := range queries {
		q := s.Prepare(query)
		if q.ac == nil {
			t.Fatalf("no matcher compiled for %q", query)
		}
		ref := *q
		ref.ac = nil
		for i := range recs {
			gotScore, got := q.Score(&recs[i])
			wantScore, want := ref.Score(&recs[i])
			if gotScore != wantScore || !reflect.DeepEqual(got, want) {
				t.Fatalf("query %q record %d:\nmatcher   %v %+v\nreference %v %+v", query, i, gotScore, got, wantScore, want)
			}
		}
	}
}

func TestMatcherFallsBackOnLongPatterns(t *testing.T) {
	long := strings.Repeat("abcdefghij", 500) // one 5000-byte fallback term
	q := NewScorer(ScorerOptions{}).Prepare(long)
	if q.ac != nil {
		t.Fatal("a matcher was compiled for a 5000-byte pattern")
	}
	if got := q.ScoreOnly(Fields{{Name: FieldName, Text: "x " + long}}); got != 3.5+0.5 {
		t.Errorf("score = %v", got)
	}
}
