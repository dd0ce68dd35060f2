package llmtest

import (
	"context"
	"hash/fnv"
	"math"
	"slices"
	"sync"
)

// Embedder is a deterministic fake of vector.Embedder: Vector(text, dims) for
// every text. It can be scripted to fail or to hang, and counts its calls.
// See the package documentation for what its vectors mean.
type Embedder struct {
	dims int

	mu      sync.Mutex
	err     error
	hang    bool
	calls   int
	texts   int
	batches [][]string
}

// NewEmbedder returns an Embedder of dims dimensions (dims <= 0 means 8).
func NewEmbedder(dims int) *Embedder {
	if dims <= 0 {
		dims = 8
	}
	return &Embedder{dims: dims}
}

// Dimensions returns the vector length.
func (e *Embedder) Dimensions() int { return e.dims }

// FailWith makes every following call fail with err; nil restores success.
func (e *Embedder) FailWith(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.err = err
}

// SetHang makes every following call block until its context is done
// (true) or answer at once (false).
func (e *Embedder) SetHang(hang bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.hang = hang
}

// Calls returns how many times Embed was called.
func (e *Embedder) Calls() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls
}

// Texts returns how many texts Embed received in all.
func (e *Embedder) Texts() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.texts
}

// Batches returns copies of the batches Embed received, in call order.
func (e *Embedder) Batches() [][]string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([][]string, len(e.batches))
	for i, b := range e.batches {
		out[i] = slices.Clone(b)
	}
	return out
}

// Embed returns one Vector per text, in order. Calls are counted even when
// they fail.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	e.calls++
	e.texts += len(texts)
	e.batches = append(e.batches, slices.Clone(texts))
	err, hang := e.err, e.hang
	e.mu.Unlock()

	if hang {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = Vector(t, e.dims)
	}
	return out, nil
}

// Vector returns the unit vector of dims dimensions that Embedder gives text:
// components drawn from a SplitMix64 sequence seeded with the FNV-1a hash of
// text, then normalized.
func Vector(text string, dims int) []float32 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(text)) // hash.Hash writes never fail
	state := h.Sum64()
	v := make([]float32, dims)
	var norm float64
	for i := range v {
		state += 0x9e3779b97f4a7c15
		z := state
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		f := float64(z>>11)/float64(1<<53)*2 - 1 // uniform in [-1, 1)
		v[i] = float32(f)
		norm += f * f
	}
	if norm == 0 {
		v[0], norm = 1, 1
	}
	inv := 1 / math.Sqrt(norm)
	for i := range v {
		v[i] = float32(float64(v[i]) * inv)
	}
	return v
}
