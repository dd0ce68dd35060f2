package storagetest

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hybridrag/hybridrag/storage"
)

func getChunks(t *testing.T, st storage.Backend, owner storage.OwnerRef) []storage.Chunk {
	t.Helper()
	cs, err := st.Chunks(ctx(t), owner)
	must(t, err)
	return cs
}

func chunkTests() []testCase {
	return []testCase{
		{"ReplaceAndGet", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st, storage.CatalogItem{ID: "p1", Name: "x"})
			in := []storage.Chunk{
				{Source: storage.SourceFile, Seq: 1, Content: "f1", Embedding: vec(0, 1), Metadata: map[string]string{"file": "bula.txt"}},
				{Source: storage.SourceItem, Seq: 0, Content: "item", ContentHash: "given", Embedding: unit(0)},
				{Owner: itemRef("p1"), Source: storage.SourceFile, Seq: 0, Content: "f0"},
			}
			replace(t, st, itemRef("p1"), in...)
			want := []storage.Chunk{
				{Owner: itemRef("p1"), Source: storage.SourceFile, Seq: 0, Content: "f0", ContentHash: storage.ContentHash("f0")},
				{Owner: itemRef("p1"), Source: storage.SourceFile, Seq: 1, Content: "f1", ContentHash: storage.ContentHash("f1"), Embedding: vec(0, 1), Metadata: map[string]string{"file": "bula.txt"}},
				{Owner: itemRef("p1"), Source: storage.SourceItem, Seq: 0, Content: "item", ContentHash: "given", Embedding: unit(0)},
			}
			diff(t, "Chunks", want, getChunks(t, st, itemRef("p1")))
			wantCounts(t, st, storage.Counts{Items: 1, Chunks: 3, Embedded: 2})
			diff(t, "Chunks of owner without chunks", []storage.Chunk(nil), getChunks(t, st, itemRef("nope")))
		}},
		{"TypedFields", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertDocs(t, st, storage.Document{ID: "d", Title: "Manual", Content: "intro dose"})
			upsertItems(t, st, storage.CatalogItem{ID: "p", Name: "x"})
			path := []string{"Manual", "Aplicação", "Dose › máxima"} // a separator inside a heading is kept
			in := []storage.Chunk{
				{Source: storage.SourceDoc, Seq: 1, Content: "dose", Embedding: vec(0.5, 0.5), Start: 1234, HeadingPath: path, Metadata: map[string]string{"lang": "pt"}},
				{Source: storage.SourceDoc, Seq: 0, Content: "intro", Embedding: unit(0), HeadingPath: []string{"Manual"}},
			}
			replace(t, st, docRef("d"), in...)
			replace(t, st, itemRef("p"), storage.Chunk{Source: storage.SourceFile, Content: "bula", Embedding: unit(1), Start: 17, File: "bula.pdf"})
			intro := storage.Chunk{Owner: docRef("d"), Source: storage.SourceDoc, Seq: 0, Content: "intro", ContentHash: storage.ContentHash("intro"),
				HeadingPath: []string{"Manual"}}
			dose := storage.Chunk{Owner: docRef("d"), Source: storage.SourceDoc, Seq: 1, Content: "dose", ContentHash: storage.ContentHash("dose"),
				Start: 1234, HeadingPath: []string{"Manual", "Aplicação", "Dose › máxima"}, Metadata: map[string]string{"lang": "pt"}}
			bula := storage.Chunk{Owner: itemRef("p"), Source: storage.SourceFile, Content: "bula", ContentHash: storage.ContentHash("bula"),
				Start: 17, File: "bula.pdf"}

			withEmb := func(c storage.Chunk, emb []float32) storage.Chunk { c.Embedding = emb; return c }
			diff(t, "Chunks", []storage.Chunk{withEmb(intro, unit(0)), withEmb(dose, vec(0.5, 0.5))}, getChunks(t, st, docRef("d")))
			ms, err := st.SearchChunks(ctx(t), storage.VectorQuery{Kind: storage.KindDocument, Vector: unit(0), MaxDistance: storage.NoThreshold})
			must(t, err)
			diff(t, "document matches", []storage.ChunkMatch{{Chunk: intro, Distance: -1}, {Chunk: dose, Distance: -0.5}}, ms)
			ms, err = st.SearchChunks(ctx(t), storage.VectorQuery{Kind: storage.KindItem, Vector: unit(1), MaxDistance: storage.NoThreshold})
			must(t, err)
			diff(t, "item matches", []storage.ChunkMatch{{Chunk: bula, Distance: -1}}, ms)

			// The store keeps its own heading paths.
			path[0] = "mutated"
			got := getChunks(t, st, docRef("d"))
			got[1].HeadingPath[1] = "mutated"
			ms[0].Chunk.HeadingPath = append(ms[0].Chunk.HeadingPath, "mutated")
			diff(t, "Chunks after callers mutated their copies", []storage.Chunk{withEmb(intro, unit(0)), withEmb(dose, vec(0.5, 0.5))}, getChunks(t, st, docRef("d")))

			// A negative Start is rejected, leaving the chunks as they were.
			err = st.Apply(ctx(t), storage.Batch{Chunks: []storage.OwnerChunks{{Owner: docRef("d"), Chunks: []storage.Chunk{{Source: storage.SourceDoc, Content: "x", Start: -1}}}}})
			wantErr(t, err, storage.ErrInvalidRecord)
			diff(t, "Chunks after a rejected replace", []storage.Chunk{withEmb(intro, unit(0)), withEmb(dose, vec(0.5, 0.5))}, getChunks(t, st, docRef("d")))
		}},
		{"ReplaceIsIdempotent", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertFAQs(t, st, storage.FAQ{ID: "f", Question: "q"})
			set := []storage.Chunk{
				chunk(storage.SourceQuestion, 0, "q", unit(1)),
				chunk(storage.SourceAnswer, 0, "a0", unit(2)),
				chunk(storage.SourceAnswer, 1, "a1", unit(3)),
			}
			replace(t, st, faqRef("f"), set...)
			first := getChunks(t, st, faqRef("f"))
			for range 2 {
				replace(t, st, faqRef("f"), set...)
				diff(t, "Chunks after replaying", first, getChunks(t, st, faqRef("f")))
				wantCounts(t, st, storage.Counts{FAQs: 1, Chunks: 3, Embedded: 3})
			}
			replace(t, st, faqRef("f"), set[1])
			got := getChunks(t, st, faqRef("f"))
			if len(got) != 1 || got[0].Content != "a0" {
				t.Fatalf("after replacing with one chunk: %+v", got)
			}
			if hs := searchHits(t, st, storage.VectorQuery{Kind: storage.KindFAQ, Vector: unit(1), MaxDistance: storage.NoThreshold}); len(hs) != 1 || hs[0].Source != storage.SourceAnswer {
				t.Fatalf("replaced chunks still searchable: %+v", hs)
			}
			replace(t, st, faqRef("f"))
			wantCounts(t, st, storage.Counts{FAQs: 1})
			if hs := searchHits(t, st, storage.VectorQuery{Kind: storage.KindFAQ, Vector: unit(2), MaxDistance: storage.NoThreshold}); len(hs) != 0 {
				t.Fatalf("cleared chunks still searchable: %+v", hs)
			}
		}},
		{"MissingOwner", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st, storage.CatalogItem{ID: "p", Name: "x"})
			for _, ref := range []storage.OwnerRef{itemRef("nope"), faqRef("p"), docRef("p")} {
				err := st.Apply(ctx(t), storage.Batch{Chunks: []storage.OwnerChunks{{Owner: ref, Chunks: []storage.Chunk{chunk(storage.SourceDoc, 0, "x", unit(0))}}}})
				wantErr(t, err, storage.ErrNotFound)
			}
			wantCounts(t, st, storage.Counts{Items: 1})
		}},
		{"UpsertKeepsChunks", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertDocs(t, st, storage.Document{ID: "d", Content: "v1"})
			replace(t, st, docRef("d"), chunk(storage.SourceDoc, 0, "v1", unit(0)))
			upsertDocs(t, st, storage.Document{ID: "d", Content: "v2"})
			if got := getChunks(t, st, docRef("d")); len(got) != 1 {
				t.Fatalf("re-upserting the owner changed its chunks: %+v", got)
			}
		}},
		{"Refs", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st, storage.CatalogItem{ID: "b"}, storage.CatalogItem{ID: "a"}, storage.CatalogItem{ID: "c"}, storage.CatalogItem{ID: "none"})
			upsertFAQs(t, st, storage.FAQ{ID: "a"})
			replace(t, st, itemRef("b"), chunk(storage.SourceItem, 0, "b0", unit(0)))
			replace(t, st, itemRef("a"), chunk(storage.SourceQuestion, 0, "a-note", nil), chunk(storage.SourceFile, 2, "a-f2", unit(1)), chunk(storage.SourceFile, 1, "a-f1", unit(1)))
			replace(t, st, itemRef("c"), chunk(storage.SourceItem, 0, "c0", nil))
			replace(t, st, faqRef("a"), chunk(storage.SourceQuestion, 0, "fq", unit(2)))
			ref := func(owner string, src storage.ChunkSource, seq int, content string, emb bool) storage.ChunkRef {
				return storage.ChunkRef{Owner: itemRef(owner), Source: src, Seq: seq, ContentHash: storage.ContentHash(content), HasEmbedding: emb}
			}
			all := []storage.ChunkRef{
				ref("a", storage.SourceFile, 1, "a-f1", true),
				ref("a", storage.SourceFile, 2, "a-f2", true),
				ref("a", storage.SourceQuestion, 0, "a-note", false),
				ref("b", storage.SourceItem, 0, "b0", true),
				ref("c", storage.SourceItem, 0, "c0", false),
			}
			tests := []struct {
				name string
				ids  []string
				want []storage.ChunkRef
			}{
				{"all", nil, all},
				{"some", []string{"c", "zz", "a", "none"}, append(append([]storage.ChunkRef{}, all[:3]...), all[4])},
				{"unknown", []string{"zz"}, nil},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					got, err := st.ChunkRefs(ctx(t), storage.KindItem, tc.ids)
					must(t, err)
					diff(t, "ChunkRefs", tc.want, got)
				})
			}
			got, err := st.ChunkRefs(ctx(t), storage.KindFAQ, nil)
			must(t, err)
			diff(t, "FAQ ChunkRefs", []storage.ChunkRef{{Owner: faqRef("a"), Source: storage.SourceQuestion, ContentHash: storage.ContentHash("fq"), HasEmbedding: true}}, got)
			_, err = st.ChunkRefs(ctx(t), "bogus", nil)
			if err == nil {
				t.Fatal("ChunkRefs with an unknown kind: no error")
			}
		}},
		{"InvalidVectors", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st, storage.CatalogItem{ID: "p"})
			replace(t, st, itemRef("p"), chunk(storage.SourceItem, 0, "old", unit(0)))
			before := getChunks(t, st, itemRef("p"))
			nan := vec(1)
			nan[3] = float32(math.NaN())
			inf := vec(1)
			inf[7] = float32(math.Inf(1))
			ninf := vec(1)
			ninf[0] = float32(math.Inf(-1))
			tests := []struct {
				name string
				emb  []float32
				want error
			}{
				{"short", make([]float32, dims-1), storage.ErrDimensionMismatch},
				{"long", make([]float32, dims+1), storage.ErrDimensionMismatch},
				{"empty", []float32{}, storage.ErrDimensionMismatch},
				{"NaN", nan, storage.ErrInvalidVector},
				{"+Inf", inf, storage.ErrInvalidVector},
				{"-Inf", ninf, storage.ErrInvalidVector},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					err := st.Apply(ctx(t), storage.Batch{Chunks: []storage.OwnerChunks{{Owner: itemRef("p"), Chunks: []storage.Chunk{
						chunk(storage.SourceItem, 0, "new", unit(1)),
						chunk(storage.SourceFile, 0, "bad", tc.emb),
					}}}})
					wantErr(t, err, tc.want)
					var ve *storage.ValidationError
					if !errors.As(err, &ve) {
						t.Errorf("err %v is not a *storage.ValidationError", err)
					}
					diff(t, "chunks after rejected replace", before, getChunks(t, st, itemRef("p")))
					wantCounts(t, st, storage.Counts{Items: 1, Chunks: 1, Embedded: 1})
				})
			}
		}},
		{"InvalidChunks", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st, storage.CatalogItem{ID: "p"}, storage.CatalogItem{ID: "q"})
			tests := []struct {
				name   string
				owner  storage.OwnerRef
				chunks []storage.Chunk
			}{
				{"empty source", itemRef("p"), []storage.Chunk{{Seq: 0, Content: "x"}}},
				{"negative seq", itemRef("p"), []storage.Chunk{{Source: storage.SourceItem, Seq: -1}}},
				{"duplicate key", itemRef("p"), []storage.Chunk{chunk(storage.SourceFile, 1, "a", nil), chunk(storage.SourceFile, 1, "b", nil)}},
				{"other owner", itemRef("p"), []storage.Chunk{{Owner: itemRef("q"), Source: storage.SourceItem}}},
				{"unknown kind", storage.OwnerRef{Kind: "bogus", ID: "p"}, []storage.Chunk{chunk(storage.SourceItem, 0, "x", nil)}},
				{"empty owner id", itemRef(""), []storage.Chunk{chunk(storage.SourceItem, 0, "x", nil)}},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					wantErr(t, st.Apply(ctx(t), storage.Batch{Chunks: []storage.OwnerChunks{{Owner: tc.owner, Chunks: tc.chunks}}}), storage.ErrInvalidRecord)
					wantCounts(t, st, storage.Counts{Items: 2})
				})
			}
		}},
		{"DeepCopy", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st, storage.CatalogItem{ID: "p"})
			in := []storage.Chunk{{Source: storage.SourceItem, Content: "x", Embedding: unit(0), Metadata: map[string]string{"k": "v"}}}
			replace(t, st, itemRef("p"), in...)
			in[0].Embedding[0] = 9
			in[0].Metadata["k"] = "mutated"
			out := getChunks(t, st, itemRef("p"))
			out[0].Embedding[1] = 9
			out[0].Metadata["k"] = "mutated"
			got := getChunks(t, st, itemRef("p"))
			if !cmp.Equal(got[0].Embedding, unit(0)) || got[0].Metadata["k"] != "v" {
				t.Fatalf("stored chunk changed through caller's slices: %+v", got[0])
			}
			ms, err := st.SearchChunks(ctx(t), storage.VectorQuery{Kind: storage.KindItem, Vector: unit(0), MaxDistance: storage.NoThreshold})
			must(t, err)
			ms[0].Chunk.Metadata["k"] = "mutated"
			if got := getChunks(t, st, itemRef("p")); got[0].Metadata["k"] != "v" {
				t.Fatalf("stored chunk changed through a search result: %+v", got[0])
			}
		}},
		{"DeleteCascades", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st, storage.CatalogItem{ID: "x"}, storage.CatalogItem{ID: "keep"})
			upsertFAQs(t, st, storage.FAQ{ID: "x"})
			upsertDocs(t, st, storage.Document{ID: "x"})
			for _, ref := range []storage.OwnerRef{itemRef("x"), itemRef("keep"), faqRef("x"), docRef("x")} {
				replace(t, st, ref, chunk(storage.SourceItem, 0, "c", unit(0)), chunk(storage.SourceItem, 1, "c", nil))
			}
			wantCounts(t, st, storage.Counts{Items: 2, FAQs: 1, Documents: 1, Chunks: 8, Embedded: 4})
			must(t, st.Items().Delete(ctx(t), "x"))
			must(t, st.FAQs().Delete(ctx(t), "x"))
			must(t, st.Documents().Delete(ctx(t), "x"))
			wantCounts(t, st, storage.Counts{Items: 1, Chunks: 2, Embedded: 1})
			for _, kind := range []storage.OwnerKind{storage.KindItem, storage.KindFAQ, storage.KindDocument} {
				refs, err := st.ChunkRefs(ctx(t), kind, []string{"x"})
				must(t, err)
				if len(refs) != 0 {
					t.Errorf("%s x: chunk refs survive deletion: %+v", kind, refs)
				}
				want := []hit(nil)
				if kind == storage.KindItem {
					want = []hit{{"keep", storage.SourceItem, 0, -1}}
				}
				diff(t, string(kind)+" vector hits after delete", want, searchHits(t, st, storage.VectorQuery{Kind: kind, Vector: unit(0), MaxDistance: storage.NoThreshold}))
			}
			// Re-creating an owner does not resurrect its chunks.
			upsertItems(t, st, storage.CatalogItem{ID: "x"})
			diff(t, "chunks of re-created item", []storage.Chunk(nil), getChunks(t, st, itemRef("x")))
		}},
	}
}

func batchTests() []testCase {
	return []testCase{
		{"OwnersInSameBatch", func(t *testing.T, s *suite) {
			st := s.store(t)
			must(t, st.Apply(ctx(t), storage.Batch{
				Items:     []storage.CatalogItem{{ID: "i", Name: "Item"}},
				FAQs:      []storage.FAQ{{ID: "f", Question: "Q"}},
				Documents: []storage.Document{{ID: "d", Content: "D"}},
				Chunks: []storage.OwnerChunks{
					{Owner: itemRef("i"), Chunks: []storage.Chunk{chunk(storage.SourceItem, 0, "i", unit(0))}},
					{Owner: faqRef("f"), Chunks: []storage.Chunk{chunk(storage.SourceQuestion, 0, "f", unit(1))}},
					{Owner: docRef("d"), Chunks: []storage.Chunk{chunk(storage.SourceDoc, 0, "d", nil), chunk(storage.SourceDoc, 1, "d", unit(2))}},
				},
			}))
			wantCounts(t, st, storage.Counts{Items: 1, FAQs: 1, Documents: 1, Chunks: 4, Embedded: 3})
			must(t, st.Apply(ctx(t), storage.Batch{}))
		}},
		{"AtomicOnBadVector", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st, storage.CatalogItem{ID: "old", Name: "Antigo"})
			replace(t, st, itemRef("old"), chunk(storage.SourceItem, 0, "old", unit(0)))
			before := getChunks(t, st, itemRef("old"))
			bad := vec(1)
			bad[2] = float32(math.NaN())
			err := st.Apply(ctx(t), storage.Batch{
				Items: []storage.CatalogItem{{ID: "new", Name: "Novo"}, {ID: "old", Name: "Renomeado"}},
				FAQs:  []storage.FAQ{{ID: "f"}},
				Chunks: []storage.OwnerChunks{
					{Owner: itemRef("new"), Chunks: []storage.Chunk{chunk(storage.SourceItem, 0, "n", unit(1))}},
					{Owner: itemRef("old"), Chunks: []storage.Chunk{chunk(storage.SourceItem, 0, "x", bad)}},
				},
				Deletes: []storage.OwnerRef{itemRef("old")},
			})
			wantErr(t, err, storage.ErrInvalidVector)
			wantCounts(t, st, storage.Counts{Items: 1, Chunks: 1, Embedded: 1})
			_, err = st.Items().Get(ctx(t), "new")
			wantErr(t, err, storage.ErrNotFound)
			got, err := st.Items().Get(ctx(t), "old")
			must(t, err)
			if got.Name != "Antigo" {
				t.Errorf("old item renamed to %q by a rejected batch", got.Name)
			}
			diff(t, "old chunks", before, getChunks(t, st, itemRef("old")))
		}},
		{"AtomicOnMissingOwner", func(t *testing.T, s *suite) {
			st := s.store(t)
			err := st.Apply(ctx(t), storage.Batch{
				Items: []storage.CatalogItem{{ID: "i"}},
				Chunks: []storage.OwnerChunks{
					{Owner: itemRef("i"), Chunks: []storage.Chunk{chunk(storage.SourceItem, 0, "i", unit(0))}},
					{Owner: faqRef("i"), Chunks: []storage.Chunk{chunk(storage.SourceItem, 0, "i", unit(0))}},
				},
			})
			wantErr(t, err, storage.ErrNotFound)
			wantCounts(t, st, storage.Counts{})
		}},
		{"AtomicOnInvalidRecord", func(t *testing.T, s *suite) {
			st := s.store(t)
			err := st.Apply(ctx(t), storage.Batch{
				Items:     []storage.CatalogItem{{ID: "i"}},
				Documents: []storage.Document{{ID: "d"}, {ID: ""}},
			})
			wantErr(t, err, storage.ErrInvalidRecord)
			err = st.Apply(ctx(t), storage.Batch{
				Items:   []storage.CatalogItem{{ID: "i"}},
				Deletes: []storage.OwnerRef{{Kind: "bogus", ID: "i"}},
			})
			wantErr(t, err, storage.ErrInvalidRecord)
			wantCounts(t, st, storage.Counts{})
		}},
		{"Order", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st, storage.CatalogItem{ID: "gone"})
			replace(t, st, itemRef("gone"), chunk(storage.SourceItem, 0, "g", unit(0)))
			// Records, then chunks, then deletions; deleting a missing owner
			// is not an error.
			must(t, st.Apply(ctx(t), storage.Batch{
				Items:   []storage.CatalogItem{{ID: "x"}, {ID: "y"}},
				Chunks:  []storage.OwnerChunks{{Owner: itemRef("x"), Chunks: []storage.Chunk{chunk(storage.SourceItem, 0, "x", unit(0))}}},
				Deletes: []storage.OwnerRef{itemRef("x"), itemRef("gone"), itemRef("never"), faqRef("y")},
			}))
			wantCounts(t, st, storage.Counts{Items: 1})
			if _, err := st.Items().Get(ctx(t), "y"); err != nil {
				t.Fatalf("y: %v", err)
			}
		}},
		{"ValidationErrorNamesOwner", func(t *testing.T, s *suite) {
			st := s.store(t)
			err := st.Apply(ctx(t), storage.Batch{
				Items:  []storage.CatalogItem{{ID: "ok"}, {ID: "p7"}},
				Chunks: []storage.OwnerChunks{{Owner: itemRef("p7"), Chunks: []storage.Chunk{chunk(storage.SourceItem, 0, "x", make([]float32, 3))}}},
			})
			var ve *storage.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want a *storage.ValidationError", err)
			}
			if d := cmp.Diff(itemRef("p7"), ve.Owner, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("ValidationError.Owner (-want +got):\n%s", d)
			}
			wantCounts(t, st, storage.Counts{})
		}},
	}
}
