//go:build amd64 && !purego

package vector

// dotRowsQ8VNNI (q8_amd64.s) sets out[i] to the inner product of the first
// n64 codes of row i of matrix (rows len(query) apart) with query. n64 is a
// positive multiple of 64. VPDPBUSD (AVX-512 VNNI) multiplies unsigned
// bytes by signed ones, 64 at a time, so the kernel flips each row byte's
// sign bit (adding 128 to its code) and starts each row's sum from -128
// times the sum of the query codes.
//
//go:noescape
func dotRowsQ8VNNI(out []int32, matrix, query []int8, n64 int)

// hasVNNI reports whether AVX-512 VNNI can be used: AVX-512F usable
// (hasAVX512) and CPUID.(7,0):ECX bit 11.
var hasVNNI = func() bool {
	if !hasAVX512 {
		return false
	}
	_, _, ecx7, _ := cpuid(7, 0)
	return ecx7&(1<<11) != 0
}()

var q8Accelerated = hasVNNI

func dotRowsQ8(out []int32, matrix, query []int8) {
	if !hasVNNI {
		dotRowsQ8Generic(out, matrix, query)
		return
	}
	dotRowsQ8Fast(out, matrix, query)
}

// dotRowsQ8Fast runs the VNNI kernel over whole 64-code blocks and adds
// the tail in Go.
func dotRowsQ8Fast(out []int32, matrix, query []int8) {
	dim := len(query)
	n64 := dim &^ 63
	if n64 > 0 {
		dotRowsQ8VNNI(out, matrix, query, n64)
	} else {
		clear(out)
	}
	if n64 == dim {
		return
	}
	for i := range out {
		s := out[i]
		row := matrix[i*dim : (i+1)*dim]
		for j := n64; j < dim; j++ {
			s += int32(row[j]) * int32(query[j])
		}
		out[i] = s
	}
}
