package postgres_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/internal/testenv"
	"github.com/jackc/pgx/v5"
)

// testDSN returns the DSN of the integration-test database, or skips the
// test with a message naming the variable when it is unset.
func testDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("HYBRIDRAG_TEST_DATABASE_URL")
	if dsn == "" {
		testenv.Skip(t, testenv.Postgres, "HYBRIDRAG_TEST_DATABASE_URL is unset; run .ci/postgres.sh start and export its DSN to run Postgres tests")
	}
	return dsn
}

// TestSmokePgvector proves the CI database is reachable and has pgvector:
// it fails (not skips) when the DSN is set but the server is unreachable.
func TestSmokePgvector(t *testing.T) {
	dsn := testDSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("HYBRIDRAG_TEST_DATABASE_URL is set but the server is unreachable: %v", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS vector"); err != nil {
		t.Fatalf("create extension vector: %v", err)
	}
	var version string
	if err := conn.QueryRow(ctx, "SELECT extversion FROM pg_extension WHERE extname = 'vector'").Scan(&version); err != nil {
		t.Fatalf("read pgvector version: %v", err)
	}
	var d float64
	if err := conn.QueryRow(ctx, "SELECT '[1,2,3]'::vector <#> '[4,5,6]'::vector").Scan(&d); err != nil {
		t.Fatalf("inner-product query: %v", err)
	}
	if d != -32 {
		t.Fatalf("'[1,2,3]' <#> '[4,5,6]' = %v, want -32", d)
	}
	t.Logf("pgvector %s: <#> works", version)
}
