package vector

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
)

// Cache defaults, from the seeds (24 h, 10 000 entries).
const (
	DefaultCacheTTL        = 24 * time.Hour
	DefaultCacheMaxEntries = 10_000
)

// ErrNilEmbedder is returned by a [Cached] that wraps no embedder.
var ErrNilEmbedder = errors.New("vector: nil embedder")

// CacheOptions configures [NewCached]. The zero value gives the seeds'
// defaults.
type CacheOptions struct {
	// Model names the wrapped model in cache keys, so that two models (or
	// two configurations of one) never share entries. "" means the wrapped
	// embedder's Model() when it has that method, else "".
	Model string
	// TTL is how long an entry lives after it is stored; 0 means
	// DefaultCacheTTL (24 h); a negative TTL means entries never expire.
	TTL time.Duration
	// MaxEntries bounds the number of entries; the least recently used is
	// evicted first. 0 means DefaultCacheMaxEntries (10 000); a negative
	// value means no bound.
	MaxEntries int
}

// CacheStats are the counters of a [Cached]. Every text passed to Embed is
// counted once, as a hit or a miss, by calls that succeed.
type CacheStats struct {
	// Hits counts texts answered without asking the wrapped embedder in
	// that call: found in the cache, repeated earlier in the same batch, or
	// embedded by a concurrent call that was already asking for them.
	Hits uint64
	// Misses counts texts sent to the wrapped embedder.
	Misses uint64
	// Entries is the number of vectors currently cached.
	Entries int
	// Evictions counts entries removed because the cache was full, because
	// they expired, or by Purge.
	Evictions uint64
}

// HitRate returns Hits / (Hits + Misses), or 0 before any lookup.
func (s CacheStats) HitRate() float64 {
	if n := s.Hits + s.Misses; n > 0 {
		return float64(s.Hits) / float64(n)
	}
	return 0
}

// Cached wraps an Embedder with an in-memory, expiring LRU cache of
// vectors, for query embeddings that repeat.
//
// The key of a text is the model name, the dimension and the SHA-256 of the
// text, so the text itself is not retained. Embed looks every text up,
// sends only the misses to the wrapped embedder, in one batch and in their
// original order, and returns the vectors in input order. Texts repeated in
// a batch are embedded once. When concurrent calls miss on the same text,
// only the first asks the wrapped embedder and the others wait for its
// answer (if it fails, they ask again themselves). Vectors from the wrapped
// embedder are checked (count, dimension, finite values) before they are
// cached. Every returned vector is a fresh copy the caller may modify.
//
// The cache is github.com/hashicorp/golang-lru/v2/expirable: a
// well-tested expiring LRU, which runs one background goroutine per cache
// to drop expired entries (it lives as long as the process, so create one
// Cached per embedder, not one per request).
//
// A Cached is safe for concurrent use.
type Cached struct {
	inner  Embedder
	model  string
	prefix string
	lru    *expirable.LRU[string, []float32]

	hits, misses, evictions atomic.Uint64

	mu       sync.Mutex
	inflight map[string]*flight
}

type flight struct {
	done chan struct{}
	vec  []float32
	err  error
}

// NewCached returns a caching wrapper around e configured by opts.
// It does no I/O. A nil e yields a Cached whose Embed returns
// ErrNilEmbedder.
func NewCached(e Embedder, opts CacheOptions) *Cached {
	c := &Cached{inner: e, model: opts.Model, inflight: make(map[string]*flight)}
	if c.model == "" {
		if m, ok := e.(interface{ Model() string }); ok {
			c.model = m.Model()
		}
	}
	dims := 0
	if e != nil {
		dims = e.Dimensions()
	}
	c.prefix = c.model + "\x00" + strconv.Itoa(dims) + "\x00"

	ttl := opts.TTL
	switch {
	case ttl == 0:
		ttl = DefaultCacheTTL
	case ttl < 0:
		ttl = 0 // expirable: no expiry
	}
	size := opts.MaxEntries
	switch {
	case size == 0:
		size = DefaultCacheMaxEntries
	case size < 0:
		size = 0 // expirable: no bound
	}
	c.lru = expirable.NewLRU(size, func(string, []float32) { c.evictions.Add(1) }, ttl)
	return c
}

// Dimensions returns the wrapped embedder's dimension (0 when it is nil).
func (c *Cached) Dimensions() int {
	if c.inner == nil {
		return 0
	}
	return c.inner.Dimensions()
}

// Model returns the model name used in cache keys.
func (c *Cached) Model() string { return c.model }

// Stats returns a snapshot of the counters.
func (c *Cached) Stats() CacheStats {
	return CacheStats{
		Hits:      c.hits.Load(),
		Misses:    c.misses.Load(),
		Entries:   c.lru.Len(),
		Evictions: c.evictions.Load(),
	}
}

// Purge removes every entry. Counters other than Entries are kept.
func (c *Cached) Purge() { c.lru.Purge() }

func (c *Cached) key(text string) string {
	sum := sha256.Sum256([]byte(text))
	return c.prefix + string(sum[:])
}

// want is one distinct text of a batch and the positions it fills.
type want struct {
	key  string
	text string
	idx  []int
	f    *flight
}

// Embed returns one vector per text, in input order, from the cache where
// possible. Errors of the wrapped embedder are returned wrapped; a wrong
// number of vectors yields ErrBatchSize, a wrong length
// ErrDimensionMismatch, a NaN or infinity ErrNotFinite. When ctx is done
// while waiting for a concurrent call, Embed returns ctx.Err().
func (c *Cached) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if c.inner == nil {
		return nil, ErrNilEmbedder
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))

	// Distinct texts, in first-seen order.
	byKey := make(map[string]*want, len(texts))
	wants := make([]*want, 0, len(texts))
	for i, t := range texts {
		k := c.key(t)
		if w, ok := byKey[k]; ok {
			w.idx = append(w.idx, i)
			continue
		}
		w := &want{key: k, text: t, idx: []int{i}}
		byKey[k] = w
		wants = append(wants, w)
	}

	var hits, misses uint64
	fill := func(w *want, v []float32) {
		for _, i := range w.idx {
			out[i] = clone(v)
		}
	}

	// Cache lookups, then claim or join in-flight calls for the misses.
	var lead, wait []*want
	c.mu.Lock()
	for _, w := range wants {
		if v, ok := c.lru.Get(w.key); ok {
			fill(w, v)
			hits += uint64(len(w.idx))
			continue
		}
		if f, ok := c.inflight[w.key]; ok {
			w.f = f
			wait = append(wait, w)
			continue
		}
		w.f = &flight{done: make(chan struct{})}
		c.inflight[w.key] = w.f
		lead = append(lead, w)
	}
	c.mu.Unlock()

	if len(lead) > 0 {
		vecs, err := c.lead(ctx, lead)
		if err != nil {
			return nil, err
		}
		for i, w := range lead {
			fill(w, vecs[i])
			misses++
			hits += uint64(len(w.idx) - 1)
		}
	}

	var retry []*want
	for _, w := range wait {
		select {
		case <-w.f.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if w.f.err != nil {
			retry = append(retry, w)
			continue
		}
		fill(w, w.f.vec)
		hits += uint64(len(w.idx))
	}
	if len(retry) > 0 {
		vecs, err := c.embed(ctx, retry)
		if err != nil {
			return nil, err
		}
		for i, w := range retry {
			c.lru.Add(w.key, vecs[i])
			fill(w, vecs[i])
			misses++
			hits += uint64(len(w.idx) - 1)
		}
	}

	c.hits.Add(hits)
	c.misses.Add(misses)
	return out, nil
}

// lead embeds the texts this call leads, stores the vectors and releases
// the calls waiting on them. The flights are settled even if the wrapped
// embedder panics, so waiters never hang.
func (c *Cached) lead(ctx context.Context, lead []*want) (vecs [][]float32, err error) {
	err = errEmbedderPanicked
	defer func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, w := range lead {
			if err != nil {
				w.f.err = err
			} else {
				w.f.vec = vecs[i]
				c.lru.Add(w.key, vecs[i])
			}
			delete(c.inflight, w.key)
			close(w.f.done)
		}
	}()
	vecs, err = c.embed(ctx, lead)
	return vecs, err
}

// errEmbedderPanicked is what waiters see when the leading call's embedder
// panicked; they then embed by themselves.
var errEmbedderPanicked = errors.New("vector: wrapped embedder panicked")

// embed asks the wrapped embedder for the texts of ws and checks its answer.
// The returned vectors are private copies.
func (c *Cached) embed(ctx context.Context, ws []*want) ([][]float32, error) {
	texts := make([]string, len(ws))
	for i, w := range ws {
		texts[i] = w.text
	}
	vecs, err := c.inner.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("vector: cached embedder: %w", err)
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("vector: cached embedder: %d vectors for %d texts: %w", len(vecs), len(texts), ErrBatchSize)
	}
	dims := c.inner.Dimensions()
	out := make([][]float32, len(vecs))
	for i, v := range vecs {
		if len(v) != dims {
			return nil, fmt.Errorf("vector: cached embedder: vector %d has %d elements, want %d: %w", i, len(v), dims, ErrDimensionMismatch)
		}
		if err := CheckFinite(v); err != nil {
			return nil, fmt.Errorf("vector: cached embedder: vector %d: %w", i, err)
		}
		out[i] = clone(v)
	}
	return out, nil
}

func clone(v []float32) []float32 { return append([]float32(nil), v...) }

// Unwrap returns the wrapped embedder, so callers can find its optional
// capabilities (see SuggestThreshold).
func (c *Cached) Unwrap() Embedder { return c.inner }
