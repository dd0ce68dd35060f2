//go:build !amd64 || purego

package vector

// testKernels lists every kernel this build can run.
func testKernels() []namedKernel {
	return []namedKernel{{"selected-" + dotKernelName(), dotRows}}
}
