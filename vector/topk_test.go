package vector

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
)

// clustered returns rows unit vectors of dim elements drawn around
// `clusters` random centres (Gaussian noise of relative size spread), the
// shape of real embeddings, and a query near one centre. Seeded: the same
// arguments give the same data.
func clustered(seed uint64, rows, dim, clusters int, spread float64) (matrix, query []float32) {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	centres := make([][]float64, clusters)
	for c := range centres {
		centres[c] = make([]float64, dim)
		for i := range centres[c] {
			centres[c][i] = r.NormFloat64()
		}
	}
	scale := spread
	point := func(c []float64, out []float32) {
		for i := range out {
			out[i] = float32(c[i] + scale*r.NormFloat64())
		}
		_, _ = normalize(out)
	}
	matrix = make([]float32, rows*dim)
	for row := range rows {
		point(centres[r.IntN(clusters)], matrix[row*dim:(row+1)*dim])
	}
	query = make([]float32, dim)
	point(centres[0], query)
	return matrix, query
}

// bruteTopK is the obviously-correct reference.
func bruteTopK(matrix []float32, dim int, q []float32, k int, keep func(int) bool, maxD float32) []match {
	var all []match
	for r := 0; r < len(matrix)/dim; r++ {
		if keep != nil && !keep(r) {
			continue
		}
		d := -dot(q, matrix[r*dim:(r+1)*dim])
		if d <= maxD {
			all = append(all, match{Row: r, Distance: d})
		}
	}
	slices.SortFunc(all, compareMatch)
	if len(all) > k {
		all = all[:k]
	}
	if len(all) == 0 {
		return nil
	}
	return all
}

func TestTopKMatchesBruteForce(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name string
		rows int
		dim  int
		k    int
		keep func(int) bool
		maxD float32
	}{
		{name: "small single goroutine", rows: 100, dim: 13, k: 7, maxD: noThreshold},
		{name: "parallel", rows: 5000, dim: 32, k: 10, maxD: noThreshold},
		{name: "parallel odd rows", rows: 4099, dim: 9, k: 25, maxD: noThreshold},
		{name: "keep even rows", rows: 5000, dim: 16, k: 10, keep: func(r int) bool { return r%2 == 0 }, maxD: noThreshold},
		{name: "threshold", rows: 5000, dim: 16, k: 50, maxD: -0.5},
		{name: "k larger than rows", rows: 10, dim: 4, k: 100, maxD: noThreshold},
		{name: "threshold keeps nothing", rows: 300, dim: 8, k: 5, maxD: -2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, q := clustered(7, tt.rows, tt.dim, 5, 0.5)
			got, err := topK(ctx, m, tt.dim, q, tt.k, tt.keep, tt.maxD)
			if err != nil {
				t.Fatal(err)
			}
			want := bruteTopK(m, tt.dim, q, tt.k, tt.keep, tt.maxD)
			if !slices.Equal(got, want) {
				t.Errorf("TopK =\n%v\nwant\n%v", got, want)
			}
			for _, g := range got {
				if tt.keep != nil && !tt.keep(g.Row) {
					t.Errorf("row %d not kept by filter", g.Row)
				}
				if g.Distance > tt.maxD {
					t.Errorf("row %d distance %v above threshold %v", g.Row, g.Distance, tt.maxD)
				}
			}
		})
	}
}

func TestTopKTiesByRow(t *testing.T) {
	// 5000 identical rows: every distance ties, so the lowest rows win,
	// whichever goroutine scanned them.
	const dim, rows = 4, 5000
	m := make([]float32, rows*dim)
	for i := range m {
		m[i] = 0.5
	}
	q := []float32{0.5, 0.5, 0.5, 0.5}
	for run := range 5 {
		got, err := topK(context.Background(), m, dim, q, 3, nil, noThreshold)
		if err != nil {
			t.Fatal(err)
		}
		want := []match{{0, -1}, {1, -1}, {2, -1}}
		if !slices.Equal(got, want) {
			t.Fatalf("run %d: TopK = %v, want %v", run, got, want)
		}
	}
}

func TestTopKThresholdSemantics(t *testing.T) {
	// Rows at similarity 0.9, 0.5 and 0.3 to q = e0; threshold -0.5 keeps
	// distance <= -0.5, i.e. the first two (0.5 is kept: <= is inclusive).
	m := []float32{
		0.9, 0,
		0.5, 0,
		0.3, 0,
	}
	got, err := topK(context.Background(), m, 2, []float32{1, 0}, 10, nil, -0.5)
	if err != nil {
		t.Fatal(err)
	}
	want := []match{{0, -0.9}, {1, -0.5}}
	if !slices.Equal(got, want) {
		t.Errorf("TopK = %v, want %v", got, want)
	}
	if s := got[0].Similarity(); s != 0.9 {
		t.Errorf("Similarity = %v, want 0.9", s)
	}
}

func TestTopKSpecialThresholdsAndNaN(t *testing.T) {
	nan := float32(math.NaN())
	m := []float32{1, 0, nan, 0, 0.5, 0}
	q := []float32{1, 0}
	for _, thr := range []float32{noThreshold, float32(math.Inf(1)), nan} {
		t.Run(fmt.Sprint(thr), func(t *testing.T) {
			got, err := topK(context.Background(), m, 2, q, 10, nil, thr)
			if err != nil {
				t.Fatal(err)
			}
			want := []match{{0, -1}, {2, -0.5}} // the NaN row is never kept
			if !slices.Equal(got, want) {
				t.Errorf("TopK = %v, want %v", got, want)
			}
		})
	}
}

func TestTopKErrorsAndEdges(t *testing.T) {
	ctx := context.Background()
	m := []float32{1, 0, 0, 1}
	tests := []struct {
		name    string
		matrix  []float32
		dim     int
		query   []float32
		k       int
		wantErr error
		wantLen int
	}{
		{name: "query too short", matrix: m, dim: 2, query: []float32{1}, k: 1, wantErr: ErrDimensionMismatch},
		{name: "ragged matrix", matrix: m[:3], dim: 2, query: []float32{1, 0}, k: 1, wantErr: ErrDimensionMismatch},
		{name: "zero dim", matrix: m, dim: 0, query: nil, k: 1, wantErr: ErrDimensionMismatch},
		{name: "k zero", matrix: m, dim: 2, query: []float32{1, 0}, k: 0},
		{name: "k negative", matrix: m, dim: 2, query: []float32{1, 0}, k: -3},
		{name: "empty matrix", matrix: nil, dim: 2, query: []float32{1, 0}, k: 3},
		{name: "two rows", matrix: m, dim: 2, query: []float32{1, 0}, k: 5, wantLen: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := topK(ctx, tt.matrix, tt.dim, tt.query, tt.k, nil, noThreshold)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if len(got) != tt.wantLen {
				t.Errorf("len = %d, want %d (%v)", len(got), tt.wantLen, got)
			}
		})
	}
}

func TestTopKCancelled(t *testing.T) {
	m, q := clustered(3, 10_000, 8, 4, 0.3)
	t.Run("before start", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := topK(ctx, m, 8, q, 5, nil, noThreshold); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("during scan", func(t *testing.T) {
		const rows = 50_000
		big, bq := clustered(3, rows, 2, 4, 0.3)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		const cancelAt = 1000
		var seen atomic.Int64
		keep := func(row int) bool {
			if seen.Add(1) == cancelAt {
				cancel()
			}
			return true
		}
		_, err := topK(ctx, big, 2, bq, 5, keep, noThreshold)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		// Each worker notices within cancelCheckRows rows of the cancel.
		if bound := int64(runtime.GOMAXPROCS(0) * (cancelCheckRows + 1)); bound+cancelAt < rows && seen.Load()-cancelAt > bound {
			t.Errorf("scanned %d rows after cancel, want <= %d", seen.Load()-cancelAt, bound)
		}
	})
}

func TestTopKDoesNotModifyInputs(t *testing.T) {
	m, q := clustered(11, 3000, 16, 3, 0.4)
	m0, q0 := slices.Clone(m), slices.Clone(q)
	if _, err := topK(context.Background(), m, 16, q, 10, nil, noThreshold); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m, m0) || !slices.Equal(q, q0) {
		t.Error("TopK modified its inputs")
	}
}

func benchmarkTopK(b *testing.B, rows int) {
	const dim = 1536
	m, q := clustered(42, rows, dim, 64, 0.6)
	ctx := context.Background()
	b.SetBytes(int64(rows * dim * 4))
	b.ResetTimer()
	for b.Loop() {
		res, err := topK(ctx, m, dim, q, 10, nil, -0.5)
		if err != nil || len(res) == 0 {
			b.Fatalf("TopK = %d matches, %v", len(res), err)
		}
	}
}

func BenchmarkTopK(b *testing.B) {
	for _, rows := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("rows=%d/dim=1536", rows), func(b *testing.B) { benchmarkTopK(b, rows) })
	}
}

func BenchmarkDot1536(b *testing.B) {
	m, q := clustered(1, 2, 1536, 1, 0.5)
	var s float32
	b.SetBytes(1536 * 4)
	for b.Loop() {
		s += dot(q, m[:1536])
	}
	_ = s
}

// TestTopKThresholdAndKeep runs topK the way the in-memory store's scans
// use a threshold and a row filter.
func TestTopKThresholdAndKeep(t *testing.T) {
	// Four unit rows of dimension 2, flat and row-major.
	matrix := []float32{
		1, 0, // row 0
		0.6, 0.8, // row 1
		0, 1, // row 2
		-1, 0, // row 3
	}
	query := []float32{1, 0}
	// Keep rows with distance <= -0.5 (similarity >= 0.5), skip row 1.
	keep := func(row int) bool { return row != 1 }
	matches, err := topK(context.Background(), matrix, 2, query, 3, keep, -0.5)
	if err != nil {
		t.Fatal(err)
	}
	if len(matches) != 1 || matches[0].Row != 0 || matches[0].Distance != -1 {
		t.Fatalf("matches = %+v, want row 0 at distance -1 only", matches)
	}
}
