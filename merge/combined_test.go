package merge

import (
	"math"
	"testing"

	"github.com/hybridrag/hybridrag/scoring"
)

func TestCombinedScore(t *testing.T) {
	tests := []struct {
		name string
		in   combinedInput
		w    scoring.Weights
		want float64
		// optional per-component contributions: vector, lexical, pair, vrank, lrank
		parts *[5]float64
	}{
		{
			// 6·0.8 + 4·(10/12.5) + 4 + 1·(1/2) + 1·(1/1) = 4.8 + 3.2 + 4 + 0.5 + 1 = 13.5
			name:  "worked example from the doc",
			in:    combinedInput{HasVector: true, VectorSimilarity: 0.8, LexicalScore: 10, LexicalMax: 12.5, Pair: true, VectorRank: 2, LexicalRank: 1},
			want:  13.5,
			parts: &[5]float64{4.8, 3.2, 4, 0.5, 1},
		},
		{
			// Vector only, no lexical match: 6·0.6 + 1/3 = 3.9333…
			name: "vector only",
			in:   combinedInput{HasVector: true, VectorSimilarity: 0.6, VectorRank: 3},
			want: 6*0.6 + 1.0/3,
		},
		{
			// Lexical only: 4·(6/6) + 1/4 = 4.25; a similarity without HasVector is ignored.
			name: "lexical only",
			in:   combinedInput{VectorSimilarity: 0.9, LexicalScore: 6, LexicalMax: 6, LexicalRank: 4},
			want: 4.25,
		},
		{
			// LexicalMax 0 (not supplied): the score normalizes by itself, 4·1.
			name: "missing lexical max",
			in:   combinedInput{LexicalScore: 3},
			want: 4,
		},
		{
			// Similarity above 1 clamps to 1; negative clamps to 0.
			name: "similarity clamped high",
			in:   combinedInput{HasVector: true, VectorSimilarity: 1.2},
			want: 6,
		},
		{
			name: "similarity clamped low",
			in:   combinedInput{HasVector: true, VectorSimilarity: -0.3},
			want: 0,
		},
		{
			// Custom weights: 2·0.5 + 1·(5/10) + pair off + rank bonuses off = 1.5
			name: "custom and disabled weights",
			in:   combinedInput{HasVector: true, VectorSimilarity: 0.5, LexicalScore: 5, LexicalMax: 10, Pair: true, VectorRank: 1, LexicalRank: 1},
			w:    scoring.Weights{Vector: 2, Lexical: 1, Pair: scoring.Off, VectorRank: scoring.Off, LexicalRank: -5},
			want: 1.5,
		},
		{
			name: "non-finite inputs contribute nothing",
			in:   combinedInput{HasVector: true, VectorSimilarity: math.NaN(), LexicalScore: math.Inf(1), LexicalMax: math.NaN()},
			want: 0,
		},
		{
			// NaN max: falls back to the score itself.
			name: "NaN lexical max",
			in:   combinedInput{LexicalScore: 2, LexicalMax: math.NaN()},
			want: 4,
		},
		{
			name: "negative lexical score",
			in:   combinedInput{LexicalScore: -2, LexicalMax: 5},
			want: 0,
		},
		{name: "nothing", in: combinedInput{}, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := combinedScore(tt.in, tt.w)
			if !near(got.Score, tt.want) {
				t.Errorf("Score = %v, want %v (%+v)", got.Score, tt.want, got)
			}
			sum := got.Vector.Contribution + got.Lexical.Contribution + got.Pair.Contribution + got.VectorRank.Contribution + got.LexicalRank.Contribution
			if !near(sum, got.Score) {
				t.Errorf("contributions sum to %v, score %v", sum, got.Score)
			}
			if tt.parts != nil {
				gotParts := [5]float64{got.Vector.Contribution, got.Lexical.Contribution, got.Pair.Contribution, got.VectorRank.Contribution, got.LexicalRank.Contribution}
				for i := range gotParts {
					if !near(gotParts[i], tt.parts[i]) {
						t.Errorf("contributions = %v, want %v", gotParts, *tt.parts)
						break
					}
				}
			}
		})
	}
}

func TestCombinedExplanationFields(t *testing.T) {
	got := combinedScore(combinedInput{HasVector: true, VectorSimilarity: 0.7, LexicalScore: 3, LexicalMax: 4, VectorRank: 5}, scoring.Weights{})
	sim, wv := 0.7, 6.0 // variables: the run-time product, not the exact constant
	want := scoring.Combined{
		Score:       wv*sim + 4*0.75 + 0.2,
		Vector:      scoring.Component{Raw: 0.7, Normalized: 0.7, Weight: 6, Contribution: wv * sim},
		Lexical:     scoring.Component{Raw: 3, Normalized: 0.75, Weight: 4, Contribution: 3},
		Pair:        scoring.Component{Weight: 4},
		VectorRank:  scoring.Component{Raw: 5, Normalized: 0.2, Weight: 1, Contribution: 0.2},
		LexicalRank: scoring.Component{Weight: 1},
	}
	if !near(got.Score, want.Score) || got.Vector != want.Vector || got.Lexical != want.Lexical ||
		got.Pair != want.Pair || got.VectorRank != want.VectorRank || got.LexicalRank != want.LexicalRank {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestRankBonus(t *testing.T) {
	for _, tt := range []struct {
		rank int
		want float64
	}{{-1, 0}, {0, 0}, {1, 1}, {2, 0.5}, {4, 0.25}} {
		if got := rankBonus(tt.rank); got != tt.want {
			t.Errorf("rankBonus(%d) = %v, want %v", tt.rank, got, tt.want)
		}
	}
}

func BenchmarkCombinedScore(b *testing.B) {
	in := combinedInput{HasVector: true, VectorSimilarity: 0.8, LexicalScore: 10, LexicalMax: 12.5, Pair: true, VectorRank: 2, LexicalRank: 1}
	var s float64
	for b.Loop() {
		s += combinedScore(in, scoring.Weights{}).Score
	}
	_ = s
}
