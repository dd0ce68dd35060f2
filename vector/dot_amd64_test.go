//go:build amd64 && !purego

package vector

import "testing"

// testKernels lists every kernel this processor can run, the one in use
// first, so tests check the assembly kernels that are not selected too.
func testKernels() []namedKernel {
	ks := []namedKernel{{"selected-" + dotKernelName(), dotRows}, {"generic", dotRowsGeneric}}
	if hasAVX2 {
		ks = append(ks, namedKernel{"avx2-fma", dotRowsAVX2})
	}
	if hasAVX512 {
		ks = append(ks, namedKernel{"avx512f", dotRowsAVX512})
	}
	return ks
}

func TestKernelSelection(t *testing.T) {
	tests := []struct {
		name         string
		avx2, avx512 bool
		want         int
	}{
		{name: "no avx2", want: kernelGeneric},
		{name: "avx2", avx2: true, want: kernelAVX2},
		{name: "avx512", avx2: true, avx512: true, want: map[bool]int{true: kernelAVX512, false: kernelAVX2}[preferAVX512]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := chooseKernel(tt.avx2, tt.avx512); got != tt.want {
				t.Errorf("chooseKernel(%v, %v) = %d, want %d", tt.avx2, tt.avx512, got, tt.want)
			}
		})
	}
	if hasAVX2 && dotKernelName() == "generic" {
		t.Errorf("the CPU has AVX2 and FMA but DotKernel() = %q", dotKernelName())
	}
	if hasAVX512 && !hasAVX2 {
		t.Error("AVX-512 detected without AVX2")
	}
	t.Logf("kernel %s (avx2 %v, avx512 %v)", dotKernelName(), hasAVX2, hasAVX512)
}

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
	if Q8Kernel() != want || Q8Accelerated() != (want != "generic") {
		t.Errorf("Q8Kernel() = %q, Q8Accelerated() = %v; want %q", Q8Kernel(), Q8Accelerated(), want)
	}
	if hasVNNI && !hasAVX512 {
		t.Error("VNNI reported without AVX-512F")
	}
}
