// Package ragtest holds the fixtures the tests of the rag packages share:
// the project's testdata sources, a hash embedder, PostgreSQL test
// databases and sample records. It is for tests only.
package ragtest

import (
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/internal/testenv"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/storage/postgres"
	"github.com/hybridrag/hybridrag/vector"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Dims keeps the fixture small; the hash embedder works at any size.
const Dims = 512

// RepoRoot is the repository root, found from this file's location.
func RepoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the test file")
	}
	return filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(file))))
}

// TestdataSources loads the project's testdata catalog, FAQs and documents.
func TestdataSources(t testing.TB) ingest.Sources {
	t.Helper()
	src, err := ingest.LoadDir(context.Background(), filepath.Join(RepoRoot(t), "testdata"), nil)
	if err != nil {
		t.Fatalf("load testdata: %v", err)
	}
	return src
}

// HashEmbedder returns a hash embedder of Dims dimensions.
func HashEmbedder(t testing.TB) *vector.HashEmbedder {
	t.Helper()
	e, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: Dims})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// BenchDims is the vector size of the benchmarks: text-embedding-3-small's
// 1536, the size a deployment with the default model stores.
const BenchDims = 1536

// AgrofitPath returns the AGROFIT catalog of ../shared/data, or skips tb
// when it is absent.
func AgrofitPath(tb testing.TB) string {
	tb.Helper()
	p := filepath.Join(RepoRoot(tb), "..", "shared", "data", "agrofit", "catalog.jsonl")
	if _, err := os.Stat(p); err != nil {
		testenv.Skip(tb, testenv.Data, "AGROFIT data not found at %s", p)
	}
	return p
}

// Ptr returns a pointer to a copy of v.
func Ptr[T any](v T) *T { return &v }

var tenantSeq atomic.Int64

// TenantName returns a tenant ID unique in this process, derived from the
// test's name for readable rows.
func TenantName(t *testing.T) string {
	name := regexp.MustCompile(`[^A-Za-z0-9_.-]+`).ReplaceAllString(t.Name(), "_")
	suffix := fmt.Sprintf("-%d-%d", os.Getpid(), tenantSeq.Add(1))
	if len(name) > 64-len(suffix) {
		name = name[len(name)-(64-len(suffix)):]
	}
	return strings.TrimLeft(name, "_.-") + suffix
}

// PostgresDB returns a migrated database in a fresh schema (dropped when
// the test ends), or skips when HYBRIDRAG_TEST_DATABASE_URL is unset.
func PostgresDB(t *testing.T) *postgres.DB {
	t.Helper()
	dsn := os.Getenv("HYBRIDRAG_TEST_DATABASE_URL")
	if dsn == "" {
		testenv.Skip(t, testenv.Postgres, "HYBRIDRAG_TEST_DATABASE_URL is unset; set it to a pgx DSN to run the Postgres indexer tests")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("parse HYBRIDRAG_TEST_DATABASE_URL: %v", err)
	}
	postgres.ConfigurePool(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("HYBRIDRAG_TEST_DATABASE_URL is set but unusable: %v", err)
	}
	t.Cleanup(pool.Close)
	schema := fmt.Sprintf("rag_ix_%d_%d", os.Getpid(), tenantSeq.Add(1))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if _, err := pool.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	db := postgres.New(pool, postgres.Options{Dimensions: Dims, Schema: schema})
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return db
}

// SampleItems returns n sample catalog items.
func SampleItems(n int) []storage.CatalogItem {
	items := make([]storage.CatalogItem, n)
	for i := range items {
		items[i] = storage.CatalogItem{
			ID:           fmt.Sprintf("item-%02d", i),
			Name:         fmt.Sprintf("Produto %d", i),
			Description:  fmt.Sprintf("Fungicida número %d para uva e tomate.", i),
			Category:     "Fungicida",
			Manufacturer: "Agro S.A.",
			Tags:         []string{"uva", "tomate"},
			Price:        Ptr(10.5 + float64(i)),
			Status:       storage.StatusActive,
			Metadata:     map[string]string{"formulacao": "SC"},
		}
	}
	return items
}

// StoreCounts returns the record counts of s.
func StoreCounts(t *testing.T, s storage.Store) storage.Counts {
	t.Helper()
	c, err := s.Counts(context.Background())
	if err != nil {
		t.Fatalf("Counts: %v", err)
	}
	return c
}

// BenchPool connects to HYBRIDRAG_TEST_DATABASE_URL with a pool of 8,
// configured for pgvector, or skips the benchmark when it is unset.
func BenchPool(b *testing.B) *pgxpool.Pool {
	b.Helper()
	dsn := os.Getenv("HYBRIDRAG_TEST_DATABASE_URL")
	if dsn == "" {
		testenv.Skip(b, testenv.Postgres, "HYBRIDRAG_TEST_DATABASE_URL is unset")
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns = 8
	postgres.ConfigurePool(cfg)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	return pool
}

// BenchTenant migrates schema (BenchDims dimensions) and returns its
// tenant "bench".
func BenchTenant(b *testing.B, pool *pgxpool.Pool, schema string) *postgres.Store {
	b.Helper()
	db := postgres.New(pool, postgres.Options{Dimensions: BenchDims, Schema: schema})
	if err := db.Migrate(context.Background()); err != nil {
		b.Fatal(err)
	}
	store, err := db.Tenant("bench")
	if err != nil {
		b.Fatal(err)
	}
	return store
}

// IndexedMemory returns a memory store holding the indexed testdata.
func IndexedMemory(t testing.TB) (*memory.Store, *vector.HashEmbedder) {
	t.Helper()
	db := memory.New(memory.Options{Dimensions: Dims, AllowedMetadataKeys: []string{"ingrediente_ativo", "formulacao"}})
	store, err := db.Tenant("test")
	if err != nil {
		t.Fatal(err)
	}
	emb := HashEmbedder(t)
	ix := ingest.NewIndexer(store, emb, ingest.IndexerOptions{})
	if _, err := ix.Reindex(context.Background(), TestdataSources(t)); err != nil {
		t.Fatalf("index testdata: %v", err)
	}
	return store, emb
}

var (
	fixtureOnce  sync.Once
	fixtureStore storage.Store
	fixtureEmb   vector.Embedder
)

// fixture indexes testdata once per test binary.
// Fixture returns the indexed testdata in memory, built once per test
// binary.
func Fixture(t *testing.T) (storage.Store, vector.Embedder) {
	t.Helper()
	fixtureOnce.Do(func() {
		s, e := IndexedMemory(t)
		fixtureStore, fixtureEmb = s, e
	})
	if fixtureStore == nil {
		t.Fatal("fixture failed to build")
	}
	return fixtureStore, fixtureEmb
}

// OfflinePipeline returns a Pipeline over Fixture with the offline
// classifier and answerer.
func OfflinePipeline(t *testing.T, opts rag.PipelineOptions) *rag.Pipeline {
	t.Helper()
	store, emb := Fixture(t)
	p, err := rag.NewPipeline(rag.NewSearcher(store, emb, rag.SearcherOptions{}), offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// LastUser returns the content of the last user message of req.
func LastUser(req llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == llm.RoleUser {
			return req.Messages[i].Content
		}
	}
	return ""
}

// Drain ranges over a chat stream, calling fn (when not nil) with every
// event, and returns the done event's response or the stream's error.
func Drain(events iter.Seq2[rag.Event, error], fn func(rag.Event)) (*rag.ChatResponse, error) {
	var resp *rag.ChatResponse
	for e, err := range events {
		if fn != nil {
			fn(e)
		}
		if err != nil {
			return nil, err
		}
		if e.Kind == rag.EventDone {
			resp = e.Response
		}
	}
	return resp, nil
}

// Records is a storage.RecordStore whose methods a test replaces one by
// one; a nil func forwards to the embedded RecordStore.
type Records[T any] struct {
	storage.RecordStore[T]
	SearchFunc  func(context.Context, storage.LexicalQuery) ([]storage.LexicalCandidate[T], error)
	GetManyFunc func(context.Context, []string) ([]T, error)
	ListFunc    func(context.Context, storage.Page) ([]T, error)
}

// Search calls SearchFunc, or the wrapped store.
func (r Records[T]) Search(ctx context.Context, q storage.LexicalQuery) ([]storage.LexicalCandidate[T], error) {
	if r.SearchFunc != nil {
		return r.SearchFunc(ctx, q)
	}
	return r.RecordStore.Search(ctx, q)
}

// GetMany calls GetManyFunc, or the wrapped store.
func (r Records[T]) GetMany(ctx context.Context, ids []string) ([]T, error) {
	if r.GetManyFunc != nil {
		return r.GetManyFunc(ctx, ids)
	}
	return r.RecordStore.GetMany(ctx, ids)
}

// List calls ListFunc, or the wrapped store.
func (r Records[T]) List(ctx context.Context, page storage.Page) ([]T, error) {
	if r.ListFunc != nil {
		return r.ListFunc(ctx, page)
	}
	return r.RecordStore.List(ctx, page)
}

// Store wraps a storage.Store and replaces the records of the kinds whose
// func is set: the func gets the store's own records of the kind and
// returns those to use (usually a Records around them).
type Store struct {
	storage.Store
	ItemsFunc     func(storage.RecordStore[storage.CatalogItem]) storage.RecordStore[storage.CatalogItem]
	FAQsFunc      func(storage.RecordStore[storage.FAQ]) storage.RecordStore[storage.FAQ]
	DocumentsFunc func(storage.RecordStore[storage.Document]) storage.RecordStore[storage.Document]
}

// Items returns the items, through ItemsFunc when set.
func (s Store) Items() storage.RecordStore[storage.CatalogItem] {
	if s.ItemsFunc != nil {
		return s.ItemsFunc(s.Store.Items())
	}
	return s.Store.Items()
}

// FAQs returns the FAQs, through FAQsFunc when set.
func (s Store) FAQs() storage.RecordStore[storage.FAQ] {
	if s.FAQsFunc != nil {
		return s.FAQsFunc(s.Store.FAQs())
	}
	return s.Store.FAQs()
}

// Documents returns the documents, through DocumentsFunc when set.
func (s Store) Documents() storage.DocumentStore {
	d := s.Store.Documents()
	if s.DocumentsFunc != nil {
		return docRecords{s.DocumentsFunc(d), d}
	}
	return d
}

// docRecords is a replaced RecordStore of documents with the wrapped
// store's ByHash.
type docRecords struct {
	storage.RecordStore[storage.Document]
	hash storage.DocumentStore
}

func (d docRecords) ByHash(ctx context.Context, h string) (storage.Document, error) {
	return d.hash.ByHash(ctx, h)
}

// FailSearch returns st with every kind's lexical search failing with
// err.
func FailSearch(st storage.Store, err error) Store {
	return Store{
		Store: st,
		ItemsFunc: func(r storage.RecordStore[storage.CatalogItem]) storage.RecordStore[storage.CatalogItem] {
			return Records[storage.CatalogItem]{RecordStore: r, SearchFunc: func(context.Context, storage.LexicalQuery) ([]storage.LexicalCandidate[storage.CatalogItem], error) {
				return nil, err
			}}
		},
		FAQsFunc: func(r storage.RecordStore[storage.FAQ]) storage.RecordStore[storage.FAQ] {
			return Records[storage.FAQ]{RecordStore: r, SearchFunc: func(context.Context, storage.LexicalQuery) ([]storage.LexicalCandidate[storage.FAQ], error) {
				return nil, err
			}}
		},
		DocumentsFunc: func(r storage.RecordStore[storage.Document]) storage.RecordStore[storage.Document] {
			return Records[storage.Document]{RecordStore: r, SearchFunc: func(context.Context, storage.LexicalQuery) ([]storage.LexicalCandidate[storage.Document], error) {
				return nil, err
			}}
		},
	}
}

// Agent returns rag.NewAgent(p, model, opts), failing t on an error.
func Agent(t testing.TB, p *rag.Pipeline, model llm.ChatModel, opts rag.AgentOptions) *rag.Agent {
	t.Helper()
	a, err := rag.NewAgent(p, model, opts)
	if err != nil {
		t.Fatalf("NewAgent: %v", err)
	}
	return a
}
