//go:build !amd64 || purego

package q8

// addQ8FastKernel adds nothing: there is no SIMD int8 kernel here.
func addQ8FastKernel(map[string]func(out []int32, m, q []int8)) {}
