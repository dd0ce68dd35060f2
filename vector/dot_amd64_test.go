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
