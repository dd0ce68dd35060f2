package vector

import "context"

// Embedder turns texts into embedding vectors.
//
// Contract: Embed returns exactly one vector per input text, in input order;
// every vector has Dimensions() elements; implementations that document
// "normalized" return unit-length vectors so that the inner product equals
// cosine similarity. An error means no vector of the batch may be used.
// Implementations must be safe for concurrent use.
//
// Nothing checks the contract by itself: wrap an embedder whose output the
// program does not control in [Checked], which rejects broken answers with
// typed errors and normalizes vectors. Errors that a later call may not
// repeat opt in to [WithRetry] by implementing [TransientError].
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	Dimensions() int
}

// EmbedderFunc adapts a function to the Embedder interface.
type EmbedderFunc struct {
	// Dims is the dimension of every vector Fn returns.
	Dims int
	// Fn embeds a batch of texts.
	Fn func(ctx context.Context, texts []string) ([][]float32, error)
}

// Embed calls f.Fn.
func (f EmbedderFunc) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return f.Fn(ctx, texts)
}

// Dimensions returns f.Dims.
func (f EmbedderFunc) Dimensions() int { return f.Dims }
