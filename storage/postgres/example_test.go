package postgres_test

import (
	"context"
	"fmt"
	"log"
	"os"

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
	err = store.UpsertItems(ctx, []storage.CatalogItem{{
		ID: "fung-1", Name: "Fungicida Ação Total", Category: "Fungicidas", Tags: []string{"Soja", "Café"},
	}})
	if err != nil {
		log.Fatal(err)
	}
	hits, err := store.SearchItems(ctx, storage.LexicalQuery{Terms: []string{"acao", "cafe"}, Limit: 10})
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits {
		fmt.Println(h.Record.ID, h.TermsMatched)
	}
}
