// Package vector holds embeddings as data: the Embedder interface, vector
// arithmetic, exact top-k, chunk-to-owner aggregation, a query-embedding
// cache and a deterministic offline hash embedder.
//
// # Embedders
//
// [Embedder] is the one batch-shaped port every model adapter implements
// (llm/openai for OpenAI-compatible APIs); [EmbedderFunc] adapts a function.
// [HashEmbedder] is a dependency-free stand-in for development, tests and
// the embedded demo: feature hashing of words, stems and character n-grams,
// deterministic and unit-length, but not a semantic model. [Cached] wraps
// any Embedder with an expiring LRU (24 h, 10 000 entries by default) keyed
// by model, dimension and SHA-256 of the text, with hit/miss statistics.
//
// # Search
//
// Distances follow pgvector's <#> operator, the one the reference system
// uses: distance = -(a·b), smaller is closer, and for unit vectors it is
// minus the cosine similarity. A threshold keeps rows with
// distance <= threshold (seed default -0.5, i.e. similarity >= 0.5).
// [TopK] is an exact scan over a flat row-major []float32 using one
// goroutine per CPU, with deterministic tie-breaks by row; the in-memory
// store builds on [DotRows], its kernel. [Dot], [DotRows] and [TopK] share
// one inner-product kernel, chosen at start-up ([DotKernel]): AVX-512F or
// AVX2+FMA assembly on amd64 processors that have it, portable Go
// elsewhere or when built with the purego tag. A row's score is bitwise
// the same through all three, whatever rows are scored with it.
//
// [QuantizeQ8] codes a vector in 8 bits with one scale and reports bounds
// ([Q8Stats]); [DotRowsQ8] takes exact integer inner products of codes (an
// AVX-512 VNNI or AVX2 kernel where [Q8Accelerated]; see [Q8Kernel]), and
// [Q8Bound] says how far the scaled result can be from the float32 inner
// product, so a scan can read a quarter of the bytes and still return the
// exact top k: the in-memory store does.
//
// [Aggregate] turns chunk matches into one hit per owner (mode max, sum or
// top-k mean), keeping the best chunks as evidence and as a snippet.
//
// # Errors
//
// Functions return wrapped sentinels to be tested with errors.Is:
// [ErrDimensionMismatch] (lengths disagree), [ErrZeroVector] (normalizing
// or taking the cosine of a zero vector), [ErrNotFinite] (NaN or infinity),
// [ErrInvalidOptions], [ErrBatchSize] and [ErrNilEmbedder]. Cancelled
// contexts yield ctx.Err(). Nothing in the package panics on bad input.
//
// # Concurrency
//
// The functions are pure and safe for concurrent use; they never retain or
// modify their arguments unless documented (Normalize works in place).
// HashEmbedder and Cached are safe for concurrent use.
//
// # Dependencies
//
// The package imports the standard library, the project's lexical package
// (normalization, stemming and stopwords for the hash embedder) and
// github.com/hashicorp/golang-lru/v2/expirable for the cache.
package vector
