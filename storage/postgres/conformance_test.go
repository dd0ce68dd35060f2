package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/postgres"
	"github.com/hybridrag/hybridrag/storage/storagetest"
)

// conformanceOpener migrates one schema per configuration (dimensions and
// allowlist) and hands the same DB to every subtest asking for it: the
// suite uses tenant IDs unique to the run, so subtests do not see each
// other's rows. Schemas are dropped when parent ends.
func conformanceOpener(parent *testing.T, pool *pgxpool.Pool, base postgres.Options) storagetest.Opener {
	var (
		mu  sync.Mutex
		dbs = map[string]*postgres.DB{}
	)
	return func(t *testing.T, cfg storagetest.Config) storagetest.TenantFunc {
		keys := slices.Clone(cfg.AllowedMetadataKeys)
		slices.Sort(keys)
		key := fmt.Sprint(cfg.Dims, keys)
		mu.Lock()
		defer mu.Unlock()
		db, ok := dbs[key]
		if !ok {
			opts := base
			opts.Schema = uniqueSchema(parent, pool, "hrt_conf")
			opts.Dimensions = cfg.Dims
			opts.AllowedMetadataKeys = cfg.AllowedMetadataKeys
			db = postgres.New(pool, opts)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := db.Migrate(ctx); err != nil {
				t.Fatalf("Migrate: %v", err)
			}
			dbs[key] = db
		}
		return func(tenant string) (storage.Backend, error) {
			s, err := db.Tenant(tenant)
			if err != nil {
				return nil, err
			}
			return s, nil
		}
	}
}

// TestConformance runs the storage conformance suite against PostgreSQL:
// once with the defaults (HNSW index), once with exact vector search, once
// with the half-precision HNSW index (Options.HalfPrecisionIndex), and
// once with every owner-ID or chunk-filter restriction taken as wide (the
// HNSW index's iterative scan and its exact fallback, the lexical levels
// probing each walked owner's chunks), which the suite's small data
// would otherwise never reach.
func TestConformance(t *testing.T) {
	pool := newPool(t)
	for _, tc := range []struct {
		name string
		opts postgres.Options
		wide bool
	}{
		{"hnsw", postgres.Options{}, false},
		{"exact", postgres.Options{ExactSearch: true}, false},
		{"hnsw-half", postgres.Options{HalfPrecisionIndex: true}, false},
		{"wide-restrictions", postgres.Options{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.wide {
				postgres.SetExactScanChunks(t, 0)
			}
			storagetest.Run(t, conformanceOpener(t, pool, tc.opts))
		})
	}
}
