package storagetest

import (
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/storage"
)

// tenantFixture fills st with an item, a FAQ and a document named prefix+"-only"
// and shared ones named "shared", all with chunks along dir, and text
// carrying word.
func tenantFixture(t *testing.T, st storage.Backend, prefix, word string, dir []float32) {
	t.Helper()
	only := prefix + "-only"
	must(t, st.Apply(ctx(t), storage.Batch{
		Items: []storage.CatalogItem{
			{ID: only, Name: "Produto " + word, Metadata: map[string]string{"crop": word}},
			{ID: "shared", Name: "Comum " + word},
		},
		FAQs: []storage.FAQ{
			{ID: only, Question: "Pergunta " + word},
			{ID: "shared", Question: "Comum " + word},
		},
		Documents: []storage.Document{
			{ID: only, Title: "Documento " + word, Content: "conteúdo " + word},
			{ID: "shared", Title: "Comum " + word, Content: "comum " + word},
		},
		Chunks: []storage.OwnerChunks{
			{Owner: itemRef(only), Chunks: []storage.Chunk{chunk(storage.SourceItem, 0, word, dir)}},
			{Owner: itemRef("shared"), Chunks: []storage.Chunk{chunk(storage.SourceItem, 0, word, dir)}},
			{Owner: faqRef(only), Chunks: []storage.Chunk{chunk(storage.SourceQuestion, 0, word, dir)}},
			{Owner: faqRef("shared"), Chunks: []storage.Chunk{chunk(storage.SourceQuestion, 0, word, dir)}},
			{Owner: docRef(only), Chunks: []storage.Chunk{chunk(storage.SourceDoc, 0, word, dir)}},
			{Owner: docRef("shared"), Chunks: []storage.Chunk{chunk(storage.SourceDoc, 0, word, dir)}},
		},
	}))
}

var fixtureCounts = storage.Counts{Items: 2, FAQs: 2, Documents: 2, Chunks: 6, Embedded: 6}

func tenancyTests() []testCase {
	return []testCase{
		{"InvalidTenant", func(t *testing.T, s *suite) {
			open := s.opener(t)
			for _, id := range []string{"", " ", "a b", "-x", "x/y", "ação", "a'b", strings.Repeat("a", 65)} {
				t.Run(id, func(t *testing.T) {
					_, err := open(id)
					wantErr(t, err, storage.ErrInvalidTenant)
				})
			}
		}},
		{"SameIDsIndependent", func(t *testing.T, s *suite) {
			ts := s.tenants(t, 2)
			a, b := ts[0], ts[1]
			tenantFixture(t, a, "a", "alfa", unit(0))
			tenantFixture(t, b, "b", "bravo", unit(1))
			for _, tc := range []struct {
				st   storage.Backend
				word string
			}{{a, "alfa"}, {b, "bravo"}} {
				it, err := tc.st.Items().Get(ctx(t), "shared")
				must(t, err)
				if it.Name != "Comum "+tc.word {
					t.Errorf("shared item = %q, want the tenant's own", it.Name)
				}
				cs := getChunks(t, tc.st, itemRef("shared"))
				if len(cs) != 1 || cs[0].Content != tc.word {
					t.Errorf("shared chunks = %+v, want the tenant's own", cs)
				}
			}
			must(t, a.Items().Delete(ctx(t), "shared"))
			must(t, a.FAQs().Delete(ctx(t), "shared"))
			must(t, a.Documents().Delete(ctx(t), "shared"))
			wantCounts(t, a, storage.Counts{Items: 1, FAQs: 1, Documents: 1, Chunks: 3, Embedded: 3})
			wantCounts(t, b, fixtureCounts)
			if _, err := b.Items().Get(ctx(t), "shared"); err != nil {
				t.Fatalf("B's shared item after A deleted its own: %v", err)
			}
		}},
		{"EveryPath", func(t *testing.T, s *suite) {
			ts := s.tenants(t, 2)
			a, b := ts[0], ts[1]
			tenantFixture(t, a, "a", "alfa", unit(0))
			tenantFixture(t, b, "b", "bravo", unit(1))
			bHash := storage.ContentHash("conteúdo bravo")
			c := ctx(t)

			t.Run("Get", func(t *testing.T) {
				_, err := a.Items().Get(c, "b-only")
				wantErr(t, err, storage.ErrNotFound)
				_, err = a.FAQs().Get(c, "b-only")
				wantErr(t, err, storage.ErrNotFound)
				_, err = a.Documents().Get(c, "b-only")
				wantErr(t, err, storage.ErrNotFound)
				_, err = a.Documents().ByHash(c, bHash)
				wantErr(t, err, storage.ErrNotFound)
				items, err := a.Items().GetMany(c, []string{"b-only"})
				must(t, err)
				faqs, err := a.FAQs().GetMany(c, []string{"b-only"})
				must(t, err)
				docs, err := a.Documents().GetMany(c, []string{"b-only"})
				must(t, err)
				if len(items)+len(faqs)+len(docs) != 0 {
					t.Errorf("A got B's records: %v %v %v", items, faqs, docs)
				}
			})
			t.Run("List", func(t *testing.T) {
				items, err := a.Items().List(c, storage.Page{Limit: 100})
				must(t, err)
				faqs, err := a.FAQs().List(c, storage.Page{Limit: 100})
				must(t, err)
				docs, err := a.Documents().List(c, storage.Page{Limit: 100})
				must(t, err)
				for _, n := range []int{len(items), len(faqs), len(docs)} {
					if n != 2 {
						t.Fatalf("A lists %d/%d/%d records, want 2 each", len(items), len(faqs), len(docs))
					}
				}
				for _, id := range []string{items[0].ID, faqs[0].ID, docs[0].ID} {
					if id != "a-only" {
						t.Errorf("A lists %q first, want a-only", id)
					}
				}
			})
			t.Run("Lexical", func(t *testing.T) {
				q := storage.LexicalQuery{Terms: []string{"bravo", "comum"}, Limit: 100}
				items, err := a.Items().Search(c, q)
				must(t, err)
				faqs, err := a.FAQs().Search(c, q)
				must(t, err)
				docs, err := a.Documents().Search(c, q)
				must(t, err)
				diff(t, "items", []string{"shared"}, itemIDs(items))
				diff(t, "faqs", []string{"shared"}, faqIDs(faqs))
				diff(t, "docs", []string{"shared"}, docIDs(docs))
				if items[0].TermsMatched != 1 || items[0].Record.Name != "Comum alfa" {
					t.Errorf("A's shared item matched %d terms as %q", items[0].TermsMatched, items[0].Record.Name)
				}
				items, err = a.Items().Search(c, storage.LexicalQuery{Terms: []string{"produto"}, Filters: []storage.Filter{{Field: storage.FieldMetadata, Key: "crop", Value: "bravo"}}})
				must(t, err)
				diff(t, "filtered items", []string(nil), itemIDs(items))
			})
			t.Run("Vector", func(t *testing.T) {
				for _, kind := range []storage.OwnerKind{storage.KindItem, storage.KindFAQ, storage.KindDocument} {
					hs := searchHits(t, a, storage.VectorQuery{Kind: kind, Vector: unit(1), MaxDistance: storage.NoThreshold, Limit: 100})
					diff(t, string(kind)+" hits", []hit{{"a-only", "", 0, 0}, {"shared", "", 0, 0}}, stripHits(hs))
				}
			})
			t.Run("Chunks", func(t *testing.T) {
				for _, ref := range []storage.OwnerRef{itemRef("b-only"), faqRef("b-only"), docRef("b-only")} {
					diff(t, "Chunks", []storage.Chunk(nil), getChunks(t, a, ref))
					refs, err := a.ChunkRefs(c, ref.Kind, []string{"b-only"})
					must(t, err)
					diff(t, "ChunkRefs", []storage.ChunkRef(nil), refs)
				}
				refs, err := a.ChunkRefs(c, storage.KindItem, nil)
				must(t, err)
				if len(refs) != 2 || refs[0].Owner.ID != "a-only" || refs[1].Owner.ID != "shared" || refs[1].ContentHash != storage.ContentHash("alfa") {
					t.Errorf("A's item chunk refs = %+v", refs)
				}
			})
			t.Run("Writes", func(t *testing.T) {
				for _, ref := range []storage.OwnerRef{itemRef("b-only"), faqRef("b-only"), docRef("b-only")} {
					wantErr(t, a.Apply(c, storage.Batch{Chunks: []storage.OwnerChunks{{Owner: ref, Chunks: []storage.Chunk{chunk(storage.SourceItem, 0, "x", unit(2))}}}}), storage.ErrNotFound)
					wantErr(t, a.Apply(c, storage.Batch{Chunks: []storage.OwnerChunks{{Owner: ref, Chunks: nil}}}), storage.ErrNotFound)
				}
				wantErr(t, a.Items().Delete(c, "b-only"), storage.ErrNotFound)
				wantErr(t, a.FAQs().Delete(c, "b-only"), storage.ErrNotFound)
				wantErr(t, a.Documents().Delete(c, "b-only"), storage.ErrNotFound)
				must(t, a.Apply(c, storage.Batch{Deletes: []storage.OwnerRef{itemRef("b-only"), faqRef("b-only"), docRef("b-only")}}))
			})
			t.Run("Counts", func(t *testing.T) {
				wantCounts(t, a, fixtureCounts)
				wantCounts(t, b, fixtureCounts)
			})
			t.Run("B intact", func(t *testing.T) {
				for _, ref := range []storage.OwnerRef{itemRef("b-only"), faqRef("b-only"), docRef("b-only")} {
					cs := getChunks(t, b, ref)
					if len(cs) != 1 || cs[0].Content != "bravo" {
						t.Errorf("B's %s chunks = %+v", ref.Kind, cs)
					}
				}
				if _, err := b.Documents().ByHash(c, bHash); err != nil {
					t.Errorf("B's document by hash: %v", err)
				}
				hs := searchHits(t, b, storage.VectorQuery{Kind: storage.KindItem, Vector: unit(1), MaxDistance: -0.5})
				diff(t, "B's hits", []hit{{"b-only", storage.SourceItem, 0, -1}, {"shared", storage.SourceItem, 0, -1}}, hs)
			})
		}},
	}
}

// stripHits keeps only the owner IDs of hits, for comparisons that do not
// care about distances.
func stripHits(hs []hit) []hit {
	out := make([]hit, len(hs))
	for i, h := range hs {
		out[i] = hit{Owner: h.Owner}
	}
	return out
}
