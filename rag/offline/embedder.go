package offline

import "github.com/hybridrag/hybridrag/vector"

// NewEmbedder returns the embedder that needs no model: a
// [vector.HashEmbedder] with its defaults (vector.DefaultDimensions
// dimensions), which embeds a text from its words, stems and character
// n-grams, the same way in every process. Texts close in spelling get close
// vectors, texts close only in meaning do not: it serves tests, demos and
// programs that run without an API key, and a store indexed with it must
// be searched with it (llm/openai has a model's embedder).
func NewEmbedder() *vector.HashEmbedder {
	e, _ := vector.NewHashEmbedder(vector.HashOptions{}) // the zero options are valid
	return e
}
