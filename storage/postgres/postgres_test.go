package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/pgvector/pgvector-go"

	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/postgres"
)

func TestMigrate(t *testing.T) {
	pool := newPool(t)
	schema := uniqueSchema(t, pool, "hrt_mig")
	ctx := testCtx(t)

	t.Run("concurrent first run", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make([]error, 3)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = postgres.New(pool, postgres.Options{Schema: schema, Dimensions: 8}).Migrate(ctx)
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("Migrate #%d: %v", i, err)
			}
		}
	})
	t.Run("idempotent", func(t *testing.T) {
		db := postgres.New(pool, postgres.Options{Schema: schema, Dimensions: 8})
		for i := range 2 {
			if err := db.Migrate(ctx); err != nil {
				t.Fatalf("Migrate #%d: %v", i, err)
			}
		}
		var n, distinct int
		if err := pool.QueryRow(ctx, "SELECT count(*), count(DISTINCT version) FROM "+schema+".schema_migrations").Scan(&n, &distinct); err != nil {
			t.Fatal(err)
		}
		if n == 0 || n != distinct {
			t.Errorf("schema_migrations has %d rows, %d distinct versions; want each migration once", n, distinct)
		}
	})
	t.Run("creates HNSW and word indexes", func(t *testing.T) {
		rows, err := pool.Query(ctx, "SELECT indexname FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname", schema)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for rows.Next() {
			var n string
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
			names = append(names, n)
		}
		for _, want := range []string{"item_chunks_embedding_hnsw", "faq_chunks_embedding_hnsw", "document_chunks_embedding_hnsw",
			"item_words_trgm", "faq_words_trgm", "document_words_trgm",
			"item_postings_key", "faq_postings_key", "document_postings_key"} {
			if !slices.Contains(names, want) {
				t.Errorf("index %s missing; have %v", want, names)
			}
		}
		// Migration 0003 dropped the trigram indexes on search_text.
		for _, gone := range []string{"items_search_trgm", "faqs_search_trgm", "documents_search_trgm"} {
			if slices.Contains(names, gone) {
				t.Errorf("index %s still exists", gone)
			}
		}
		var storage string
		if err := pool.QueryRow(ctx, `SELECT a.attstorage::text FROM pg_attribute a
			WHERE a.attrelid = $1::regclass AND a.attname = 'embedding'`, schema+".item_chunks").Scan(&storage); err != nil {
			t.Fatal(err)
		}
		if storage != "p" {
			t.Errorf("embedding storage = %q, want p (PLAIN)", storage)
		}
	})
}

// TestMigrateUpgrade fills a schema as version 0001 left it (no document
// active flag; chunk positions, heading paths and file names in metadata,
// as rag's indexer wrote them) and checks that Migrate upgrades it: FAQ
// statuses kept, documents active, the legacy metadata keys moved into the
// typed chunk fields.
func TestMigrateUpgrade(t *testing.T) {
	pool := newPool(t)
	schema := uniqueSchema(t, pool, "hrt_upg")
	ctx := testCtx(t)
	db := postgres.New(pool, postgres.Options{Schema: schema, Dimensions: 4})
	if err := postgres.MigrateTo(ctx, db, 1); err != nil {
		t.Fatal(err)
	}
	if err := db.Check(ctx); !errors.Is(err, storage.ErrSchemaMismatch) {
		t.Fatalf("Check of a 0001 schema = %v, want ErrSchemaMismatch", err)
	}

	created := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	for _, f := range []storage.FAQ{
		{ID: "f1", Question: "Qual o prazo?", Answer: "5 dias"},
		{ID: "f2", Question: "Qual o prazo antigo?", Answer: "10 dias", Status: storage.StatusInactive},
	} {
		exec(`INSERT INTO `+schema+`.faqs (tenant_id, id, question, answer, category, keywords, priority, active,
			search_text, category_norm, created_at, updated_at) VALUES ('t', $1, $2, $3, '', '{}', 0, $4, $5, '', $6, $6)`,
			f.ID, f.Question, f.Answer, f.Status.Active(), storage.FAQSearchText(&f), created)
		exec(`INSERT INTO `+schema+`.faq_chunks (tenant_id, owner_id, source, seq, content, content_hash, embedding, metadata)
			VALUES ('t', $1, 'question', 0, $2, $3, $4, '{}')`,
			f.ID, f.Question, storage.ContentHash(f.Question), pgvector.NewVector([]float32{0, 1, 0, 0}))
	}
	doc := storage.Document{ID: "d1", Title: "Manual", Content: "Manual de aplicação"}
	exec(`INSERT INTO `+schema+`.documents (tenant_id, id, source, title, content, content_hash, metadata, search_text,
		source_norm, metadata_norm, created_at, updated_at) VALUES ('t', $1, '', $2, $3, $4, '{}', $5, '', '{}', $6, $6)`,
		doc.ID, doc.Title, doc.Content, storage.ContentHash(doc.Content), storage.DocumentSearchText(&doc), created)
	for i, md := range []map[string]string{
		{"start": "7", "heading_path": "Manual › Aplicação › Dose", "lang": "pt"},
		{"start": "not a number", "heading_path": ""},
	} {
		exec(`INSERT INTO `+schema+`.document_chunks (tenant_id, owner_id, source, seq, content, content_hash, embedding, metadata)
			VALUES ('t', 'd1', 'doc', $1, 'x', $2, $3, $4)`, i, storage.ContentHash("x"), pgvector.NewVector([]float32{0, 0, 1, 0}), md)
	}
	exec(`INSERT INTO ` + schema + `.items (tenant_id, id, name, description, category, manufacturer, tags, active, metadata,
		search_text, category_norm, manufacturer_norm, tags_norm, metadata_norm, created_at, updated_at)
		VALUES ('t', 'i1', 'Fungicida', '', '', '', '{}', true, '{}', 'fungicida', '', '', '{}', '{}', now(), now())`)
	exec(`INSERT INTO `+schema+`.item_chunks (tenant_id, owner_id, source, seq, content, content_hash, metadata)
		VALUES ('t', 'i1', 'file', 0, 'bula', $1, '{"start": "12", "file": "bula.txt"}')`, storage.ContentHash("bula"))

	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("Migrate from 0001: %v", err)
	}
	s, err := db.Tenant("t")
	if err != nil {
		t.Fatal(err)
	}
	faqs, err := s.FAQs().List(ctx, storage.Page{})
	if err != nil {
		t.Fatal(err)
	}
	if len(faqs) != 2 || faqs[0].Status != storage.StatusActive || faqs[1].Status != storage.StatusInactive {
		t.Errorf("FAQs after upgrade = %+v, want f1 active, f2 inactive", faqs)
	}
	got, err := s.Documents().Get(ctx, "d1")
	if err != nil || got.Status != storage.StatusActive {
		t.Errorf("document after upgrade = %+v, %v; want active", got, err)
	}
	hits, err := s.Documents().Search(ctx, storage.LexicalQuery{Terms: []string{"aplicacao"}})
	if err != nil || len(hits) != 1 {
		t.Errorf("SearchDocuments after upgrade = %+v, %v; want d1", hits, err)
	}
	fh, err := s.FAQs().Search(ctx, storage.LexicalQuery{Terms: []string{"prazo"}})
	if err != nil || len(fh) != 1 || fh[0].Record.ID != "f1" {
		t.Errorf("SearchFAQs after upgrade = %+v, %v; want f1 alone", fh, err)
	}

	// Only where a chunk came from is compared.
	where := cmp.Options{cmpopts.EquateEmpty(), cmpopts.IgnoreFields(storage.Chunk{}, "Owner", "Source", "Content", "ContentHash", "Embedding")}
	for _, tc := range []struct {
		owner storage.OwnerRef
		want  []storage.Chunk
	}{
		{storage.OwnerRef{Kind: storage.KindDocument, ID: "d1"}, []storage.Chunk{
			{Start: 7, HeadingPath: []string{"Manual", "Aplicação", "Dose"}, Metadata: map[string]string{"lang": "pt"}},
			{Seq: 1, Metadata: map[string]string{"start": "not a number"}},
		}},
		{storage.OwnerRef{Kind: storage.KindItem, ID: "i1"}, []storage.Chunk{{Start: 12, File: "bula.txt"}}},
	} {
		got, err := s.Chunks(ctx, tc.owner)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, got, where); d != "" {
			t.Errorf("%s chunks after upgrade (-want +got):\n%s", tc.owner.Kind, d)
		}
	}
	ms, err := s.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindDocument, Vector: []float32{0, 0, 1, 0}, Limit: 1, MaxDistance: storage.NoThreshold})
	if err != nil || len(ms) != 1 || ms[0].Chunk.Start != 7 || len(ms[0].Chunk.HeadingPath) != 3 {
		t.Errorf("document vector hit after upgrade = %+v, %v", ms, err)
	}
	// Migration 0004 backfilled the normalized metadata chunk filters read.
	for _, tc := range []struct {
		filter storage.ChunkFilter
		seq    int
	}{{storage.ChunkFilter{Key: "lang", Value: "PT"}, 0}, {storage.ChunkFilter{Key: "start", Value: "Not a Number"}, 1}} {
		ms, err := s.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindDocument, Vector: []float32{1, 0, 0, 0}, Limit: 5,
			MaxDistance: storage.NoThreshold, ChunkFilters: []storage.ChunkFilter{tc.filter}})
		if err != nil || len(ms) != 1 || ms[0].Chunk.Seq != tc.seq {
			t.Errorf("SearchChunks with %v after upgrade = %+v, %v; want seq %d", tc.filter, ms, err, tc.seq)
		}
		docs, err := s.Documents().Search(ctx, storage.LexicalQuery{Terms: []string{"manual"}, ChunkFilters: []storage.ChunkFilter{tc.filter}})
		if err != nil || len(docs) != 1 {
			t.Errorf("SearchDocuments with %v after upgrade = %+v, %v; want d1", tc.filter, docs, err)
		}
	}
	fm, err := s.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindFAQ, Vector: []float32{0, 1, 0, 0}, MaxDistance: storage.NoThreshold})
	if err != nil || len(fm) != 1 || fm[0].Chunk.Owner.ID != "f1" {
		t.Errorf("FAQ vector hits after upgrade = %+v, %v; want f1 alone", fm, err)
	}
	var def string
	if err := pool.QueryRow(ctx, "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'documents_recent'", schema).Scan(&def); err != nil {
		t.Fatal(err)
	}
	if want := "WHERE active"; !strings.Contains(def, want) {
		t.Errorf("documents_recent = %s, want a partial index %s", def, want)
	}
}

func TestSchemaMismatch(t *testing.T) {
	pool := newPool(t)
	ctx := testCtx(t)
	schema := uniqueSchema(t, pool, "hrt_dim")
	if err := postgres.New(pool, postgres.Options{Schema: schema, Dimensions: 8}).Migrate(ctx); err != nil {
		t.Fatalf("Migrate vector(8): %v", err)
	}
	db16 := postgres.New(pool, postgres.Options{Schema: schema, Dimensions: 16})
	store, err := db16.Tenant("t1")
	if err != nil {
		t.Fatal(err)
	}
	missing := postgres.New(pool, postgres.Options{Schema: uniqueSchema(t, pool, "hrt_none"), Dimensions: 8})
	missingStore, err := missing.Tenant("t1")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		call func() error
	}{
		{"Migrate with other dims", func() error { return db16.Migrate(ctx) }},
		{"Check with other dims", func() error { return db16.Check(ctx) }},
		{"Ping with other dims", func() error { return db16.Ping(ctx) }},
		{"store read with other dims", func() error { _, err := store.Counts(ctx); return err }},
		{"store write with other dims", func() error {
			return store.Apply(ctx, storage.Batch{Items: []storage.CatalogItem{{ID: "a", Name: "x"}}})
		}},
		{"Check before Migrate", func() error { return missing.Check(ctx) }},
		{"store read before Migrate", func() error { _, err := missingStore.Items().Get(ctx, "a"); return err }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, storage.ErrSchemaMismatch) {
				t.Errorf("err = %v, want ErrSchemaMismatch", err)
			}
		})
	}
	// Nothing was written through the mismatched store.
	db8 := postgres.New(pool, postgres.Options{Schema: schema, Dimensions: 8})
	s8, err := db8.Tenant("t1")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := s8.Counts(ctx); err != nil || c != (storage.Counts{}) {
		t.Errorf("Counts = %+v, %v; want zero", c, err)
	}
}

func TestOptionsValidation(t *testing.T) {
	tests := []struct {
		name string
		opts postgres.Options
	}{
		{"schema with a quote", postgres.Options{Schema: `a"b`}},
		{"schema upper case", postgres.Options{Schema: "Hybrid"}},
		{"negative dimensions", postgres.Options{Dimensions: -1}},
		{"too many dimensions", postgres.Options{Dimensions: 16001}},
		{"ef_search too large", postgres.Options{EfSearch: 5000}},
		{"unknown iterative scan", postgres.Options{IterativeScan: "sometimes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// No pool is needed: the options are rejected before any I/O.
			db := postgres.New(nil, tc.opts)
			if _, err := db.Tenant("t"); err == nil {
				t.Error("Tenant: want an error for invalid options")
			}
			if err := db.Migrate(context.Background()); err == nil {
				t.Error("Migrate: want an error for invalid options")
			}
		})
	}
	t.Run("defaults", func(t *testing.T) {
		o := postgres.New(nil, postgres.Options{}).Options()
		if o.Dimensions != 1536 || o.Schema != "hybridrag" || o.EfSearch != 100 || o.IterativeScan != postgres.IterativeRelaxed {
			t.Errorf("defaults = %+v", o)
		}
	})
	t.Run("invalid tenant", func(t *testing.T) {
		// pgxpool.New parses the DSN and connects lazily: no I/O here.
		pool, err := pgxpool.New(context.Background(), "postgres://nobody@127.0.0.1:1/none")
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		db := postgres.New(pool, postgres.Options{})
		if _, err := db.Tenant(""); !errors.Is(err, storage.ErrInvalidTenant) {
			t.Errorf("Tenant(\"\") err = %v, want ErrInvalidTenant", err)
		}
	})
}

// unit returns v scaled to unit length.
func unit(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	n = math.Sqrt(n)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(float64(x) / n)
	}
	return out
}

// clustered returns n unit vectors of dims around k seeded centroids.
func clustered(rng *rand.Rand, n, dims, k int, spread float64) [][]float32 {
	centroids := make([][]float32, k)
	for i := range centroids {
		c := make([]float32, dims)
		for j := range c {
			c[j] = float32(rng.NormFloat64())
		}
		centroids[i] = unit(c)
	}
	out := make([][]float32, n)
	for i := range out {
		c := centroids[rng.IntN(k)]
		v := make([]float32, dims)
		for j := range v {
			v[j] = c[j] + float32(spread*rng.NormFloat64()/math.Sqrt(float64(dims)))
		}
		out[i] = unit(v)
	}
	return out
}

// seedChunks writes n items, each with one chunk embedded with vecs[i].
func seedChunks(t testing.TB, s storage.Backend, vecs [][]float32, offset, inactiveEvery int) {
	t.Helper()
	ctx := testCtx(t)
	const per = 500
	for start := 0; start < len(vecs); start += per {
		var b storage.Batch
		for i := start; i < min(start+per, len(vecs)); i++ {
			it := storage.CatalogItem{ID: fmt.Sprintf("item-%05d", offset+i), Name: fmt.Sprintf("produto %d", offset+i)}
			if inactiveEvery > 0 && i%inactiveEvery == 0 {
				it.Status = storage.StatusInactive
			}
			b.Items = append(b.Items, it)
			b.Chunks = append(b.Chunks, storage.OwnerChunks{
				Owner:  storage.OwnerRef{Kind: storage.KindItem, ID: it.ID},
				Chunks: []storage.Chunk{{Source: storage.SourceItem, Content: it.Name, Embedding: vecs[i]}},
			})
		}
		if err := s.Apply(ctx, b); err != nil {
			t.Fatalf("Apply: %v", err)
		}
	}
}

func matchIDs(ms []storage.ChunkMatch) []string {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.Chunk.Owner.ID
	}
	return ids
}

// TestHNSWAgainstExact compares HNSW with exact search on clustered data
// shared with other tenants: the iterative scan must still return k rows of
// the right tenant, ordered, with high recall.
func TestHNSWAgainstExact(t *testing.T) {
	const dims = 32
	db, pool := openDB(t, postgres.Options{Dimensions: dims})
	exactDB := postgres.New(pool, postgres.Options{Dimensions: dims, Schema: db.Options().Schema, ExactSearch: true})
	ctx := testCtx(t)
	rng := rand.New(rand.NewPCG(1, 2))
	vecs := clustered(rng, 1200, dims, 20, 0.6)

	// Tenant "big" holds 1080 vectors (every 10th item inactive); tenant
	// "small" holds 120: its rows are a tenth of the index.
	big, _ := db.Tenant("big")
	small, _ := db.Tenant("small")
	seedChunks(t, big, vecs[:1080], 0, 10)
	seedChunks(t, small, vecs[1080:], 1080, 0)
	exactBig, _ := exactDB.Tenant("big")
	exactSmall, _ := exactDB.Tenant("small")

	// Queries are data vectors moved by noise, so they fall in the clusters.
	var queries [][]float32
	for range 30 {
		v := slices.Clone(vecs[rng.IntN(len(vecs))])
		for j := range v {
			v[j] += float32(0.5 * rng.NormFloat64() / math.Sqrt(dims))
		}
		queries = append(queries, unit(v))
	}
	for _, tc := range []struct {
		name         string
		hnsw, exact  storage.Store
		minRecall    float64
		wantInactive bool
	}{
		{"big tenant", big, exactBig, 0.9, false},
		{"small tenant", small, exactSmall, 0.9, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hits, total int
			for _, qv := range queries {
				q := storage.VectorQuery{Kind: storage.KindItem, Vector: qv, Limit: 10, MaxDistance: storage.NoThreshold}
				got, err := tc.hnsw.SearchChunks(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				want, err := tc.exact.SearchChunks(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != 10 || len(want) != 10 {
					t.Fatalf("len(hnsw) = %d, len(exact) = %d, want 10 each", len(got), len(want))
				}
				if !slices.IsSortedFunc(got, func(a, b storage.ChunkMatch) int { return cmpFloat(a.Distance, b.Distance) }) {
					t.Errorf("HNSW results not sorted by distance: %v", got)
				}
				for _, m := range got {
					n := 0
					fmt.Sscanf(m.Chunk.Owner.ID, "item-%d", &n)
					if tc.hnsw == big && n%10 == 0 {
						t.Errorf("inactive item %s returned", m.Chunk.Owner.ID)
					}
					if (tc.hnsw == small) != (n >= 1080) {
						t.Errorf("tenant %s got another tenant's item %s", tc.name, m.Chunk.Owner.ID)
					}
				}
				wantIDs := matchIDs(want)
				for _, id := range matchIDs(got) {
					if slices.Contains(wantIDs, id) {
						hits++
					}
				}
				total += len(want)
			}
			recall := float64(hits) / float64(total)
			t.Logf("recall@10 = %.3f", recall)
			if recall < tc.minRecall {
				t.Errorf("recall@10 = %.3f, want >= %.2f", recall, tc.minRecall)
			}
		})
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestInvalidText(t *testing.T) {
	db, _ := openDB(t, postgres.Options{Dimensions: 4})
	s, _ := db.Tenant("t")
	ctx := testCtx(t)
	tests := []struct {
		name  string
		batch storage.Batch
	}{
		{"NUL in name", storage.Batch{Items: []storage.CatalogItem{{ID: "ok", Name: "fine"}, {ID: "a", Name: "x\x00y"}}}},
		{"invalid UTF-8 in FAQ answer", storage.Batch{FAQs: []storage.FAQ{{ID: "f", Answer: "caf\xe9"}}}},
		{"NUL in metadata", storage.Batch{Documents: []storage.Document{{ID: "d", Metadata: map[string]string{"k": "\x00"}}}}},
		{"NUL in chunk content", storage.Batch{
			Items:  []storage.CatalogItem{{ID: "c"}},
			Chunks: []storage.OwnerChunks{{Owner: storage.OwnerRef{Kind: storage.KindItem, ID: "c"}, Chunks: []storage.Chunk{{Source: "item", Content: "\x00"}}}},
		}},
		{"NUL in chunk heading path", storage.Batch{
			Documents: []storage.Document{{ID: "d"}},
			Chunks:    []storage.OwnerChunks{{Owner: storage.OwnerRef{Kind: storage.KindDocument, ID: "d"}, Chunks: []storage.Chunk{{Source: "doc", HeadingPath: []string{"a", "b\x00"}}}}},
		}},
		{"invalid UTF-8 in chunk file", storage.Batch{
			Items:  []storage.CatalogItem{{ID: "c"}},
			Chunks: []storage.OwnerChunks{{Owner: storage.OwnerRef{Kind: storage.KindItem, ID: "c"}, Chunks: []storage.Chunk{{Source: "file", File: "bula\xff.txt"}}}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Apply(ctx, tc.batch)
			if !errors.Is(err, storage.ErrInvalidRecord) {
				t.Fatalf("Apply err = %v, want ErrInvalidRecord", err)
			}
			if c, err := s.Counts(ctx); err != nil || c != (storage.Counts{}) {
				t.Errorf("Counts = %+v, %v; want nothing written", c, err)
			}
		})
	}
}

func TestContextCancel(t *testing.T) {
	db, _ := openDB(t, postgres.Options{Dimensions: 4})
	s, _ := db.Tenant("t")
	if err := s.Apply(testCtx(t), storage.Batch{Items: []storage.CatalogItem{{ID: "a", Name: "abc"}}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	_, err := s.Items().Search(ctx, storage.LexicalQuery{Terms: []string{"abc"}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("SearchItems err = %v, want context.Canceled", err)
	}
	if err := s.Apply(ctx, storage.Batch{Items: []storage.CatalogItem{{ID: "b"}}}); !errors.Is(err, context.Canceled) {
		t.Errorf("UpsertItems err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancelled calls took %v", d)
	}
}

func TestRoundTripAndSearchSmoke(t *testing.T) {
	db, _ := openDB(t, postgres.Options{Dimensions: 4, AllowedMetadataKeys: []string{"crop"}})
	s, _ := db.Tenant("acme")
	ctx := testCtx(t)
	price := 12.5
	created := time.Date(2024, 3, 1, 12, 0, 0, 123456789, time.UTC)
	item := storage.CatalogItem{
		ID: "i1", Name: "Fungicida Ação Total", Description: "Controle de ferrugem 100%_ garantido",
		Category: "Fungicidas", Manufacturer: "Agro S.A.", Tags: []string{"Soja", "Café"}, Price: &price,
		Status: storage.StatusActive, Metadata: map[string]string{"crop": "Soja"},
		Files:     []storage.CatalogFile{{Name: "bula.txt", Text: "Praga: ferrugem asiática"}},
		CreatedAt: created, UpdatedAt: created,
	}
	before := time.Now().Truncate(time.Microsecond)
	if err := s.Apply(ctx, storage.Batch{Items: []storage.CatalogItem{item}}); err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	got, err := s.Items().Get(ctx, "i1")
	if err != nil {
		t.Fatal(err)
	}
	// UpdatedAt is the write's time, in UTC with microsecond precision.
	if u := got.UpdatedAt; u.Location() != time.UTC || u.Nanosecond()%1000 != 0 || u.Before(before) || u.After(after) {
		t.Errorf("UpdatedAt = %v, want the write's time in UTC, in microseconds (between %v and %v)", u, before, after)
	}
	want := item
	want.CreatedAt = created.Truncate(time.Microsecond)
	want.UpdatedAt = got.UpdatedAt
	want.Files = []storage.CatalogFile{{ItemID: "i1", Name: "bula.txt", Text: "Praga: ferrugem asiática"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("GetItem (-want +got):\n%s", d)
	}
	for _, tc := range []struct {
		terms []string
		want  int
	}{
		{[]string{"ACAO"}, 1},
		{[]string{"asiatica", "soja", "nada"}, 2},
		{[]string{"100%_"}, 1},
		{[]string{"100__"}, 0},
		{[]string{"%"}, 1},
		{[]string{"_"}, 1},
		{[]string{"a_b"}, 0},
		{[]string{"ferrugem%garantido"}, 0},
	} {
		res, err := s.Items().Search(ctx, storage.LexicalQuery{Terms: tc.terms, Filters: []storage.Filter{{Field: storage.FieldMetadata, Key: "crop", Value: "SOJA"}}})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		if len(res) == 1 {
			n = res[0].TermsMatched
		}
		if n != tc.want {
			t.Errorf("terms %q: matched %d, want %d (%d results)", tc.terms, n, tc.want, len(res))
		}
	}
	if err := s.Apply(ctx, storage.Batch{Chunks: []storage.OwnerChunks{{Owner: storage.OwnerRef{Kind: storage.KindItem, ID: "i1"}, Chunks: []storage.Chunk{
		{Source: "item", Seq: 0, Content: "a", Embedding: []float32{1, 0, 0, 0}},
		{Source: "file", Seq: 0, Content: "b", Embedding: []float32{0.5, 0.5, 0, 0}},
		{Source: "file", Seq: 1, Content: "c"},
	}}}}); err != nil {
		t.Fatal(err)
	}
	res, err := s.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindItem, Vector: []float32{1, 0, 0, 0}, MaxDistance: -0.5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Distance != -1 || res[1].Distance != -0.5 || res[0].Chunk.Source != "item" {
		t.Errorf("SearchChunks = %+v", res)
	}
	chunks, err := s.Chunks(ctx, storage.OwnerRef{Kind: storage.KindItem, ID: "i1"})
	if err != nil || len(chunks) != 3 || chunks[1].Embedding != nil || !slices.Equal(chunks[2].Embedding, []float32{1, 0, 0, 0}) {
		t.Errorf("Chunks = %+v, %v", chunks, err)
	}
	c, err := s.Counts(ctx)
	if err != nil || c != (storage.Counts{Items: 1, Chunks: 3, Embedded: 2}) {
		t.Errorf("Counts = %+v, %v", c, err)
	}
	if err := s.Apply(ctx, storage.Batch{Chunks: []storage.OwnerChunks{{Owner: storage.OwnerRef{Kind: storage.KindFAQ, ID: "nope"}, Chunks: nil}}}); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("ReplaceChunks(missing) = %v, want ErrNotFound", err)
	}
	if err := s.Items().Delete(ctx, "i1"); err != nil {
		t.Fatal(err)
	}
	if c, _ := s.Counts(ctx); c != (storage.Counts{}) {
		t.Errorf("after delete Counts = %+v", c)
	}
	_ = strings.ToLower
}

// TestWithoutConfigurePool uses a pool whose connections never registered
// pgvector's types: the store registers them on first use, so vectors still
// round-trip in binary form and COPY works.
func TestWithoutConfigurePool(t *testing.T) {
	ctx := testCtx(t)
	pool, err := pgxpool.New(ctx, testDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close) // after the schema is dropped (cleanups run last first)
	db := postgres.New(pool, postgres.Options{Dimensions: 3, Schema: uniqueSchema(t, pool, "hrt_nocfg")})
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	s, _ := db.Tenant("t")
	owner := storage.OwnerRef{Kind: storage.KindDocument, ID: "d"}
	err = s.Apply(ctx, storage.Batch{
		Documents: []storage.Document{{ID: "d", Title: "t", Content: "c"}},
		Chunks:    []storage.OwnerChunks{{Owner: owner, Chunks: []storage.Chunk{{Source: storage.SourceDoc, Content: "c", Embedding: []float32{0.5, -0.25, 1}}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Chunks(ctx, owner)
	if err != nil || len(got) != 1 || !slices.Equal(got[0].Embedding, []float32{0.5, -0.25, 1}) {
		t.Fatalf("Chunks = %+v, %v", got, err)
	}
	res, err := s.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindDocument, Vector: []float32{1, 0, 0}, MaxDistance: storage.NoThreshold})
	if err != nil || len(res) != 1 || res[0].Distance != -0.5 {
		t.Fatalf("SearchChunks = %+v, %v", res, err)
	}
}
