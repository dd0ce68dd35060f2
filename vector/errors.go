package vector

import "errors"

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
)
