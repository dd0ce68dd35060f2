package postgres_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/postgres"
)

// batchRecorder is a pgx tracer that keeps the statements and arguments
// of the last batch sent on its pool's connections.
type batchRecorder struct {
	mu   sync.Mutex
	cur  []pgx.TraceBatchQueryData
	last []pgx.TraceBatchQueryData
}

func (r *batchRecorder) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}
func (r *batchRecorder) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *batchRecorder) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.mu.Lock()
	r.cur = nil
	r.mu.Unlock()
	return ctx
}
func (r *batchRecorder) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	r.mu.Lock()
	r.cur = append(r.cur, d)
	r.mu.Unlock()
}
func (r *batchRecorder) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {
	r.mu.Lock()
	r.last = r.cur
	r.mu.Unlock()
}

func (r *batchRecorder) batch() []pgx.TraceBatchQueryData {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// TestHNSWSettingsApplied checks that an unfiltered vector search runs on
// the HNSW index with the settings the options ask for. Tenant "few"
// holds 40 of the index's 2,040 vectors, so a search of its nearest chunk
// finds one among the index's first candidates only when their list is
// long or the scan goes on: with hnsw.iterative_scan off, a search at
// ef_search 17 (the least: the limit plus 16) finds nothing for most
// queries, which an exact scan would never do; at ef_search 1000 it always
// finds one (pgvector's default of 40 would miss about half); and with the
// relaxed iterative scan, even at ef_search 17, it always finds one. The
// statement the search sent, run again with its settings under EXPLAIN,
// reads the HNSW index and the owners' index of inactive rows (migration
// 0008), and no table whole.
func TestHNSWSettingsApplied(t *testing.T) {
	const dims = 16
	ctx := testCtx(t)
	rec := &batchRecorder{}
	cfg, err := pgxpool.ParseConfig(testDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 4
	cfg.ConnConfig.Tracer = rec
	postgres.ConfigurePool(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	schema := uniqueSchema(t, pool, "hrt_hnswset")
	open := func(opts postgres.Options) *postgres.Store {
		opts.Dimensions, opts.Schema = dims, schema
		db := postgres.New(pool, opts)
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		s, err := db.Tenant("few")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	rng := rand.New(rand.NewPCG(7, 8))
	random := func(n int) [][]float32 {
		out := make([][]float32, n)
		for i := range out {
			v := make([]float32, dims)
			for j := range v {
				v[j] = float32(rng.NormFloat64())
			}
			out[i] = unit(v)
		}
		return out
	}
	few := open(postgres.Options{})
	manyDB := postgres.New(pool, postgres.Options{Dimensions: dims, Schema: schema})
	many, err := manyDB.Tenant("many")
	if err != nil {
		t.Fatal(err)
	}
	seedChunks(t, many, random(2000), 0, 0)
	seedChunks(t, few, random(40), 2000, 0)
	if _, err := pool.Exec(ctx, "ANALYZE "+pgx.Identifier{schema, "items"}.Sanitize()+", "+pgx.Identifier{schema, "item_chunks"}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	queries := random(30)

	found := func(s storage.Store) int {
		t.Helper()
		n := 0
		for _, qv := range queries {
			got, err := s.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindItem, Vector: qv, Limit: 1, MaxDistance: storage.NoThreshold})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range got {
				if id := m.Chunk.Owner.ID; id < "item-02000" {
					t.Fatalf("tenant few got tenant many's %s", id)
				}
			}
			n += len(got)
		}
		return n
	}
	short := found(open(postgres.Options{EfSearch: 1, IterativeScan: postgres.IterativeOff}))
	long := found(open(postgres.Options{EfSearch: 1000, IterativeScan: postgres.IterativeOff}))
	relaxed := found(open(postgres.Options{EfSearch: 1}))
	t.Logf("queries finding a chunk of %d: ef_search 17 %d, 1000 %d, 17 with the relaxed iterative scan %d", len(queries), short, long, relaxed)
	if short == len(queries) {
		t.Errorf("ef_search 17, no iterative scan: every one of %d queries found a chunk; the search does not use the HNSW index (or not these settings)", short)
	}
	if long != len(queries) {
		t.Errorf("ef_search 1000, no iterative scan: %d of %d queries found a chunk, want all: hnsw.ef_search is not applied", long, len(queries))
	}
	if relaxed != len(queries) {
		t.Errorf("ef_search 17, relaxed iterative scan: %d of %d queries found a chunk, want all: hnsw.iterative_scan is not applied", relaxed, len(queries))
	}

	// The last search's batch: its settings, then the search.
	batch := rec.batch()
	if len(batch) != 2 || !strings.Contains(batch[0].SQL, "set_config") {
		t.Fatalf("last search's batch: %d statements, want the settings and the search", len(batch))
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, batch[0].SQL, batch[0].Args...); err != nil {
		t.Fatal(err)
	}
	// The search is a prepared statement run with its generic plan
	// (plan_cache_mode, set by the batch's settings), the plan EXPLAIN
	// EXECUTE shows; EXPLAIN of the statement itself would plan it for the
	// values (for this tenant's 40 chunks, an exact scan).
	if _, err := tx.Exec(ctx, "PREPARE hnsw_plan AS "+batch[1].SQL); err != nil {
		t.Fatal(err)
	}
	defer pool.Exec(context.Background(), "DEALLOCATE hnsw_plan")
	// EXECUTE takes no bound parameters: the values as literals.
	params := make([]string, len(batch[1].Args))
	for i, a := range batch[1].Args {
		switch v := a.(type) {
		case string:
			params[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
		case pgvector.Vector:
			params[i] = "'" + v.String() + "'"
		default:
			t.Fatalf("argument %d of the search: %T", i+1, a)
		}
	}
	var plan []byte
	if err := tx.QueryRow(ctx, "EXPLAIN (FORMAT JSON) EXECUTE hnsw_plan("+strings.Join(params, ", ")+")").Scan(&plan); err != nil {
		t.Fatal(err)
	}
	var nodes []struct {
		Plan json.RawMessage `json:"Plan"`
	}
	if err := json.Unmarshal(plan, &nodes); err != nil || len(nodes) != 1 {
		t.Fatalf("EXPLAIN output %s: %v", plan, err)
	}
	var scans []string
	var walk func(raw json.RawMessage)
	walk = func(raw json.RawMessage) {
		var n struct {
			Type     string            `json:"Node Type"`
			Relation string            `json:"Relation Name"`
			Index    string            `json:"Index Name"`
			Plans    []json.RawMessage `json:"Plans"`
		}
		if err := json.Unmarshal(raw, &n); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(n.Type, "Scan") && n.Type != "CTE Scan" {
			name := n.Index
			if name == "" {
				name = n.Relation
			}
			scans = append(scans, n.Type+" "+name)
		}
		for _, p := range n.Plans {
			walk(p)
		}
	}
	walk(nodes[0].Plan)
	want := []string{"Index Scan item_chunks_embedding_hnsw", "Index Only Scan items_inactive"}
	if strings.Join(scans, ", ") != strings.Join(want, ", ") {
		t.Errorf("the search's plan scans %q, want %q", scans, want)
	}
}
