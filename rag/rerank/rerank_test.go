package rerank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/hybridrag/hybridrag/llm"
)

// scoreFunc returns a reranker that scores candidate i with scores[i]
// (candidates past the table score 0) and records what it was given.
func scoreFunc(scores []float64, got *[]Candidate) Func {
	return func(_ context.Context, _ string, cands []Candidate) ([]Result, error) {
		if got != nil {
			*got = slices.Clone(cands)
		}
		out := make([]Result, len(cands))
		for i := range cands {
			s := 0.0
			if i < len(scores) {
				s = scores[i]
			}
			out[i] = Result{Index: i, Score: s}
		}
		return out, nil
	}
}

func makeCands(n int) []Candidate {
	out := make([]Candidate, n)
	for i := range out {
		out[i] = Candidate{ID: fmt.Sprintf("c%02d", i), Title: "t", Content: "c", Score: float64(100 - i)}
	}
	return out
}

func ids(rs []Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func TestApply(t *testing.T) {
	// Scores for 25 candidates; index 21 scores 1.0 but lies past TopN.
	scores := make([]float64, 25)
	for i := range scores {
		scores[i] = 0.1
	}
	scores[3], scores[7], scores[1], scores[9], scores[12], scores[15], scores[21] = 0.9, 0.9, 0.8, 0.55, 0.5, 0.49, 1.0
	scores[0] = 0.6
	tests := []struct {
		name      string
		opts      Options
		wantIDs   []string
		wantSeenN int
	}{
		{
			name: "seed defaults: top 20, min 0.5, final 5, ties by index",
			opts: Options{},
			// 0.9 (3, 7 by index), 0.8 (1), 0.6 (0), 0.55 (9); 12 at 0.5 is 6th.
			wantIDs:   []string{"c03", "c07", "c01", "c00", "c09"},
			wantSeenN: 20,
		},
		{
			name:      "final 10 keeps the min score cut, inclusive",
			opts:      Options{Final: 10},
			wantIDs:   []string{"c03", "c07", "c01", "c00", "c09", "c12"},
			wantSeenN: 20,
		},
		{
			name:      "topN -1 reranks everything",
			opts:      Options{TopN: -1, Final: 2},
			wantIDs:   []string{"c21", "c03"},
			wantSeenN: 25,
		},
		{
			name:      "topN larger than input",
			opts:      Options{TopN: 100, Final: 1},
			wantIDs:   []string{"c21"},
			wantSeenN: 25,
		},
		{
			name:      "topN 4",
			opts:      Options{TopN: 4},
			wantIDs:   []string{"c03", "c01", "c00"},
			wantSeenN: 4,
		},
		{
			name:      "min score 0.85",
			opts:      Options{MinScore: 0.85, Final: -1},
			wantIDs:   []string{"c03", "c07"},
			wantSeenN: 20,
		},
		{
			name:      "negative min score and final keep all",
			opts:      Options{MinScore: -1, Final: -1, TopN: 3},
			wantIDs:   []string{"c01", "c00", "c02"},
			wantSeenN: 3,
		},
	}
	cands := makeCands(25)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen []Candidate
			got, err := Apply(context.Background(), scoreFunc(scores, &seen), "q", cands, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got), tt.wantIDs) {
				t.Errorf("ids = %v, want %v", ids(got), tt.wantIDs)
			}
			if len(seen) != tt.wantSeenN {
				t.Errorf("reranker saw %d candidates, want %d", len(seen), tt.wantSeenN)
			}
			for _, r := range got {
				if c := cands[r.Index]; c.ID != r.ID || c.Score != r.Original {
					t.Errorf("result %+v does not match candidate %+v", r, c)
				}
			}
		})
	}
}

func TestApplyFillsIDAndOriginal(t *testing.T) {
	// The reranker reports only Index and Score; Apply fills the rest.
	f := Func(func(_ context.Context, _ string, cands []Candidate) ([]Result, error) {
		return []Result{{Index: 1, Score: 0.9, ID: "wrong", Original: -5}, {Index: 0, Score: 0.7}}, nil
	})
	cands := []Candidate{{ID: "a", Score: 3}, {ID: "b", Score: 2}}
	got, err := Apply(context.Background(), f, "q", cands, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Result{{ID: "b", Index: 1, Score: 0.9, Original: 2}, {ID: "a", Index: 0, Score: 0.7, Original: 3}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestApplyErrors(t *testing.T) {
	errBoom := errors.New("boom")
	cands := makeCands(3)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	results := func(rs ...Result) Func {
		return func(context.Context, string, []Candidate) ([]Result, error) { return rs, nil }
	}
	tests := []struct {
		name  string
		ctx   context.Context
		r     Reranker
		query string
		opts  Options
		want  error
	}{
		{"blank query", context.Background(), results(), " \t", Options{}, ErrEmptyQuery},
		{"nil reranker", context.Background(), nil, "q", Options{}, ErrInvalidOptions},
		{"NaN min score", context.Background(), results(), "q", Options{MinScore: math.NaN()}, ErrInvalidOptions},
		{"canceled context", canceled, results(), "q", Options{}, context.Canceled},
		{"reranker error", context.Background(), Func(func(context.Context, string, []Candidate) ([]Result, error) {
			return nil, fmt.Errorf("wrapped: %w", errBoom)
		}), "q", Options{}, errBoom},
		{"negative index", context.Background(), results(Result{Index: -1, Score: 0.9}), "q", Options{}, ErrInvalidResult},
		{"index past the window", context.Background(), results(Result{Index: 2, Score: 0.9}), "q", Options{TopN: 2}, ErrInvalidResult},
		{"repeated index", context.Background(), results(Result{Index: 1, Score: 0.9}, Result{Index: 1, Score: 0.8}), "q", Options{}, ErrInvalidResult},
		{"score above 1", context.Background(), results(Result{Index: 0, Score: 1.5}), "q", Options{}, ErrInvalidResult},
		{"negative score", context.Background(), results(Result{Index: 0, Score: -0.1}), "q", Options{}, ErrInvalidResult},
		{"NaN score", context.Background(), results(Result{Index: 0, Score: math.NaN()}), "q", Options{}, ErrInvalidResult},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Apply(tt.ctx, tt.r, tt.query, cands, tt.opts)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if got != nil {
				t.Errorf("results = %v, want nil", got)
			}
		})
	}
}

func TestApplyReturnsRerankerErrorAsIs(t *testing.T) {
	apiErr := &llm.APIError{Provider: "jina", StatusCode: 429, Retryable: true}
	f := Func(func(context.Context, string, []Candidate) ([]Result, error) { return nil, apiErr })
	_, err := Apply(context.Background(), f, "q", makeCands(2), Options{})
	if err != error(apiErr) {
		t.Fatalf("err = %v, want the reranker's error itself", err)
	}
}

func TestApplyEmptyCandidatesSkipsReranker(t *testing.T) {
	called := false
	f := Func(func(context.Context, string, []Candidate) ([]Result, error) {
		called = true
		return nil, nil
	})
	for _, cands := range [][]Candidate{nil, {}} {
		got, err := Apply(context.Background(), f, "q", cands, Options{})
		if err != nil || got != nil {
			t.Errorf("Apply(%v) = %v, %v; want nil, nil", cands, got, err)
		}
	}
	if called {
		t.Error("reranker called for no candidates")
	}
}

func TestApplyDoesNotModifyInput(t *testing.T) {
	cands := makeCands(4)
	before := slices.Clone(cands)
	vandal := Func(func(_ context.Context, _ string, cs []Candidate) ([]Result, error) {
		for i := range cs {
			cs[i].ID, cs[i].Score = "x", -1
		}
		return []Result{{Index: 0, Score: 1}}, nil
	})
	got, err := Apply(context.Background(), vandal, "q", cands, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cands, before) {
		t.Errorf("input modified: %+v", cands)
	}
	if got[0].ID != "c00" || got[0].Original != 100 {
		t.Errorf("result %+v should come from the caller's candidate", got[0])
	}
}

func TestApplyStableOverRuns(t *testing.T) {
	// Every candidate ties; the order must be the input order every time.
	cands := makeCands(20)
	flat := make([]float64, 20)
	for i := range flat {
		flat[i] = 0.75
	}
	first, err := Apply(context.Background(), scoreFunc(flat, nil), "q", cands, Options{Final: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(first), ids(resultsFor(cands))) {
		t.Fatalf("ties not in input order: %v", ids(first))
	}
	for range 20 {
		again, _ := Apply(context.Background(), scoreFunc(flat, nil), "q", cands, Options{Final: -1})
		if !reflect.DeepEqual(again, first) {
			t.Fatalf("order changed between runs: %v vs %v", ids(again), ids(first))
		}
	}
}

func resultsFor(cands []Candidate) []Result {
	out := make([]Result, len(cands))
	for i, c := range cands {
		out[i] = Result{ID: c.ID, Index: i}
	}
	return out
}
