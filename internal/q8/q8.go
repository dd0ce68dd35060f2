// Package q8 quantizes vectors to 8 bits and scores rows of codes with
// exact integer inner products (an AVX-512 VNNI or AVX2 kernel on amd64
// where the processor has it), with a bound that brackets each row's
// float32 inner product: the in-memory store scans a quarter of the bytes
// and still returns the exact top k.
package q8

import (
	"fmt"
	"math"

	"github.com/hybridrag/hybridrag/vector"
)

// Stats describes a vector v quantized to 8 bits by [Quantize] into q,
// with the bounds needed to turn approximate inner products into exact
// search: every bound is rounded up, never down.
type Stats struct {
	// Scale maps the codes back: v[i] ≈ Scale*q[i]. Zero for a zero
	// vector.
	Scale float32
	// Err is an upper bound of ||v - Scale*q||₂, the quantization error.
	Err float32
	// Norm is an upper bound of ||v||₂.
	Norm float32
}

// Quantize quantizes v into dst[:len(v)] with one symmetric scale,
// max|v[i]|/127: dst[i] = round(v[i]/scale), in [-127, 127]. It reports the
// scale and the error bounds. It returns vector.ErrDimensionMismatch (wrapped)
// when dst is shorter than v and vector.ErrNotFinite (wrapped) when v holds a NaN
// or an infinity, writing nothing.
//
// With a and b quantized this way, the exact integer inner product of their
// codes gives a·b to within
//
//	|a·b - Sa*Sb*(qa·qb)| <= Na*Eb + Ea*Nb + Ea*Eb
//
// (Cauchy–Schwarz on each error term), where S, E and N are Scale, Err and
// Norm; [Bound] computes it, with a margin for float32 rounding. A search
// can score every row on the codes, a quarter of the bytes, and compute the
// exact float32 product only for rows whose bound reaches the best scores
// found.
func Quantize(dst []int8, v []float32) (Stats, error) {
	if len(dst) < len(v) {
		return Stats{}, fmt.Errorf("vector: quantize %d elements into %d codes: %w", len(v), len(dst), vector.ErrDimensionMismatch)
	}
	dst = dst[:len(v)]
	var maxAbs float32
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return Stats{}, fmt.Errorf("vector: quantize: element %d is %v: %w", i, x, vector.ErrNotFinite)
		}
		maxAbs = max(maxAbs, float32(math.Abs(float64(x))))
	}
	var st Stats
	var errSq, normSq float64
	if maxAbs > 0 {
		st.Scale = maxAbs / 127
	}
	for i, x := range v {
		var c float64
		if st.Scale > 0 {
			c = math.Round(float64(x) / float64(st.Scale))
			c = max(-127, min(127, c))
		}
		dst[i] = int8(c)
		d := float64(x) - c*float64(st.Scale)
		errSq += d * d
		normSq += float64(x) * float64(x)
	}
	st.Err = roundUp32(math.Sqrt(errSq))
	st.Norm = roundUp32(math.Sqrt(normSq))
	return st, nil
}

// roundUp32 converts x to the nearest float32 not below it, with a
// relative margin for the float64 arithmetic that produced x.
func roundUp32(x float64) float32 {
	x *= 1 + 1e-9
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// Bound returns an upper bound of the difference between the exact
// inner product of two dims-long vectors that a and b describe and the
// approximation a.Scale*b.Scale*dot, where dot is the integer inner
// product of their codes ([DotRows]). It adds (dims+16)·2⁻²²·Na·Nb, four
// times the worst-case error of summing dims float32 products in any
// order, so that the float32 product vector.DotRows computes is within the
// bound of the approximation too.
func Bound(a, b Stats, dims int) float32 {
	na, nb := float64(a.Norm), float64(b.Norm)
	ea, eb := float64(a.Err), float64(b.Err)
	return roundUp32(na*eb + ea*nb + ea*eb + float64(dims+16)*0x1p-22*na*nb)
}

// DotRows sets out[i] to the exact integer inner product of query and
// row i of matrix (matrix[i*len(query):(i+1)*len(query)]), codes from
// [Quantize]. Like vector.DotRows it never fails: it scores
// n = min(len(out), len(matrix)/len(query)) rows and returns n. Codes must
// be in [-127, 127] and len(query) at most 131071, so that sums fit in
// int32.
//
// On amd64 an assembly kernel does the work ([Kernel]): with AVX-512
// VNNI, 64 codes per VPDPBUSD; with AVX2, 32 codes per five instructions
// (VPSIGNB, VPABSB, VPMADDUBSW, VPMADDWD, VPADDD), exact because no 16-bit
// pair sum can saturate. Elsewhere, and under the purego build tag, a
// portable Go loop does, which is slower than vector.DotRows on float32 and is
// meant for tests ([Accelerated] is then false).
func DotRows(out []int32, matrix, query []int8) int {
	return scoreRows(out, matrix, query, dotRowsQ8)
}

// Accelerated reports whether [DotRows] runs on a SIMD kernel in this
// process; when it does not, scoring float32 rows with vector.DotRows is faster.
func Accelerated() bool { return q8Accelerated }

// Kernel names the kernel [DotRows] uses in this process:
// "avx512-vnni", "avx2" or "generic", chosen once at start-up.
func Kernel() string { return q8Kernel }

// dotRowsQ8Generic is the portable kernel.
func dotRowsQ8Generic(out []int32, matrix, query []int8) {
	dim := len(query)
	for i := range out {
		row := matrix[i*dim : (i+1)*dim]
		var s0, s1 int32
		j := 0
		for ; j+2 <= dim; j += 2 {
			s0 += int32(row[j]) * int32(query[j])
			s1 += int32(row[j+1]) * int32(query[j+1])
		}
		if j < dim {
			s0 += int32(row[j]) * int32(query[j])
		}
		out[i] = s0 + s1
	}
}

// scoreRows scores n = min(len(out), len(matrix)/len(query)) rows with
// kernel (len(out) zeros when query is empty) and returns n.
func scoreRows[S, E any](out []S, matrix, query []E, kernel func(out []S, matrix, query []E)) int {
	dim := len(query)
	if dim == 0 {
		clear(out)
		return len(out)
	}
	n := min(len(out), len(matrix)/dim)
	if n > 0 {
		kernel(out[:n], matrix[:n*dim], query)
	}
	return n
}
