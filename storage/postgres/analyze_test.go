package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/postgres"
)

// TestAnalyze checks that Analyze runs ANALYZE on the kind's tables of the
// store's schema, and only on them.
func TestAnalyze(t *testing.T) {
	db, pool := openDB(t, postgres.Options{Dimensions: 4})
	ctx := testCtx(t)
	store, err := db.Tenant("t1")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Apply(ctx, storage.Batch{Items: []storage.CatalogItem{{ID: "a", Name: "Fungicida A",
		Files: []storage.CatalogFile{{ItemID: "a", Name: "bula.txt", Text: "uva"}}}}}); err != nil {
		t.Fatal(err)
	}
	schema := db.Options().Schema
	analyzed := func() map[string]bool {
		t.Helper()
		rows, err := pool.Query(ctx, `SELECT relname, last_analyze IS NOT NULL FROM pg_stat_user_tables WHERE schemaname = $1`, schema)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]bool{}
		for rows.Next() {
			var name string
			var ok bool
			if err := rows.Scan(&name, &ok); err != nil {
				t.Fatal(err)
			}
			out[name] = ok
		}
		return out
	}
	if err := store.Analyze(ctx, storage.KindItem); err != nil {
		t.Fatalf("Analyze: %v", err)
	}
	// The statistics views may lag the ANALYZE a moment.
	got := analyzed()
	for deadline := time.Now().Add(3 * time.Second); !(got["items"] && got["item_chunks"] && got["item_chunk_meta"] && got["item_files"] && got["item_words"] && got["item_postings"]) && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		got = analyzed()
	}
	for _, table := range []string{"items", "item_chunks", "item_chunk_meta", "item_files", "item_words", "item_postings"} {
		if !got[table] {
			t.Errorf("%s not analyzed (%v)", table, got)
		}
	}
	for _, table := range []string{"faqs", "faq_chunks", "faq_chunk_meta", "faq_words", "faq_postings", "documents", "document_chunks", "document_chunk_meta", "document_words", "document_postings"} {
		if got[table] {
			t.Errorf("%s analyzed by Analyze(item)", table)
		}
	}
	if err := store.Analyze(ctx, "widget"); err == nil {
		t.Error("Analyze of an unknown kind: no error")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := store.Analyze(cancelled, storage.KindFAQ); !errors.Is(err, context.Canceled) {
		t.Errorf("Analyze with a cancelled context: %v, want context.Canceled", err)
	}
}
