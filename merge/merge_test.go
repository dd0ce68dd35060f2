package merge

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/hybridrag/hybridrag/scoring"
)

func ids(fs []Fused) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.ID
	}
	return out
}

func scoreOf(t *testing.T, fs []Fused, id string) float64 {
	t.Helper()
	for _, f := range fs {
		if f.ID == id {
			return f.Score
		}
	}
	t.Fatalf("%s not in result %v", id, ids(fs))
	return 0
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func hits(pairs ...any) []Hit {
	var out []Hit
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, Hit{ID: pairs[i].(string), Score: toF(pairs[i+1])})
	}
	return out
}

func toF(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	}
	panic(fmt.Sprintf("bad score %v", v))
}

func TestSimple(t *testing.T) {
	tests := []struct {
		name    string
		vector  []Hit
		lexical []Hit
		limit   int
		want    []string
	}{
		{name: "vector first then new lexical", vector: hits("a", 0.9, "b", 0.8), lexical: hits("b", 3, "c", 2, "d", 1), want: []string{"a", "b", "c", "d"}},
		{name: "cut at limit", vector: hits("a", 0.9, "b", 0.8), lexical: hits("b", 3, "c", 2, "d", 1), limit: 3, want: []string{"a", "b", "c"}},
		{name: "limit inside vector", vector: hits("a", 0.9, "b", 0.8), lexical: hits("c", 2), limit: 1, want: []string{"a"}},
		{name: "lexical only", lexical: hits("x", 1, "y", 1), want: []string{"x", "y"}},
		{name: "vector only", vector: hits("y", 0.1, "x", 0.2), want: []string{"y", "x"}},
		{name: "duplicates within lists", vector: hits("a", 0.9, "a", 0.1, "b", 0.5), lexical: hits("c", 1, "c", 2, "a", 3), want: []string{"a", "b", "c"}},
		{name: "empty ids ignored", vector: hits("", 1, "a", 0.5), lexical: hits("", 2), want: []string{"a"}},
		{name: "both empty", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Simple(tt.vector, tt.lexical, tt.limit)
			if !slices.Equal(ids(got), tt.want) {
				t.Errorf("Simple = %v, want %v", ids(got), tt.want)
			}
			for _, f := range got {
				if f.Score != 0 || len(f.Explanation.Lists) != 2 {
					t.Errorf("hit %+v: want score 0, two list entries", f)
				}
			}
		})
	}
	t.Run("explanation ranks", func(t *testing.T) {
		got := Simple(hits("a", 0.9, "a", 0.1, "b", 0.8), hits("x", 7, "b", 5), 0)
		b := got[1]
		v, _ := b.Explanation.List(ListVector)
		l, _ := b.Explanation.List(ListLexical)
		// b is 2nd among the distinct vector IDs (the duplicate a does not count) and 2nd lexical.
		if v.Rank != 2 || v.Raw != 0.8 || l.Rank != 2 || l.Raw != 5 || !b.In(ListVector) || !b.In(ListLexical) {
			t.Errorf("b explanation = %+v", b.Explanation)
		}
		if a := got[0]; a.In(ListLexical) || a.Explanation.Lists[0].Raw != 0.9 {
			t.Errorf("a explanation = %+v (first duplicate must win)", a.Explanation)
		}
		if got[2].ID != "x" || got[2].In(ListVector) {
			t.Errorf("x = %+v", got[2])
		}
	})
}

func TestWeighted(t *testing.T) {
	t.Run("worked example", func(t *testing.T) {
		// a = 6·0.9 + 1/1 = 6.4
		// b = 6·0.6 + 4·(8/8) + 4 + 1/2 + 1/1 = 13.1
		// c = 4·(4/8) + 1/2 = 2.5
		got := Weighted(hits("a", 0.9, "b", 0.6), []LexicalHit{{"b", 8, true}, {"c", 4, false}}, WeightedOptions{})
		if want := []string{"b", "a", "c"}; !slices.Equal(ids(got), want) {
			t.Fatalf("order = %v, want %v", ids(got), want)
		}
		for id, want := range map[string]float64{"a": 6.4, "b": 13.1, "c": 2.5} {
			if s := scoreOf(t, got, id); !near(s, want) {
				t.Errorf("%s = %v, want %v", id, s, want)
			}
		}
		b := got[0].Explanation
		v, _ := b.List(ListVector)
		l, _ := b.List(ListLexical)
		if b.Combined == nil || b.Combined.Pair.Contribution != 4 || !near(v.Contribution, 3.6+0.5) || !near(l.Contribution, 4+1) || v.Rank != 1+1 || l.Rank != 1 {
			t.Errorf("b explanation = %+v / %+v / %+v", v, l, b.Combined)
		}
	})
	t.Run("vector-only hits get a lexical score", func(t *testing.T) {
		// Without LexicalFor: a = 6·0.5 + 1 = 4, c = 4·(4/4) + 1 = 5 → c a.
		// With LexicalFor(a) = 8 and a pair, lexMax becomes 8:
		//   a = 6·0.5 + 4·(8/8) + 4 + 1 = 12, c = 4·(4/8) + 1 = 3 → a c.
		vec := hits("a", 0.5)
		lex := []LexicalHit{{ID: "c", Score: 4}}
		if got := Weighted(vec, lex, WeightedOptions{}); !slices.Equal(ids(got), []string{"c", "a"}) {
			t.Errorf("without LexicalFor: %v", ids(got))
		}
		var asked []string
		opts := WeightedOptions{LexicalFor: func(id string) (float64, bool) {
			asked = append(asked, id)
			return 8, true
		}}
		got := Weighted(vec, lex, opts)
		if !slices.Equal(ids(got), []string{"a", "c"}) || !near(got[0].Score, 12) || !near(got[1].Score, 3) {
			t.Errorf("with LexicalFor: %v %v", ids(got), []float64{got[0].Score, got[1].Score})
		}
		if !slices.Equal(asked, []string{"a"}) {
			t.Errorf("LexicalFor asked for %v, want only the vector-only hit a", asked)
		}
		if l, _ := got[0].Explanation.List(ListLexical); l.Rank != 0 || l.Raw != 8 {
			t.Errorf("a lexical entry = %+v: rank 0, computed raw 8", l)
		}
	})
	t.Run("custom weights and limit", func(t *testing.T) {
		// Only the lexical component counts, with weight 2:
		// b = 2·(10/10) = 2, a = 2·(5/10) = 1; limit 1 keeps b.
		w := scoring.Weights{Vector: scoring.Off, Lexical: 2, Pair: scoring.Off, VectorRank: scoring.Off, LexicalRank: scoring.Off}
		got := Weighted(hits("a", 0.99, "b", 0.98), []LexicalHit{{"b", 10, true}, {"a", 5, false}}, WeightedOptions{Weights: w, Limit: 1})
		if len(got) != 1 || got[0].ID != "b" || !near(got[0].Score, 2) {
			t.Errorf("got %v", got)
		}
	})
	t.Run("empty", func(t *testing.T) {
		if got := Weighted(nil, nil, WeightedOptions{}); got != nil {
			t.Errorf("got %v", got)
		}
	})
	t.Run("duplicates keep first", func(t *testing.T) {
		got := Weighted(hits("a", 0.2, "a", 0.9), []LexicalHit{{"b", 1, false}, {"b", 9, true}}, WeightedOptions{})
		// a = 6·0.2 + 1 = 2.2; b = 4·(1/1) + 1 = 5 (first copy: score 1, no pair).
		if !slices.Equal(ids(got), []string{"b", "a"}) || !near(got[0].Score, 5) || !near(got[1].Score, 2.2) {
			t.Errorf("got %v %v %v", ids(got), got[0].Score, got[1].Score)
		}
	})
}

func TestRRF(t *testing.T) {
	vec := hits("a", 0.9, "b", 0.8, "c", 0.7)
	lex := hits("c", 5, "d", 4)
	t.Run("worked example default k", func(t *testing.T) {
		// c = 1/63 + 1/61, a = 1/61, b = 1/62, d = 1/62 (b and d tie → by ID).
		got := RRF([]List{{Name: "vector", Hits: vec}, {Name: "lexical", Hits: lex}}, RRFOptions{})
		if want := []string{"c", "a", "b", "d"}; !slices.Equal(ids(got), want) {
			t.Fatalf("order = %v, want %v", ids(got), want)
		}
		for id, want := range map[string]float64{"c": 1.0/63 + 1.0/61, "a": 1.0 / 61, "b": 1.0 / 62, "d": 1.0 / 62} {
			if s := scoreOf(t, got, id); !near(s, want) {
				t.Errorf("%s = %v, want %v", id, s, want)
			}
		}
		c := got[0].Explanation
		if c.Lists[0].Rank != 3 || c.Lists[1].Rank != 1 || c.Lists[0].Raw != 0.7 ||
			!near(c.Lists[0].Normalized, 1.0/63) || c.Lists[1].Weight != 1 || !near(c.Lists[1].Contribution, 1.0/61) {
			t.Errorf("c explanation = %+v", c)
		}
	})
	t.Run("weights", func(t *testing.T) {
		// c = 1/63 + 2/61, d = 2/62, a = 1/61, b = 1/62.
		got := RRF([]List{{Name: "vector", Hits: vec}, {Name: "lexical", Weight: 2, Hits: lex}}, RRFOptions{})
		if want := []string{"c", "d", "a", "b"}; !slices.Equal(ids(got), want) {
			t.Errorf("order = %v, want %v", ids(got), want)
		}
		if s := scoreOf(t, got, "c"); !near(s, 1.0/63+2.0/61) {
			t.Errorf("c = %v", s)
		}
	})
	t.Run("custom k", func(t *testing.T) {
		// k = 1: a = 1/2, c = 1/4 + 1/2 = 0.75.
		got := RRF([]List{{Hits: vec}, {Hits: lex}}, RRFOptions{K: 1})
		if s := scoreOf(t, got, "c"); !near(s, 0.75) {
			t.Errorf("c = %v, want 0.75", s)
		}
	})
	t.Run("negative and NaN k mean 60", func(t *testing.T) {
		for _, k := range []float64{-5, math.NaN(), math.Inf(1)} {
			got := RRF([]List{{Hits: vec}}, RRFOptions{K: k})
			if s := scoreOf(t, got, "a"); !near(s, 1.0/61) {
				t.Errorf("k=%v: a = %v, want 1/61", k, s)
			}
		}
	})
	t.Run("negative weight keeps hits at zero", func(t *testing.T) {
		got := RRF([]List{{Hits: vec}, {Weight: -1, Hits: lex}}, RRFOptions{})
		if s := scoreOf(t, got, "d"); s != 0 {
			t.Errorf("d = %v, want 0", s)
		}
		if got[len(got)-1].ID != "d" {
			t.Errorf("d should rank last: %v", ids(got))
		}
	})
	t.Run("limit", func(t *testing.T) {
		got := RRF([]List{{Hits: vec}, {Hits: lex}}, RRFOptions{Limit: 2})
		if !slices.Equal(ids(got), []string{"c", "a"}) {
			t.Errorf("got %v", ids(got))
		}
	})
	t.Run("duplicates do not shift ranks", func(t *testing.T) {
		// a at 1, duplicate a ignored, b at 2.
		got := RRF([]List{{Hits: hits("a", 1, "a", 1, "b", 1)}}, RRFOptions{})
		if s := scoreOf(t, got, "b"); !near(s, 1.0/62) {
			t.Errorf("b = %v, want 1/62", s)
		}
	})
	t.Run("empty", func(t *testing.T) {
		for _, lists := range [][]List{nil, {}, {{Name: "v"}}, {{Hits: hits("", 1)}}} {
			if got := RRF(lists, RRFOptions{}); got != nil {
				t.Errorf("RRF(%v) = %v", lists, got)
			}
		}
	})
}

func TestRelativeScore(t *testing.T) {
	t.Run("worked example", func(t *testing.T) {
		// vector a (0.9−0.5)/0.4 = 1, b (0.7−0.5)/0.4 = 0.5, c 0; lexical c 1, d 0.
		// a = 1, c = 1, b = 0.5, d = 0 → a c b d.
		got := RelativeScore([]List{
			{Name: "vector", Hits: hits("a", 0.9, "b", 0.7, "c", 0.5)},
			{Name: "lexical", Hits: hits("c", 12, "d", 4)},
		}, RelativeOptions{})
		if want := []string{"a", "c", "b", "d"}; !slices.Equal(ids(got), want) {
			t.Fatalf("order = %v, want %v", ids(got), want)
		}
		for id, want := range map[string]float64{"a": 1, "c": 1, "b": 0.5, "d": 0} {
			if s := scoreOf(t, got, id); math.Abs(s-want) > 1e-9 {
				t.Errorf("%s = %v, want %v", id, s, want)
			}
		}
		c := got[1].Explanation
		if c.Lists[0].Normalized != 0 || c.Lists[1].Normalized != 1 || c.Lists[1].Raw != 12 {
			t.Errorf("c explanation = %+v", c)
		}
	})
	t.Run("weighted", func(t *testing.T) {
		// vector weight 0.3, lexical 0.7: a = 0.3, b = 0.3·0 + 0.7·1 = 0.7.
		got := RelativeScore([]List{
			{Weight: 0.3, Hits: hits("a", 0.9, "b", 0.1)},
			{Weight: 0.7, Hits: hits("b", 5, "c", 1)},
		}, RelativeOptions{})
		if !slices.Equal(ids(got), []string{"b", "a", "c"}) || !near(scoreOf(t, got, "b"), 0.7) || !near(scoreOf(t, got, "a"), 0.3) {
			t.Errorf("got %v", got)
		}
	})
	t.Run("all equal scores normalize to 1", func(t *testing.T) {
		got := RelativeScore([]List{{Hits: hits("z", 3, "y", 3, "x", 3)}}, RelativeOptions{})
		if !slices.Equal(ids(got), []string{"x", "y", "z"}) {
			t.Errorf("order = %v, want by ID", ids(got))
		}
		for _, f := range got {
			if f.Score != 1 {
				t.Errorf("%s = %v, want 1", f.ID, f.Score)
			}
		}
	})
	t.Run("single hit normalizes to 1", func(t *testing.T) {
		got := RelativeScore([]List{{Hits: hits("a", -0.2)}}, RelativeOptions{})
		if got[0].Score != 1 {
			t.Errorf("score = %v", got[0].Score)
		}
	})
	t.Run("non-finite scores", func(t *testing.T) {
		got := RelativeScore([]List{{Hits: hits("a", math.NaN(), "b", 2.0, "c", math.Inf(1), "d", 1.0)}}, RelativeOptions{})
		want := map[string]float64{"a": 0, "b": 1, "c": 0, "d": 0}
		for id, w := range want {
			if s := scoreOf(t, got, id); s != w {
				t.Errorf("%s = %v, want %v", id, s, w)
			}
		}
	})
	t.Run("limit and empty", func(t *testing.T) {
		got := RelativeScore([]List{{Hits: hits("a", 2, "b", 1, "c", 0)}}, RelativeOptions{Limit: 2})
		if !slices.Equal(ids(got), []string{"a", "b"}) {
			t.Errorf("got %v", ids(got))
		}
		if got := RelativeScore(nil, RelativeOptions{}); got != nil {
			t.Errorf("empty = %v", got)
		}
	})
}

// fixture returns two overlapping lists of n hits each, with ties.
func fixture(seed uint64, n int) ([]Hit, []LexicalHit, []Hit) {
	r := rand.New(rand.NewPCG(seed, 9))
	vec := make([]Hit, n)
	lexH := make([]Hit, n)
	lex := make([]LexicalHit, n)
	for i := range n {
		vec[i] = Hit{ID: fmt.Sprintf("item-%04d", r.IntN(2*n)), Score: float64(r.IntN(10)) / 10}
		id := fmt.Sprintf("item-%04d", r.IntN(2*n))
		s := float64(r.IntN(20))
		lexH[i] = Hit{ID: id, Score: s}
		lex[i] = LexicalHit{ID: id, Score: s, Pair: r.IntN(4) == 0}
	}
	slices.SortStableFunc(vec, func(a, b Hit) int { return -cmpF(a.Score, b.Score) })
	slices.SortStableFunc(lex, func(a, b LexicalHit) int { return -cmpF(a.Score, b.Score) })
	return vec, lex, lexH
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestPureAndDeterministic(t *testing.T) {
	vec, lex, lexH := fixture(1, 200)
	vec0, lex0, lexH0 := slices.Clone(vec), slices.Clone(lex), slices.Clone(lexH)
	lists := []List{{Name: "v", Hits: vec}, {Name: "l", Weight: 2, Hits: lexH}}
	lists0 := []List{{Name: "v", Hits: vec0}, {Name: "l", Weight: 2, Hits: lexH0}}
	lexFor := func(id string) (float64, bool) { return float64(len(id) % 5), false }

	runs := map[string]func() []Fused{
		"simple":   func() []Fused { return Simple(vec, lexH, 50) },
		"weighted": func() []Fused { return Weighted(vec, lex, WeightedOptions{Limit: 50, LexicalFor: lexFor}) },
		"rrf":      func() []Fused { return RRF(lists, RRFOptions{Limit: 50}) },
		"relative": func() []Fused { return RelativeScore(lists, RelativeOptions{Limit: 50}) },
	}
	for name, run := range runs {
		t.Run(name, func(t *testing.T) {
			first := run()
			if len(first) != 50 {
				t.Fatalf("got %d hits", len(first))
			}
			for range 20 {
				if again := run(); !reflect.DeepEqual(first, again) {
					t.Fatal("result differs between runs")
				}
			}
			if !reflect.DeepEqual(vec, vec0) || !reflect.DeepEqual(lex, lex0) || !reflect.DeepEqual(lexH, lexH0) || !reflect.DeepEqual(lists, lists0) {
				t.Fatal("inputs were modified")
			}
			seen := map[string]bool{}
			for i, f := range first {
				if seen[f.ID] {
					t.Fatalf("duplicate %s", f.ID)
				}
				seen[f.ID] = true
				if name != "simple" && i > 0 {
					p := first[i-1]
					if p.Score < f.Score || (p.Score == f.Score && p.ID > f.ID) {
						t.Fatalf("not ordered by score then ID at %d: %v %v", i, p, f)
					}
				}
			}
		})
	}
}

func TestOrderIndependentOfInputOrderForTies(t *testing.T) {
	// Same lists, different list order: RRF scores are sums, so the fused
	// ranking must not depend on which list comes first.
	a := List{Name: "a", Hits: hits("x", 1, "y", 1)}
	b := List{Name: "b", Hits: hits("y", 1, "x", 1)}
	ab, ba := RRF([]List{a, b}, RRFOptions{}), RRF([]List{b, a}, RRFOptions{})
	if !slices.Equal(ids(ab), []string{"x", "y"}) || !slices.Equal(ids(ab), ids(ba)) {
		t.Errorf("ab = %v, ba = %v", ids(ab), ids(ba))
	}
}

func BenchmarkFusion200x200(b *testing.B) {
	vec, lex, lexH := fixture(7, 200)
	lists := []List{{Name: "vector", Hits: vec}, {Name: "lexical", Hits: lexH}}
	lexFor := func(id string) (float64, bool) { return 1, false }
	b.Run("simple", func(b *testing.B) {
		for b.Loop() {
			_ = Simple(vec, lexH, 20)
		}
	})
	b.Run("weighted", func(b *testing.B) {
		for b.Loop() {
			_ = Weighted(vec, lex, WeightedOptions{Limit: 20, LexicalFor: lexFor})
		}
	})
	b.Run("rrf", func(b *testing.B) {
		for b.Loop() {
			_ = RRF(lists, RRFOptions{Limit: 20})
		}
	})
	b.Run("relative", func(b *testing.B) {
		for b.Loop() {
			_ = RelativeScore(lists, RelativeOptions{Limit: 20})
		}
	})
}
