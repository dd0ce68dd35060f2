package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/pgvector/pgvector-go"

	"github.com/hybridrag/hybridrag/storage/postgres"
)

func TestZZMigrationTiming(t *testing.T) {
	pool := newPool(t)
	schema := uniqueSchema(t, pool, "hrt_migt")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	db := postgres.New(pool, postgres.Options{Schema: schema, Dimensions: 1536})
	if err := postgres.MigrateTo(ctx, db, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO `+schema+`.documents (tenant_id, id, source, title, content, content_hash, metadata, search_text,
		source_norm, metadata_norm, created_at, updated_at) VALUES ('t', 'd', '', 't', 'c', 'h', '{}', 'c', '', '{}', now(), now())`); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	const n = 5000
	start := time.Now()
	rows := make([][]any, 0, n)
	for i := range n {
		v := make([]float32, 1536)
		for j := range v {
			v[j] = r.Float32()
		}
		rows = append(rows, []any{"t", "d", "doc", int32(i), "x", "h", pgvector.NewVector(v), map[string]string{"start": fmt.Sprint(i * 100), "heading_path": "A › B"}})
	}
	_ = rows
	for lo := 0; lo < n; lo += 1000 {
		b := rows[lo : lo+1000]
		if _, err := pool.CopyFrom(ctx, []string{schema, "document_chunks"}, []string{"tenant_id", "owner_id", "source", "seq", "content", "content_hash", "embedding", "metadata"}, pgxRows(b)); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("loaded %d chunks in %v", n, time.Since(start))
	start = time.Now()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("migrated in %v", time.Since(start))
}

type copyRows struct {
	rows [][]any
	i    int
}

func (c *copyRows) Next() bool             { c.i++; return c.i <= len(c.rows) }
func (c *copyRows) Values() ([]any, error) { return c.rows[c.i-1], nil }
func (c *copyRows) Err() error             { return nil }

func pgxRows(r [][]any) *copyRows { return &copyRows{rows: r} }
