package rag_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/vector"
)

// blockingEmbedder ignores its context: every call blocks until release is
// closed, then returns one unit vector per text.
type blockingEmbedder struct {
	release chan struct{}
	calls   atomic.Int64
}

func (e *blockingEmbedder) Dimensions() int { return ragtest.Dims }

func (e *blockingEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.calls.Add(1)
	<-e.release
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = make([]float32, ragtest.Dims)
		out[i][0] = 1
	}
	return out, nil
}

var _ vector.Embedder = (*blockingEmbedder)(nil)

// blockedInEmbed counts the goroutines whose stack is in
// blockingEmbedder.Embed.
func blockedInEmbed() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return strings.Count(string(buf[:n]), "(*blockingEmbedder).Embed(")
		}
		buf = make([]byte, 2*len(buf))
	}
}

// waitBlocked waits up to 5 s for blockedInEmbed to drop to at most n and
// returns the last count.
func waitBlocked(n int) int {
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := blockedInEmbed()
		if got <= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSearcherStalledEmbedder: an embedder that ignores its context and
// does not return leaves at most DefaultMaxStalledEmbeds goroutines behind, not
// one per search; once that many are stalled, searches skip the embedder
// at once (lexical results, FallbackEmbeddingFailed, an error wrapping context.DeadlineExceeded),
// and when the embedder returns the goroutines exit and searches embed
// again (issue 16).
func TestSearcherStalledEmbedder(t *testing.T) {
	store, _ := ragtest.Fixture(t)
	emb := &blockingEmbedder{release: make(chan struct{})}
	released := false
	release := func() {
		if !released {
			released = true
			close(emb.release)
		}
	}
	t.Cleanup(release)
	const (
		maxStalled = rag.DefaultMaxStalledEmbeds
		searches   = 40
		timeout    = 50 * time.Millisecond
	)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{Vector: rag.VectorOptions{EmbedTimeout: timeout}})
	ctx := context.Background()
	q := rag.Query{Text: "fungicida para videira", Limit: 5}

	for i := range searches {
		res, err := s.SearchCatalog(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if res.FallbackReason != rag.FallbackEmbeddingFailed || res.EmbeddingUsed || res.VectorError == nil {
			t.Fatalf("search %d: fallback %q (used %v, error %v), want %q", i, res.FallbackReason, res.EmbeddingUsed, res.VectorError, rag.FallbackEmbeddingFailed)
		}
		// Past the limit the search does not call the embedder, so it
		// does not wait for it either (timings are too noisy to check).
		if stalled := res.VectorError != nil && errors.Is(res.VectorError, context.DeadlineExceeded) && strings.Contains(res.VectorError.Error(), "stalled"); stalled != (i >= maxStalled) {
			t.Errorf("search %d: VectorError %v, want a stalled-embedder error: %v", i, res.VectorError, i >= maxStalled)
		}
	}
	if n := emb.calls.Load(); n != maxStalled {
		t.Errorf("%d embedder calls for %d searches, want %d", n, searches, maxStalled)
	}
	if n := blockedInEmbed(); n != maxStalled {
		t.Errorf("%d goroutines blocked in the embedder after %d searches, want %d", n, searches, maxStalled)
	}

	release()
	if n := waitBlocked(0); n != 0 {
		t.Errorf("%d goroutines still in the embedder once it returned, want 0", n)
	}
	res, err := s.SearchCatalog(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if !res.EmbeddingUsed || res.FallbackReason != "" {
		t.Errorf("after the embedder returned: used %v, fallback %q (%v); want the vector leg back", res.EmbeddingUsed, res.FallbackReason, res.VectorError)
	}
}
