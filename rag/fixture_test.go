package rag_test

import (
	"context"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// testDims keeps the fixture small; the hash embedder works at any size.
const testDims = 512

// repoRoot is the repository root, found from this file's location.
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the test file")
	}
	return filepath.Dir(filepath.Dir(file))
}

// testdataSources loads the project's testdata catalog, FAQs and documents.
func testdataSources(t testing.TB) rag.Sources {
	t.Helper()
	ctx := context.Background()
	root := repoRoot(t)
	items, err := load.LoadCatalog(ctx, filepath.Join(root, "testdata", "catalog.jsonl"), nil)
	if err != nil {
		t.Fatalf("load catalog: %v", err)
	}
	faqs, err := load.LoadFAQs(ctx, filepath.Join(root, "testdata", "faqs.jsonl"), nil)
	if err != nil {
		t.Fatalf("load faqs: %v", err)
	}
	docs, err := load.LoadDocumentsDir(ctx, filepath.Join(root, "testdata", "documents"), nil)
	if err != nil {
		t.Fatalf("load documents: %v", err)
	}
	more, err := load.LoadDocuments(ctx, filepath.Join(root, "testdata", "documents.jsonl"), nil)
	if err != nil {
		t.Fatalf("load documents.jsonl: %v", err)
	}
	return rag.Sources{Items: items, FAQs: faqs, Documents: append(docs, more...)}
}

func hashEmbedder(t testing.TB) *vector.HashEmbedder {
	t.Helper()
	e, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: testDims})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// indexedMemory returns a memory store holding the indexed testdata.
func indexedMemory(t testing.TB) (*memory.Store, *vector.HashEmbedder) {
	t.Helper()
	db := memory.New(memory.Options{Dimensions: testDims, AllowedMetadataKeys: []string{"ingrediente_ativo", "formulacao"}})
	store, err := db.Tenant("test")
	if err != nil {
		t.Fatal(err)
	}
	emb := hashEmbedder(t)
	ix := rag.NewIndexer(store, emb, rag.IndexerOptions{})
	if _, err := ix.Reindex(context.Background(), testdataSources(t)); err != nil {
		t.Fatalf("index testdata: %v", err)
	}
	return store, emb
}

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
	return f.SearchStore.(rag.RecordLister).ListItems(ctx, p)
}

func (f failingVectorStore) ListFAQs(ctx context.Context, p storage.Page) ([]storage.FAQ, error) {
	return f.SearchStore.(rag.RecordLister).ListFAQs(ctx, p)
}

func (f failingVectorStore) ListDocuments(ctx context.Context, p storage.Page) ([]storage.Document, error) {
	return f.SearchStore.(rag.RecordLister).ListDocuments(ctx, p)
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
