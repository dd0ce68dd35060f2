package vector

// ThresholdSuggester is implemented by embedders whose similarity scale
// differs from the models the default threshold (distance <= -0.5, i.e.
// similarity >= 0.5) was chosen for: OpenAI-style embedding models, whose
// related texts score above 0.5 and unrelated ones well below. A search that was not given an
// explicit threshold uses the suggestion instead of -0.5.
type ThresholdSuggester interface {
	// SuggestedThreshold returns a max distance (negative inner product)
	// that keeps related texts and drops unrelated ones.
	SuggestedThreshold() float64
}

// hashSuggestedThreshold is the HashEmbedder's suggested max distance:
// feature hashing spreads a text over many n-grams, so related pt-BR
// catalog texts meet at similarities of about 0.2 to 0.5 and unrelated
// ones below 0.15 (measured on the project's testdata catalog).
const hashSuggestedThreshold = -0.2

// SuggestedThreshold returns -0.2: feature hashing spreads a text over many
// n-grams, so related pt-BR catalog texts meet at similarities of about
// 0.2 to 0.5 and unrelated ones below 0.15.
func (e *HashEmbedder) SuggestedThreshold() float64 { return hashSuggestedThreshold }

// SuggestThreshold returns e's suggested threshold, looking through
// wrappers that expose Unwrap() Embedder (such as [CheckedEmbedder],
// [RetryEmbedder] and vector/cache's Embedder); ok is false
// when no embedder in the chain suggests one.
func SuggestThreshold(e Embedder) (threshold float64, ok bool) {
	for range 16 {
		if s, is := e.(ThresholdSuggester); is {
			return s.SuggestedThreshold(), true
		}
		u, is := e.(interface{ Unwrap() Embedder })
		if !is {
			return 0, false
		}
		e = u.Unwrap()
	}
	return 0, false
}

// FusionWeightSuggester is implemented by embedders whose similarities
// deserve a different share of a hybrid score than the default weights
// (vector 6, lexical 4: a semantic model's similarity is the stronger
// signal) give them. A search that was not given explicit weights uses the
// suggestion.
type FusionWeightSuggester interface {
	// SuggestedFusionWeights returns the vector and lexical weights.
	SuggestedFusionWeights() (vector, lexical float64)
}

// Hash embedder fusion weights: hashed n-grams carry less meaning than the
// lexical signals, so they get the smaller share; vector 3 / lexical 6
// ranked catalog searches better than the default 6 / 4 (figures in
// BENCHMARKS.md, "Measurements behind defaults").
const (
	hashVectorWeight  = 3.0
	hashLexicalWeight = 6.0
)

// SuggestedFusionWeights returns vector 3 and lexical 6: hashed n-grams
// carry less meaning than the lexical signals, so they get the smaller
// share.
func (e *HashEmbedder) SuggestedFusionWeights() (vector, lexical float64) {
	return hashVectorWeight, hashLexicalWeight
}

// SuggestFusionWeights returns e's suggested fusion weights, looking
// through wrappers that expose Unwrap() Embedder; ok is false when no
// embedder in the chain suggests any.
func SuggestFusionWeights(e Embedder) (vector, lexical float64, ok bool) {
	for range 16 {
		if s, is := e.(FusionWeightSuggester); is {
			v, l := s.SuggestedFusionWeights()
			return v, l, true
		}
		u, is := e.(interface{ Unwrap() Embedder })
		if !is {
			return 0, 0, false
		}
		e = u.Unwrap()
	}
	return 0, 0, false
}
