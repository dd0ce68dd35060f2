package postgres_test

import (
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/postgres"
)

// TestWordLookupCache: a lexical search whose terms were looked up before
// (the cached word lookups) still finds what a write added since, through
// the store that wrote it, another store of the tenant and EndBulkLoad's
// rebuild of the word index, and a search of another tenant never uses
// the first tenant's words.
func TestWordLookupCache(t *testing.T) {
	db, pool := openDB(t, postgres.Options{Dimensions: 4})
	ctx := testCtx(t)
	store, err := db.Tenant("t1")
	if err != nil {
		t.Fatal(err)
	}
	other, err := db.Tenant("t2")
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	item := func(id, name string) storage.Batch {
		return storage.Batch{Items: []storage.CatalogItem{{ID: id, Name: name, CreatedAt: base}}}
	}
	ids := func(s storage.Store, terms ...string) []string {
		t.Helper()
		var out []string
		for _, h := range lexHits(t, s, storage.LexicalQuery{Terms: terms, Limit: 10}) {
			out = append(out, h.ID)
		}
		return out
	}
	want := func(got []string, want ...string) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("got %v, want %v", got, want)
			}
		}
	}

	if err := store.Apply(ctx, item("a", "soja milho")); err != nil {
		t.Fatal(err)
	}
	for range 2 { // looked up, then from the cache
		want(ids(store, "zzcache", "soja"), "a")
	}
	if err := store.Apply(ctx, item("b", "zzcache soja")); err != nil {
		t.Fatal(err)
	}
	want(ids(store, "zzcache", "soja"), "b", "a")
	// Another tenant's word is not this tenant's.
	if err := other.Apply(ctx, item("c", "zzother")); err != nil {
		t.Fatal(err)
	}
	want(ids(store, "zzother"))
	want(ids(other, "zzother"), "c")
	// A second Store of the tenant writes; the first one's search sees it.
	again, err := db.Tenant("t1")
	if err != nil {
		t.Fatal(err)
	}
	if err := again.Apply(ctx, item("d", "zzcache zzother")); err != nil {
		t.Fatal(err)
	}
	want(ids(store, "zzother"), "d")
	want(ids(store, "zzcache", "soja"), "b", "a", "d")

	// During a bulk load the word index is not maintained: a word written
	// by hand (not through Apply, which adds its words to the dictionary)
	// is not found, and its empty lookup is cached; EndBulkLoad adds it to
	// the dictionary, with no other write after it.
	if err := db.BeginBulkLoad(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "UPDATE "+pgx.Identifier{db.Options().Schema, "items"}.Sanitize()+
		" SET search_text = search_text || ' zzbulkcache' WHERE tenant_id = 't1' AND id = 'a'"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		want(ids(store, "zzbulkcache"))
	}
	if err := db.EndBulkLoad(ctx, postgres.BulkLoadOptions{}); err != nil {
		t.Fatal(err)
	}
	want(ids(store, "zzbulkcache"), "a")
}
