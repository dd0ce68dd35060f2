package cache

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hybridrag/hybridrag/vector"
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

func newHash(t testing.TB, opts vector.HashOptions) *vector.HashEmbedder {
	t.Helper()
	e, err := vector.NewHashEmbedder(opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func mustEmbed(t *testing.T, c *Embedder, texts ...string) [][]float32 {
	t.Helper()
	v, err := c.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestBatchesOnlyMisses(t *testing.T) {
	inner := &countingEmbedder{dims: 4}
	c := New(inner, Options{Model: "m"})

	first := mustEmbed(t, c, "uva", "soja", "uva")
	second := mustEmbed(t, c, "milho", "soja", "cafe", "uva")
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
	want := Stats{Hits: 3, Misses: 4, Entries: 4}
	got := c.Stats()
	got.OldestAge, got.NewestAge = 0, 0 // TestStatsAges checks them
	if got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
	if r := c.Stats().HitRate(); math.Abs(r-3.0/7) > 1e-12 {
		t.Errorf("HitRate = %v, want 3/7", r)
	}
	if r := (Stats{}).HitRate(); r != 0 {
		t.Errorf("HitRate before any lookup = %v, want 0", r)
	}
}

func slicesEqual2(a, b [][]string) bool {
	return slices.EqualFunc(a, b, func(x, y []string) bool { return slices.Equal(x, y) })
}

func TestReturnsCopies(t *testing.T) {
	c := New(&countingEmbedder{dims: 2}, Options{})
	a := mustEmbed(t, c, "x")
	a[0][0] = 99
	if b := mustEmbed(t, c, "x"); b[0][0] != 1 {
		t.Errorf("cached vector was modified through a returned slice: %v", b[0])
	}
}

func TestKeyIncludesModelAndDimensions(t *testing.T) {
	e := newHash(t, vector.HashOptions{Dimensions: 8})
	c := New(e, Options{})
	if c.Model() != e.Model() {
		t.Errorf("Model = %q, want the wrapped embedder's %q", c.Model(), e.Model())
	}
	if got := New(vector.Checked(e), Options{}).Model(); got != e.Model() {
		t.Errorf("Model through a wrapper = %q, want %q", got, e.Model())
	}
	k1 := c.key("uva")
	k2 := New(e, Options{Model: "other"}).key("uva")
	k3 := New(newHash(t, vector.HashOptions{Dimensions: 16}), Options{}).key("uva")
	if k1 == k2 || k1 == k3 || k2 == k3 {
		t.Error("keys of different models or dimensions collide")
	}
	if k1 != c.key("uva") || k1 == c.key("uva ") {
		t.Error("key is not a function of the exact text")
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")
	tests := []struct {
		name    string
		inner   vector.Embedder
		wantErr error
	}{
		{name: "nil embedder", inner: nil, wantErr: vector.ErrNilEmbedder},
		{name: "inner error", inner: &countingEmbedder{dims: 2, err: boom}, wantErr: boom},
		{name: "too few vectors", inner: &countingEmbedder{dims: 2, mangle: func(v [][]float32) [][]float32 { return v[:1] }}, wantErr: vector.ErrBatchSize},
		{name: "wrong dimension", inner: &countingEmbedder{dims: 2, mangle: func(v [][]float32) [][]float32 { v[1] = v[1][:1]; return v }}, wantErr: vector.ErrDimensionMismatch},
		{name: "empty vector", inner: &countingEmbedder{dims: 2, mangle: func(v [][]float32) [][]float32 { v[1] = nil; return v }}, wantErr: vector.ErrEmptyVector},
		{name: "NaN", inner: &countingEmbedder{dims: 2, mangle: func(v [][]float32) [][]float32 { v[0][1] = float32(math.NaN()); return v }}, wantErr: vector.ErrNotFinite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(tt.inner, Options{})
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
		c := New(&countingEmbedder{dims: 2}, Options{})
		if _, err := c.Embed(cctx, []string{"a"}); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("empty batch", func(t *testing.T) {
		inner := &countingEmbedder{dims: 2}
		got, err := New(inner, Options{}).Embed(ctx, nil)
		if err != nil || len(got) != 0 || inner.calls.Load() != 0 {
			t.Errorf("Embed(nil) = %v, %v after %d calls", got, err, inner.calls.Load())
		}
	})
}

func TestLRUBound(t *testing.T) {
	inner := &countingEmbedder{dims: 2}
	c := New(inner, Options{MaxEntries: 2})
	for _, s := range []string{"a", "b", "a", "c"} { // "b" is least recently used when "c" arrives
		mustEmbed(t, c, s)
	}
	mustEmbed(t, c, "a")
	mustEmbed(t, c, "b")
	want := [][]string{{"a"}, {"b"}, {"c"}, {"b"}}
	if got := inner.Batches(); !slicesEqual2(got, want) {
		t.Errorf("batches = %q, want %q", got, want)
	}
	if s := c.Stats(); s.Entries != 2 || s.Evictions != 2 {
		t.Errorf("Stats = %+v, want 2 entries and 2 evictions", s)
	}
}

func TestPurge(t *testing.T) {
	c := New(&countingEmbedder{dims: 2}, Options{TTL: -1, MaxEntries: -1})
	mustEmbed(t, c, "a", "b", "c")
	c.Purge()
	if s := c.Stats(); s.Entries != 0 || s.Misses != 3 || s.Evictions != 3 {
		t.Errorf("after Purge: %+v", s)
	}
}

// TestTTL runs on synctest's fake clock: time.Sleep advances it at once.
func TestTTL(t *testing.T) {
	tests := []struct {
		name      string
		ttl       time.Duration
		after     time.Duration
		wantCalls int64
	}{
		{name: "fresh", ttl: time.Minute, after: time.Minute - time.Nanosecond, wantCalls: 1},
		{name: "expired at TTL", ttl: time.Minute, after: time.Minute, wantCalls: 2},
		{name: "expired later", ttl: time.Minute, after: time.Hour, wantCalls: 2},
		{name: "default 24h fresh", ttl: 0, after: 23 * time.Hour, wantCalls: 1},
		{name: "default 24h expired", ttl: 0, after: 24 * time.Hour, wantCalls: 2},
		{name: "never expires", ttl: -1, after: 10_000 * time.Hour, wantCalls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				inner := &countingEmbedder{dims: 2}
				c := New(inner, Options{TTL: tt.ttl})
				mustEmbed(t, c, "a")
				time.Sleep(tt.after)
				if v := mustEmbed(t, c, "a"); v[0][0] != 1 {
					t.Errorf("vector = %v", v[0])
				}
				if n := inner.calls.Load(); n != tt.wantCalls {
					t.Errorf("wrapped embedder called %d times, want %d", n, tt.wantCalls)
				}
				s := c.Stats()
				wantEvictions := uint64(tt.wantCalls - 1) // the expired entry, removed on read
				if s.Entries != 1 || s.Evictions != wantEvictions || s.Misses != uint64(tt.wantCalls) {
					t.Errorf("Stats = %+v, want 1 entry, %d evictions, %d misses", s, wantEvictions, tt.wantCalls)
				}
			})
		})
	}
}

// TestTTLRestartsOnRefill checks that an entry stored again after it
// expired lives a full TTL from then, and that expired entries stay
// counted until a lookup finds them.
func TestTTLRestartsOnRefill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inner := &countingEmbedder{dims: 2}
		c := New(inner, Options{TTL: time.Minute})
		mustEmbed(t, c, "a", "b")
		time.Sleep(2 * time.Minute)
		if s := c.Stats(); s.Entries != 2 || s.Evictions != 0 {
			t.Errorf("before any lookup: %+v, want 2 entries held", s)
		}
		mustEmbed(t, c, "a") // expired: embedded again, stored at t=2m
		time.Sleep(59 * time.Second)
		mustEmbed(t, c, "a") // fresh
		if n := inner.calls.Load(); n != 2 {
			t.Errorf("wrapped embedder called %d times, want 2", n)
		}
		if s := c.Stats(); s.Entries != 2 || s.Evictions != 1 {
			t.Errorf("Stats = %+v, want 2 entries (b expired but unread) and 1 eviction", s)
		}
	})
}

// TestStatsAges runs on synctest's fake clock: the ages of the oldest and
// newest entries follow the clock, a refill after expiry is new again, and
// an empty cache has none.
func TestStatsAges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := New(&countingEmbedder{dims: 2}, Options{TTL: time.Hour})
		if s := c.Stats(); s.OldestAge != 0 || s.NewestAge != 0 {
			t.Errorf("empty: %+v", s)
		}
		mustEmbed(t, c, "a")
		time.Sleep(10 * time.Minute)
		mustEmbed(t, c, "b", "a") // a is a hit: its age goes on
		time.Sleep(time.Minute)
		if s := c.Stats(); s.OldestAge != 11*time.Minute || s.NewestAge != time.Minute {
			t.Errorf("ages %v / %v, want 11m / 1m", s.OldestAge, s.NewestAge)
		}
		time.Sleep(time.Hour)
		mustEmbed(t, c, "a") // expired: stored again now
		if s := c.Stats(); s.Entries != 2 || s.OldestAge != time.Hour+time.Minute || s.NewestAge != 0 {
			t.Errorf("after the refill: %+v, want b 1h1m old, a new", s)
		}
		c.Purge()
		if s := c.Stats(); s.OldestAge != 0 || s.NewestAge != 0 {
			t.Errorf("after Purge: %+v", s)
		}
	})
}

// TestNoGoroutines checks that caches start no goroutine: the expirable
// LRU used before started one per cache that never exited.
func TestNoGoroutines(t *testing.T) {
	const n = 1000
	before := runtime.NumGoroutine()
	caches := make([]*Embedder, n)
	for i := range caches {
		caches[i] = New(&countingEmbedder{dims: 2}, Options{TTL: time.Duration(i+1) * time.Millisecond})
		mustEmbed(t, caches[i], "a", fmt.Sprint(i))
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines before creating %d caches, %d after", before, n, after)
	}
	runtime.KeepAlive(caches)

	// synctest.Test fails ("main bubble goroutine has exited but blocked
	// goroutines remain") when a goroutine started in the bubble outlives
	// its function, as the expirable LRU's ticker goroutine did.
	synctest.Test(t, func(t *testing.T) {
		for i := range 100 {
			c := New(&countingEmbedder{dims: 2}, Options{TTL: time.Second})
			mustEmbed(t, c, fmt.Sprint(i))
		}
	})
}

func TestSingleflight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inner := &countingEmbedder{dims: 2, gate: make(chan struct{})}
		c := New(inner, Options{})
		ctx := context.Background()
		const callers = 8
		var wg sync.WaitGroup
		results := make([][][]float32, callers)
		errs := make([]error, callers)
		for i := range callers {
			wg.Go(func() { results[i], errs[i] = c.Embed(ctx, []string{"uva"}) })
		}
		// Every caller is now in the wrapped embedder or waiting for the
		// one that is.
		synctest.Wait()
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
	})
}

func TestWaiterRetriesAfterLeaderFails(t *testing.T) {
	// The leader's context is cancelled while it waits in the wrapped
	// embedder; the follower, whose context is fine, embeds by itself.
	synctest.Test(t, func(t *testing.T) {
		inner := &countingEmbedder{dims: 2, gate: make(chan struct{})}
		c := New(inner, Options{})
		leaderCtx, cancel := context.WithCancel(context.Background())
		leaderErr := make(chan error, 1)
		go func() {
			_, err := c.Embed(leaderCtx, []string{"uva"})
			leaderErr <- err
		}()
		synctest.Wait() // the leader is in the wrapped embedder
		followerDone := make(chan error, 1)
		var follower [][]float32
		go func() {
			var err error
			follower, err = c.Embed(context.Background(), []string{"uva"})
			followerDone <- err
		}()
		synctest.Wait() // the follower has joined the flight
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
		if n := inner.calls.Load(); n != 2 {
			t.Errorf("wrapped embedder called %d times, want 2", n)
		}
	})
}

func TestWaiterSurvivesLeaderPanic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		var calls atomic.Int64
		inner := vector.EmbedderFunc{Dims: 1, Fn: func(ctx context.Context, texts []string) ([][]float32, error) {
			if calls.Add(1) == 1 {
				<-gate
				panic("embedder bug")
			}
			return [][]float32{{7}}, nil
		}}
		c := New(inner, Options{})
		leaderPanicked := make(chan any, 1)
		go func() {
			defer func() { leaderPanicked <- recover() }()
			_, _ = c.Embed(context.Background(), []string{"uva"})
		}()
		synctest.Wait()
		followerDone := make(chan error, 1)
		var follower [][]float32
		go func() {
			var err error
			follower, err = c.Embed(context.Background(), []string{"uva"})
			followerDone <- err
		}()
		synctest.Wait()
		close(gate)
		if p := <-leaderPanicked; p == nil {
			t.Error("the leader's panic was swallowed")
		}
		// A hanging follower would deadlock the bubble and fail the test.
		if err := <-followerDone; err != nil || follower[0][0] != 7 {
			t.Errorf("follower = %v, %v", follower, err)
		}
	})
}

func TestConcurrentMixedBatches(t *testing.T) {
	c := New(newHash(t, vector.HashOptions{Dimensions: 32}), Options{MaxEntries: 16})
	ref := newHash(t, vector.HashOptions{Dimensions: 32})
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
				want, err := ref.Embed(context.Background(), texts)
				if err != nil {
					t.Error(err)
					return
				}
				for j, text := range texts {
					if !slices.Equal(got[j], want[j]) {
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

func BenchmarkHit(b *testing.B) {
	c := New(newHash(b, vector.HashOptions{}), Options{})
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
