package rag

import (
	"math"
	"testing"
)

func TestMean(t *testing.T) {
	if !math.IsNaN(mean(nil)) {
		t.Error("mean(nil) is not NaN")
	}
	if m := mean([]float64{1, 2, 6}); m != 3 {
		t.Errorf("mean = %v", m)
	}
}
