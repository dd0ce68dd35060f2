package rag_test

import (
	"context"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/storage/postgres"
)

// newIngredientItems are two catalog items with a word no testdata
// record holds ("zorvatrina"), which the typo correction can then offer
// (correctionMinDF).
func newIngredientItems() []storage.CatalogItem {
	return []storage.CatalogItem{
		{ID: "novo-1", Name: "Zorvatrina 200 SC", Description: "Fungicida à base de zorvatrina para soja.", Category: "Fungicida", Manufacturer: "AgroNova"},
		{ID: "novo-2", Name: "Zorvatrina Max", Description: "Fungicida sistêmico com zorvatrina para milho.", Category: "Fungicida", Manufacturer: "AgroNova"},
	}
}

// corrected reports whether res corrected "zorvatina" to "zorvatrina"
// and found one of the new items.
func corrected(res *rag.Result[storage.CatalogItem]) bool {
	if !slices.Contains(res.Query.Corrections, lexical.Correction{From: "zorvatina", To: "zorvatrina"}) {
		return false
	}
	return slices.ContainsFunc(res.Hits, func(h rag.Hit[storage.CatalogItem]) bool { return h.ID == "novo-1" || h.ID == "novo-2" })
}

// TestSearcherStaysFresh: two replicas over one store, each with its own
// Searcher (and, for PostgreSQL, its own pool); records written through
// an Indexer beside the first reach both Searchers' typo correction
// without Refresh, through the store's change marker.
func TestSearcherStaysFresh(t *testing.T) {
	for _, tc := range []struct {
		name string
		open func(t *testing.T) (writer, reader storage.Backend)
	}{
		{"memory", func(t *testing.T) (storage.Backend, storage.Backend) {
			db := memory.New(memory.Options{Dimensions: ragtest.Dims})
			a, err := db.Tenant("t")
			if err != nil {
				t.Fatal(err)
			}
			b, err := db.Tenant("t")
			if err != nil {
				t.Fatal(err)
			}
			return a, b
		}},
		{"postgres", func(t *testing.T) (storage.Backend, storage.Backend) {
			db := ragtest.PostgresDB(t)
			cfg, err := pgxpool.ParseConfig(os.Getenv("HYBRIDRAG_TEST_DATABASE_URL"))
			if err != nil {
				t.Fatal(err)
			}
			postgres.ConfigurePool(cfg)
			pool, err := pgxpool.NewWithConfig(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(pool.Close)
			replica := postgres.New(pool, db.Options())
			tenant := ragtest.TenantName(t)
			a, err := db.Tenant(tenant)
			if err != nil {
				t.Fatal(err)
			}
			b, err := replica.Tenant(tenant)
			if err != nil {
				t.Fatal(err)
			}
			return a, b
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			writer, reader := tc.open(t)
			emb := ragtest.HashEmbedder(t)
			ix := ingest.NewIndexer(writer, emb, ingest.IndexerOptions{})
			if _, err := ix.Reindex(ctx, ragtest.TestdataSources(t)); err != nil {
				t.Fatal(err)
			}
			q := rag.Query{Text: "fungicida zorvatina", Limit: 5}
			searchers := map[string]*rag.Searcher{
				"the writer's":  rag.NewSearcher(writer, emb, rag.SearcherOptions{}),
				"the replica's": rag.NewSearcher(reader, emb, rag.SearcherOptions{}),
			}
			for name, s := range searchers {
				rag.SetFreshInterval(s, 20*time.Millisecond)
				res, err := s.SearchCatalog(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				if corrected(res) {
					t.Fatalf("%s Searcher corrected to a word no record holds yet", name)
				}
			}

			if _, err := ix.IndexItems(ctx, newIngredientItems()); err != nil {
				t.Fatal(err)
			}
			for name, s := range searchers {
				deadline := time.Now().Add(20 * time.Second)
				for {
					res, err := s.SearchCatalog(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					// The rebuild swaps each part in as it is ready: the
					// correction may show before it counts as done.
					if corrected(res) && rag.FreshRebuilds(s) > 0 {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("%s Searcher never corrected zorvatina through a rebuild (corrections %v, hits %v, rebuilds %d)",
							name, res.Query.Corrections, hitIDs(res.Hits), rag.FreshRebuilds(s))
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
}

// TestSearcherRebuildsInBackground: while a rebuild reads the store,
// searches answer at once from the previous snapshot, and only one
// rebuild runs however many searches find the marker moved.
func TestSearcherRebuildsInBackground(t *testing.T) {
	ctx := context.Background()
	store, emb := ragtest.IndexedMemory(t)
	var (
		blocked atomic.Bool
		lists   atomic.Int64
		gate    = make(chan struct{})
		once    sync.Once
	)
	release := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release)
	slow := ragtest.Store{Store: store, ItemsFunc: func(r storage.RecordStore[storage.CatalogItem]) storage.RecordStore[storage.CatalogItem] {
		return ragtest.Records[storage.CatalogItem]{RecordStore: r, ListFunc: func(ctx context.Context, p storage.Page) ([]storage.CatalogItem, error) {
			if blocked.Load() {
				lists.Add(1)
				<-gate
			}
			return r.List(ctx, p)
		}}
	}}
	s := rag.NewSearcher(slow, emb, rag.SearcherOptions{})
	rag.SetFreshInterval(s, time.Millisecond)
	q := rag.Query{Text: "fungicida zorvatina", Limit: 5}
	if _, err := s.SearchCatalog(ctx, q); err != nil { // builds the vocabulary
		t.Fatal(err)
	}

	blocked.Store(true)
	if _, err := ingest.NewIndexer(store, emb, ingest.IndexerOptions{}).IndexItems(ctx, newIngredientItems()); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		time.Sleep(2 * time.Millisecond)
		start := time.Now()
		res, err := s.SearchCatalog(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if corrected(res) {
			t.Fatal("corrected while the rebuild is blocked")
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("a search waited %v for the rebuild", d)
		}
	}
	if n := lists.Load(); n != 1 {
		t.Errorf("%d rebuilds listing items at once, want 1", n)
	}
	release()
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, err := s.SearchCatalog(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if corrected(res) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not corrected after the rebuild (corrections %v)", res.Query.Corrections)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
