package postgres_test

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/postgres"
)

// TestBulkLoad: records written between BeginBulkLoad and EndBulkLoad
// (inserts, updates and deletes, two tenants, items and a FAQ) and during
// EndBulkLoad are searchable exactly as in the memory store once it has
// rebuilt the word index; the HNSW indexes are back; writes after it are
// indexed by the triggers again; words that only records loaded without
// Apply hold (removed from the dictionaries before EndBulkLoad, as a COPY
// leaves them) are found; and EndBulkLoad without a BeginBulkLoad changes
// no result.
func TestBulkLoad(t *testing.T) {
	db, pool := openDB(t, postgres.Options{Dimensions: 4})
	ctx := testCtx(t)
	lp := newLexPair(t, db, "bulk", 15, 2)
	pg, other, mem, c, base, write := lp.pg, lp.other, lp.mem, lp.c, lp.base, lp.write
	batch := func(n int) storage.Batch {
		var b storage.Batch
		for range n {
			id := fmt.Sprintf("it-%02d", c.rng.IntN(80))
			if c.rng.IntN(6) == 0 {
				b.Deletes = append(b.Deletes, storage.OwnerRef{Kind: storage.KindItem, ID: id})
			} else {
				b.Items = append(b.Items, c.item(id, base))
			}
		}
		return b
	}
	same := func(when string) { t.Helper(); lp.same(when, 60) }
	hnswIndexes := func() int {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE '%_embedding_hnsw'`,
			db.Options().Schema).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	for range 4 {
		write(batch(10))
		if err := other.Apply(ctx, batch(5)); err != nil {
			t.Fatal(err)
		}
	}
	same("before the bulk load")
	if err := db.BeginBulkLoad(ctx); err != nil {
		t.Fatal(err)
	}
	if n := hnswIndexes(); n != 0 {
		t.Errorf("%d HNSW indexes during the bulk load, want them dropped", n)
	}
	// A word only written during the load is not found yet: the word index
	// is not maintained (the degraded state BeginBulkLoad documents).
	fresh := c.item("it-new", base)
	fresh.Name = "zzbulkword " + fresh.Name
	write(storage.Batch{Items: []storage.CatalogItem{fresh}})
	if got := lexHits(t, pg, storage.LexicalQuery{Terms: []string{"zzbulkword"}, Limit: 5}); len(got) != 0 {
		t.Errorf("found %v during the bulk load: the word index is still maintained", got)
	}
	for range 6 {
		write(batch(12))
		if err := other.Apply(ctx, batch(5)); err != nil {
			t.Fatal(err)
		}
	}
	faq := storage.FAQ{ID: "faq-bulk", Question: "zzbulkfaq pergunta", Answer: "resposta"}
	if err := pg.Apply(ctx, storage.Batch{FAQs: []storage.FAQ{faq}}); err != nil {
		t.Fatal(err)
	}
	// A load by COPY or SQL adds no dictionary words (Apply adds them
	// before its transaction): the words that only records written during
	// the load hold leave the dictionaries, and EndBulkLoad must add them
	// back with their postings.
	var dropped int64
	for _, kind := range []string{"item", "faq", "document"} {
		for _, dict := range []string{kind + "_words", kind + "_tokens"} {
			tag, err := pool.Exec(ctx, fmt.Sprintf(`DELETE FROM %[1]s.%[2]s w WHERE NOT EXISTS
				(SELECT 1 FROM %[1]s.%[3]s_postings p WHERE p.tenant_id = w.tenant_id AND p.word_id = w.id)`,
				pgx.Identifier{db.Options().Schema}.Sanitize(), dict, kind))
			if err != nil {
				t.Fatal(err)
			}
			dropped += tag.RowsAffected()
		}
	}
	if dropped == 0 {
		t.Fatal("no dictionary word written during the load only (zzbulkword is one)")
	}
	// Writers go on while EndBulkLoad runs: their writes wait for the
	// rebuild and are indexed by the triggers after it, none is lost
	// between the postings' snapshot and the triggers' return.
	stop := make(chan struct{})
	werr := make(chan error, 1)
	go func() {
		defer close(werr)
		for {
			select {
			case <-stop:
				return
			default:
			}
			b := batch(3)
			if err := mem.Apply(ctx, b); err != nil {
				werr <- err
				return
			}
			if err := pg.Apply(ctx, b); err != nil {
				werr <- err
				return
			}
		}
	}()
	var steps []string
	err := db.EndBulkLoad(ctx, postgres.BulkLoadOptions{MaintenanceWorkMemKB: 65536, ParallelWorkers: -1,
		Progress: func(step string, _ time.Duration) { steps = append(steps, step) }})
	close(stop)
	if werr := <-werr; werr != nil {
		t.Fatal(werr)
	}
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"item_postings", "faq_postings", "document_postings", "item_chunks_embedding_hnsw",
		"faq_chunks_embedding_hnsw", "document_chunks_embedding_hnsw", "vacuum"}; !cmp.Equal(steps, want) {
		t.Errorf("progress steps %v, want %v", steps, want)
	}
	if n := hnswIndexes(); n != 3 {
		t.Errorf("%d HNSW indexes after the bulk load, want 3", n)
	}
	checkVacuumed(t, pool, db.Options().Schema)
	same("after EndBulkLoad")
	if got := lexHits(t, pg, storage.LexicalQuery{Terms: []string{"zzbulkword"}, Limit: 5}); len(got) != 1 {
		t.Errorf("zzbulkword: %v after EndBulkLoad, want it-new", got)
	}
	if got, err := pg.FAQs().Search(ctx, storage.LexicalQuery{Terms: []string{"zzbulkfaq"}, Limit: 5}); err != nil || len(got) != 1 {
		t.Errorf("zzbulkfaq: %d FAQs after EndBulkLoad (%v), want faq-bulk", len(got), err)
	}
	// The triggers are back: later writes are indexed as they happen.
	for range 3 {
		write(batch(10))
	}
	same("writes after EndBulkLoad")
	// EndBulkLoad is safe on a store that is not loading.
	if err := db.EndBulkLoad(ctx, postgres.BulkLoadOptions{}); err != nil {
		t.Fatal(err)
	}
	same("a second EndBulkLoad")
}

// TestBulkLoadOneConnection: with a pool of one connection, EndBulkLoad
// builds the HNSW indexes after the word index instead of beside it (a
// second connection would wait for the first forever) and the load ends
// searchable.
func TestBulkLoadOneConnection(t *testing.T) {
	big := newPool(t)
	cfg := big.Config()
	cfg.MaxConns = 1
	ctx := testCtx(t)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	db := postgres.New(pool, postgres.Options{Dimensions: 4, Schema: uniqueSchema(t, big, "hrt_bulk1")})
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := db.Tenant("one")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.BeginBulkLoad(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, storage.Batch{Items: []storage.CatalogItem{{ID: "a", Name: "Dose 2 l/ha"}}}); err != nil {
		t.Fatal(err)
	}
	var steps []string
	if err := db.EndBulkLoad(ctx, postgres.BulkLoadOptions{Progress: func(step string, _ time.Duration) { steps = append(steps, step) }}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"item_postings", "faq_postings", "document_postings", "item_chunks_embedding_hnsw",
		"faq_chunks_embedding_hnsw", "document_chunks_embedding_hnsw", "vacuum"}; !cmp.Equal(steps, want) {
		t.Errorf("progress steps %v, want %v", steps, want)
	}
	if got := lexHits(t, s, storage.LexicalQuery{Terms: []string{"l/ha"}}); !cmp.Equal(got, []lexHit{{"a", 1}}) {
		t.Errorf("l/ha after EndBulkLoad: %v, want a", got)
	}
	checkVacuumed(t, big, db.Options().Schema)
}

// checkVacuumed fails t unless EndBulkLoad vacuumed and analyzed every
// table it loads or rebuilds in schema (two at a time on a pool of two
// connections or more, one at a time on one).
func checkVacuumed(t *testing.T, pool *pgxpool.Pool, schema string) {
	t.Helper()
	var want []string
	for _, kind := range []string{"item", "faq", "document"} {
		owner := kind + "s"
		want = append(want, owner, kind+"_chunks", kind+"_chunk_meta", kind+"_words", kind+"_tokens", kind+"_postings")
	}
	want = append(want, "item_files")
	rows, err := pool.Query(testCtx(t), `SELECT relname::text FROM pg_stat_user_tables
		WHERE schemaname = $1 AND last_vacuum IS NOT NULL AND last_analyze IS NOT NULL`, schema)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	sort.Strings(want)
	if !cmp.Equal(got, want) {
		t.Errorf("tables vacuumed and analyzed by EndBulkLoad: %v, want %v", got, want)
	}
}
