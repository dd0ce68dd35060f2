package main

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// envTestDSN names the PostgreSQL + pgvector DSN of the integration tests
// (DESIGN §11); .ci/run always sets it.
const envTestDSN = "HYBRIDRAG_TEST_DATABASE_URL"

// TestPostgresBackend opens the server's backend on PostgreSQL twice: the
// first start migrates and seeds an empty tenant from testdata, the second
// uses it as it is. It runs in its own schema, dropped afterwards.
func TestPostgresBackend(t *testing.T) {
	dsn := os.Getenv(envTestDSN)
	if dsn == "" {
		t.Skipf("skipping the PostgreSQL test: set %s to a PostgreSQL + pgvector DSN (.ci/postgres.sh start prints one)", envTestDSN)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const schema = "chatserver_test"
	t.Cleanup(func() {
		pool, err := pgxpool.New(context.Background(), dsn)
		if err != nil {
			t.Logf("cleanup: %v", err)
			return
		}
		defer pool.Close()
		if _, err := pool.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Logf("cleanup: %v", err)
		}
	})

	cfg := testConfig(t)
	cfg.Env.DatabaseURL = dsn
	cfg.Schema = schema
	cfg.Tenant = fmt.Sprintf("t%d", time.Now().UnixNano())

	first, err := openBackend(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if first.info.Store != "postgres" || !first.index.Seeded || first.index.Items != 81 || first.index.Embedded == 0 {
		t.Errorf("first start: store %q, index %+v", first.info.Store, first.index)
	}
	first.close()

	second, err := openBackend(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer second.close()
	if second.index.Seeded {
		t.Errorf("second start seeded again: %+v", second.index)
	}
	h := newServerWith(cfg, nil, second).routes()
	rec := do(t, h, "POST", "/api/rag/search", `{"query":"fungicida para videira","limit":3}`)
	if rec.Code != 200 {
		t.Fatalf("search: %d %s", rec.Code, rec.Body.String())
	}
	r := decode[searchResponse](t, rec)
	if !r.EmbeddingUsed || len(r.Hits) != 3 || r.Counts.Vector == 0 {
		t.Errorf("postgres hybrid search: embedding %v, %d hits, counts %+v", r.EmbeddingUsed, len(r.Hits), r.Counts)
	}
	if rec := do(t, h, "GET", "/healthz", ""); rec.Code != 200 {
		t.Errorf("healthz: %d %s", rec.Code, rec.Body.String())
	}
	st := decode[statsResponse](t, do(t, h, "GET", "/api/stats", ""))
	if st.Counts == nil || st.Counts.Items != 81 || st.Counts.FAQs != 36 || st.Components.Store != "postgres" {
		t.Errorf("stats: %+v %+v", st.Counts, st.Components)
	}
	events, _ := parseSSE(t, do(t, h, "POST", "/api/chat", `{"message":"qual o prazo de entrega?"}`, "Accept", "text/event-stream").Body.Bytes())
	if len(events) == 0 || events[len(events)-1].Name != "done" {
		t.Errorf("chat over postgres: %d events", len(events))
	}
}
