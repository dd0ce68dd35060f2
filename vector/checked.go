package vector

import (
	"context"
	"fmt"
	"math"
)

// unitTolerance is how far from 1 the length of a vector may be for
// [CheckedEmbedder] to return it unchanged; chromem-go uses the same.
const unitTolerance = 1e-6

// CheckBatch checks an embedder's answer vecs to a batch of n texts
// against the [Embedder] contract: exactly n vectors, each non-empty, of
// dims elements and finite. dims <= 0 means the dimension is not known: every
// vector must then have the length of the first.
//
// It returns nil, an error wrapping [ErrBatchSize] when the count is
// wrong, or a *[VectorError] naming the index of the first bad
// vector and wrapping [ErrEmptyVector], [ErrDimensionMismatch] or
// [ErrNotFinite]. It does not look at the vectors' lengths: see
// [Checked] for an embedder wrapper that also normalizes them.
func CheckBatch(vecs [][]float32, n, dims int) error {
	if len(vecs) != n {
		return &batchSizeError{got: len(vecs), want: n}
	}
	if dims <= 0 && n > 0 {
		dims = len(vecs[0])
	}
	for i, v := range vecs {
		switch {
		case len(v) == 0:
			return &VectorError{Index: i, Err: ErrEmptyVector}
		case len(v) != dims:
			return &VectorError{Index: i, Err: fmt.Errorf("length %d, want %d: %w", len(v), dims, ErrDimensionMismatch)}
		}
		for j, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return &VectorError{Index: i, Err: fmt.Errorf("element %d is %v: %w", j, x, ErrNotFinite)}
			}
		}
	}
	return nil
}

// CheckedEmbedder is an [Embedder] that enforces the Embedder contract on
// the answers of the embedder it wraps and returns unit vectors. Create
// one with [Checked].
//
// Thresholds (distance = -(a·b) <= -0.5 means cosine >= 0.5), hybrid
// fusion and the 8-bit quantization of the in-memory store all assume
// unit vectors, and nothing else enforces them: a model that returns
// vectors of length 3 triples every similarity, one that returns a
// shorter vector for one text corrupts a matrix. Wrap any embedder whose
// output the program does not control in Checked.
//
// A CheckedEmbedder is safe for concurrent use when the wrapped embedder
// is.
type CheckedEmbedder struct {
	inner Embedder
}

// Checked returns a wrapper around e that checks every batch e returns
// and normalizes its vectors, in the manner of chromem-go: embedders
// should return normalized vectors (OpenAI's do), and a vector that is not
// normalized is scaled to unit length rather than rejected.
//
// For every batch, Embed fails with
//
//   - an error wrapping [ErrBatchSize] when e returned a
//     different number of vectors than it was given texts;
//   - a *[VectorError] naming the index of the text when its vector is nil
//     or empty ([ErrEmptyVector]), has other than e.Dimensions() elements
//     ([ErrDimensionMismatch]; when e.Dimensions() <= 0, other than the
//     length of the batch's first vector), holds a NaN or an infinity
//     ([ErrNotFinite]), or is all zeros ([ErrZeroVector]), which has no
//     direction to normalize.
//
// On success every vector has unit length: a vector whose length is
// within 1e-6 of 1 is returned as e returned it, bit for bit, and any
// other is replaced by a normalized copy
// (e's slices are not modified).
// Errors of e itself are returned unchanged, and no vector is returned
// with an error. Checked does no I/O; a nil e yields a CheckedEmbedder
// whose Embed returns ErrNilEmbedder.
func Checked(e Embedder) *CheckedEmbedder { return &CheckedEmbedder{inner: e} }

// Embed embeds texts with the wrapped embedder, checks the answer and
// normalizes it (see [Checked]). An empty batch returns an empty result
// without calling the wrapped embedder.
func (c *CheckedEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if c.inner == nil {
		return nil, ErrNilEmbedder
	}
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	vecs, err := c.inner.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if err := CheckBatch(vecs, len(texts), c.inner.Dimensions()); err != nil {
		return nil, err
	}
	out := make([][]float32, len(vecs))
	for i, v := range vecs {
		n := norm(v)
		switch {
		case n == 0:
			return nil, &VectorError{Index: i, Err: ErrZeroVector}
		case math.Abs(n-1) < unitTolerance:
			out[i] = v
		default:
			u, inv := make([]float32, len(v)), 1/n
			for j, x := range v {
				u[j] = float32(float64(x) * inv)
			}
			out[i] = u
		}
	}
	return out, nil
}

// Dimensions returns the wrapped embedder's dimension (0 when it is nil).
func (c *CheckedEmbedder) Dimensions() int {
	if c.inner == nil {
		return 0
	}
	return c.inner.Dimensions()
}

// Unwrap returns the wrapped embedder, so that callers can find its
// optional capabilities (see [SuggestThreshold]).
func (c *CheckedEmbedder) Unwrap() Embedder { return c.inner }
