package settings_test

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }

var (
	fixtureOnce  sync.Once
	fixtureStore storage.Store
	fixtureEmb   vector.Embedder
	fixtureErr   error
)

// fixture returns the repository's testdata (catalog, FAQs, documents)
// indexed in a memory store with a hash embedder, built once per test
// binary.
func fixture(t *testing.T) (storage.Store, vector.Embedder) {
	t.Helper()
	fixtureOnce.Do(func() { fixtureStore, fixtureEmb, fixtureErr = buildFixture() })
	if fixtureErr != nil {
		t.Fatalf("fixture: %v", fixtureErr)
	}
	return fixtureStore, fixtureEmb
}

func buildFixture() (storage.Store, vector.Embedder, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return nil, nil, errors.New("cannot locate the test file")
	}
	testdata := filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata")
	ctx := context.Background()
	items, err := load.LoadCatalog(ctx, filepath.Join(testdata, "catalog.jsonl"), nil)
	if err != nil {
		return nil, nil, err
	}
	faqs, err := load.LoadFAQs(ctx, filepath.Join(testdata, "faqs.jsonl"), nil)
	if err != nil {
		return nil, nil, err
	}
	docs, err := load.LoadDocuments(ctx, filepath.Join(testdata, "documents"), nil)
	if err != nil {
		return nil, nil, err
	}
	more, err := load.LoadDocuments(ctx, filepath.Join(testdata, "documents.jsonl"), nil)
	if err != nil {
		return nil, nil, err
	}
	const dims = 512
	store, err := memory.New(memory.Options{Dimensions: dims, AllowedMetadataKeys: []string{"ingrediente_ativo", "formulacao"}}).Tenant("test")
	if err != nil {
		return nil, nil, err
	}
	emb, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: dims})
	if err != nil {
		return nil, nil, err
	}
	ix := ingest.NewIndexer(store, emb, ingest.IndexerOptions{})
	if _, err := ix.Reindex(ctx, ingest.Sources{Items: items, FAQs: faqs, Documents: append(docs, more...)}); err != nil {
		return nil, nil, err
	}
	return store, emb, nil
}
