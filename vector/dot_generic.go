package vector

// The portable inner-product kernel, used on CPUs and architectures without
// an assembly kernel and under the purego build tag.
//
// Each row's sum is computed in one fixed order (two accumulators, even and
// odd elements, added at the end) whether the row is scored alone or in a
// block of four, so a row's score never depends on its neighbours. Scoring
// four rows per pass shares each query load between them and gives eight
// independent accumulators; in pure Go that was 1.3-1.5× faster than an
// eight-way unrolled single-row loop.

// dotRowsGeneric sets out[i] to the inner product of query and row i of
// matrix (row i is matrix[i*len(query):(i+1)*len(query)]). The caller
// guarantees len(matrix) >= len(out)*len(query).
func dotRowsGeneric(out, matrix, query []float32) {
	dim := len(query)
	i := 0
	for ; i+4 <= len(out); i += 4 {
		m := matrix[i*dim : (i+4)*dim]
		out[i], out[i+1], out[i+2], out[i+3] = dot4Generic(query, m[:dim], m[dim:2*dim], m[2*dim:3*dim], m[3*dim:])
	}
	for ; i < len(out); i++ {
		out[i] = dot1Generic(query, matrix[i*dim:(i+1)*dim])
	}
}

// dot4Generic returns the inner products of q with a, b, c and d, which
// must be at least len(q) long.
func dot4Generic(q, a, b, c, d []float32) (float32, float32, float32, float32) {
	n := len(q) &^ 1
	a, b, c, d = a[:n], b[:n], c[:n], d[:n]
	var a0, a1, b0, b1, c0, c1, d0, d1 float32
	for j := 0; j < n; j += 2 {
		q0, q1 := q[j], q[j+1]
		a0 += q0 * a[j]
		a1 += q1 * a[j+1]
		b0 += q0 * b[j]
		b1 += q1 * b[j+1]
		c0 += q0 * c[j]
		c1 += q1 * c[j+1]
		d0 += q0 * d[j]
		d1 += q1 * d[j+1]
	}
	if n < len(q) {
		x := q[n]
		a0 += x * a[:n+1][n]
		b0 += x * b[:n+1][n]
		c0 += x * c[:n+1][n]
		d0 += x * d[:n+1][n]
	}
	return a0 + a1, b0 + b1, c0 + c1, d0 + d1
}

// dot1Generic returns the inner product of q and a (len(a) >= len(q)) in
// the same summation order as one row of dot4Generic.
func dot1Generic(q, a []float32) float32 {
	n := len(q) &^ 1
	a = a[:n]
	var a0, a1 float32
	for j := 0; j < n; j += 2 {
		a0 += q[j] * a[j]
		a1 += q[j+1] * a[j+1]
	}
	if n < len(q) {
		a0 += q[n] * a[:n+1][n]
	}
	return a0 + a1
}
