package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hybridrag/hybridrag/storage/postgres"
)

// newPool returns a pool on the test database with pgvector's types
// registered, closed when the test ends.
func newPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	dsn := testDSN(t)
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("parse HYBRIDRAG_TEST_DATABASE_URL: %v", err)
	}
	cfg.MaxConns = 8
	postgres.ConfigurePool(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		t.Fatalf("HYBRIDRAG_TEST_DATABASE_URL is set but the server is unreachable: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// uniqueSchema returns a schema name no other test (or test process) uses,
// and drops the schema when the test ends.
func uniqueSchema(t testing.TB, pool *pgxpool.Pool, prefix string) string {
	t.Helper()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	name := prefix + "_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if _, err := pool.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
	})
	return name
}

// openDB returns a migrated DB in a fresh schema.
func openDB(t testing.TB, opts postgres.Options) (*postgres.DB, *pgxpool.Pool) {
	t.Helper()
	pool := newPool(t)
	if opts.Schema == "" {
		opts.Schema = uniqueSchema(t, pool, "hrt")
	}
	db := postgres.New(pool, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	return db, pool
}

func testCtx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}
