//go:build amd64 && !purego

package vector

import "golang.org/x/sys/cpu"

// Assembly kernels (dot_amd64.s). Each sets out[i] to the inner product of
// query and row i of matrix, reading len(out)*len(query) elements of
// matrix; the caller guarantees that many exist. Rows are scored four per
// pass (each query load shared by four rows) and the remainder one at a
// time, with the same per-row summation order either way, so a row's score
// never depends on its neighbours.
//
// dotRowsAVX2 uses 256-bit AVX2 registers and FMA: two accumulators of
// eight lanes per row, elements [16j, 16j+8) into the first and
// [16j+8, 16j+16) into the second, a masked load for the last len%8
// elements, then a fixed horizontal reduction.
//
//go:noescape
func dotRowsAVX2(out, matrix, query []float32)

// dotRowsAVX512 is the AVX-512F variant: two 16-lane accumulators per row,
// 32 elements per step, opmask loads for the tail.
//
//go:noescape
func dotRowsAVX512(out, matrix, query []float32)

// preferAVX512 selects the AVX-512 kernel over the AVX2 one when both run.
// On the Sapphire Rapids machine measured it scored L2-resident rows about
// 1.3-1.5× faster (BenchmarkDotRows) and tied when the scan streams from
// memory, where both are bandwidth-bound.
const preferAVX512 = true

const (
	kernelGeneric = iota
	kernelAVX2
	kernelAVX512
)

// What the processor supports and the operating system enables (it saves
// the registers the instructions use), as golang.org/x/sys/cpu probes it at
// start-up: AVX2 with FMA, and AVX-512F.
var (
	hasAVX2   = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	hasAVX512 = hasAVX2 && cpu.X86.HasAVX512F
)

// kernel is the kernel dotRows calls.
var kernel = chooseKernel(hasAVX2, hasAVX512)

// dotKernel names the inner-product kernel in use; see dotKernelName.
var dotKernel = [...]string{kernelGeneric: "generic", kernelAVX2: "avx2-fma", kernelAVX512: "avx512f"}[kernel]

func chooseKernel(avx2, avx512 bool) int {
	switch {
	case avx512 && preferAVX512:
		return kernelAVX512
	case avx2:
		return kernelAVX2
	}
	return kernelGeneric
}

// dotRows sets out[i] to the inner product of query and row i of matrix.
// The caller guarantees len(matrix) >= len(out)*len(query).
func dotRows(out, matrix, query []float32) {
	switch kernel {
	case kernelAVX512:
		dotRowsAVX512(out, matrix, query)
	case kernelAVX2:
		dotRowsAVX2(out, matrix, query)
	default:
		dotRowsGeneric(out, matrix, query)
	}
}
