package scoring

import "math"

// Defaults of the combined score. A semantic model's similarity is the
// stronger signal (6 against the lexical score's 4, both normalized to
// [0, 1]); a record holding both a crop and a product class the query
// names is what was asked for, so the pair earns as much as a perfect
// lexical match (4); the rank bonuses (1/rank, weight 1) are tie-breakers
// that favour hits near the top of either list.
const (
	DefaultVectorWeight      = 6.0
	DefaultLexicalWeight     = 4.0
	DefaultPairWeight        = 4.0
	defaultVectorRankWeight  = 1.0
	defaultLexicalRankWeight = 1.0
)

// Off disables a weight: any negative weight counts as zero, while a zero
// weight means "use the default". Off reads better than -1.
const Off = -1.0

// Weights are the multipliers of the components of the combined score
// (merge.Weighted; see [Combined]).
// A zero field means the default; a negative field (such as [Off]) turns
// the component off. The zero value is the default configuration.
type Weights struct {
	// Vector multiplies the vector similarity clamped to [0, 1] (default 6).
	Vector float64
	// Lexical multiplies the normalized lexical score (default 4).
	Lexical float64
	// Pair is added when the hit matched a subject and a class
	// (default 4).
	Pair float64
	// VectorRank multiplies 1/rank in the vector list (default 1).
	VectorRank float64
	// LexicalRank multiplies 1/rank in the lexical list (default 1).
	LexicalRank float64
}

// Resolve returns the effective weights: zero fields replaced by their
// defaults, negative (or NaN) fields by 0.
func (w Weights) Resolve() Weights {
	r := func(v, def float64) float64 {
		switch {
		case v == 0:
			return def
		case v < 0 || math.IsNaN(v):
			return 0
		}
		return v
	}
	return Weights{
		Vector:      r(w.Vector, DefaultVectorWeight),
		Lexical:     r(w.Lexical, DefaultLexicalWeight),
		Pair:        r(w.Pair, DefaultPairWeight),
		VectorRank:  r(w.VectorRank, defaultVectorRankWeight),
		LexicalRank: r(w.LexicalRank, defaultLexicalRankWeight),
	}
}

// Component is one term of a combined score.
type Component struct {
	// Raw is the input value: similarity, lexical score, 1/0 for the pair,
	// or the rank.
	Raw float64
	// Normalized is Raw mapped to [0, 1].
	Normalized float64
	// Weight is the effective weight.
	Weight float64
	// Contribution is Weight × Normalized, the share of the score.
	Contribution float64
}

// Combined is the combined score of one hit with its explanation.
type Combined struct {
	// Score is the sum of the contributions.
	Score float64
	// Vector: Raw = similarity, Normalized = clamp(similarity, 0, 1).
	Vector Component
	// Lexical: Raw = lexicalScore, Normalized = lexicalScore / LexicalMax.
	Lexical Component
	// Pair: Raw = Normalized = 1 when a subject+class pair matched.
	Pair Component
	// VectorRank and LexicalRank: Raw = rank, Normalized = 1/rank (0 when
	// absent).
	VectorRank, LexicalRank Component
}
