package vector

// DotRows scores consecutive rows of a flat, row-major matrix against one
// query: out[i] is the inner product of query and
// matrix[i*len(query):(i+1)*len(query)].
//
// Like the built-in copy it never fails: it scores
// n = min(len(out), len(matrix)/len(query)) rows (len(out) zeros when
// query is empty), leaves out[n:] and any trailing partial row of matrix
// alone, and returns n.
//
// The arithmetic is float32. On amd64 processors with AVX2 and FMA an
// assembly kernel scores four rows per pass, sharing each query load
// between them (see dotKernelName); elsewhere, and when built with the
// purego tag, a portable Go kernel does. Each row's sum is accumulated in
// one fixed order, so a row's score is bitwise the same whether it is
// scored alone, in any block of rows, or by [Dot]; it can differ from
// another kernel's result in the last bits.
//
// DotRows neither retains nor modifies matrix or query and is safe for
// concurrent use.
func DotRows(out, matrix, query []float32) int {
	return scoreRows(out, matrix, query, dotRows)
}

// scoreRows runs kernel over the n = min(len(out), len(matrix)/len(query))
// whole rows of matrix and returns n; with an empty query it zeroes out
// and returns len(out).
func scoreRows[S, E any](out []S, matrix, query []E, kernel func(out []S, matrix, query []E)) int {
	dim := len(query)
	if dim == 0 {
		clear(out)
		return len(out)
	}
	n := min(len(out), len(matrix)/dim)
	if n > 0 {
		kernel(out[:n], matrix[:n*dim], query)
	}
	return n
}

// dotKernelName names the inner-product kernel [Dot], [DotRows] and topK use
// in this process: "avx512f" or "avx2-fma" for the amd64 assembly kernels,
// "generic" for the portable Go one. It is chosen once, at start-up, from
// the features the processor reports and the operating system enables.
func dotKernelName() string { return dotKernel }
