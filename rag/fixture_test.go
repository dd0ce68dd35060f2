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
type failingVectorStore struct{ storage.Store }

func (failingVectorStore) SearchChunks(context.Context, storage.VectorQuery) ([]storage.ChunkMatch, error) {
	return nil, errVectorDown
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
