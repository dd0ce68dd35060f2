package vector_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hybridrag/hybridrag/vector"
)

func ExampleChecked() {
	// A model that returns vectors of length 5, and once a wrong-sized one.
	raw := vector.EmbedderFunc{Dims: 2, Fn: func(_ context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i, t := range texts {
			out[i] = []float32{3, 4}
			if t == "broken" {
				out[i] = []float32{3, 4, 0}
			}
		}
		return out, nil
	}}
	e := vector.Checked(raw)
	vecs, err := e.Embed(context.Background(), []string{"uva"})
	fmt.Println(vecs, err)

	_, err = e.Embed(context.Background(), []string{"uva", "broken"})
	var ve *vector.VectorError
	if errors.As(err, &ve) {
		fmt.Println("text", ve.Index, errors.Is(err, vector.ErrDimensionMismatch))
	}
	// Output:
	// [[0.6 0.8]] <nil>
	// text 1 true
}

// rateLimited is how an adapter's error opts in to retries.
type rateLimited struct{ after time.Duration }

func (e rateLimited) Error() string             { return "429 too many requests" }
func (e rateLimited) Transient() bool           { return true }
func (e rateLimited) RetryDelay() time.Duration { return e.after }

func ExampleWithRetry() {
	calls := 0
	flaky := vector.EmbedderFunc{Dims: 1, Fn: func(_ context.Context, texts []string) ([][]float32, error) {
		if calls++; calls < 3 {
			return nil, rateLimited{after: time.Millisecond}
		}
		return [][]float32{{1}}, nil
	}}
	e := vector.WithRetry(flaky, vector.RetryPolicy{Attempts: 5, Base: time.Millisecond, Max: 10 * time.Millisecond})
	vecs, err := e.Embed(context.Background(), []string{"uva"})
	fmt.Println(vecs, err, calls) // two retries

	retry, after := vector.IsRetryable(fmt.Errorf("embed: %w", rateLimited{after: 2 * time.Second}))
	fmt.Println(retry, after)
	// Output:
	// [[1]] <nil> 3
	// true 2s
}
