package postgres_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/pgvector/pgvector-go"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/postgres"
)

// TestChunkMetaMaintained: the narrow chunk metadata tables (migration
// 0007) hold, after every write path, one row per chunk and metadata key
// with the value normalized in Go from the chunk's stored metadata (and
// short set only for values of at most 64 characters), in every tenant
// and kind: inserts, a change of a chunk's metadata, chunks replaced by
// none, deletes of owners (Delete and Apply's Deletes, cascades), a bulk
// load, SQL run by hand, and the migration of a store that holds chunks
// already. A filtered search of one tenant never sees another's chunks.
func TestChunkMetaMaintained(t *testing.T) {
	pool := newPool(t)
	schema := uniqueSchema(t, pool, "hrt_meta")
	ctx := testCtx(t)
	db := postgres.New(pool, postgres.Options{Schema: schema, Dimensions: 4})
	q := pgx.Identifier{schema}.Sanitize()
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := pool.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	kinds := []string{"item", "faq", "document"}
	// want is every chunk's stored metadata, normalized in Go.
	want := func() []string {
		t.Helper()
		var out []string
		for _, k := range kinds {
			rows, err := pool.Query(ctx, "SELECT tenant_id, owner_id, source, seq, metadata FROM "+q+"."+k+"_chunks")
			if err != nil {
				t.Fatal(err)
			}
			var tenant, owner, source string
			var seq int32
			var meta map[string]string
			if _, err := pgx.ForEachRow(rows, []any{&tenant, &owner, &source, &seq, &meta}, func() error {
				for key, v := range meta {
					v = lexical.Normalize(v)
					short := "NULL"
					if utf8.RuneCountInString(v) <= 64 {
						short = v
					}
					out = append(out, fmt.Sprintf("%s %s/%s %s/%d %s=%s (%s)", tenant, k, owner, source, seq, key, v, short))
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		sort.Strings(out)
		return out
	}
	got := func() []string {
		t.Helper()
		var out []string
		for _, k := range kinds {
			rows, err := pool.Query(ctx, "SELECT format('%s %s/%s %s/%s %s=%s (%s)', tenant_id, $1::text, owner_id, source, seq, key, value, coalesce(short, 'NULL')) FROM "+
				q+"."+k+"_chunk_meta", k)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, rs...)
		}
		sort.Strings(out)
		return out
	}
	check := func(step string, rows int) {
		t.Helper()
		w, g := want(), got()
		if d := cmp.Diff(w, g); d != "" {
			t.Fatalf("%s: narrow metadata (-chunks' metadata +chunk_meta):\n%s", step, d)
		}
		if len(g) != rows {
			t.Fatalf("%s: %d rows, want %d:\n%s", step, len(g), rows, strings.Join(g, "\n"))
		}
	}
	long := strings.Repeat("Safra de inverno ", 5) // 85 characters: short is NULL

	// A store of the previous release holding chunks (written by hand:
	// its writers are this package's), then migrated.
	if err := postgres.MigrateTo(ctx, db, 6); err != nil {
		t.Fatal(err)
	}
	for _, tenant := range []string{"m", "n"} {
		exec(`INSERT INTO `+q+`.items (tenant_id, id, name, description, category, manufacturer, tags, active, metadata,
			search_text, category_norm, manufacturer_norm, tags_norm, metadata_norm, created_at, updated_at)
			VALUES ($1, 'old', 'Fungicida', '', '', '', '{}', true, '{}', 'fungicida', '', '', '{}', '{}', now(), now())`, tenant)
		for seq, md := range []map[string]string{{"Lote": "Ção " + tenant, "safra": long}, {}, {"lote": "B"}} {
			var norm any
			if len(md) > 0 {
				n := map[string]string{}
				for k, v := range md {
					n[k] = lexical.Normalize(v)
				}
				norm = n
			}
			exec(`INSERT INTO `+q+`.item_chunks (tenant_id, owner_id, source, seq, content, content_hash, embedding, metadata, metadata_norm)
				VALUES ($1, 'old', 'item', $2, 'fungicida', $3, $4, $5, $6)`, tenant, seq, storage.ContentHash("fungicida"),
				pgvector.NewVector([]float32{1, 0, 0, 0}), md, norm)
		}
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("Migrate from 0006: %v", err)
	}
	check("migration", 6)
	m, err := db.Tenant("m")
	if err != nil {
		t.Fatal(err)
	}
	n, err := db.Tenant("n")
	if err != nil {
		t.Fatal(err)
	}
	filtered := func(s *postgres.Store, f storage.ChunkFilter) []string {
		t.Helper()
		hits, err := s.Items().Search(ctx, storage.LexicalQuery{Terms: []string{"fungicida"}, ChunkFilters: []storage.ChunkFilter{f}})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, h := range hits {
			ids = append(ids, h.Record.ID)
		}
		return ids
	}
	for _, tc := range []struct {
		s    *postgres.Store
		f    storage.ChunkFilter
		want []string
	}{
		{m, storage.ChunkFilter{Key: "Lote", Value: "cao M"}, []string{"old"}},
		{m, storage.ChunkFilter{Key: "Lote", Value: "cao n"}, nil},
		{n, storage.ChunkFilter{Key: "Lote", Value: "CAO N"}, []string{"old"}},
		{m, storage.ChunkFilter{Key: "safra", Value: strings.ToUpper(long)}, []string{"old"}},
		{m, storage.ChunkFilter{Key: "safra", Value: long + "x"}, nil},
		{m, storage.ChunkFilter{Key: "lote", Value: "b"}, []string{"old"}},
	} {
		if got := filtered(tc.s, tc.f); !cmp.Equal(got, tc.want) {
			t.Errorf("after the migration, %v: %v, want %v", tc.f, got, tc.want)
		}
	}

	vec := []float32{0, 1, 0, 0}
	chunk := func(seq int, md map[string]string) storage.Chunk {
		return storage.Chunk{Seq: seq, Content: "x", Embedding: vec, Metadata: md}
	}
	owners := func(kind storage.OwnerKind, id string, source storage.ChunkSource, chunks ...storage.Chunk) storage.OwnerChunks {
		ref := storage.OwnerRef{Kind: kind, ID: id}
		for i := range chunks {
			chunks[i].Source = source
		}
		return storage.OwnerChunks{Owner: ref, Chunks: chunks}
	}
	apply := func(s *postgres.Store, b storage.Batch) {
		t.Helper()
		if err := s.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	all := storage.Batch{
		Items:     []storage.CatalogItem{{ID: "a", Name: "Fungicida a"}, {ID: "b", Name: "Fungicida b"}},
		FAQs:      []storage.FAQ{{ID: "f", Question: "Qual a dose?", Answer: "1 l/ha"}},
		Documents: []storage.Document{{ID: "d", Title: "Bula", Content: "Bula do fungicida"}},
		Chunks: []storage.OwnerChunks{
			owners(storage.KindItem, "a", storage.SourceItem, chunk(0, map[string]string{"lote": "A1", "fase": "2"}), chunk(1, nil)),
			owners(storage.KindItem, "b", storage.SourceFile, chunk(0, map[string]string{"lote": "Ção", "safra": long})),
			owners(storage.KindFAQ, "f", storage.SourceAnswer, chunk(0, map[string]string{"tema": "Dose"})),
			owners(storage.KindDocument, "d", storage.SourceDoc, chunk(0, map[string]string{"artigo": "5"}), chunk(1, map[string]string{"artigo": "6"})),
		},
	}
	apply(m, all)
	apply(n, all)
	check("insert", 6+2*7)

	apply(m, storage.Batch{Chunks: []storage.OwnerChunks{
		owners(storage.KindItem, "a", storage.SourceItem, chunk(0, map[string]string{"lote": "A2"}), chunk(1, map[string]string{"fase": "3"})),
	}})
	check("metadata changed", 6+2*7)
	if got := filtered(m, storage.ChunkFilter{Key: "lote", Value: "a1"}); got != nil {
		t.Errorf("old metadata still found: %v", got)
	}
	if got := filtered(m, storage.ChunkFilter{Key: "lote", Value: "a2"}); !cmp.Equal(got, []string{"a"}) {
		t.Errorf("new metadata: %v, want [a]", got)
	}

	apply(m, storage.Batch{Chunks: []storage.OwnerChunks{{Owner: storage.OwnerRef{Kind: storage.KindDocument, ID: "d"}}}})
	check("chunks replaced by none", 6+2*7-2)
	if err := m.Items().Delete(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	check("Delete", 6+2*7-2-2)
	apply(n, storage.Batch{Deletes: []storage.OwnerRef{{Kind: storage.KindItem, ID: "a"}, {Kind: storage.KindFAQ, ID: "f"}}})
	check("Apply's Deletes", 6+2*7-2-2-3)

	exec(`UPDATE ` + q + `.item_chunks SET metadata = '{"lote": "Manual"}', metadata_norm = '{"lote": "manual"}' WHERE tenant_id = 'm' AND owner_id = 'a' AND seq = 1`)
	check("SQL by hand", 6+2*7-2-2-3)
	exec(`DELETE FROM ` + q + `.items WHERE tenant_id = 'n' AND id = 'old'`)
	check("cascade by hand", 6+2*7-2-2-3-3)

	if err := db.BeginBulkLoad(ctx); err != nil {
		t.Fatal(err)
	}
	apply(n, storage.Batch{
		Items:  []storage.CatalogItem{{ID: "c", Name: "Fungicida c"}},
		Chunks: []storage.OwnerChunks{owners(storage.KindItem, "c", storage.SourceItem, chunk(0, map[string]string{"lote": "C"}))},
	})
	apply(m, storage.Batch{Deletes: []storage.OwnerRef{{Kind: storage.KindItem, ID: "a"}}})
	check("during a bulk load", 6+2*7-2-2-3-3+1-2)
	if err := db.EndBulkLoad(ctx, postgres.BulkLoadOptions{}); err != nil {
		t.Fatal(err)
	}
	check("after a bulk load", 6+2*7-2-2-3-3+1-2)
	if got := filtered(n, storage.ChunkFilter{Key: "lote", Value: "c"}); !cmp.Equal(got, []string{"c"}) {
		t.Errorf("bulk-loaded chunk: %v, want [c]", got)
	}
	if got := filtered(m, storage.ChunkFilter{Key: "lote", Value: "c"}); got != nil {
		t.Errorf("tenant m sees tenant n's chunk: %v", got)
	}
}
