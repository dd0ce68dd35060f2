package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/postgres"
)

// TestPrewarm checks that Prewarm reads exactly the indexes searches
// walk (every block of each, the HNSW index in use and no other), creates
// pg_prewarm when it is missing, and fails cleanly on a missing schema
// and a cancelled context.
func TestPrewarm(t *testing.T) {
	ctx := testCtx(t)
	for _, tc := range []struct {
		name string
		opts postgres.Options
		hnsw string // the chunk tables' HNSW index suffix read, "" for none
	}{
		{"full", postgres.Options{Dimensions: 4}, "_embedding_hnsw"},
		{"half", postgres.Options{Dimensions: 4, HalfPrecisionIndex: true}, "_embedding_half_hnsw"},
		{"exact", postgres.Options{Dimensions: 4, ExactSearch: true}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, pool := openDB(t, tc.opts)
			store, err := db.Tenant("t1")
			if err != nil {
				t.Fatal(err)
			}
			var items []storage.CatalogItem
			var chunks []storage.OwnerChunks
			for i := range 300 {
				id := string(rune('a'+i%26)) + string(rune('a'+i/26))
				items = append(items, storage.CatalogItem{ID: id, Name: "Fungicida " + id, Description: "controle de ferrugem na soja " + id})
				ref := storage.OwnerRef{Kind: storage.KindItem, ID: id}
				chunks = append(chunks, storage.OwnerChunks{Owner: ref, Chunks: []storage.Chunk{{Source: storage.SourceItem,
					Content: "Fungicida " + id, Embedding: []float32{1, float32(i), 0, 1}}}})
			}
			if err := store.Apply(ctx, storage.Batch{Items: items, Chunks: chunks}); err != nil {
				t.Fatal(err)
			}
			if tc.name == "full" {
				// Created again when missing (the tests' role may).
				if _, err := pool.Exec(ctx, "DROP EXTENSION IF EXISTS pg_prewarm"); err != nil {
					t.Fatal(err)
				}
			}
			schema := db.Options().Schema
			var names []string
			for _, k := range []string{"item", "faq", "document"} {
				names = append(names, k+"_postings_key")
				if tc.hnsw != "" {
					names = append(names, k+"_chunks"+tc.hnsw)
				}
			}
			names = append(names, "items_pkey", "items_inactive", "faqs_pkey", "faqs_inactive",
				"documents_pkey", "documents_inactive", "item_files_pkey")
			var want int64
			for _, n := range names {
				var b int64
				if err := pool.QueryRow(ctx, "SELECT pg_relation_size(to_regclass($1)) / current_setting('block_size')::int",
					pgx.Identifier{schema, n}.Sanitize()).Scan(&b); err != nil {
					t.Fatalf("size of %s: %v", n, err)
				}
				if b == 0 {
					t.Fatalf("index %s is empty or missing", n)
				}
				want += b
			}
			got, err := db.Prewarm(ctx)
			if err != nil {
				t.Fatalf("Prewarm: %v", err)
			}
			if got != want {
				t.Errorf("Prewarm read %d blocks, want %d (every block of %v)", got, want, names)
			}
		})
	}

	t.Run("no extension", func(t *testing.T) {
		db, pool := openDB(t, postgres.Options{Dimensions: 4})
		schema := db.Options().Schema
		// A role that may read the schema but not create extensions
		// (pg_prewarm is not a trusted extension).
		role := pgx.Identifier{schema + "_reader"}.Sanitize()
		for _, sql := range []string{"CREATE ROLE " + role + " LOGIN",
			"GRANT USAGE ON SCHEMA " + pgx.Identifier{schema}.Sanitize() + " TO " + role,
			"GRANT SELECT ON ALL TABLES IN SCHEMA " + pgx.Identifier{schema}.Sanitize() + " TO " + role} {
			if _, err := pool.Exec(ctx, sql); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		}
		t.Cleanup(func() {
			for _, sql := range []string{"DROP OWNED BY " + role, "DROP ROLE " + role} {
				if _, err := pool.Exec(context.Background(), sql); err != nil {
					t.Errorf("%s: %v", sql, err)
				}
			}
		})
		if _, err := pool.Exec(ctx, "DROP EXTENSION IF EXISTS pg_prewarm"); err != nil {
			t.Fatal(err)
		}
		cfg := pool.Config().Copy()
		cfg.ConnConfig.User = schema + "_reader"
		cfg.ConnConfig.Password = ""
		rp, err := pgxpool.NewWithConfig(ctx, cfg)
		if err == nil {
			err = rp.Ping(ctx)
		}
		if err != nil {
			t.Skipf("cannot connect as a role of the test's own (the server asks for a password?): %v", err)
		}
		defer rp.Close()
		reader := postgres.New(rp, postgres.Options{Dimensions: 4, Schema: schema})
		if _, err := reader.Prewarm(ctx); !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("Prewarm without the extension, by a role that may not create it: %v, want errors.ErrUnsupported", err)
		}
		// The owner of the database creates it.
		if n, err := db.Prewarm(ctx); err != nil || n == 0 {
			t.Errorf("Prewarm by a role that may create the extension: %d blocks, %v", n, err)
		}
		// Once created, the reader can use it.
		if n, err := reader.Prewarm(ctx); err != nil || n == 0 {
			t.Errorf("Prewarm by the reader once the extension exists: %d blocks, %v", n, err)
		}
	})

	_, pool := openDB(t, postgres.Options{Dimensions: 4})
	missing := postgres.New(pool, postgres.Options{Dimensions: 4, Schema: "hybridrag_no_such_schema"})
	if _, err := missing.Prewarm(ctx); !errors.Is(err, storage.ErrSchemaMismatch) {
		t.Errorf("Prewarm on a missing schema: %v, want ErrSchemaMismatch", err)
	}
	db, _ := openDB(t, postgres.Options{Dimensions: 4})
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := db.Prewarm(cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("Prewarm with a cancelled context: %v, want context.Canceled", err)
	}
}
