package vector_test

import (
	"testing"

	"github.com/hybridrag/hybridrag/vector"
)

func TestSuggestThresholdThroughCache(t *testing.T) {
	h, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 16})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := vector.SuggestThreshold(vector.NewCached(h, vector.CacheOptions{})); !ok || got != vector.HashSuggestedThreshold {
		t.Errorf("through Cached: %v %v, want %v", got, ok, vector.HashSuggestedThreshold)
	}
	plain := vector.EmbedderFunc{Dims: 4}
	if _, ok := vector.SuggestThreshold(vector.NewCached(plain, vector.CacheOptions{})); ok {
		t.Error("an embedder without a suggestion suggested one")
	}
}
