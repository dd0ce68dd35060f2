package rag_test

import (
	"context"
	"sync/atomic"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/vector"
)

// countingEmbedder counts calls and texts.
type countingEmbedder struct {
	vector.Embedder
	calls, texts atomic.Int64
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.calls.Add(1)
	c.texts.Add(int64(len(texts)))
	return c.Embedder.Embed(ctx, texts)
}

// failingVectorStore makes SearchChunks fail.
type failingVectorStore struct{ rag.SearchStore }

func (failingVectorStore) SearchChunks(context.Context, storage.VectorQuery) ([]storage.ChunkMatch, error) {
	return nil, errVectorDown
}

// The listing methods forward to the wrapped store, so the Searcher builds
// the same vocabulary (typo correction, IDF) as over the store itself.
func (f failingVectorStore) ListItems(ctx context.Context, p storage.Page) ([]storage.CatalogItem, error) {
	return f.SearchStore.(storage.Store).ListItems(ctx, p)
}

func (f failingVectorStore) ListFAQs(ctx context.Context, p storage.Page) ([]storage.FAQ, error) {
	return f.SearchStore.(storage.Store).ListFAQs(ctx, p)
}

func (f failingVectorStore) ListDocuments(ctx context.Context, p storage.Page) ([]storage.Document, error) {
	return f.SearchStore.(storage.Store).ListDocuments(ctx, p)
}

type testErr string

func (e testErr) Error() string { return string(e) }

const errVectorDown = testErr("vector index down")

func hitIDs[T any](hits []rag.Hit[T]) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}
