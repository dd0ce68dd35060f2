package merge

import (
	"math"

	"github.com/hybridrag/hybridrag/scoring"
)

// combinedInput holds the signals of one candidate hit.
type combinedInput struct {
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

// combinedScore is the score of the weighted merge (Weighted), with
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
func combinedScore(in combinedInput, w scoring.Weights) scoring.Combined {
	w = w.Resolve()
	var c scoring.Combined

	c.Vector = scoring.Component{Raw: in.VectorSimilarity, Weight: w.Vector}
	if in.HasVector {
		c.Vector.Normalized = clamp01(in.VectorSimilarity)
	}

	c.Lexical = scoring.Component{Raw: in.LexicalScore, Weight: w.Lexical}
	if lex := in.LexicalScore; lex > 0 && !math.IsInf(lex, 0) {
		m := in.LexicalMax
		if !(m >= lex) || math.IsInf(m, 0) { // also catches NaN
			m = lex
		}
		c.Lexical.Normalized = lex / m
	}

	c.Pair = scoring.Component{Weight: w.Pair}
	if in.Pair {
		c.Pair.Raw, c.Pair.Normalized = 1, 1
	}

	c.VectorRank = rankComponent(in.VectorRank, w.VectorRank)
	c.LexicalRank = rankComponent(in.LexicalRank, w.LexicalRank)

	for _, p := range []*scoring.Component{&c.Vector, &c.Lexical, &c.Pair, &c.VectorRank, &c.LexicalRank} {
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

func rankComponent(rank int, weight float64) scoring.Component {
	return scoring.Component{Raw: float64(rank), Normalized: rankBonus(rank), Weight: weight}
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
