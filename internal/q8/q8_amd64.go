//go:build amd64 && !purego

package q8

import "golang.org/x/sys/cpu"

// dotRowsQ8VNNI (q8_amd64.s) sets out[i] to the inner product of the first
// n64 codes of row i of matrix (rows len(query) apart) with query. n64 is a
// positive multiple of 64. VPDPBUSD (AVX-512 VNNI) multiplies unsigned
// bytes by signed ones, 64 at a time, so the kernel flips each row byte's
// sign bit (adding 128 to its code) and starts each row's sum from -128
// times the sum of the query codes.
//
//go:noescape
func dotRowsQ8VNNI(out []int32, matrix, query []int8, n64 int)

// What the processor supports and the operating system enables, as
// golang.org/x/sys/cpu probes it at start-up: AVX2 (with FMA, as the
// float32 kernels of package vector require), AVX-512F, and AVX-512 VNNI
// (with AVX-512F).
var (
	hasAVX2   = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	hasAVX512 = hasAVX2 && cpu.X86.HasAVX512F
	hasVNNI   = hasAVX512 && cpu.X86.HasAVX512VNNI
)

// dotRowsQ8AVX2 (q8_amd64.s) is the AVX2 kernel: the same result as
// dotRowsQ8VNNI over the first n32 codes, a positive multiple of 32.
//
//go:noescape
func dotRowsQ8AVX2(out []int32, matrix, query []int8, n32 int)

// The int8 kernel in use, chosen once: VNNI where the processor has it,
// else AVX2, else the portable loop.
var (
	q8Kernel, dotRowsQ8 = chooseQ8Kernel(hasVNNI, hasAVX2)
	q8Accelerated       = q8Kernel != "generic"
)

// chooseQ8Kernel returns the name and function of the best int8 kernel the
// processor runs.
func chooseQ8Kernel(vnni, avx2 bool) (string, func(out []int32, matrix, query []int8)) {
	switch {
	case vnni:
		return "avx512-vnni", dotRowsQ8VNNIBlocks
	case avx2:
		return "avx2", dotRowsQ8AVX2Blocks
	}
	return "generic", dotRowsQ8Generic
}

// dotRowsQ8VNNIBlocks runs the VNNI kernel over whole 64-code blocks and
// adds the tail in Go.
func dotRowsQ8VNNIBlocks(out []int32, matrix, query []int8) {
	q8Blocks(out, matrix, query, 64, dotRowsQ8VNNI)
}

// dotRowsQ8AVX2Blocks runs the AVX2 kernel over whole 32-code blocks and
// adds the tail in Go.
func dotRowsQ8AVX2Blocks(out []int32, matrix, query []int8) {
	q8Blocks(out, matrix, query, 32, dotRowsQ8AVX2)
}

// q8Blocks runs kernel over the first multiple of block codes of every row
// and adds the remaining codes in Go.
func q8Blocks(out []int32, matrix, query []int8, block int, kernel func(out []int32, matrix, query []int8, n int)) {
	dim := len(query)
	n := dim / block * block
	if n > 0 {
		kernel(out, matrix, query, n)
	} else {
		clear(out)
	}
	if n == dim {
		return
	}
	for i := range out {
		s := out[i]
		row := matrix[i*dim : (i+1)*dim]
		for j := n; j < dim; j++ {
			s += int32(row[j]) * int32(query[j])
		}
		out[i] = s
	}
}
