package q8

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hybridrag/hybridrag/vector"
)

func randCodes(rng *rand.Rand, n int) []int8 {
	c := make([]int8, n)
	for i := range c {
		c[i] = int8(rng.IntN(255) - 127)
	}
	return c
}

// TestDotRowsQ8 checks every kernel against an int64 reference, at
// dimensions around the 64-code block and with extreme codes.
func TestDotRowsQ8(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	kernels := map[string]func(out []int32, m, q []int8){"generic": dotRowsQ8Generic, "selected": dotRowsQ8}
	addQ8FastKernel(kernels)
	for _, dim := range []int{1, 3, 63, 64, 65, 127, 128, 129, 191, 192, 256, 1536, 1537} {
		for _, rows := range []int{0, 1, 2, 5} {
			m := randCodes(rng, rows*dim)
			q := randCodes(rng, dim)
			if dim == 1536 && rows == 5 { // extremes: the largest sums
				for i := range m[:dim] {
					m[i] = 127
				}
				for i := range m[dim : 2*dim] {
					m[dim+i] = -127
				}
				for i := range q {
					q[i] = 127
				}
			}
			want := make([]int32, rows)
			for i := range rows {
				var s int64
				for j := range dim {
					s += int64(m[i*dim+j]) * int64(q[j])
				}
				want[i] = int32(s)
			}
			for name, k := range kernels {
				got := make([]int32, rows)
				k(got, m, q)
				for i := range rows {
					if got[i] != want[i] {
						t.Fatalf("%s dim %d rows %d: row %d = %d, want %d", name, dim, rows, i, got[i], want[i])
					}
				}
			}
		}
	}
	// The exported wrapper scores min(len(out), rows) rows.
	out := make([]int32, 3)
	if n := DotRows(out, make([]int8, 2*64), make([]int8, 64)); n != 2 {
		t.Errorf("DotRowsQ8 scored %d rows, want 2", n)
	}
}

// TestQ8Bound checks that the bound holds between the quantized
// approximation and both the exact inner product and DotRows's float32
// one, on embeddings and on adversarial vectors.
func TestQ8Bound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	emb, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 384})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"fungicida para soja", "herbicida pós-emergente para cana-de-açúcar", "ferrugem asiática", "lagarta", "", "2,4-D"}
	vecs, err := emb.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for range 40 { // random Gaussian, spiky and tiny vectors
		v := make([]float32, 384)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		switch rng.IntN(3) {
		case 0:
			v[rng.IntN(len(v))] = 50
		case 1:
			for i := range v {
				v[i] *= 1e-20
			}
		}
		vecs = append(vecs, v)
	}
	q8 := func(v []float32) ([]int8, Stats) {
		c := make([]int8, len(v))
		st, err := Quantize(c, v)
		if err != nil {
			t.Fatal(err)
		}
		return c, st
	}
	for i, a := range vecs {
		ca, sa := q8(a)
		for j, b := range vecs {
			cb, sb := q8(b)
			var code [1]int32
			DotRows(code[:], cb, ca)
			approx := float64(sa.Scale) * float64(sb.Scale) * float64(code[0])
			var exact float64
			for k := range a {
				exact += float64(a[k]) * float64(b[k])
			}
			var f [1]float32
			vector.DotRows(f[:], b, a)
			bound := float64(Bound(sa, sb, len(a)))
			if d := math.Abs(exact - approx); d > bound {
				t.Errorf("vectors %d·%d: |exact - approx| = %g > bound %g", i, j, d, bound)
			}
			if d := math.Abs(float64(f[0]) - approx); d > bound {
				t.Errorf("vectors %d·%d: |DotRows - approx| = %g > bound %g", i, j, d, bound)
			}
		}
	}
	// A zero vector quantizes to zero codes, scale and error.
	c, st := q8(make([]float32, 8))
	if st != (Stats{}) || c[0] != 0 {
		t.Errorf("zero vector: %+v %v", st, c)
	}
}

func BenchmarkDotRowsQ8(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	const dim = 1536
	for _, rows := range []int{64, 10000} {
		m := randCodes(rng, rows*dim)
		q := randCodes(rng, dim)
		out := make([]int32, rows)
		kernels := map[string]func(out []int32, m, q []int8){"selected-" + Kernel(): dotRowsQ8, "generic": dotRowsQ8Generic}
		addQ8FastKernel(kernels)
		for name, k := range kernels {
			b.Run(fmt.Sprintf("%s/rows=%d", name, rows), func(b *testing.B) {
				b.SetBytes(int64(rows * dim))
				for b.Loop() {
					k(out, m, q)
				}
			})
		}
	}
}

// TestQuantizeQ8Errors checks the typed errors, with nothing written.
func TestQuantizeQ8Errors(t *testing.T) {
	dst := []int8{7, 7, 7}
	if _, err := Quantize(dst[:2], []float32{1, 2, 3}); !errors.Is(err, vector.ErrDimensionMismatch) {
		t.Errorf("short dst: %v, want ErrDimensionMismatch", err)
	}
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		if _, err := Quantize(dst, []float32{1, bad, 3}); !errors.Is(err, vector.ErrNotFinite) {
			t.Errorf("%v: %v, want ErrNotFinite", bad, err)
		}
	}
	if dst[0] != 7 || dst[1] != 7 || dst[2] != 7 {
		t.Errorf("a rejected vector wrote codes: %v", dst)
	}
}
