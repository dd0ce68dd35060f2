package vector

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func refDot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestDotMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 41 {
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = r.Float32()*2-1, r.Float32()*2-1
		}
		got, err := Dot(a, b)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if want := refDot(a, b); math.Abs(float64(got)-want) > 1e-5 {
			t.Errorf("n=%d: Dot = %v, want %v", n, got, want)
		}
	}
}

func TestDot(t *testing.T) {
	tests := []struct {
		name    string
		a, b    []float32
		want    float32
		wantErr error
	}{
		{name: "empty", a: nil, b: []float32{}, want: 0},
		{name: "orthogonal", a: []float32{1, 0}, b: []float32{0, 1}, want: 0},
		{name: "worked nine elements", a: []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}, b: []float32{1, 1, 1, 1, 1, 1, 1, 1, 2}, want: 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 18},
		{name: "length mismatch", a: []float32{1}, b: []float32{1, 2}, wantErr: ErrDimensionMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Dot(tt.a, tt.b)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("Dot = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCosine(t *testing.T) {
	tests := []struct {
		name    string
		a, b    []float32
		want    float64
		wantErr error
	}{
		{name: "same direction", a: []float32{1, 2, 2}, b: []float32{2, 4, 4}, want: 1},
		{name: "opposite", a: []float32{1, 0}, b: []float32{-3, 0}, want: -1},
		{name: "45 degrees", a: []float32{1, 0}, b: []float32{1, 1}, want: 1 / math.Sqrt2},
		{name: "zero vector", a: []float32{0, 0}, b: []float32{1, 1}, wantErr: ErrZeroVector},
		{name: "length mismatch", a: []float32{1}, b: []float32{1, 2}, wantErr: ErrDimensionMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cosine(tt.a, tt.b)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if math.Abs(got-tt.want) > 1e-6 {
				t.Errorf("Cosine = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNormalizeVector(t *testing.T) {
	t.Run("in place", func(t *testing.T) {
		v := []float32{3, 4}
		got, err := normalize(v)
		if err != nil {
			t.Fatal(err)
		}
		if &got[0] != &v[0] || v[0] != 0.6 || v[1] != 0.8 {
			t.Errorf("Normalize = %v (v = %v), want [0.6 0.8] in place", got, v)
		}
	})
	t.Run("copy leaves input", func(t *testing.T) {
		v := []float32{3, 4}
		got, err := normalized(v)
		if err != nil {
			t.Fatal(err)
		}
		if v[0] != 3 || v[1] != 4 {
			t.Errorf("input changed to %v", v)
		}
		if math.Abs(l2Norm(got)-1) > 1e-6 {
			t.Errorf("norm = %v, want 1", l2Norm(got))
		}
	})
	for _, tt := range []struct {
		name string
		v    []float32
		want error
	}{
		{"zero", []float32{0, 0, 0}, ErrZeroVector},
		{"empty", nil, ErrZeroVector},
		{"NaN", []float32{1, float32(math.NaN())}, ErrNotFinite},
		{"Inf", []float32{float32(math.Inf(-1)), 1}, ErrNotFinite},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := normalize(tt.v); !errors.Is(err, tt.want) {
				t.Errorf("Normalize err = %v, want %v", err, tt.want)
			}
			if got, err := normalized(tt.v); !errors.Is(err, tt.want) || got != nil {
				t.Errorf("Normalized = %v, %v; want nil, %v", got, err, tt.want)
			}
		})
	}
}
