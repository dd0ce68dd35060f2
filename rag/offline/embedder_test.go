package offline_test

import (
	"context"
	"math"
	"testing"

	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/vector"
)

func TestNewEmbedder(t *testing.T) {
	e := offline.NewEmbedder()
	if e == nil || e.Dimensions() != vector.DefaultDimensions {
		t.Fatalf("NewEmbedder() = %v, want a hash embedder of %d dimensions", e, vector.DefaultDimensions)
	}
	vs, err := e.Embed(context.Background(), []string{"fungicida para videira", "fungicidas para videiras", "adubo para soja"})
	if err != nil {
		t.Fatal(err)
	}
	dot := func(a, b []float32) float32 {
		d, err := vector.Dot(a, b)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for i, v := range vs {
		if n := dot(v, v); math.Abs(float64(n)-1) > 1e-5 {
			t.Errorf("vector %d has squared norm %v, want 1", i, n)
		}
	}
	if near, far := dot(vs[0], vs[1]), dot(vs[0], vs[2]); near <= far {
		t.Errorf("plural spelling %.3f not closer than another topic %.3f", near, far)
	}
	again, _ := offline.NewEmbedder().Embed(context.Background(), []string{"fungicida para videira"})
	if dot(again[0], vs[0]) < 0.9999 {
		t.Error("a second embedder embeds the same text differently")
	}
}
