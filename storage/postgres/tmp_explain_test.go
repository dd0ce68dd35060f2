package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hybridrag/hybridrag/storage/postgres"
)

func TestTmpExplain(t *testing.T) {
	pool := newPool(t)
	db := postgres.New(pool, postgres.Options{Schema: "hrbench_10000_1536"})
	s, _ := db.Tenant("bench")
	ctx := context.Background()
	for _, terms := range [][]string{{"lagarta", "soja"}, {"controle"}, {"sphenophorus", "cana"}, {"produto", "classe", "soja"}} {
		sql, a := s.LexicalSQLForTest(terms, nil, 60)
		conn, _ := pool.Acquire(ctx)
		explain(t, conn, sql, a)
		conn.Release()
	}
}

func explain(t *testing.T, conn *pgxpool.Conn, sql string, a []any) {
	rows, err := conn.Query(context.Background(), "EXPLAIN (ANALYZE, BUFFERS) "+sql, append([]any{pgx.QueryExecModeExec}, a...)...)
	if err != nil {
		t.Fatal(err)
	}
	out := ""
	for rows.Next() {
		var l string
		rows.Scan(&l)
		out += l + "\n"
	}
	t.Log(out)
}
