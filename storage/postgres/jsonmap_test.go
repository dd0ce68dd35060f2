package postgres_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/postgres"
)

// TestMetadataRoundTrip reads back, through every path that returns
// metadata (Get, GetMany, Search, SearchChunks, Chunks), keys and values
// that need JSON escapes: quotes, backslashes, control characters,
// non-ASCII letters and a character outside the Basic Multilingual Plane. A value that is not a string is an error, not
// a silent conversion.
func TestMetadataRoundTrip(t *testing.T) {
	pool := newPool(t)
	schema := uniqueSchema(t, pool, "hrt")
	db, _ := openDB(t, postgres.Options{Dimensions: 4, Schema: schema})
	s, _ := db.Tenant("acme")
	ctx := testCtx(t)
	meta := map[string]string{
		"crop":         "Soja",
		`a "quoted" k`: `back\slash "and" quotes`,
		"ação":         "linha 1\nlinha 2\ttab \u0001 \u00e9 \U0001F331",
		"empty":        "",
		"/slash":       "</script>&<>",
	}
	item := storage.CatalogItem{ID: "i1", Name: "Fungicida", Metadata: meta}
	doc := storage.Document{ID: "d1", Title: "Manual", Content: "texto", Metadata: meta}
	item2 := storage.CatalogItem{ID: "i2", Name: "Fungicida sem metadados"}
	chunk := storage.Chunk{Source: storage.SourceItem, Content: "fungicida", Embedding: []float32{1, 0, 0, 0}, Metadata: meta}
	if err := s.Apply(ctx, storage.Batch{Items: []storage.CatalogItem{item, item2}, Documents: []storage.Document{doc},
		Chunks: []storage.OwnerChunks{{Owner: storage.OwnerRef{Kind: storage.KindItem, ID: "i1"}, Chunks: []storage.Chunk{chunk}}}}); err != nil {
		t.Fatal(err)
	}
	check := func(what string, got map[string]string) {
		t.Helper()
		if d := cmp.Diff(meta, got); d != "" {
			t.Errorf("%s metadata (-want +got):\n%s", what, d)
		}
	}
	it, err := s.Items().Get(ctx, "i1")
	must(t, err)
	check("Get", it.Metadata)
	its, err := s.Items().GetMany(ctx, []string{"i1", "i2"})
	must(t, err)
	check("GetMany", its[0].Metadata)
	if its[1].Metadata != nil {
		t.Errorf("GetMany: item without metadata has %v, want nil", its[1].Metadata)
	}
	d, err := s.Documents().Get(ctx, "d1")
	must(t, err)
	check("document Get", d.Metadata)
	cands, err := s.Items().Search(ctx, storage.LexicalQuery{Terms: []string{"fungicida"}})
	must(t, err)
	if len(cands) != 2 {
		t.Fatalf("Search: %d candidates, want 2", len(cands))
	}
	for _, c := range cands {
		if c.Record.ID == "i1" {
			check("Search", c.Record.Metadata)
		}
	}
	q := storage.VectorQuery{Kind: storage.KindItem, Vector: []float32{1, 0, 0, 0}, MaxDistance: storage.NoThreshold}
	ms, err := s.SearchChunks(ctx, q)
	must(t, err)
	check("SearchChunks", ms[0].Chunk.Metadata)
	cs, err := s.Chunks(ctx, storage.OwnerRef{Kind: storage.KindItem, ID: "i1"})
	must(t, err)
	check("Chunks", cs[0].Metadata)

	// Written by hand, not through the store: a number is not a string.
	tb := pgx.Identifier{schema, "items"}.Sanitize()
	if _, err := pool.Exec(ctx, "UPDATE "+tb+` SET metadata = '{"crop": 5}' WHERE tenant_id = 'acme' AND id = 'i1'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Items().Get(ctx, "i1"); err == nil || errors.Is(err, storage.ErrNotFound) || !strings.Contains(err.Error(), "not a string") {
		t.Errorf("Get of an item whose metadata holds a number: err = %v, want a decoding error", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
