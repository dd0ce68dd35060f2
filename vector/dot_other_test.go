//go:build !amd64 || purego

package vector

// testKernels lists every kernel this build can run.
func testKernels() []namedKernel {
	return []namedKernel{{"selected-" + dotKernelName(), dotRows}}
}

// addQ8FastKernel adds nothing: there is no SIMD int8 kernel here.
func addQ8FastKernel(map[string]func(out []int32, m, q []int8)) {}
