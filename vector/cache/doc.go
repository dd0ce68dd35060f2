// Package cache is a query-embedding cache: [New] wraps any
// vector.Embedder in an [Embedder] that keeps recent vectors in an LRU
// whose entries expire (24 h and 10 000 entries by default, [Options]),
// keyed by model, dimension and SHA-256 of the text, with hit, miss and
// eviction counts and the ages of the oldest and newest entries ([Stats]).
// Concurrent misses on one text ask the wrapped embedder once.
//
// Expiry is checked when an entry is read; the cache runs no goroutine, so
// creating many caches (one per test, one per tenant) leaks nothing.
//
// # Errors
//
// Embed returns the wrapped embedder's errors wrapped, the
// vector.ErrBatchSize or *vector.VectorError of [vector.CheckBatch] for
// an answer that breaks the vector.Embedder contract,
// vector.ErrNilEmbedder when there is no embedder to wrap, and ctx.Err()
// for a done context. Nothing in the package panics.
//
// # Concurrency
//
// An [Embedder] is safe for concurrent use.
//
// # Dependencies
//
// The package is a leaf beneath the computing core: it imports
// github.com/hybridrag/hybridrag/vector and
// github.com/hashicorp/golang-lru/v2/simplelru, so that vector itself
// imports the standard library and golang.org/x/text only.
package cache
