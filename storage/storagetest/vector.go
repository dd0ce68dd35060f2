package storagetest

import (
	"fmt"
	"math"
	"testing"

	"github.com/hybridrag/hybridrag/storage"
)

// vectorFixture stores items whose chunks have exact inner products with
// unit(0): a (three chunks at -1), b and t2 (-0.75), c (-0.5), d (-0.25),
// e (+1), f (no embedding), off (inactive, -1), and a FAQ chunk at -1.
func vectorFixture(t *testing.T, st storage.Backend) {
	t.Helper()
	upsertItems(t, st,
		storage.CatalogItem{ID: "a", Category: "Fungicidas", Tags: []string{"soja"}, Metadata: map[string]string{"crop": "Soja"}},
		storage.CatalogItem{ID: "b", Category: "Fungicidas", Tags: []string{"milho"}},
		storage.CatalogItem{ID: "c", Category: "Herbicidas", Metadata: map[string]string{"crop": "soja"}},
		storage.CatalogItem{ID: "d"},
		storage.CatalogItem{ID: "e"},
		storage.CatalogItem{ID: "f"},
		storage.CatalogItem{ID: "t2", Category: "fungicidas"},
		storage.CatalogItem{ID: "off", Status: storage.StatusInactive},
	)
	replace(t, st, itemRef("a"),
		chunk(storage.SourceQuestion, 1, "a-note-1", vec(1, 0, 0.5)),
		storage.Chunk{Source: storage.SourceItem, Seq: 0, Content: "a-item", Embedding: unit(0), Metadata: map[string]string{"part": "main"}},
		chunk(storage.SourceQuestion, 0, "a-note-0", vec(1, 0.25)),
	)
	replace(t, st, itemRef("b"), chunk(storage.SourceItem, 0, "b", vec(0.75, 0.5)))
	replace(t, st, itemRef("t2"), chunk(storage.SourceItem, 0, "t2", vec(0.75, 0, 0.5)))
	replace(t, st, itemRef("c"), chunk(storage.SourceFile, 3, "c", vec(0.5, 0.75)))
	replace(t, st, itemRef("d"), chunk(storage.SourceItem, 0, "d", vec(0.25, 1)))
	replace(t, st, itemRef("e"), chunk(storage.SourceItem, 0, "e", vec(-1)))
	replace(t, st, itemRef("f"), chunk(storage.SourceItem, 0, "f", nil))
	replace(t, st, itemRef("off"), chunk(storage.SourceItem, 0, "off", unit(0)))
	upsertFAQs(t, st, storage.FAQ{ID: "a", Category: "Entrega"})
	replace(t, st, faqRef("a"), chunk(storage.SourceQuestion, 0, "faq", unit(0)))
}

var fixtureHits = []hit{
	{"a", storage.SourceItem, 0, -1},
	{"a", storage.SourceQuestion, 0, -1},
	{"a", storage.SourceQuestion, 1, -1},
	{"b", storage.SourceItem, 0, -0.75},
	{"t2", storage.SourceItem, 0, -0.75},
	{"c", storage.SourceFile, 3, -0.5},
	{"d", storage.SourceItem, 0, -0.25},
	{"e", storage.SourceItem, 0, 1},
}

func vectorTests() []testCase {
	return []testCase{
		{"Threshold", func(t *testing.T, s *suite) {
			st := s.store(t)
			vectorFixture(t, st)
			tests := []struct {
				name string
				max  float64
				want []hit
			}{
				{"default -0.5 keeps the boundary", -0.5, fixtureHits[:6]},
				{"-0.6", -0.6, fixtureHits[:5]},
				{"-1 keeps exact matches", -1, fixtureHits[:3]},
				{"below every distance", -1.5, nil},
				{"zero value keeps distance <= 0", 0, fixtureHits[:7]},
				{"NoThreshold", storage.NoThreshold, fixtureHits},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					q := storage.VectorQuery{Kind: storage.KindItem, Vector: unit(0), MaxDistance: tc.max, Limit: 100}
					diff(t, "hits", tc.want, searchHits(t, st, q))
				})
			}
		}},
		{"Limit", func(t *testing.T, s *suite) {
			st := s.store(t)
			vectorFixture(t, st)
			for _, limit := range []int{1, 2, 4, 5} {
				t.Run(fmt.Sprint(limit), func(t *testing.T) {
					q := storage.VectorQuery{Kind: storage.KindItem, Vector: unit(0), MaxDistance: storage.NoThreshold, Limit: limit}
					diff(t, "hits", fixtureHits[:limit], searchHits(t, st, q))
				})
			}
		}},
		{"DefaultResultLimit", func(t *testing.T, s *suite) {
			st := s.store(t)
			var items []storage.CatalogItem
			for i := range storage.DefaultResultLimit + 2 {
				items = append(items, storage.CatalogItem{ID: fmt.Sprintf("i%02d", i)})
			}
			upsertItems(t, st, items...)
			for i, it := range items {
				replace(t, st, itemRef(it.ID), chunk(storage.SourceItem, 0, "x", vec(1-float32(i)/16)))
			}
			got := searchHits(t, st, storage.VectorQuery{Kind: storage.KindItem, Vector: unit(0), MaxDistance: storage.NoThreshold})
			if len(got) != storage.DefaultResultLimit || got[0].Owner != "i00" || got[len(got)-1].Owner != "i09" {
				t.Fatalf("limit 0: %+v, want i00..i09", got)
			}
		}},
		{"Match", func(t *testing.T, s *suite) {
			st := s.store(t)
			vectorFixture(t, st)
			ms, err := st.SearchChunks(ctx(t), storage.VectorQuery{Kind: storage.KindItem, Vector: unit(0), MaxDistance: -0.9, Limit: 1})
			must(t, err)
			want := []storage.ChunkMatch{{
				Chunk: storage.Chunk{
					Owner: itemRef("a"), Source: storage.SourceItem, Seq: 0, Content: "a-item",
					ContentHash: storage.ContentHash("a-item"), Metadata: map[string]string{"part": "main"},
				},
				Distance: -1,
			}}
			diff(t, "match without embedding", want, ms)
		}},
		{"DistanceIsNegativeInnerProduct", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st, storage.CatalogItem{ID: "x"})
			replace(t, st, itemRef("x"), chunk(storage.SourceItem, 0, "x", vec(1, 2, 3, 0.5, -4, 0, 0.25, 8)))
			got := searchHits(t, st, storage.VectorQuery{Kind: storage.KindItem, Vector: vec(4, 5, 6, 2, 0.5, 9, 4, -0.125), MaxDistance: storage.NoThreshold})
			// 4+10+18+1-2+0+1-1 = 31
			diff(t, "hits", []hit{{"x", storage.SourceItem, 0, -31}}, got)
		}},
		{"PerKind", func(t *testing.T, s *suite) {
			st := s.store(t)
			vectorFixture(t, st)
			diff(t, "FAQ hits", []hit{{"a", storage.SourceQuestion, 0, -1}},
				searchHits(t, st, storage.VectorQuery{Kind: storage.KindFAQ, Vector: unit(0), MaxDistance: storage.NoThreshold}))
			diff(t, "document hits", []hit(nil),
				searchHits(t, st, storage.VectorQuery{Kind: storage.KindDocument, Vector: unit(0), MaxDistance: storage.NoThreshold}))
		}},
		{"Inactive", func(t *testing.T, s *suite) {
			st := s.store(t)
			vectorFixture(t, st)
			q := storage.VectorQuery{Kind: storage.KindItem, Vector: unit(0), MaxDistance: -0.9, Limit: 100}
			upsertItems(t, st, storage.CatalogItem{ID: "off"}, storage.CatalogItem{ID: "a", Status: storage.StatusInactive})
			diff(t, "after swapping active", []hit{{"off", storage.SourceItem, 0, -1}}, searchHits(t, st, q))
			upsertFAQs(t, st, storage.FAQ{ID: "a", Status: storage.StatusInactive})
			diff(t, "inactive FAQ", []hit(nil), searchHits(t, st, storage.VectorQuery{Kind: storage.KindFAQ, Vector: unit(0), MaxDistance: storage.NoThreshold}))
		}},
		{"Ties", func(t *testing.T, s *suite) {
			st := s.store(t)
			var items []storage.CatalogItem
			ids := []string{"m", "B", "a", "z", "b"}
			for _, id := range ids {
				items = append(items, storage.CatalogItem{ID: id})
			}
			upsertItems(t, st, items...)
			for _, id := range ids {
				replace(t, st, itemRef(id),
					chunk(storage.SourceQuestion, 0, "n", vec(0.5, 0.5)),
					chunk(storage.SourceFile, 1, "f1", vec(0.5, 0, 0.5)),
					chunk(storage.SourceFile, 0, "f0", vec(0.5, 0, 0, 0.5)))
			}
			var want []hit
			for _, id := range []string{"B", "a", "b", "m", "z"} {
				want = append(want,
					hit{id, storage.SourceFile, 0, -0.5},
					hit{id, storage.SourceFile, 1, -0.5},
					hit{id, storage.SourceQuestion, 0, -0.5})
			}
			for i := range 3 {
				q := storage.VectorQuery{Kind: storage.KindItem, Vector: unit(0), MaxDistance: -0.5, Limit: 100}
				diff(t, fmt.Sprintf("run %d", i), want, searchHits(t, st, q))
				q.Limit = 4
				diff(t, fmt.Sprintf("run %d, limit 4", i), want[:4], searchHits(t, st, q))
			}
		}},
		{"Filters", func(t *testing.T, s *suite) {
			st := s.store(t)
			vectorFixture(t, st)
			upsertDocs(t, st,
				storage.Document{ID: "d1", Source: "Manual.md", Metadata: map[string]string{"lang": "pt"}},
				storage.Document{ID: "d2", Source: "outro.md", Metadata: map[string]string{"lang": "en"}})
			replace(t, st, docRef("d1"), chunk(storage.SourceDoc, 0, "d1", unit(0)))
			replace(t, st, docRef("d2"), chunk(storage.SourceDoc, 0, "d2", unit(0)))
			tests := []struct {
				name    string
				kind    storage.OwnerKind
				filters []storage.Filter
				want    []string
			}{
				{"category", storage.KindItem, []storage.Filter{{Field: storage.FieldCategory, Value: "FUNGICIDAS"}}, []string{"a", "a", "a", "b", "t2"}},
				{"tag", storage.KindItem, []storage.Filter{{Field: storage.FieldTag, Value: "Milho"}}, []string{"b"}},
				{"metadata", storage.KindItem, []storage.Filter{{Field: storage.FieldMetadata, Key: "crop", Value: "SOJA"}}, []string{"a", "a", "a", "c"}},
				{"AND", storage.KindItem, []storage.Filter{{Field: storage.FieldMetadata, Key: "crop", Value: "soja"}, {Field: storage.FieldCategory, Value: "herbicidas"}}, []string{"c"}},
				{"no match", storage.KindItem, []storage.Filter{{Field: storage.FieldManufacturer, Value: "nobody"}}, nil},
				{"FAQ category", storage.KindFAQ, []storage.Filter{{Field: storage.FieldCategory, Value: "entrega"}}, []string{"a"}},
				{"document source", storage.KindDocument, []storage.Filter{{Field: storage.FieldSource, Value: "manual.md"}}, []string{"d1"}},
				{"document metadata", storage.KindDocument, []storage.Filter{{Field: storage.FieldMetadata, Key: "lang", Value: "en"}}, []string{"d2"}},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					hs := searchHits(t, st, storage.VectorQuery{Kind: tc.kind, Vector: unit(0), MaxDistance: -0.4, Filters: tc.filters, Limit: 100})
					var owners []string
					for _, h := range hs {
						owners = append(owners, h.Owner)
					}
					diff(t, "owners", tc.want, owners)
				})
			}
		}},
		{"InvalidQuery", func(t *testing.T, s *suite) {
			st := s.store(t)
			vectorFixture(t, st)
			nan := unit(0)
			nan[1] = float32(math.NaN())
			inf := unit(0)
			inf[1] = float32(math.Inf(-1))
			tests := []struct {
				name string
				q    storage.VectorQuery
				want error
			}{
				{"short", storage.VectorQuery{Kind: storage.KindItem, Vector: make([]float32, dims-1)}, storage.ErrDimensionMismatch},
				{"long", storage.VectorQuery{Kind: storage.KindItem, Vector: make([]float32, dims+1)}, storage.ErrDimensionMismatch},
				{"nil", storage.VectorQuery{Kind: storage.KindItem}, storage.ErrDimensionMismatch},
				{"NaN", storage.VectorQuery{Kind: storage.KindItem, Vector: nan}, storage.ErrInvalidVector},
				{"-Inf", storage.VectorQuery{Kind: storage.KindItem, Vector: inf}, storage.ErrInvalidVector},
				{"metadata key not allowed", storage.VectorQuery{Kind: storage.KindItem, Vector: unit(0), Filters: []storage.Filter{{Field: storage.FieldMetadata, Key: "secret", Value: "x"}}}, storage.ErrInvalidFilter},
				{"field not for kind", storage.VectorQuery{Kind: storage.KindFAQ, Vector: unit(0), Filters: []storage.Filter{{Field: storage.FieldTag, Value: "x"}}}, storage.ErrInvalidFilter},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					_, err := st.SearchChunks(ctx(t), tc.q)
					wantErr(t, err, tc.want)
				})
			}
			if _, err := st.SearchChunks(ctx(t), storage.VectorQuery{Kind: "bogus", Vector: unit(0)}); err == nil {
				t.Error("unknown kind: no error")
			}
		}},
	}
}
