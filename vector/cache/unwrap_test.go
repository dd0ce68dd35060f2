package cache_test

import (
	"testing"

	"github.com/hybridrag/hybridrag/vector"
	"github.com/hybridrag/hybridrag/vector/cache"
)

func TestSuggestThresholdThroughCache(t *testing.T) {
	h, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 16})
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := vector.SuggestThreshold(cache.New(h, cache.Options{})); !ok || got != h.SuggestedThreshold() {
		t.Errorf("through cache.Embedder: %v %v, want %v", got, ok, h.SuggestedThreshold())
	}
	plain := vector.EmbedderFunc{Dims: 4}
	if _, ok := vector.SuggestThreshold(cache.New(plain, cache.Options{})); ok {
		t.Error("an embedder without a suggestion suggested one")
	}
}
