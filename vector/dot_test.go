package vector

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

type namedKernel struct {
	name string
	fn   func(out, matrix, query []float32)
}

// dotTolerance bounds the float32 rounding error of an inner product of n
// terms whose absolute products sum to absSum: every kernel's summation
// tree is at most n/8+8 additions deep, each off by at most half an ulp,
// plus subnormal underflow of the products.
func dotTolerance(n int, absSum float64) float64 {
	return (float64(n)/8+8)*0x1p-24*absSum + float64(n)*0x1p-149
}

// absDot returns the sum of |a_i b_i| in float64.
func absDot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += math.Abs(float64(a[i]) * float64(b[i]))
	}
	return s
}

// checkRow checks one score against the float64 reference: NaN when the
// reference is NaN (a NaN input, an infinity times zero, opposite
// infinities); the same infinity or NaN when the reference is infinite
// (NaN when finite products overflow to the opposite infinity); within
// dotTolerance when no partial sum, in any order, can overflow. Otherwise
// the float32 result depends on the summation order and is not checked.
func checkRow(t *testing.T, what string, got float32, q, row []float32) {
	t.Helper()
	want, abs := refDot(q, row), absDot(q, row)
	switch {
	case math.IsNaN(want):
		if !math.IsNaN(float64(got)) {
			t.Errorf("%s = %v, want NaN", what, got)
		}
	case math.IsInf(want, 0):
		if float64(got) != want && !math.IsNaN(float64(got)) {
			t.Errorf("%s = %v, want %v or NaN", what, got, want)
		}
	case abs <= math.MaxFloat32/2:
		if d := math.Abs(float64(got) - want); !(d <= dotTolerance(len(q), abs)) {
			t.Errorf("%s = %v, want %v ± %.3g (off by %.3g)", what, got, want, dotTolerance(len(q), abs), d)
		}
	}
}

// checkKernel runs k over every row count up to len(out) and checks each
// score against the reference and, bitwise, against the row scored alone.
func checkKernel(t *testing.T, k namedKernel, matrix, q []float32, rows int) {
	t.Helper()
	dim := len(q)
	out := make([]float32, rows+1)
	out[rows] = 42 // sentinel: must not be written
	k.fn(out[:rows], matrix, q)
	if out[rows] != 42 {
		t.Errorf("%s wrote past out[:%d]", k.name, rows)
	}
	for i := range rows {
		row := matrix[i*dim : (i+1)*dim]
		checkRow(t, fmt.Sprintf("%s row %d/%d dim %d", k.name, i, rows, dim), out[i], q, row)
		var one [1]float32
		k.fn(one[:], row, q)
		// Bitwise equal; NaN payloads may differ.
		if math.Float32bits(one[0]) != math.Float32bits(out[i]) && !(one[0] != one[0] && out[i] != out[i]) {
			t.Errorf("%s row %d/%d dim %d: %v in a block, %v alone", k.name, i, rows, dim, out[i], one[0])
		}
	}
}

func randVec(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = r.Float32()*2 - 1
	}
	return v
}

var dotLengths = []int{0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 23, 24, 31, 32, 33, 47, 48, 63, 64, 65, 100, 1535, 1536, 1537}

func TestKernelsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for _, k := range testKernels() {
		t.Run(k.name, func(t *testing.T) {
			for _, dim := range dotLengths {
				for _, rows := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9} {
					checkKernel(t, k, randVec(r, rows*dim), randVec(r, dim), rows)
				}
			}
		})
	}
}

// TestKernelsUnaligned scores sub-slices starting at every float offset
// within a 64-byte line, and rows ending at the very end of an allocation
// (the masked tail must not read past it).
func TestKernelsUnaligned(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for _, k := range testKernels() {
		t.Run(k.name, func(t *testing.T) {
			for _, dim := range []int{1, 7, 13, 31, 33, 1535} {
				for off := range 16 {
					const rows = 6
					m := randVec(r, off+rows*dim)[off:]
					q := randVec(r, off+dim)[off:]
					checkKernel(t, k, m, q, rows)
				}
			}
		})
	}
}

func TestKernelsSpecialValues(t *testing.T) {
	inf, negInf, nan := float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())
	big, tiny := float32(1e30), float32(1e-30)
	tests := []struct {
		name string
		q    func(i int) float32
		row  func(i int) float32
		// want, when set, is the exact score of the special row.
		want *float32
	}{
		{name: "zeros", q: func(int) float32 { return 0 }, row: func(int) float32 { return 0 }},
		{name: "negative zeros", q: func(int) float32 { return float32(math.Copysign(0, -1)) }, row: func(int) float32 { return 1 }},
		{name: "nan in row", q: func(int) float32 { return 1 }, row: func(i int) float32 { return map[bool]float32{true: nan, false: 1}[i == 5] }},
		{name: "nan in last element", q: func(int) float32 { return 1 }, row: func(i int) float32 { return map[bool]float32{true: nan, false: 1}[i == 36] }},
		{name: "inf", q: func(int) float32 { return 1 }, row: func(i int) float32 { return map[bool]float32{true: inf, false: 1}[i == 20] }},
		{name: "minus inf", q: func(int) float32 { return -1 }, row: func(i int) float32 { return map[bool]float32{true: inf, false: 1}[i == 0] }},
		{name: "inf minus inf", q: func(int) float32 { return 1 }, row: func(i int) float32 { return map[bool]float32{true: inf, false: -inf}[i%2 == 0] }},
		{name: "inf times zero", q: func(i int) float32 { return float32(i % 2) }, row: func(int) float32 { return inf }},
		{name: "products overflow", q: func(int) float32 { return big }, row: func(int) float32 { return big }, want: &inf},
		{name: "products overflow negative", q: func(int) float32 { return -big }, row: func(int) float32 { return big }, want: &negInf},
		{name: "sum overflows", q: func(int) float32 { return 1e19 }, row: func(int) float32 { return 1e19 }, want: &inf},
		{name: "huge cancelling", q: func(i int) float32 { return big }, row: func(i int) float32 { return float32(1 - 2*(i%2)) }},
		{name: "tiny", q: func(int) float32 { return tiny }, row: func(int) float32 { return tiny }},
		{name: "subnormal products", q: func(int) float32 { return 1e-20 }, row: func(int) float32 { return 1e-20 }},
		{name: "max float", q: func(int) float32 { return math.MaxFloat32 }, row: func(i int) float32 { return map[bool]float32{true: 1, false: 0}[i == 3] }},
	}
	const dim = 37 // four full AVX2 steps, no AVX-512 step, a 5-element tail
	for _, k := range testKernels() {
		for _, tt := range tests {
			t.Run(k.name+"/"+tt.name, func(t *testing.T) {
				q := make([]float32, dim)
				for i := range q {
					q[i] = tt.q(i)
				}
				// Row 2 gets the special values; its neighbours are plain, so
				// a NaN or infinity leaking across rows is caught.
				const rows = 5
				m := make([]float32, rows*dim)
				for i := range m {
					m[i] = 0.5
				}
				for i := range dim {
					m[2*dim+i] = tt.row(i)
				}
				checkKernel(t, k, m, q, rows)
				if tt.want != nil {
					out := make([]float32, rows)
					k.fn(out, m, q)
					if out[2] != *tt.want {
						t.Errorf("score = %v, want %v", out[2], *tt.want)
					}
				}
			})
		}
	}
}

func TestDotRows(t *testing.T) {
	q := []float32{1, 2, 3}
	m := []float32{1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 9} // 4 rows and a partial one
	tests := []struct {
		name   string
		out    int
		matrix []float32
		query  []float32
		want   []float32
	}{
		{name: "all rows", out: 4, matrix: m, query: q, want: []float32{1, 2, 3, 6}},
		{name: "out shorter", out: 2, matrix: m, query: q, want: []float32{1, 2, -1, -1}},
		{name: "out longer", out: 6, matrix: m, query: q, want: []float32{1, 2, 3, 6, -1, -1}},
		{name: "matrix shorter than a row", out: 2, matrix: m[:2], query: q, want: []float32{-1, -1}},
		{name: "empty matrix", out: 2, matrix: nil, query: q, want: []float32{-1, -1}},
		{name: "empty query", out: 3, matrix: m, query: nil, want: []float32{0, 0, 0}},
		{name: "empty out", out: 0, matrix: m, query: q, want: []float32{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := make([]float32, len(tt.want))
			for i := range out {
				out[i] = -1
			}
			mc, qc := slices.Clone(tt.matrix), slices.Clone(tt.query)
			n := DotRows(out[:tt.out:tt.out], tt.matrix, tt.query)
			wantN := 0
			for _, w := range tt.want {
				if w != -1 {
					wantN++
				}
			}
			if n != wantN || !slices.Equal(out, tt.want) {
				t.Errorf("DotRows = %d, %v; want %d, %v", n, out, wantN, tt.want)
			}
			if !slices.Equal(mc, tt.matrix) || !slices.Equal(qc, tt.query) {
				t.Error("DotRows modified its inputs")
			}
		})
	}
}

// TestDotAgreesWithDotRowsAndTopK checks that one row's score is the same
// bits through Dot, DotRows and TopK.
func TestDotAgreesWithDotRowsAndTopK(t *testing.T) {
	const rows, dim = 2100, 45
	r := rand.New(rand.NewPCG(5, 8))
	m, q := randVec(r, rows*dim), randVec(r, dim)
	out := make([]float32, rows)
	DotRows(out, m, q)
	res, err := topK(t.Context(), m, dim, q, rows, nil, noThreshold)
	if err != nil || len(res) != rows {
		t.Fatalf("TopK = %d rows, %v", len(res), err)
	}
	for _, hit := range res {
		if -hit.Distance != out[hit.Row] {
			t.Errorf("row %d: TopK distance %v, DotRows %v", hit.Row, hit.Distance, out[hit.Row])
		}
	}
	for i := 0; i < rows; i += 97 {
		d, err := Dot(q, m[i*dim:(i+1)*dim])
		if err != nil || d != out[i] {
			t.Errorf("row %d: Dot %v (%v), DotRows %v", i, d, err, out[i])
		}
	}
}

func TestDotKernelName(t *testing.T) {
	if k := dotKernelName(); !slices.Contains([]string{"generic", "avx2-fma", "avx512f"}, k) {
		t.Errorf("DotKernel() = %q", k)
	}
}

// FuzzDotRows decodes a query length, a row count and float32 bit patterns
// (any value: NaN, infinities, subnormals) and checks every kernel against
// the float64 reference and a row's score alone against its score in the
// block.
func FuzzDotRows(f *testing.F) {
	f.Add(uint16(3), uint8(2), []byte{0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64})
	f.Add(uint16(1536), uint8(5), []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	f.Add(uint16(33), uint8(4), []byte{0, 0, 128, 127, 0, 0, 192, 127, 255, 255, 127, 127})
	f.Add(uint16(0), uint8(3), []byte{})
	f.Fuzz(func(t *testing.T, dim uint16, rows uint8, data []byte) {
		n := int(dim % 2049)
		nr := int(rows % 10)
		vals := make([]float32, (nr+1)*n)
		for i := range vals {
			// Cycle over the data, perturbed so repeats are not identical.
			if len(data) >= 4 {
				j := (i * 4) % (len(data) - len(data)%4)
				bits := uint32(data[j]) | uint32(data[j+1])<<8 | uint32(data[j+2])<<16 | uint32(data[j+3])<<24
				vals[i] = math.Float32frombits(bits ^ uint32(i/(len(data)/4+1)))
			} else {
				vals[i] = float32(i%7) - 3
			}
		}
		q, m := vals[:n], vals[n:]
		for _, k := range testKernels() {
			checkKernel(t, k, m, q, nr)
		}
	})
}

func BenchmarkDotRows(b *testing.B) {
	const dim = 1536
	for _, rows := range []int{64, 10_000} {
		m, q := clustered(9, rows, dim, 16, 0.5)
		out := make([]float32, rows)
		for _, k := range testKernels() {
			b.Run(fmt.Sprintf("%s/rows=%d/dim=%d", k.name, rows, dim), func(b *testing.B) {
				b.SetBytes(int64(rows * dim * 4))
				for b.Loop() {
					k.fn(out, m, q)
				}
			})
		}
	}
}
