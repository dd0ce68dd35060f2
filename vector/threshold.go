package vector

// ThresholdSuggester is implemented by embedders whose similarity scale
// differs from the models the seeds' default threshold (distance <= -0.5,
// i.e. similarity >= 0.5) was chosen for. A search that was not given an
// explicit threshold uses the suggestion instead of -0.5.
type ThresholdSuggester interface {
	// SuggestedThreshold returns a max distance (negative inner product)
	// that keeps related texts and drops unrelated ones.
	SuggestedThreshold() float64
}

// HashSuggestedThreshold is the HashEmbedder's suggested max distance:
// feature hashing spreads a text over many n-grams, so related pt-BR
// catalog texts meet at similarities of about 0.2 to 0.5 and unrelated
// ones below 0.15 (measured on the project's testdata catalog).
const HashSuggestedThreshold = -0.2

// SuggestedThreshold returns HashSuggestedThreshold.
func (e *HashEmbedder) SuggestedThreshold() float64 { return HashSuggestedThreshold }

// SuggestThreshold returns e's suggested threshold, looking through
// wrappers that expose Unwrap() Embedder (such as Cached); ok is false
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
