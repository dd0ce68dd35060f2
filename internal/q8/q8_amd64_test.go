//go:build amd64 && !purego

package q8

import "testing"

// addQ8FastKernel adds the VNNI kernel when this processor runs it.
func addQ8FastKernel(ks map[string]func(out []int32, m, q []int8)) {
	if hasVNNI {
		ks["vnni"] = dotRowsQ8VNNIBlocks
	}
	if hasAVX2 {
		ks["avx2"] = dotRowsQ8AVX2Blocks
	}
}

// TestQ8KernelSelection checks that the int8 kernel follows the processor.
func TestQ8KernelSelection(t *testing.T) {
	want := "generic"
	switch {
	case hasVNNI:
		want = "avx512-vnni"
	case hasAVX2:
		want = "avx2"
	}
	if Kernel() != want || Accelerated() != (want != "generic") {
		t.Errorf("Q8Kernel() = %q, Q8Accelerated() = %v; want %q", Kernel(), Accelerated(), want)
	}
	if hasVNNI && !hasAVX512 {
		t.Error("VNNI reported without AVX-512F")
	}
}
