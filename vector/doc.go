// Package vector holds embeddings as data: the Embedder interface, vector
// arithmetic, exact top-k, chunk-to-owner aggregation, a query-embedding
// cache and a deterministic offline hash embedder.
package vector
