package vector

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// fixedEmbedder returns vecs whatever it is asked, or err.
type fixedEmbedder struct {
	dims  int
	vecs  [][]float32
	err   error
	calls int
}

func (f *fixedEmbedder) Dimensions() int { return f.dims }

func (f *fixedEmbedder) Embed(_ context.Context, _ []string) ([][]float32, error) {
	f.calls++
	return f.vecs, f.err
}

func TestCheckBatch(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(-1))
	tests := []struct {
		name      string
		vecs      [][]float32
		n, dims   int
		wantErr   error // nil: no error
		wantIndex int   // for *VectorError
	}{
		{name: "ok", vecs: [][]float32{{1, 0}, {0, 1}}, n: 2, dims: 2},
		{name: "empty batch", vecs: nil, n: 0, dims: 2},
		{name: "zero vector is not checked", vecs: [][]float32{{0, 0}}, n: 1, dims: 2},
		{name: "too few", vecs: [][]float32{{1, 0}}, n: 2, dims: 2, wantErr: ErrBatchSize, wantIndex: -1},
		{name: "too many", vecs: [][]float32{{1, 0}, {1, 0}, {1, 0}}, n: 2, dims: 2, wantErr: ErrBatchSize, wantIndex: -1},
		{name: "nil vector", vecs: [][]float32{{1, 0}, nil}, n: 2, dims: 2, wantErr: ErrEmptyVector, wantIndex: 1},
		{name: "empty vector", vecs: [][]float32{{}, {1, 0}}, n: 2, dims: 2, wantErr: ErrEmptyVector, wantIndex: 0},
		{name: "short vector", vecs: [][]float32{{1, 0}, {1, 0}, {1}}, n: 3, dims: 2, wantErr: ErrDimensionMismatch, wantIndex: 2},
		{name: "all vectors off the declared dimension", vecs: [][]float32{{1, 0, 0}}, n: 1, dims: 2, wantErr: ErrDimensionMismatch, wantIndex: 0},
		{name: "unknown dimension, consistent", vecs: [][]float32{{1, 0, 0}, {0, 0, 1}}, n: 2, dims: 0},
		{name: "unknown dimension, inconsistent", vecs: [][]float32{{1, 0, 0}, {0, 1}}, n: 2, dims: 0, wantErr: ErrDimensionMismatch, wantIndex: 1},
		{name: "NaN", vecs: [][]float32{{1, 0}, {nan, 0}}, n: 2, dims: 2, wantErr: ErrNotFinite, wantIndex: 1},
		{name: "infinity", vecs: [][]float32{{0, inf}, {1, 0}}, n: 2, dims: 2, wantErr: ErrNotFinite, wantIndex: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckBatch(tt.vecs, tt.n, tt.dims)
			checkVectorErr(t, err, tt.wantErr, tt.wantIndex)
			if tt.wantErr == ErrBatchSize {
				want := fmt.Sprintf("returned %d vectors for %d texts", len(tt.vecs), tt.n)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("err = %v, want the counts (%q)", err, want)
				}
			}
		})
	}
}

// checkVectorErr checks that err wraps want and, for index >= 0, is a
// *VectorError naming that index.
func checkVectorErr(t *testing.T, err, want error, index int) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("err = %v, want nil", err)
		}
		return
	}
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want one wrapping %v", err, want)
	}
	if index < 0 {
		return
	}
	var ve *VectorError
	if !errors.As(err, &ve) || ve.Index != index {
		t.Fatalf("err = %#v, want a *VectorError with Index %d", err, index)
	}
}

func TestChecked(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")
	tests := []struct {
		name      string
		inner     *fixedEmbedder
		texts     int
		want      [][]float32
		wantErr   error
		wantIndex int
	}{
		{name: "unit vectors pass", inner: &fixedEmbedder{dims: 2, vecs: [][]float32{{1, 0}, {0.6, 0.8}}}, texts: 2, want: [][]float32{{1, 0}, {0.6, 0.8}}},
		{name: "normalizes", inner: &fixedEmbedder{dims: 2, vecs: [][]float32{{3, 4}, {0, -2}}}, texts: 2, want: [][]float32{{0.6, 0.8}, {0, -1}}},
		{name: "count", inner: &fixedEmbedder{dims: 2, vecs: [][]float32{{1, 0}}}, texts: 2, wantErr: ErrBatchSize, wantIndex: -1},
		{name: "nil vector", inner: &fixedEmbedder{dims: 2, vecs: [][]float32{{1, 0}, nil}}, texts: 2, wantErr: ErrEmptyVector, wantIndex: 1},
		{name: "dimension", inner: &fixedEmbedder{dims: 3, vecs: [][]float32{{1, 0, 0}, {1, 0}}}, texts: 2, wantErr: ErrDimensionMismatch, wantIndex: 1},
		{name: "NaN", inner: &fixedEmbedder{dims: 2, vecs: [][]float32{{float32(math.NaN()), 0}}}, texts: 1, wantErr: ErrNotFinite, wantIndex: 0},
		{name: "infinity", inner: &fixedEmbedder{dims: 2, vecs: [][]float32{{1, 0}, {float32(math.Inf(1)), 0}}}, texts: 2, wantErr: ErrNotFinite, wantIndex: 1},
		{name: "zero vector", inner: &fixedEmbedder{dims: 2, vecs: [][]float32{{1, 0}, {1, 0}, {0, 0}}}, texts: 3, wantErr: ErrZeroVector, wantIndex: 2},
		{name: "inner error unchanged", inner: &fixedEmbedder{dims: 2, err: boom}, texts: 1, wantErr: boom, wantIndex: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Checked(tt.inner).Embed(ctx, make([]string, tt.texts))
			checkVectorErr(t, err, tt.wantErr, tt.wantIndex)
			if tt.wantErr == boom && err != boom {
				t.Errorf("err = %v, want the inner error itself", err)
			}
			if err != nil {
				if got != nil {
					t.Errorf("vectors returned with an error: %v", got)
				}
				return
			}
			for i := range tt.want {
				for j := range tt.want[i] {
					if math.Abs(float64(got[i][j]-tt.want[i][j])) > 1e-7 {
						t.Fatalf("vector %d = %v, want %v", i, got[i], tt.want[i])
					}
				}
				if n := l2Norm(got[i]); math.Abs(n-1) > 1e-6 {
					t.Errorf("vector %d has length %v", i, n)
				}
			}
		})
	}
}

func TestCheckedKeepsUnitVectorsAndInput(t *testing.T) {
	h := newHash(t, HashOptions{Dimensions: 64})
	texts := []string{"fungicida para videira", "herbicida", "2,4-D"}
	want, err := h.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Checked(h).Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("unit vector %d changed: not bit for bit the embedder's", i)
		}
	}

	raw := []float32{3, 4}
	inner := &fixedEmbedder{dims: 2, vecs: [][]float32{raw}}
	if _, err := Checked(inner).Embed(context.Background(), []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if raw[0] != 3 || raw[1] != 4 {
		t.Errorf("the embedder's slice was modified: %v", raw)
	}
}

func TestCheckedEdges(t *testing.T) {
	ctx := context.Background()
	if _, err := Checked(nil).Embed(ctx, []string{"a"}); !errors.Is(err, ErrNilEmbedder) {
		t.Errorf("nil embedder: err = %v", err)
	}
	if d := Checked(nil).Dimensions(); d != 0 {
		t.Errorf("nil embedder: Dimensions = %d", d)
	}
	inner := &fixedEmbedder{dims: 2}
	got, err := Checked(inner).Embed(ctx, nil)
	if err != nil || got == nil || len(got) != 0 || inner.calls != 0 {
		t.Errorf("empty batch: %v, %v after %d calls; want an empty result and no call", got, err, inner.calls)
	}
	c := Checked(newHash(t, HashOptions{Dimensions: 16}))
	if c.Dimensions() != 16 {
		t.Errorf("Dimensions = %d", c.Dimensions())
	}
	if th, ok := SuggestThreshold(c); !ok || th != hashSuggestedThreshold {
		t.Errorf("SuggestThreshold through Checked = %v, %v", th, ok)
	}
}

func TestErrorTexts(t *testing.T) {
	err := CheckBatch([][]float32{{1, 0}, {1}}, 2, 2)
	if got, want := err.Error(), "vector: vector of text 1: length 1, want 2: vector: dimension mismatch"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	err = CheckBatch(nil, 3, 2)
	if got, want := err.Error(), "vector: embedder returned 0 vectors for 3 texts"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
