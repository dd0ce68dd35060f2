package vector

import (
	"errors"
	"fmt"
)

// Sentinel errors. Functions wrap them with %w and context; test with
// errors.Is.
var (
	// ErrDimensionMismatch reports vectors (or a matrix and a query) whose
	// lengths do not agree, or an embedder that returned vectors of the
	// wrong size.
	ErrDimensionMismatch = errors.New("vector: dimension mismatch")
	// ErrZeroVector reports an operation that is undefined on a vector of
	// zero length (normalization, cosine).
	ErrZeroVector = errors.New("vector: zero vector")
	// ErrNotFinite reports a NaN or infinite element.
	ErrNotFinite = errors.New("vector: non-finite element")
	// ErrInvalidOptions reports an option value out of its documented range.
	ErrInvalidOptions = errors.New("vector: invalid options")
	// ErrBatchSize reports an embedder that returned a different number of
	// vectors than it was given texts.
	ErrBatchSize = errors.New("vector: embedder returned a wrong number of vectors")
	// ErrEmptyVector reports an embedder that returned a nil or empty
	// vector for a text.
	ErrEmptyVector = errors.New("vector: empty vector")
	// ErrNilEmbedder is returned by the Embed method of a wrapper (such as
	// [CheckedEmbedder], [RetryEmbedder] or vector/cache's Embedder) that
	// wraps no embedder.
	ErrNilEmbedder = errors.New("vector: nil embedder")
)

// batchSizeError reports an embedder that returned got vectors for want
// texts; it wraps ErrBatchSize.
type batchSizeError struct{ got, want int }

func (e *batchSizeError) Error() string {
	return fmt.Sprintf("vector: embedder returned %d vectors for %d texts", e.got, e.want)
}

func (e *batchSizeError) Unwrap() error { return ErrBatchSize }

// VectorError reports an unusable vector in an embedder's answer to a
// batch. Index is the position of the text, and of its vector, in the
// batch; the text itself is not included, it may be long or private. Err
// says what is wrong and wraps one of [ErrEmptyVector],
// [ErrDimensionMismatch], [ErrNotFinite] or [ErrZeroVector], so errors.Is
// finds the sentinel through a *VectorError; get the index with
// errors.As.
type VectorError struct {
	// Index is the position of the text in the batch.
	Index int
	// Err describes the fault.
	Err error
}

// Error implements error.
func (e *VectorError) Error() string {
	return fmt.Sprintf("vector: vector of text %d: %v", e.Index, e.Err)
}

// Unwrap returns e.Err.
func (e *VectorError) Unwrap() error { return e.Err }
