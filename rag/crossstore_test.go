package rag_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hybridrag/hybridrag/internal/testenv"
	"github.com/hybridrag/hybridrag/merge"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/storage/postgres"
)

// openPostgres returns a migrated, tenant-scoped Postgres store in a fresh
// schema, or skips when HYBRIDRAG_TEST_DATABASE_URL is unset.
func openPostgres(t *testing.T, dims int, exact bool) *postgres.Store {
	t.Helper()
	store, err := openPostgresDB(t, dims, exact).Tenant("test")
	if err != nil {
		t.Fatal(err)
	}
	return store
}

// openPostgresDB returns a migrated database in a fresh schema, or skips
// when HYBRIDRAG_TEST_DATABASE_URL is unset.
func openPostgresDB(t *testing.T, dims int, exact bool) *postgres.DB {
	t.Helper()
	dsn := os.Getenv("HYBRIDRAG_TEST_DATABASE_URL")
	if dsn == "" {
		testenv.Skip(t, testenv.Postgres, "HYBRIDRAG_TEST_DATABASE_URL is unset; run .ci/postgres.sh start and export its DSN to run Postgres tests")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	postgres.ConfigurePool(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("HYBRIDRAG_TEST_DATABASE_URL is set but unusable: %v", err)
	}
	t.Cleanup(pool.Close)
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "rag_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if _, err := pool.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("drop schema: %v", err)
		}
	})
	db := postgres.New(pool, postgres.Options{Dimensions: dims, Schema: schema, ExactSearch: exact,
		AllowedMetadataKeys: []string{"ingrediente_ativo", "formulacao"}})
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return db
}

// TestSameRankingMemoryAndPostgres indexes testdata into both stores with
// the same embedder and checks every fusion method ranks identically.
func TestSameRankingMemoryAndPostgres(t *testing.T) {
	pg := openPostgres(t, ragtest.Dims, true)
	ctx := context.Background()
	emb := ragtest.HashEmbedder(t)
	if _, err := ingest.NewIndexer(pg, emb, ingest.IndexerOptions{}).Reindex(ctx, ragtest.TestdataSources(t)); err != nil {
		t.Fatalf("index into postgres: %v", err)
	}
	mem, _ := ragtest.Fixture(t)
	sm := rag.NewSearcher(mem, emb, rag.SearcherOptions{})
	sp := rag.NewSearcher(pg, emb, rag.SearcherOptions{})
	for _, method := range []merge.Method{merge.MethodWeighted, merge.MethodRRF, merge.MethodRelative, merge.MethodSimple} {
		for _, q := range append(slices.Clone(goldenQueries), "Adjuvante Óleo 100% Vegetal", "fixa_max") {
			query := rag.Query{Text: q, Limit: 10, Fusion: method}
			if method == merge.MethodSimple {
				query.Fusion = merge.MethodSimple
			}
			rm, err := sm.SearchCatalog(ctx, query)
			if err != nil {
				t.Fatal(err)
			}
			rp, err := sp.SearchCatalog(ctx, query)
			if err != nil {
				t.Fatal(err)
			}
			if !rp.EmbeddingUsed {
				t.Fatalf("postgres vector leg failed: %v", rp.VectorError)
			}
			if got, want := hitIDs(rp.Hits), hitIDs(rm.Hits); !slices.Equal(got, want) {
				t.Errorf("%s %q: postgres %v, memory %v", method, q, got, want)
				continue
			}
			for i := range rm.Hits {
				if rm.Hits[i].Source != rp.Hits[i].Source {
					t.Errorf("%s %q: hit %s source memory %q postgres %q", method, q, rm.Hits[i].ID, rm.Hits[i].Source, rp.Hits[i].Source)
				}
				sameEvidence(t, q, rm.Hits[i].ID, rm.Hits[i].Evidence, rp.Hits[i].Evidence)
			}
		}
	}
	for _, q := range []string{"prazo de entrega", "receituário agronômico", "devolução de embalagens vazias"} {
		rm, err := sm.SearchFAQs(ctx, rag.Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		rp, err := sp.SearchFAQs(ctx, rag.Query{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := hitIDs(rp.Hits), hitIDs(rm.Hits); !slices.Equal(got, want) {
			t.Errorf("FAQ %q: postgres %v, memory %v", q, got, want)
			continue
		}
		for i := range rm.Hits {
			sameEvidence(t, q, rm.Hits[i].ID, rm.Hits[i].Evidence, rp.Hits[i].Evidence)
		}
	}
}

// sameEvidence checks that both stores judge a hit alike: the same
// decision and reason, relevance and background within float32 noise.
func sameEvidence(t *testing.T, q, id string, m, p *rag.Evidence) {
	t.Helper()
	if m == nil || p == nil {
		t.Errorf("%q %s: evidence memory %v postgres %v", q, id, m, p)
		return
	}
	if m.Relevant != p.Relevant || m.Reason != p.Reason || math.Abs(m.Relevance-p.Relevance) > 1e-3 ||
		math.Abs(m.Coverage-p.Coverage) > 1e-9 {
		t.Errorf("%q %s: evidence memory %+v postgres %+v", q, id, m, p)
	}
	if (m.Background == nil) != (p.Background == nil) ||
		m.Background != nil && (m.Background.Samples != p.Background.Samples || math.Abs(m.Background.Median-p.Background.Median) > 1e-4) {
		t.Errorf("%q %s: background memory %+v postgres %+v", q, id, m.Background, p.Background)
	}
}
