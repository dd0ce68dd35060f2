package vector

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// countingEmbedder records every batch it is asked to embed. Vector i of
// text t is [len(t), first byte of t, 1, 0...] so outputs are checkable.
type countingEmbedder struct {
	dims    int
	mu      sync.Mutex
	batches [][]string
	err     error
	gate    chan struct{} // when not nil, Embed waits for it
	calls   atomic.Int64
	mangle  func([][]float32) [][]float32
}

func (f *countingEmbedder) Dimensions() int { return f.dims }

func (f *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.calls.Add(1)
	f.mu.Lock()
	f.batches = append(f.batches, slices.Clone(texts))
	err := f.err
	f.mu.Unlock()
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, f.dims)
		v[0] = float32(len(t))
		if t != "" {
			v[1] = float32(t[0])
		}
		out[i] = v
	}
	if f.mangle != nil {
		out = f.mangle(out)
	}
	return out, nil
}

func (f *countingEmbedder) Batches() [][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.batches)
}

func TestCachedBatchesOnlyMisses(t *testing.T) {
	inner := &countingEmbedder{dims: 4}
	c := NewCached(inner, CacheOptions{Model: "m"})
	ctx := context.Background()

	first, err := c.Embed(ctx, []string{"uva", "soja", "uva"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Embed(ctx, []string{"milho", "soja", "cafe", "uva"})
	if err != nil {
		t.Fatal(err)
	}
	wantBatches := [][]string{{"uva", "soja"}, {"milho", "cafe"}}
	if got := inner.Batches(); !slicesEqual2(got, wantBatches) {
		t.Errorf("batches = %q, want %q", got, wantBatches)
	}
	for i, text := range []string{"milho", "soja", "cafe", "uva"} {
		if second[i][0] != float32(len(text)) || second[i][1] != float32(text[0]) {
			t.Errorf("vector %d = %v, not the one of %q", i, second[i], text)
		}
	}
	if !slices.Equal(first[0], first[2]) {
		t.Error("duplicate texts got different vectors")
	}
	// 3 texts then 4: misses uva, soja, milho, cafe; hits uva (dup), soja, uva.
	want := CacheStats{Hits: 3, Misses: 4, Entries: 4}
	if got := c.Stats(); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
	if r := c.Stats().HitRate(); math.Abs(r-3.0/7) > 1e-12 {
		t.Errorf("HitRate = %v, want 3/7", r)
	}
}

func slicesEqual2(a, b [][]string) bool {
	return slices.EqualFunc(a, b, func(x, y []string) bool { return slices.Equal(x, y) })
}

func TestCachedReturnsCopies(t *testing.T) {
	c := NewCached(&countingEmbedder{dims: 2}, CacheOptions{})
	ctx := context.Background()
	a, _ := c.Embed(ctx, []string{"x"})
	a[0][0] = 99
	b, _ := c.Embed(ctx, []string{"x"})
	if b[0][0] != 1 {
		t.Errorf("cached vector was modified through a returned slice: %v", b[0])
	}
}

func TestCachedKeyIncludesModelAndDimensions(t *testing.T) {
	e := newHash(t, HashOptions{Dimensions: 8})
	c := NewCached(e, CacheOptions{})
	if c.Model() != e.Model() {
		t.Errorf("Model = %q, want the wrapped embedder's %q", c.Model(), e.Model())
	}
	k1 := c.key("uva")
	k2 := NewCached(e, CacheOptions{Model: "other"}).key("uva")
	k3 := NewCached(newHash(t, HashOptions{Dimensions: 16}), CacheOptions{}).key("uva")
	if k1 == k2 || k1 == k3 || k2 == k3 {
		t.Error("keys of different models or dimensions collide")
	}
	if k1 != c.key("uva") || k1 == c.key("uva ") {
		t.Error("key is not a function of the exact text")
	}
}

func TestCachedErrors(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")
	tests := []struct {
		name    string
		inner   Embedder
		wantErr error
	}{
		{name: "nil embedder", inner: nil, wantErr: ErrNilEmbedder},
		{name: "inner error", inner: &countingEmbedder{dims: 2, err: boom}, wantErr: boom},
		{name: "too few vectors", inner: &countingEmbedder{dims: 2, mangle: func(v [][]float32) [][]float32 { return v[:1] }}, wantErr: ErrBatchSize},
		{name: "wrong dimension", inner: &countingEmbedder{dims: 2, mangle: func(v [][]float32) [][]float32 { v[1] = v[1][:1]; return v }}, wantErr: ErrDimensionMismatch},
		{name: "NaN", inner: &countingEmbedder{dims: 2, mangle: func(v [][]float32) [][]float32 { v[0][1] = float32(math.NaN()); return v }}, wantErr: ErrNotFinite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCached(tt.inner, CacheOptions{})
			got, err := c.Embed(ctx, []string{"a", "b"})
			if !errors.Is(err, tt.wantErr) || got != nil {
				t.Fatalf("Embed = %v, %v; want nil, %v", got, err, tt.wantErr)
			}
			if s := c.Stats(); s.Entries != 0 || s.Hits != 0 || s.Misses != 0 {
				t.Errorf("failed call changed the cache: %+v", s)
			}
		})
	}
	t.Run("cancelled context", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		c := NewCached(&countingEmbedder{dims: 2}, CacheOptions{})
		if _, err := c.Embed(cctx, []string{"a"}); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("empty batch", func(t *testing.T) {
		inner := &countingEmbedder{dims: 2}
		got, err := NewCached(inner, CacheOptions{}).Embed(ctx, nil)
		if err != nil || len(got) != 0 || inner.calls.Load() != 0 {
			t.Errorf("Embed(nil) = %v, %v after %d calls", got, err, inner.calls.Load())
		}
	})
}

func TestCachedEviction(t *testing.T) {
	ctx := context.Background()
	t.Run("LRU bound", func(t *testing.T) {
		inner := &countingEmbedder{dims: 2}
		c := NewCached(inner, CacheOptions{MaxEntries: 2})
		for _, s := range []string{"a", "b", "a", "c"} { // "b" is least recently used when "c" arrives
			if _, err := c.Embed(ctx, []string{s}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.Embed(ctx, []string{"a"}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Embed(ctx, []string{"b"}); err != nil {
			t.Fatal(err)
		}
		want := [][]string{{"a"}, {"b"}, {"c"}, {"b"}}
		if got := inner.Batches(); !slicesEqual2(got, want) {
			t.Errorf("batches = %q, want %q", got, want)
		}
		if s := c.Stats(); s.Entries != 2 || s.Evictions != 2 {
			t.Errorf("Stats = %+v, want 2 entries and 2 evictions", s)
		}
	})
	t.Run("TTL", func(t *testing.T) {
		inner := &countingEmbedder{dims: 2}
		c := NewCached(inner, CacheOptions{TTL: 20 * time.Millisecond})
		if _, err := c.Embed(ctx, []string{"a"}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(40 * time.Millisecond)
		if _, err := c.Embed(ctx, []string{"a"}); err != nil {
			t.Fatal(err)
		}
		if n := inner.calls.Load(); n != 2 {
			t.Errorf("wrapped embedder called %d times, want 2 (entry expired)", n)
		}
	})
	t.Run("purge", func(t *testing.T) {
		c := NewCached(&countingEmbedder{dims: 2}, CacheOptions{TTL: -1, MaxEntries: -1})
		if _, err := c.Embed(ctx, []string{"a", "b", "c"}); err != nil {
			t.Fatal(err)
		}
		c.Purge()
		if s := c.Stats(); s.Entries != 0 || s.Misses != 3 {
			t.Errorf("after Purge: %+v", s)
		}
	})
}

func TestCachedSingleflight(t *testing.T) {
	inner := &countingEmbedder{dims: 2, gate: make(chan struct{})}
	c := NewCached(inner, CacheOptions{})
	ctx := context.Background()
	const callers = 8
	var wg sync.WaitGroup
	results := make([][][]float32, callers)
	errs := make([]error, callers)
	for i := range callers {
		wg.Go(func() { results[i], errs[i] = c.Embed(ctx, []string{"uva"}) })
	}
	// Wait until the first caller is inside the wrapped embedder and every
	// other caller has either joined its flight or not started yet.
	for inner.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	close(inner.gate)
	wg.Wait()
	for i := range callers {
		if errs[i] != nil || results[i][0][0] != 3 {
			t.Fatalf("caller %d: %v, %v", i, results[i], errs[i])
		}
	}
	if n := inner.calls.Load(); n != 1 {
		t.Errorf("wrapped embedder called %d times, want 1", n)
	}
	if s := c.Stats(); s.Hits != callers-1 || s.Misses != 1 {
		t.Errorf("Stats = %+v, want %d hits and 1 miss", s, callers-1)
	}
}

func TestCachedWaiterRetriesAfterLeaderFails(t *testing.T) {
	// The leader's context is cancelled while it waits in the wrapped
	// embedder; the follower, whose context is fine, embeds by itself.
	inner := &countingEmbedder{dims: 2, gate: make(chan struct{})}
	c := NewCached(inner, CacheOptions{})
	leaderCtx, cancel := context.WithCancel(context.Background())
	leaderErr := make(chan error, 1)
	go func() {
		_, err := c.Embed(leaderCtx, []string{"uva"})
		leaderErr <- err
	}()
	for inner.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	followerDone := make(chan error, 1)
	var follower [][]float32
	go func() {
		var err error
		follower, err = c.Embed(context.Background(), []string{"uva"})
		followerDone <- err
	}()
	time.Sleep(20 * time.Millisecond) // let the follower join the flight
	cancel()
	if err := <-leaderErr; !errors.Is(err, context.Canceled) {
		t.Fatalf("leader err = %v", err)
	}
	close(inner.gate)
	if err := <-followerDone; err != nil {
		t.Fatalf("follower err = %v", err)
	}
	if follower[0][0] != 3 {
		t.Errorf("follower vector = %v", follower[0])
	}
}

func TestCachedConcurrentMixedBatches(t *testing.T) {
	c := NewCached(newHash(t, HashOptions{Dimensions: 32}), CacheOptions{MaxEntries: 16})
	ref := newHash(t, HashOptions{Dimensions: 32})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				texts := []string{fmt.Sprint("t", i%20), fmt.Sprint("t", (i+g)%30), "fixo"}
				got, err := c.Embed(context.Background(), texts)
				if err != nil {
					t.Error(err)
					return
				}
				for j, text := range texts {
					if !slices.Equal(got[j], ref.EmbedText(text)) {
						t.Errorf("vector of %q is wrong", text)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if s := c.Stats(); s.Hits+s.Misses != 8*50*3 {
		t.Errorf("hits+misses = %d, want %d", s.Hits+s.Misses, 8*50*3)
	}
}

func BenchmarkCachedHit(b *testing.B) {
	c := NewCached(newHash(b, HashOptions{}), CacheOptions{})
	ctx := context.Background()
	q := []string{"fungicida para videira"}
	if _, err := c.Embed(ctx, q); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := c.Embed(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}

func TestCachedWaiterSurvivesLeaderPanic(t *testing.T) {
	gate := make(chan struct{})
	var calls atomic.Int64
	inner := EmbedderFunc{Dims: 1, Fn: func(ctx context.Context, texts []string) ([][]float32, error) {
		if calls.Add(1) == 1 {
			<-gate
			panic("embedder bug")
		}
		return [][]float32{{7}}, nil
	}}
	c := NewCached(inner, CacheOptions{})
	leaderPanicked := make(chan any, 1)
	go func() {
		defer func() { leaderPanicked <- recover() }()
		_, _ = c.Embed(context.Background(), []string{"uva"})
	}()
	for calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	followerDone := make(chan error, 1)
	var follower [][]float32
	go func() {
		var err error
		follower, err = c.Embed(context.Background(), []string{"uva"})
		followerDone <- err
	}()
	time.Sleep(20 * time.Millisecond)
	close(gate)
	if p := <-leaderPanicked; p == nil {
		t.Error("the leader's panic was swallowed")
	}
	select {
	case err := <-followerDone:
		if err != nil || follower[0][0] != 7 {
			t.Errorf("follower = %v, %v", follower, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("follower hangs after the leader panicked")
	}
}
