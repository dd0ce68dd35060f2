package cache

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/hybridrag/hybridrag/vector"
)

// Defaults: a day bounds how long an entry outlives a change of the model
// behind an unchanged name, and 10 000 entries of 1,536 dimensions take
// about 60 MB, room for a day of distinct queries of a typical store.
const (
	DefaultTTL        = 24 * time.Hour
	DefaultMaxEntries = 10_000
)

// Options configures [New]. The zero value gives the defaults.
type Options struct {
	// Model names the wrapped model in cache keys, so that two models (or
	// two configurations of one) never share entries. "" means the
	// Model() of the wrapped embedder, or of the first embedder that has
	// that method along its Unwrap() vector.Embedder chain, else "".
	Model string
	// TTL is how long an entry is served after it is stored; 0 means
	// DefaultTTL (24 h); a negative TTL means entries never expire.
	TTL time.Duration
	// MaxEntries bounds the number of entries; the least recently used is
	// evicted first. 0 means DefaultMaxEntries (10 000); a negative value
	// means no bound.
	MaxEntries int
}

// Stats are the counters of an [Embedder]. Every text passed to Embed is
// counted once, as a hit or a miss, by calls that succeed.
type Stats struct {
	// Hits counts texts answered without asking the wrapped embedder in
	// that call: found in the cache, repeated earlier in the same batch, or
	// embedded by a concurrent call that was already asking for them.
	Hits uint64
	// Misses counts texts sent to the wrapped embedder.
	Misses uint64
	// Entries is the number of vectors held. An expired entry is held, and
	// counted, until a lookup finds it expired or it is evicted.
	Entries int
	// Evictions counts entries removed because the cache was full, because
	// a lookup found them expired, or by Purge.
	Evictions uint64
	// OldestAge and NewestAge are the ages of the oldest and the newest
	// entry held (time since it was stored; expired entries held count),
	// 0 when the cache is empty.
	OldestAge, NewestAge time.Duration
}

// HitRate returns Hits / (Hits + Misses), or 0 before any lookup.
func (s Stats) HitRate() float64 {
	if n := s.Hits + s.Misses; n > 0 {
		return float64(s.Hits) / float64(n)
	}
	return 0
}

// Embedder is a [vector.Embedder] that wraps another with an in-memory
// LRU cache of vectors whose entries expire, for query embeddings that
// repeat. Create one with [New].
//
// The key of a text is the model name, the dimension and the SHA-256 of the
// text, so the text itself is not retained. Embed looks every text up,
// sends only the misses to the wrapped embedder, in one batch and in their
// original order, and returns the vectors in input order. Texts repeated in
// a batch are embedded once. When concurrent calls miss on the same text,
// only the first asks the wrapped embedder and the others wait for its
// answer (if it fails, they ask again themselves). Vectors from the wrapped
// embedder are checked with [vector.CheckBatch] (count, dimension, finite
// values) before they are cached. Every returned vector is a fresh copy the
// caller may modify.
//
// The LRU is github.com/hashicorp/golang-lru/v2/simplelru behind the
// Embedder's mutex. Expiry is checked on read: a lookup that finds an
// entry older than the TTL removes it and counts a miss. No goroutine is
// started, so an Embedder is reclaimed by the garbage collector like any
// value once unreachable.
//
// An Embedder is safe for concurrent use.
type Embedder struct {
	inner  vector.Embedder
	model  string
	prefix string
	ttl    time.Duration // <= 0: entries never expire

	hits, misses, evictions atomic.Uint64

	mu       sync.Mutex // guards lru and inflight
	lru      *simplelru.LRU[string, entry]
	inflight map[string]*flight
}

// entry is a cached vector, the time it was stored and the time it stops
// being served (zero: never).
type entry struct {
	vec     []float32
	stored  time.Time
	expires time.Time
}

type flight struct {
	done chan struct{}
	vec  []float32
	err  error
}

// New returns a caching wrapper around e configured by opts.
// It does no I/O and starts no goroutine. A nil e yields an Embedder
// whose Embed returns vector.ErrNilEmbedder.
func New(e vector.Embedder, opts Options) *Embedder {
	c := &Embedder{inner: e, model: opts.Model, inflight: make(map[string]*flight)}
	if c.model == "" {
		c.model = modelOf(e)
	}
	dims := 0
	if e != nil {
		dims = e.Dimensions()
	}
	c.prefix = c.model + "\x00" + strconv.Itoa(dims) + "\x00"

	switch c.ttl = opts.TTL; {
	case c.ttl == 0:
		c.ttl = DefaultTTL
	case c.ttl < 0:
		c.ttl = 0
	}
	size := opts.MaxEntries
	switch {
	case size == 0:
		size = DefaultMaxEntries
	case size < 0:
		size = math.MaxInt
	}
	// NewLRU fails only for a size <= 0, which cannot happen here.
	c.lru, _ = simplelru.NewLRU(size, func(string, entry) { c.evictions.Add(1) })
	return c
}

// modelOf returns the Model() of e or of the first embedder along its
// Unwrap chain that has one, else "".
func modelOf(e vector.Embedder) string {
	for range 16 {
		if m, ok := e.(interface{ Model() string }); ok {
			return m.Model()
		}
		u, ok := e.(interface{ Unwrap() vector.Embedder })
		if !ok {
			return ""
		}
		e = u.Unwrap()
	}
	return ""
}

// Dimensions returns the wrapped embedder's dimension (0 when it is nil).
func (c *Embedder) Dimensions() int {
	if c.inner == nil {
		return 0
	}
	return c.inner.Dimensions()
}

// Model returns the model name used in cache keys.
func (c *Embedder) Model() string { return c.model }

// Stats returns a snapshot of the counters. It walks the entries for
// their ages: O(Entries) under the cache's lock.
func (c *Embedder) Stats() Stats {
	now := time.Now()
	c.mu.Lock()
	n := c.lru.Len()
	var oldest, newest time.Time
	for _, e := range c.lru.Values() {
		if oldest.IsZero() || e.stored.Before(oldest) {
			oldest = e.stored
		}
		if newest.IsZero() || e.stored.After(newest) {
			newest = e.stored
		}
	}
	c.mu.Unlock()
	s := Stats{
		Hits:      c.hits.Load(),
		Misses:    c.misses.Load(),
		Entries:   n,
		Evictions: c.evictions.Load(),
	}
	if n > 0 {
		s.OldestAge, s.NewestAge = max(now.Sub(oldest), 0), max(now.Sub(newest), 0)
	}
	return s
}

// Purge removes every entry. Counters other than Entries are kept.
func (c *Embedder) Purge() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Purge()
}

func (c *Embedder) key(text string) string {
	sum := sha256.Sum256([]byte(text))
	return c.prefix + string(sum[:])
}

// get returns the vector cached under key if it has not expired at now,
// and removes it if it has. c.mu must be held.
func (c *Embedder) get(key string, now time.Time) ([]float32, bool) {
	e, ok := c.lru.Get(key)
	if !ok {
		return nil, false
	}
	if !e.expires.IsZero() && !now.Before(e.expires) {
		c.lru.Remove(key)
		return nil, false
	}
	return e.vec, true
}

// add caches v under key from now on. c.mu must be held.
func (c *Embedder) add(key string, v []float32, now time.Time) {
	e := entry{vec: v, stored: now}
	if c.ttl > 0 {
		e.expires = now.Add(c.ttl)
	}
	c.lru.Add(key, e)
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
// number of vectors yields an error wrapping vector.ErrBatchSize, a bad vector a
// *vector.VectorError (wrapping vector.ErrEmptyVector,
// vector.ErrDimensionMismatch or vector.ErrNotFinite). When ctx is done
// while waiting for a concurrent call, Embed returns ctx.Err().
func (c *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if c.inner == nil {
		return nil, vector.ErrNilEmbedder
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
	now := time.Now()
	c.mu.Lock()
	for _, w := range wants {
		if v, ok := c.get(w.key, now); ok {
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
		now := time.Now()
		c.mu.Lock()
		for i, w := range retry {
			c.add(w.key, vecs[i], now)
		}
		c.mu.Unlock()
		for i, w := range retry {
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
func (c *Embedder) lead(ctx context.Context, lead []*want) (vecs [][]float32, err error) {
	err = errEmbedderPanicked
	defer func() {
		now := time.Now()
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, w := range lead {
			if err != nil {
				w.f.err = err
			} else {
				w.f.vec = vecs[i]
				c.add(w.key, vecs[i], now)
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
var errEmbedderPanicked = errors.New("cache: wrapped embedder panicked")

// embed asks the wrapped embedder for the texts of ws and checks its answer.
// The returned vectors are private copies.
func (c *Embedder) embed(ctx context.Context, ws []*want) ([][]float32, error) {
	texts := make([]string, len(ws))
	for i, w := range ws {
		texts[i] = w.text
	}
	vecs, err := c.inner.Embed(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("cache: wrapped embedder: %w", err)
	}
	if err := vector.CheckBatch(vecs, len(texts), c.inner.Dimensions()); err != nil {
		return nil, fmt.Errorf("cache: wrapped embedder: %w", err)
	}
	out := make([][]float32, len(vecs))
	for i, v := range vecs {
		out[i] = clone(v)
	}
	return out, nil
}

func clone(v []float32) []float32 { return append([]float32(nil), v...) }

// Unwrap returns the wrapped embedder, so that callers can find its
// optional capabilities (see vector.SuggestThreshold).
func (c *Embedder) Unwrap() vector.Embedder { return c.inner }
