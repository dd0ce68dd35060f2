// Package vector holds embeddings as data: the Embedder interface and the
// wrappers that check and retry it, vector arithmetic, the row-scoring
// kernels of an exact scan, the chunk-to-owner aggregation modes and a
// deterministic offline hash embedder.
//
// # Embedders
//
// [Embedder] is the one batch-shaped port every model adapter implements
// (llm/openai for OpenAI-compatible APIs); [EmbedderFunc] adapts a function.
// [HashEmbedder] is a dependency-free stand-in for development, tests and
// the embedded demo: feature hashing of words, stems and character n-grams,
// deterministic and unit-length, but not a semantic model.
//
// Three wrappers return an Embedder around any other and expose it with
// Unwrap, so [SuggestThreshold] and [SuggestFusionWeights] see through
// them:
//
//   - [Checked] enforces the contract thresholds and fusion rely on: one
//     vector per text, of the declared dimension, finite and non-zero,
//     and unit length — like chromem-go, it normalizes a vector that is
//     not, and leaves one that is bit for bit. [CheckBatch] is the check
//     alone.
//   - [WithRetry] repeats batches that failed with a retryable error
//     ([IsRetryable]): errors opt in by implementing [TransientError] and,
//     for a server-requested delay, [RetryDelayError]. Waits are full-jitter
//     exponential backoff ([RetryPolicy]) and end when the context does.
//   - The leaf package vector/cache keeps query vectors in an LRU whose
//     entries expire (24 h, 10 000 entries by default), keyed by model,
//     dimension and SHA-256 of the text, with hit/miss statistics.
//
// A typical stack for a remote model retries the raw calls, checks and
// normalizes the answers, and caches good vectors only:
//
//	e := cache.New(vector.Checked(vector.WithRetry(model, vector.RetryPolicy{})), cache.Options{})
//
// # Search
//
// Distances follow pgvector's <#> (negative inner product) operator: distance = -(a·b), smaller is closer, and for unit vectors it is
// minus the cosine similarity. A threshold keeps rows with
// distance <= threshold (the default -0.5 means similarity >= 0.5).
// [DotRows] scores the rows of a flat row-major []float32 against a query:
// the in-memory store's exact scan is built on it. [Dot] and [DotRows]
// share one inner-product kernel, chosen at start-up: AVX-512F or
// AVX2+FMA assembly on amd64 processors that have it, portable Go
// elsewhere or when built with the purego tag. A row's score is bitwise
// the same through both, whatever rows are scored with it.
//
// [AggregateMode] names how rag's Searcher turns the chunk matches of an
// owner into the owner's score (max, sum or top-k mean).
//
// # Errors
//
// Functions return wrapped sentinels to be tested with errors.Is:
// [ErrDimensionMismatch] (lengths disagree), [ErrZeroVector] (normalizing
// a zero vector), [ErrNotFinite] (NaN or infinity),
// [ErrEmptyVector], [ErrInvalidOptions], [ErrBatchSize] and
// [ErrNilEmbedder]. An embedder answer that breaks the contract yields
// [ErrBatchSize] (wrong count, both counts in the message) or a
// *[VectorError] naming the index of the text whose vector is bad,
// wrapping the sentinels above. Cancelled
// contexts yield ctx.Err(). Nothing in the package panics on bad input.
//
// # Concurrency
//
// The functions are pure and safe for concurrent use; they never retain or
// modify their arguments.
// HashEmbedder is safe for concurrent use; CheckedEmbedder and
// RetryEmbedder are when the embedder they wrap is.
//
// # Dependencies
//
// vector belongs to the computing core: it imports the standard library,
// golang.org/x/sys/cpu (on amd64, to choose the AVX2 or AVX-512 kernels)
// and the project's lexical package (normalization, stemming and stopwords
// for the hash embedder), which imports golang.org/x/text, and nothing
// else. Code with third-party dependencies lives in leaf packages beneath
// it: vector/cache, the only importer of github.com/hashicorp/golang-lru.
package vector
