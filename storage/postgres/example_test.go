package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/postgres"
)

// Opening a database, migrating it, and searching one tenant's catalog.
// (Not run by go test: it needs a PostgreSQL server with pgvector.)
func Example() {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	postgres.ConfigurePool(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	db := postgres.New(pool, postgres.Options{Dimensions: 1536, AllowedMetadataKeys: []string{"registro"}})
	if err := db.Migrate(ctx); err != nil { // idempotent; safe from several processes
		log.Fatal(err)
	}
	if err := db.Warm(ctx, 0); err != nil { // every pooled connection, before traffic
		log.Fatal(err)
	}
	store, err := db.Tenant("acme")
	if err != nil {
		log.Fatal(err)
	}
	err = store.Apply(ctx, storage.Batch{Items: []storage.CatalogItem{{
		ID: "fung-1", Name: "Fungicida Ação Total", Category: "Fungicidas", Tags: []string{"Soja", "Café"},
	}}})
	if err != nil {
		log.Fatal(err)
	}
	hits, err := store.Items().Search(ctx, storage.LexicalQuery{Terms: []string{"acao", "cafe"}, Limit: 10})
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits {
		fmt.Println(h.Record.ID, h.TermsMatched)
	}
}

// A large first load: index upkeep is suspended for the load and rebuilt
// once at the end (examples/ingest -bulk does the same around the
// Indexer). (Not run by go test: it needs a PostgreSQL server with
// pgvector.)
func ExampleDB_BeginBulkLoad() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	db := postgres.New(pool, postgres.Options{Dimensions: 1536})
	if err := db.Migrate(ctx); err != nil {
		log.Fatal(err)
	}
	if err := db.BeginBulkLoad(ctx); err != nil {
		log.Fatal(err)
	}
	store, err := db.Tenant("acme")
	if err != nil {
		log.Fatal(err)
	}
	loadErr := store.Apply(ctx, storage.Batch{Items: []storage.CatalogItem{{ID: "sku-1", Name: "Fungicida X"}}})
	// Always end the load, also after a failure: until then every tenant's
	// searches are degraded.
	err = db.EndBulkLoad(ctx, postgres.BulkLoadOptions{
		MaintenanceWorkMemKB: 1 << 20, // 1 GB for the index builds
		Progress: func(step string, took time.Duration) {
			log.Printf("bulk load: %s took %v", step, took)
		},
	})
	if loadErr != nil || err != nil {
		log.Fatal(loadErr, err)
	}
}

// After a restart or a bulk load, read the indexes every search walks into
// memory before taking traffic (after rag's Searcher.Warm, which reads
// every record). (Not run by go test: it needs a PostgreSQL server with
// pgvector.)
func ExampleDB_Prewarm() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	db := postgres.New(pool, postgres.Options{Dimensions: 1536})
	blocks, err := db.Prewarm(ctx)
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		log.Print("pg_prewarm is not installed and this role may not create it; searches warm up as they run")
	case err != nil:
		log.Fatal(err)
	default:
		log.Printf("prewarmed %d blocks of 8 kB", blocks)
	}
}
