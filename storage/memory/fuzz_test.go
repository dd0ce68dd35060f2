package memory_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hybridrag/hybridrag/internal/storeutil"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
)

// FuzzLoad feeds memory.Load arbitrary snapshots. Load must return
// ErrCorruptSnapshot or ErrSnapshotVersion, or a DB whose records pass
// storage validation, whose counts, vector search and lexical search
// agree with its listings, and which saves and loads back unchanged.
//
// Random bytes almost never carry a valid CRC-32C trailer, so besides raw
// snapshots (mode 0) the target frames data as the gob body of a version 2
// (mode 1) or version 1 (mode 2) snapshot: magic and version before it,
// and a trailer holding the right checksum after it. The fuzzer then
// reaches the record checks and the loaded DB.
//
//	go test -run '^$' -fuzz '^FuzzLoad$' -fuzztime 60s ./storage/memory
func FuzzLoad(f *testing.F) {
	const fuzzDims = 3
	for _, snap := range fuzzSnapshots(f, fuzzDims) {
		f.Add(snap, uint8(0))
		version, body, ok := snapshotBody(snap)
		if !ok {
			f.Fatalf("seed snapshot without a trailer")
		}
		mode := uint8(1)
		if version == 1 {
			mode = 2
		}
		// The framing works: a seed's body framed again loads.
		if _, err := memory.Load(bytes.NewReader(frameSnapshot(version, body)), memory.Options{}); err != nil {
			f.Fatalf("framed seed (version %d): %v", version, err)
		}
		f.Add(body, mode)
	}
	f.Add([]byte("HRAGMEM\x00\x03\x00\x00\x00"), uint8(0))
	f.Add([]byte("id,name\n1,x\n"), uint8(0))
	f.Add([]byte{}, uint8(1))

	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		snap := data
		switch mode % 3 {
		case 1:
			snap = frameSnapshot(2, data)
		case 2:
			snap = frameSnapshot(1, data)
		}
		db, err := memory.Load(bytes.NewReader(snap), memory.Options{})
		if err != nil {
			if !errors.Is(err, memory.ErrCorruptSnapshot) && !errors.Is(err, memory.ErrSnapshotVersion) {
				t.Fatalf("Load error is neither ErrCorruptSnapshot nor ErrSnapshotVersion: %v", err)
			}
			if errors.Is(err, memory.ErrSnapshotVersion) {
				if v := binary.LittleEndian.Uint32(snap[8:12]); v == 1 || v == 2 {
					t.Fatalf("ErrSnapshotVersion for version %d: %v", v, err)
				}
			}
			if n := len(err.Error()); n > 1024 {
				t.Fatalf("error of %d bytes from a %d-byte snapshot: %.200s", n, len(snap), err)
			}
			return
		}
		if db.Dimensions() <= 0 {
			t.Fatalf("loaded DB has %d dimensions", db.Dimensions())
		}
		before := dumpDB(t, db)
		for _, td := range before {
			checkTenant(t, db, td)
		}

		var buf bytes.Buffer
		if err := db.Save(&buf); err != nil {
			t.Fatalf("Save of a loaded DB: %v", err)
		}
		again, err := memory.Load(bytes.NewReader(buf.Bytes()), memory.Options{})
		if err != nil {
			t.Fatalf("Load of a saved DB: %v", err)
		}
		if again.Dimensions() != db.Dimensions() {
			t.Fatalf("dimensions %d after a round trip, were %d", again.Dimensions(), db.Dimensions())
		}
		if d := cmp.Diff(before, dumpDB(t, again), cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("DB changed through Save and Load (-loaded +reloaded):\n%s", d)
		}
	})
}

// fuzzSnapshots returns the seed snapshots: small DBs saved with Save, and
// testdata/v1.snap.
func fuzzSnapshots(f *testing.F, dims int) [][]byte {
	ctx := context.Background()
	price := 12.5
	created := time.Date(2024, 5, 6, 7, 8, 9, 10, time.UTC)
	batches := map[string]storage.Batch{
		"acme": {
			Items: []storage.CatalogItem{
				{ID: "p1", Name: "Fungicida Cobre", Description: "Controle de ferrugem", Category: "fungicida", Manufacturer: "Acme",
					Tags: []string{"soja", "café"}, Price: &price, Metadata: map[string]string{"crop": "soja", "reg": "123"},
					Files: []storage.CatalogFile{{Name: "bula.txt", Text: "aplicar 2,4-d"}}, CreatedAt: created},
				{ID: "p2", Name: "Inativo", Status: storage.StatusInactive},
			},
			FAQs: []storage.FAQ{
				{ID: "f1", Question: "Prazo?", Answer: "5 dias", Keywords: []string{"entrega"}, Priority: 2},
				{ID: "f2", Question: "Antigo?", Answer: "10 dias", Status: storage.StatusInactive},
			},
			Documents: []storage.Document{
				{ID: "d1", Title: "Manual", Content: "texto do manual", Metadata: map[string]string{"lang": "pt"}},
			},
			Chunks: []storage.OwnerChunks{
				{Owner: storage.OwnerRef{Kind: storage.KindItem, ID: "p1"}, Chunks: []storage.Chunk{
					{Source: storage.SourceItem, Content: "p1", Embedding: []float32{1, 0, 0}, Metadata: map[string]string{"k": "v"}},
					{Source: storage.SourceFile, Seq: 1, Content: "bula", File: "bula.txt", Embedding: []float32{0.5, -0.5, 0}},
					{Source: storage.SourceFile, Seq: 2, Content: "sem vetor"},
				}},
				{Owner: storage.OwnerRef{Kind: storage.KindItem, ID: "p2"}, Chunks: []storage.Chunk{
					{Source: storage.SourceItem, Content: "p2", Embedding: []float32{1, 1, 1}},
				}},
				{Owner: storage.OwnerRef{Kind: storage.KindFAQ, ID: "f1"}, Chunks: []storage.Chunk{
					{Source: storage.SourceQuestion, Content: "q", Embedding: []float32{0, 0.25, -1}},
				}},
				{Owner: storage.OwnerRef{Kind: storage.KindDocument, ID: "d1"}, Chunks: []storage.Chunk{
					{Source: storage.SourceDoc, Content: "d", Embedding: []float32{-2, 0, 1}, Start: 6, HeadingPath: []string{"Manual", "Dose"}},
				}},
			},
		},
		"globex": {
			Documents: []storage.Document{{ID: "d1", Title: "Outro", Content: "outro texto", Status: storage.StatusInactive}},
		},
	}
	var snaps [][]byte
	save := func(db *memory.DB) {
		var buf bytes.Buffer
		if err := db.Save(&buf); err != nil {
			f.Fatal(err)
		}
		snaps = append(snaps, buf.Bytes())
	}
	save(memory.New(memory.Options{Dimensions: dims}))
	db := memory.New(memory.Options{Dimensions: dims})
	for _, tenant := range []string{"acme", "globex"} {
		st, err := db.Tenant(tenant)
		if err != nil {
			f.Fatal(err)
		}
		if err := st.Apply(ctx, batches[tenant]); err != nil {
			f.Fatal(err)
		}
	}
	save(db)
	if v1, err := os.ReadFile(filepath.Join("testdata", "v1.snap")); err == nil {
		snaps = append(snaps, v1)
	}
	return snaps
}

const snapMagic = "HRAGMEM\x00"

// fuzzTrailer has the shape of the snapshot trailer: gob matches fields by
// name, so it encodes as Save's own.
type fuzzTrailer struct {
	CRC uint32
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// frameSnapshot returns a snapshot of the given version holding the gob
// body, with a trailer whose CRC-32C matches.
func frameSnapshot(version uint32, body []byte) []byte {
	out := make([]byte, 0, len(snapMagic)+4+len(body)+32)
	out = append(out, snapMagic...)
	out = binary.LittleEndian.AppendUint32(out, version)
	out = append(out, body...)
	var tr bytes.Buffer
	if err := gob.NewEncoder(&tr).Encode(fuzzTrailer{CRC: crc32.Checksum(out, castagnoli)}); err != nil {
		panic(err)
	}
	return append(out, tr.Bytes()...)
}

// snapshotBody splits a snapshot written by Save into its version and its
// gob body: the messages before the trailer, which are the last two (the
// trailer's type, then its value).
func snapshotBody(snap []byte) (uint32, []byte, bool) {
	if len(snap) < len(snapMagic)+4 {
		return 0, nil, false
	}
	version := binary.LittleEndian.Uint32(snap[len(snapMagic):])
	stream := snap[len(snapMagic)+4:]
	var starts []int
	for off := 0; off < len(stream); {
		starts = append(starts, off)
		n, size, ok := gobUint(stream[off:])
		if !ok || n > uint64(len(stream)-off-size) {
			return 0, nil, false
		}
		off += size + int(n)
	}
	if len(starts) < 2 {
		return 0, nil, false
	}
	return version, stream[:starts[len(starts)-2]], true
}

// gobUint decodes a gob unsigned integer: one byte below 0x80, else the
// negated byte count and that many big-endian bytes.
func gobUint(b []byte) (v uint64, size int, ok bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	if b[0] < 0x80 {
		return uint64(b[0]), 1, true
	}
	n := int(-int8(b[0]))
	if n > 8 || len(b) < 1+n {
		return 0, 0, false
	}
	for _, c := range b[1 : 1+n] {
		v = v<<8 | uint64(c)
	}
	return v, 1 + n, true
}

// tenantDump is everything a tenant holds, read through the public API.
type tenantDump struct {
	ID     string
	Items  []storage.CatalogItem
	FAQs   []storage.FAQ
	Docs   []storage.Document
	Chunks map[storage.OwnerRef][]storage.Chunk
	Counts storage.Counts
}

// dumpDB reads every non-empty tenant of db (Save drops empty ones).
func dumpDB(t *testing.T, db *memory.DB) []tenantDump {
	t.Helper()
	ctx := context.Background()
	var out []tenantDump
	for _, id := range db.Tenants() {
		st, err := db.Tenant(id)
		if err != nil {
			t.Fatalf("Tenant(%q) of a loaded DB: %v", id, err)
		}
		d := tenantDump{ID: id, Chunks: map[storage.OwnerRef][]storage.Chunk{}}
		d.Items = listAll(t, func(p storage.Page) ([]storage.CatalogItem, error) { return st.Items().List(ctx, p) },
			func(it storage.CatalogItem) string { return it.ID })
		d.FAQs = listAll(t, func(p storage.Page) ([]storage.FAQ, error) { return st.FAQs().List(ctx, p) },
			func(f storage.FAQ) string { return f.ID })
		d.Docs = listAll(t, func(p storage.Page) ([]storage.Document, error) { return st.Documents().List(ctx, p) },
			func(doc storage.Document) string { return doc.ID })
		if d.Counts, err = st.Counts(ctx); err != nil {
			t.Fatal(err)
		}
		if len(d.Items)+len(d.FAQs)+len(d.Docs) == 0 {
			continue
		}
		var refs []storage.OwnerRef
		for _, it := range d.Items {
			refs = append(refs, storage.OwnerRef{Kind: storage.KindItem, ID: it.ID})
		}
		for _, f := range d.FAQs {
			refs = append(refs, storage.OwnerRef{Kind: storage.KindFAQ, ID: f.ID})
		}
		for _, doc := range d.Docs {
			refs = append(refs, storage.OwnerRef{Kind: storage.KindDocument, ID: doc.ID})
		}
		for _, ref := range refs {
			cs, err := st.Chunks(ctx, ref)
			if err != nil {
				t.Fatalf("Chunks(%v): %v", ref, err)
			}
			if len(cs) > 0 {
				d.Chunks[ref] = cs
			}
		}
		out = append(out, d)
	}
	return out
}

// listAll pages through a listing.
func listAll[T any](t *testing.T, list func(storage.Page) ([]T, error), id func(T) string) []T {
	t.Helper()
	var out []T
	page := storage.Page{Limit: storage.MaxResultLimit}
	for {
		recs, err := list(page)
		if err != nil {
			t.Fatalf("listing a loaded DB: %v", err)
		}
		out = append(out, recs...)
		if len(recs) < page.Limit {
			return out
		}
		page.After = id(recs[len(recs)-1])
	}
}

// checkTenant checks one loaded tenant: every record and chunk passes
// storage.ValidateBatch, Counts agree with the listings, vector search
// with NoThreshold returns every embedded chunk of an active owner at the
// right distance, and lexical search finds an active record by its name.
func checkTenant(t *testing.T, db *memory.DB, d tenantDump) {
	t.Helper()
	ctx := context.Background()
	dims := db.Dimensions()
	b := storage.Batch{Items: d.Items, FAQs: d.FAQs, Documents: d.Docs}
	var want storage.Counts
	want.Items, want.FAQs, want.Documents = len(d.Items), len(d.FAQs), len(d.Docs)
	active := map[storage.OwnerRef]bool{}
	for _, it := range d.Items {
		active[storage.OwnerRef{Kind: storage.KindItem, ID: it.ID}] = it.Status.Active()
	}
	for _, f := range d.FAQs {
		active[storage.OwnerRef{Kind: storage.KindFAQ, ID: f.ID}] = f.Status.Active()
	}
	for _, doc := range d.Docs {
		active[storage.OwnerRef{Kind: storage.KindDocument, ID: doc.ID}] = doc.Status.Active()
	}
	// first embedding coordinate of each searchable chunk, by kind
	type key struct {
		owner storage.OwnerRef
		src   storage.ChunkSource
		seq   int
	}
	searchable := map[storage.OwnerKind]map[key]float32{}
	for ref, cs := range d.Chunks {
		b.Chunks = append(b.Chunks, storage.OwnerChunks{Owner: ref, Chunks: cs})
		want.Chunks += len(cs)
		for _, c := range cs {
			if c.Owner != ref {
				t.Fatalf("Chunks(%v) returned a chunk of %v", ref, c.Owner)
			}
			if c.Embedding == nil {
				continue
			}
			want.Embedded++
			if active[ref] {
				if searchable[ref.Kind] == nil {
					searchable[ref.Kind] = map[key]float32{}
				}
				searchable[ref.Kind][key{ref, c.Source, c.Seq}] = c.Embedding[0]
			}
		}
	}
	if err := storage.ValidateBatch(&b, dims); err != nil {
		t.Fatalf("tenant %q: loaded records fail validation: %v", d.ID, err)
	}
	if d.Counts != want {
		t.Fatalf("tenant %q: Counts %+v, listings hold %+v", d.ID, d.Counts, want)
	}
	st, err := db.Tenant(d.ID)
	if err != nil {
		t.Fatal(err)
	}
	if dims > 4096 || len(active) > 200 {
		return // keep each input fast
	}
	// The query is the first unit vector: a chunk's inner product is its
	// first coordinate, exactly.
	q := make([]float32, dims)
	q[0] = 1
	for _, kind := range []storage.OwnerKind{storage.KindItem, storage.KindFAQ, storage.KindDocument} {
		hits, err := st.SearchChunks(ctx, storage.VectorQuery{Kind: kind, Vector: q, Limit: storage.MaxResultLimit, MaxDistance: storage.NoThreshold})
		if err != nil {
			t.Fatalf("tenant %q: SearchChunks(%s): %v", d.ID, kind, err)
		}
		if len(hits) != len(searchable[kind]) {
			t.Fatalf("tenant %q: SearchChunks(%s) returned %d chunks, %d embedded chunks of active owners", d.ID, kind, len(hits), len(searchable[kind]))
		}
		for i, h := range hits {
			x, ok := searchable[kind][key{h.Chunk.Owner, h.Chunk.Source, h.Chunk.Seq}]
			if !ok {
				t.Fatalf("tenant %q: vector hit %+v is not an embedded chunk of an active owner", d.ID, h.Chunk)
			}
			if h.Distance != -float64(x) {
				t.Fatalf("tenant %q: chunk %v/%s/%d at distance %v, want %v", d.ID, h.Chunk.Owner, h.Chunk.Source, h.Chunk.Seq, h.Distance, -float64(x))
			}
			if i > 0 && hits[i-1].Distance > h.Distance {
				t.Fatalf("tenant %q: vector hits out of order at %d", d.ID, i)
			}
		}
	}
	for _, it := range d.Items {
		terms := storeutil.NormalizeTerms([]string{it.Name})
		if !it.Status.Active() || len(terms) == 0 {
			continue
		}
		hits, err := st.Items().Search(ctx, storage.LexicalQuery{Terms: terms, Limit: storage.MaxResultLimit})
		if err != nil {
			t.Fatalf("tenant %q: SearchItems(%q): %v", d.ID, terms, err)
		}
		found := false
		for _, h := range hits {
			found = found || h.Record.ID == it.ID
		}
		if !found {
			t.Fatalf("tenant %q: SearchItems(%q) misses item %q", d.ID, terms, it.ID)
		}
	}
}
