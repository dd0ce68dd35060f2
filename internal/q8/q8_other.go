//go:build !amd64 || purego

package q8

const (
	q8Accelerated = false
	q8Kernel      = "generic"
)

func dotRowsQ8(out []int32, matrix, query []int8) { dotRowsQ8Generic(out, matrix, query) }
