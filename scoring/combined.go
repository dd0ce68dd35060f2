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

// Weights are the multipliers of the components of [CombinedScore].
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

// CombinedInput holds the signals of one candidate hit.
type CombinedInput struct {
	// HasVector reports whether the hit came from the vector search; when
	// false the vector component is 0.
	HasVector bool
	// VectorSimilarity is the inner product with the query (-distance for
	// pgvector's <#>; the cosine similarity for unit vectors).
	VectorSimilarity float64
	// LexicalScore is the hit's lexicalScore (lexical.Scorer); vector-only
	// hits should be scored too, so that all candidates are comparable.
	LexicalScore float64
	// LexicalMax is the best LexicalScore among the candidates being
	// ranked together; it normalizes LexicalScore to [0, 1]. When it is
	// smaller than LexicalScore, LexicalScore itself is used.
	LexicalMax float64
	// Pair reports that the hit matched both a subject and a class of
	// the query (lexical.Signals.Pair; in the agronomy preset, a crop and
	// a product class).
	Pair bool
	// VectorRank and LexicalRank are the hit's 1-based positions in the
	// vector and lexical result lists; 0 means absent from that list.
	VectorRank, LexicalRank int
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

// CombinedScore is the score of the weighted merge (merge.Weighted), with
// every term made explicit:
//
//	score = Wv·clamp(sim, 0, 1)                       // normalized vector component
//	      + Wl·lex/max(lexMax, lex)                    // normalized lexicalScore
//	      + Wp·[subject+class pair]                    // pair priority bonus
//	      + Wvr·1/vectorRank + Wlr·1/lexicalRank        // rank bonuses (0 when absent)
//
// With the default weights (6, 4, 4, 1, 1) a hit at similarity 0.8, ranked
// 2nd by vector and 1st by lexical with lexicalScore 10 of a best 12.5 and
// a pair scores 6·0.8 + 4·0.8 + 4 + 1·0.5 + 1·1 = 13.5.
//
// Non-finite or negative similarities and lexical scores contribute 0, so
// the score is always finite and >= 0.
func CombinedScore(in CombinedInput, w Weights) Combined {
	w = w.Resolve()
	var c Combined

	c.Vector = Component{Raw: in.VectorSimilarity, Weight: w.Vector}
	if in.HasVector {
		c.Vector.Normalized = clamp01(in.VectorSimilarity)
	}

	c.Lexical = Component{Raw: in.LexicalScore, Weight: w.Lexical}
	if lex := in.LexicalScore; lex > 0 && !math.IsInf(lex, 0) {
		m := in.LexicalMax
		if !(m >= lex) || math.IsInf(m, 0) { // also catches NaN
			m = lex
		}
		c.Lexical.Normalized = lex / m
	}

	c.Pair = Component{Weight: w.Pair}
	if in.Pair {
		c.Pair.Raw, c.Pair.Normalized = 1, 1
	}

	c.VectorRank = rankComponent(in.VectorRank, w.VectorRank)
	c.LexicalRank = rankComponent(in.LexicalRank, w.LexicalRank)

	for _, p := range []*Component{&c.Vector, &c.Lexical, &c.Pair, &c.VectorRank, &c.LexicalRank} {
		p.Contribution = p.Weight * p.Normalized
		c.Score += p.Contribution
	}
	return c
}

// rankBonus returns 1/rank for a 1-based rank and 0 for rank <= 0 (absent).
func rankBonus(rank int) float64 {
	if rank <= 0 {
		return 0
	}
	return 1 / float64(rank)
}

func rankComponent(rank int, weight float64) Component {
	return Component{Raw: float64(rank), Normalized: rankBonus(rank), Weight: weight}
}

func clamp01(x float64) float64 {
	switch {
	case math.IsNaN(x) || x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	return x
}
