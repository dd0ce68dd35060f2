package cache_test

import (
	"context"
	"fmt"

	"github.com/hybridrag/hybridrag/vector"
	"github.com/hybridrag/hybridrag/vector/cache"
)

func ExampleNew() {
	calls := 0
	slow := vector.EmbedderFunc{Dims: 2, Fn: func(_ context.Context, texts []string) ([][]float32, error) {
		calls++
		out := make([][]float32, len(texts))
		for i := range texts {
			out[i] = []float32{1, 0}
		}
		return out, nil
	}}
	c := cache.New(slow, cache.Options{Model: "demo"})
	ctx := context.Background()
	_, _ = c.Embed(ctx, []string{"uva", "soja"})
	_, _ = c.Embed(ctx, []string{"soja", "milho", "uva"}) // only "milho" is embedded
	s := c.Stats()
	fmt.Printf("calls=%d hits=%d misses=%d entries=%d hit rate=%.2f\n", calls, s.Hits, s.Misses, s.Entries, s.HitRate())
	// Output:
	// calls=2 hits=2 misses=3 entries=3 hit rate=0.40
}
