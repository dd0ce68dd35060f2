package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/postgres"
)

func TestTmpExplain(t *testing.T) {
	pool := newPool(t)
	db := postgres.New(pool, postgres.Options{Schema: "hrbench_100000_1536"})
	s, _ := db.Tenant("bench")
	ctx := context.Background()
	cat := loadCatalog(t)
	bd := &benchDB{cat: cat}
	for _, terms := range lexicalQueries(bd, 40) {
		var ds []time.Duration
		for range 2 {
			start := time.Now()
			if _, err := s.SearchItems(ctx, storage.LexicalQuery{Terms: terms, Limit: 60}); err != nil {
				t.Fatal(err)
			}
			ds = append(ds, time.Since(start))
		}
		sql, a := s.LexicalSQLForTest(terms, nil, 60)
		tx, _ := pool.Begin(ctx)
		tx.Exec(ctx, "SET LOCAL jit = off; SET LOCAL enable_seqscan = off")
		rows, err := tx.Query(ctx, "EXPLAIN (ANALYZE) "+sql, append([]any{pgx.QueryExecModeExec}, a...)...)
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for rows.Next() {
			var l string
			rows.Scan(&l)
			if strings.Contains(l, "Time") || strings.Contains(l, "JIT") {
				out += l + "; "
			}
		}
		tx.Rollback(ctx)
		t.Log(terms, ds, out)
	}
}
