package vector

import (
	"fmt"
	"math"
)

// Dot returns the inner product of a and b.
//
// It returns ErrDimensionMismatch (wrapped) when the lengths differ.
// The arithmetic runs in float32 with the kernel of [DotRows], so the
// result is bitwise the one [DotRows] computes for the same row.
func Dot(a, b []float32) (float32, error) {
	if len(a) != len(b) {
		return 0, fmt.Errorf("vector: dot of %d and %d elements: %w", len(a), len(b), ErrDimensionMismatch)
	}
	return dot(a, b), nil
}

// cosine returns the cosine similarity of a and b, in [-1, 1].
//
// It returns ErrDimensionMismatch (wrapped) when the lengths differ and
// ErrZeroVector (wrapped) when either vector has zero length, where the
// cosine is undefined.
func cosine(a, b []float32) (float64, error) {
	if len(a) != len(b) {
		return 0, fmt.Errorf("vector: cosine of %d and %d elements: %w", len(a), len(b), ErrDimensionMismatch)
	}
	na, nb := norm(a), norm(b)
	if na == 0 || nb == 0 {
		return 0, fmt.Errorf("vector: cosine: %w", ErrZeroVector)
	}
	c := float64(dot(a, b)) / (na * nb)
	// Rounding can push |c| slightly past 1.
	return math.Max(-1, math.Min(1, c)), nil
}

// l2Norm returns the Euclidean (L2) length of v, accumulated in float64.
func l2Norm(v []float32) float64 { return norm(v) }

// normalize scales v in place to unit L2 length and returns it.
//
// It returns ErrZeroVector (wrapped) and leaves v unchanged when v has zero
// length, and ErrNotFinite (wrapped) when v holds a NaN or an infinity.
func normalize(v []float32) ([]float32, error) {
	if err := checkFinite(v); err != nil {
		return v, err
	}
	n := norm(v)
	if n == 0 {
		return v, fmt.Errorf("vector: normalize: %w", ErrZeroVector)
	}
	inv := 1 / n
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
	return v, nil
}

// normalized returns a unit-length copy of v, leaving v unchanged.
// Errors are those of normalize; on error the copy is not returned.
func normalized(v []float32) ([]float32, error) {
	out, err := normalize(append([]float32(nil), v...))
	if err != nil {
		return nil, err
	}
	return out, nil
}

// checkFinite returns ErrNotFinite (wrapped, naming the first bad index) when
// v holds a NaN or an infinity, and nil otherwise.
func checkFinite(v []float32) error {
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("vector: element %d is %v: %w", i, x, ErrNotFinite)
		}
	}
	return nil
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

// dot returns the inner product of a and b[:len(a)] with the kernel of
// [DotRows] (the same per-row summation order). Callers guarantee
// len(b) >= len(a).
func dot(a, b []float32) float32 {
	var s [1]float32
	dotRows(s[:], b[:len(a)], a)
	return s[0]
}
