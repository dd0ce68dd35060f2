package memory_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
)

const dims = 4

// fill writes a small data set into two tenants of db and creates a third,
// empty one.
func fill(t *testing.T, db *memory.DB) {
	t.Helper()
	ctx := context.Background()
	for i, id := range []string{"acme", "globex"} {
		st, err := db.Tenant(id)
		if err != nil {
			t.Fatal(err)
		}
		price := 10.5 * float64(i+1)
		err = st.Apply(ctx, storage.Batch{
			Items: []storage.CatalogItem{
				{ID: "p1", Name: "Fungicida " + id, Tags: []string{"soja"}, Price: &price, Metadata: map[string]string{"crop": "soja"},
					Files: []storage.CatalogFile{{Name: "bula.txt", Text: "ferrugem"}}},
				{ID: "p2", Name: "Inativo", Status: storage.StatusInactive, CreatedAt: time.Date(2020, 1, 2, 3, 4, 5, 6000, time.UTC)},
			},
			FAQs: []storage.FAQ{
				{ID: "f1", Question: "Prazo?", Answer: "5 dias", Keywords: []string{"entrega"}, Priority: 2},
				{ID: "f2", Question: "Prazo antigo?", Answer: "10 dias", Status: storage.StatusInactive},
			},
			Documents: []storage.Document{
				{ID: "d1", Title: "Manual", Content: "texto " + id, Metadata: map[string]string{"lang": "pt"}},
				{ID: "d2", Title: "Manual antigo", Content: "velho " + id, Status: storage.StatusInactive},
			},
			Chunks: []storage.OwnerChunks{
				{Owner: storage.OwnerRef{Kind: storage.KindItem, ID: "p1"}, Chunks: []storage.Chunk{
					{Source: storage.SourceItem, Content: "p1", Embedding: []float32{1, 0, 0, 0}, Metadata: map[string]string{"k": "v"}},
					{Source: storage.SourceFile, Seq: 1, Content: "bula"},
				}},
				{Owner: storage.OwnerRef{Kind: storage.KindFAQ, ID: "f1"}, Chunks: []storage.Chunk{
					{Source: storage.SourceQuestion, Content: "q", Embedding: []float32{0, 0.5, -0.25, float32(i)}},
				}},
				{Owner: storage.OwnerRef{Kind: storage.KindDocument, ID: "d1"}, Chunks: []storage.Chunk{
					{Source: storage.SourceDoc, Content: "d", Embedding: []float32{0, 0, 1, 0},
						Start: 42, HeadingPath: []string{"Manual", "Dose"}, File: "manual.md", Metadata: map[string]string{"lang": "pt"}},
				}},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Tenant("empty"); err != nil {
		t.Fatal(err)
	}
}

// dump reads everything a tenant holds through the public API.
type dump struct {
	Items  []storage.CatalogItem
	FAQs   []storage.FAQ
	Docs   []storage.Document
	Chunks [][]storage.Chunk
	Counts storage.Counts
	Hits   []storage.ChunkMatch
	// DocHits are the document chunks nearest (0, 0, 1, 0).
	DocHits []storage.ChunkMatch
}

func dumpTenant(t *testing.T, db *memory.DB, id string) dump {
	t.Helper()
	ctx := context.Background()
	st, err := db.Tenant(id)
	if err != nil {
		t.Fatal(err)
	}
	var d dump
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	d.Items, err = st.Items().List(ctx, storage.Page{Limit: 100})
	must(err)
	d.FAQs, err = st.FAQs().List(ctx, storage.Page{Limit: 100})
	must(err)
	d.Docs, err = st.Documents().List(ctx, storage.Page{Limit: 100})
	must(err)
	for _, ref := range []storage.OwnerRef{{Kind: storage.KindItem, ID: "p1"}, {Kind: storage.KindFAQ, ID: "f1"}, {Kind: storage.KindDocument, ID: "d1"}} {
		cs, err := st.Chunks(ctx, ref)
		must(err)
		d.Chunks = append(d.Chunks, cs)
	}
	d.Counts, err = st.Counts(ctx)
	must(err)
	d.Hits, err = st.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindItem, Vector: []float32{1, 0, 0, 0}, MaxDistance: storage.NoThreshold})
	must(err)
	d.DocHits, err = st.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindDocument, Vector: []float32{0, 0, 1, 0}, MaxDistance: storage.NoThreshold})
	must(err)
	return d
}

func TestSaveLoadRoundTrip(t *testing.T) {
	db := memory.New(memory.Options{Dimensions: dims})
	fill(t, db)
	var buf bytes.Buffer
	if err := db.Save(&buf); err != nil {
		t.Fatal(err)
	}
	for _, opts := range []memory.Options{{}, {Dimensions: dims}} {
		got, err := memory.Load(bytes.NewReader(buf.Bytes()), opts)
		if err != nil {
			t.Fatalf("Load(%+v): %v", opts, err)
		}
		if got.Dimensions() != dims {
			t.Errorf("Dimensions = %d, want %d", got.Dimensions(), dims)
		}
		if d := cmp.Diff([]string{"acme", "globex"}, got.Tenants()); d != "" {
			t.Errorf("Tenants (-want +got):\n%s", d)
		}
		for _, id := range []string{"acme", "globex"} {
			if d := cmp.Diff(dumpTenant(t, db, id), dumpTenant(t, got, id), cmpopts.EquateEmpty()); d != "" {
				t.Errorf("tenant %s after Load (-saved +loaded):\n%s", id, d)
			}
		}
		// The loaded DB is fully functional: lexical index and hash index.
		st, _ := got.Tenant("acme")
		hits, err := st.Items().Search(context.Background(), storage.LexicalQuery{Terms: []string{"ferrugem"}})
		if err != nil || len(hits) != 1 {
			t.Errorf("lexical search after Load: %v, %v", hits, err)
		}
		if _, err := st.Documents().ByHash(context.Background(), storage.ContentHash("texto acme")); err != nil {
			t.Errorf("DocumentByHash after Load: %v", err)
		}
	}
	// Saving is deterministic.
	var again bytes.Buffer
	if err := db.Save(&again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("two saves of the same data differ")
	}
}

func TestLoadErrors(t *testing.T) {
	db := memory.New(memory.Options{Dimensions: dims})
	fill(t, db)
	var buf bytes.Buffer
	if err := db.Save(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	mutate := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	tests := []struct {
		name string
		in   []byte
		opts memory.Options
		want error
	}{
		{"empty", nil, memory.Options{}, memory.ErrCorruptSnapshot},
		{"not a snapshot", []byte("id,name\n1,x\n"), memory.Options{}, memory.ErrCorruptSnapshot},
		{"newer version", mutate(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], 3); return b }), memory.Options{}, memory.ErrSnapshotVersion},
		{"version 0", mutate(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], 0); return b }), memory.Options{}, memory.ErrSnapshotVersion},
		{"dimensions", good, memory.Options{Dimensions: 1536}, storage.ErrDimensionMismatch},
		{"truncated", good[:len(good)/2], memory.Options{}, memory.ErrCorruptSnapshot},
		{"no trailer", good[:len(good)-8], memory.Options{}, memory.ErrCorruptSnapshot},
		{"trailing bytes", append(bytes.Clone(good), 0), memory.Options{}, memory.ErrCorruptSnapshot},
		{"two snapshots", append(bytes.Clone(good), good...), memory.Options{}, memory.ErrCorruptSnapshot},
		{"flipped byte", mutate(func(b []byte) []byte {
			// Flip a bit inside the first embedding (1.0 = 00 00 80 3f).
			i := bytes.Index(b, []byte{0, 0, 0x80, 0x3f})
			if i < 0 {
				t.Fatal("embedding bytes not found")
			}
			b[i+2] ^= 1
			return b
		}), memory.Options{}, memory.ErrCorruptSnapshot},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := memory.Load(bytes.NewReader(tc.in), tc.opts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	// Every truncation fails cleanly (no panic, typed error).
	for n := 0; n < len(good); n += 7 {
		if _, err := memory.Load(bytes.NewReader(good[:n]), memory.Options{}); !errors.Is(err, memory.ErrCorruptSnapshot) {
			t.Fatalf("truncated to %d bytes: err = %v", n, err)
		}
	}
}

// TestLoadVersion1 loads testdata/v1.snap, written by the version 1 code
// (before FAQs and documents had a Status and chunks their typed fields):
// the inactive FAQ stays inactive, documents are active, and the chunk
// metadata keys rag's indexer used then ("start", "heading_path", "file")
// become Start, HeadingPath and File.
func TestLoadVersion1(t *testing.T) {
	ctx := context.Background()
	db, err := memory.LoadFile(filepath.Join("testdata", "v1.snap"), memory.Options{Dimensions: dims})
	if err != nil {
		t.Fatal(err)
	}
	st, err := db.Tenant("acme")
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	faqs, err := st.FAQs().List(ctx, storage.Page{})
	if err != nil {
		t.Fatal(err)
	}
	wantFAQs := []storage.FAQ{
		{ID: "f1", Question: "Qual o prazo de entrega?", Answer: "5 dias", Keywords: []string{"entrega"}, Priority: 2,
			Status: storage.StatusActive, CreatedAt: created, UpdatedAt: created},
		{ID: "f2", Question: "Qual o prazo antigo?", Answer: "10 dias", Status: storage.StatusInactive, CreatedAt: created, UpdatedAt: created},
	}
	if d := cmp.Diff(wantFAQs, faqs, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("FAQs (-want +got):\n%s", d)
	}
	doc, err := st.Documents().Get(ctx, "d1")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Status != storage.StatusActive {
		t.Errorf("document status %q, want active", doc.Status)
	}
	hits, err := st.FAQs().Search(ctx, storage.LexicalQuery{Terms: []string{"prazo"}})
	if err != nil || len(hits) != 1 || hits[0].Record.ID != "f1" {
		t.Errorf("SearchFAQs(prazo) = %+v, %v; want f1 alone", hits, err)
	}
	vhits, err := st.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindFAQ, Vector: []float32{0, 1, 0, 0}, MaxDistance: storage.NoThreshold})
	if err != nil || len(vhits) != 1 || vhits[0].Chunk.Owner.ID != "f1" {
		t.Errorf("FAQ vector hits = %+v, %v; want f1 alone", vhits, err)
	}

	// Where each chunk came from, the rest ignored.
	where := cmp.Options{cmpopts.EquateEmpty(), cmpopts.IgnoreFields(storage.Chunk{}, "Owner", "Content", "ContentHash", "Embedding")}
	for _, tc := range []struct {
		owner storage.OwnerRef
		want  []storage.Chunk
	}{
		{storage.OwnerRef{Kind: storage.KindItem, ID: "p1"}, []storage.Chunk{
			{Source: storage.SourceFile, File: "bula.txt"},
			{Source: storage.SourceItem},
		}},
		{storage.OwnerRef{Kind: storage.KindDocument, ID: "d1"}, []storage.Chunk{
			{Source: storage.SourceDoc, Start: 7, HeadingPath: []string{"Manual", "Aplicação", "Dose"}, Metadata: map[string]string{"lang": "pt"}},
			{Source: storage.SourceDoc, Seq: 1, Metadata: map[string]string{"start": "not a number"}},
		}},
	} {
		got, err := st.Chunks(ctx, tc.owner)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, got, where); d != "" {
			t.Errorf("%s chunks (-want +got):\n%s", tc.owner.Kind, d)
		}
	}
	dh, err := st.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindDocument, Vector: []float32{0, 0, 1, 0}, Limit: 1, MaxDistance: storage.NoThreshold})
	if err != nil || len(dh) != 1 || dh[0].Chunk.Start != 7 || len(dh[0].Chunk.HeadingPath) != 3 {
		t.Errorf("document vector hit = %+v, %v; want the typed fields", dh, err)
	}

	// Saved again, it is a version 2 snapshot holding the same data.
	var buf bytes.Buffer
	if err := db.Save(&buf); err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(buf.Bytes()[8:]); v != 2 {
		t.Errorf("saved version %d, want 2", v)
	}
	again, err := memory.Load(&buf, memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(dumpTenant(t, db, "acme"), dumpTenant(t, again, "acme"), cmpopts.EquateEmpty()); d != "" {
		t.Errorf("after saving and loading again (-v1 +v2):\n%s", d)
	}
}

func TestSaveFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "store.hrag")
	db := memory.New(memory.Options{Dimensions: dims})
	fill(t, db)
	if err := db.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	// Overwrite with newer data, atomically.
	st, _ := db.Tenant("acme")
	if err := st.Items().Delete(context.Background(), "p1"); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("directory holds %v, want only the snapshot", entries)
	}
	got, err := memory.LoadFile(path, memory.Options{Dimensions: dims})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(dumpTenant(t, db, "acme"), dumpTenant(t, got, "acme"), cmpopts.EquateEmpty()); d != "" {
		t.Errorf("after LoadFile (-saved +loaded):\n%s", d)
	}
	if err := db.SaveFile(filepath.Join(dir, "missing", "x")); err == nil {
		t.Error("SaveFile into a missing directory: no error")
	}
	if _, err := memory.LoadFile(filepath.Join(dir, "nope"), memory.Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadFile of a missing file: %v", err)
	}
}

// TestLongIDErrorIsShort: a 1 MiB ID does not make a 1 MB error (issue 16).
func TestLongIDErrorIsShort(t *testing.T) {
	st, err := memory.New(memory.Options{Dimensions: dims}).Tenant("t")
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Items().Get(context.Background(), strings.Repeat("x", 1<<20))
	if err == nil || len(err.Error()) > 300 {
		t.Fatalf("error of %d bytes: %.120s", len(err.Error()), err)
	}
}
