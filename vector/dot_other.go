//go:build !amd64 || purego

package vector

// dotKernel names the inner-product kernel in use; see dotKernelName.
const dotKernel = "generic"

// dotRows sets out[i] to the inner product of query and row i of matrix.
// The caller guarantees len(matrix) >= len(out)*len(query).
func dotRows(out, matrix, query []float32) { dotRowsGeneric(out, matrix, query) }
