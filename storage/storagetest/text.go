package storagetest

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/hybridrag/hybridrag/storage"
)

// badTexts are strings no store accepts in an ID or a text field: a NUL
// byte (PostgreSQL's text cannot hold one) and invalid UTF-8 (a Latin-1
// "é", a stray continuation byte, a truncated sequence).
var badTexts = []struct{ name, s string }{
	{"NUL", "a\x00b"},
	{"lone NUL", "\x00"},
	{"Latin-1", "caf\xe9"},
	{"0xFF", "x\xffy"},
	{"truncated", "b\xc3"},
}

// textTests pin down how stores treat text that is not valid UTF-8 or holds
// a NUL byte: every write carrying such text in an ID or a text field is
// rejected with a *storage.ValidationError wrapping ErrInvalidRecord that
// names the field, writing nothing; reads by ID treat such an ID as one no
// record has (ErrNotFound, or skipped); a page cursor holding such bytes
// is compared bytewise like any other.
func textTests() []testCase {
	return []testCase{
		{"WriteRejected", func(t *testing.T, s *suite) {
			st := s.store(t)
			for _, bad := range badTexts {
				b := bad.s
				item := storage.OwnerRef{Kind: storage.KindItem, ID: "i"}
				faq := storage.OwnerRef{Kind: storage.KindFAQ, ID: "f"}
				doc := storage.OwnerRef{Kind: storage.KindDocument, ID: "d"}
				withChunk := func(owner storage.OwnerRef, c storage.Chunk) storage.Batch {
					c.Source, c.Content = cmpOr(c.Source, storage.SourceItem), cmpOr(c.Content, "ok")
					batch := storage.Batch{Chunks: []storage.OwnerChunks{{Owner: owner, Chunks: []storage.Chunk{c}}}}
					switch owner.Kind {
					case storage.KindItem:
						batch.Items = []storage.CatalogItem{{ID: owner.ID}}
					case storage.KindFAQ:
						batch.FAQs = []storage.FAQ{{ID: owner.ID}}
					default:
						batch.Documents = []storage.Document{{ID: owner.ID}}
					}
					return batch
				}
				for _, tc := range []struct {
					name  string
					batch storage.Batch
					owner storage.OwnerRef
					field string
				}{
					{"item id", storage.Batch{Items: []storage.CatalogItem{{ID: "ok"}, {ID: b}}}, itemRef(b), "id"},
					{"item name", storage.Batch{Items: []storage.CatalogItem{{ID: "ok"}, {ID: "i", Name: b}}}, item, "name"},
					{"item description", storage.Batch{Items: []storage.CatalogItem{{ID: "i", Description: b}}}, item, "description"},
					{"item category", storage.Batch{Items: []storage.CatalogItem{{ID: "i", Category: b}}}, item, "category"},
					{"item manufacturer", storage.Batch{Items: []storage.CatalogItem{{ID: "i", Manufacturer: b}}}, item, "manufacturer"},
					{"item tag", storage.Batch{Items: []storage.CatalogItem{{ID: "i", Tags: []string{"ok", b}}}}, item, "tags[1]"},
					{"item metadata key", storage.Batch{Items: []storage.CatalogItem{{ID: "i", Metadata: map[string]string{b: "v"}}}}, item, "metadata key"},
					{"item metadata value", storage.Batch{Items: []storage.CatalogItem{{ID: "i", Metadata: map[string]string{"crop": b}}}}, item, `metadata["crop"]`},
					{"item file name", storage.Batch{Items: []storage.CatalogItem{{ID: "i", Files: []storage.CatalogFile{{Name: b, Text: "ok"}}}}}, item, "files[0].name"},
					{"item file text", storage.Batch{Items: []storage.CatalogItem{{ID: "i", Files: []storage.CatalogFile{{Name: "ok"}, {Name: "ok2", Text: b}}}}}, item, "files[1].text"},
					{"faq id", storage.Batch{FAQs: []storage.FAQ{{ID: b}}}, faqRef(b), "id"},
					{"faq question", storage.Batch{FAQs: []storage.FAQ{{ID: "f", Question: b}}}, faq, "question"},
					{"faq answer", storage.Batch{FAQs: []storage.FAQ{{ID: "f", Answer: b}}}, faq, "answer"},
					{"faq category", storage.Batch{FAQs: []storage.FAQ{{ID: "f", Category: b}}}, faq, "category"},
					{"faq keyword", storage.Batch{FAQs: []storage.FAQ{{ID: "f", Keywords: []string{b}}}}, faq, "keywords[0]"},
					{"document id", storage.Batch{Documents: []storage.Document{{ID: b}}}, docRef(b), "id"},
					{"document source", storage.Batch{Documents: []storage.Document{{ID: "d", Source: b}}}, doc, "source"},
					{"document title", storage.Batch{Documents: []storage.Document{{ID: "d", Title: b}}}, doc, "title"},
					{"document content", storage.Batch{Documents: []storage.Document{{ID: "d", Content: b}}}, doc, "content"},
					{"document content hash", storage.Batch{Documents: []storage.Document{{ID: "d", ContentHash: b}}}, doc, "content_hash"},
					{"document metadata value", storage.Batch{Documents: []storage.Document{{ID: "d", Metadata: map[string]string{"lang": b}}}}, doc, `metadata["lang"]`},
					{"chunk owner id", storage.Batch{Chunks: []storage.OwnerChunks{{Owner: itemRef(b), Chunks: []storage.Chunk{chunk(storage.SourceItem, 0, "x", nil)}}}}, itemRef(b), "id"},
					{"chunk content", withChunk(item, storage.Chunk{Content: b}), item, "chunks[0].content"},
					{"chunk source", withChunk(faq, storage.Chunk{Source: storage.ChunkSource(b)}), faq, "chunks[0].source"},
					{"chunk content hash", withChunk(doc, storage.Chunk{ContentHash: b}), doc, "chunks[0].content_hash"},
					{"chunk file", withChunk(item, storage.Chunk{File: b}), item, "chunks[0].file"},
					{"chunk heading path", withChunk(doc, storage.Chunk{HeadingPath: []string{"ok", b}}), doc, "chunks[0].heading_path[1]"},
					{"chunk metadata value", withChunk(doc, storage.Chunk{Metadata: map[string]string{"k": b}}), doc, `chunks[0].metadata["k"]`},
					{"delete", storage.Batch{Items: []storage.CatalogItem{{ID: "ok"}}, Deletes: []storage.OwnerRef{faqRef(b)}}, faqRef(b), "id"},
				} {
					t.Run(bad.name+"/"+tc.name, func(t *testing.T) {
						err := st.Apply(ctx(t), tc.batch)
						wantErr(t, err, storage.ErrInvalidRecord)
						var ve *storage.ValidationError
						if !errors.As(err, &ve) {
							t.Fatalf("err = %v, want a *storage.ValidationError", err)
						}
						if d := cmp.Diff(tc.owner, ve.Owner, cmpopts.EquateEmpty()); d != "" {
							t.Errorf("ValidationError.Owner (-want +got):\n%s", d)
						}
						if ve.Field != tc.field {
							t.Errorf("ValidationError.Field = %q, want %q", ve.Field, tc.field)
						}
						wantCounts(t, st, storage.Counts{})
					})
				}
			}
		}},
		{"UpsertAndReplaceRejected", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st, storage.CatalogItem{ID: "p1", Name: "Fungicida"})
			replace(t, st, itemRef("p1"), chunk(storage.SourceItem, 0, "fungicida", unit(0)))
			for _, bad := range badTexts {
				wantErr(t, st.Apply(ctx(t), storage.Batch{Items: []storage.CatalogItem{{ID: "p1", Name: bad.s}}}), storage.ErrInvalidRecord)
				wantErr(t, st.Apply(ctx(t), storage.Batch{FAQs: []storage.FAQ{{ID: "f1", Answer: bad.s}}}), storage.ErrInvalidRecord)
				wantErr(t, st.Apply(ctx(t), storage.Batch{Documents: []storage.Document{{ID: "d1", Content: bad.s}}}), storage.ErrInvalidRecord)
				wantErr(t, st.Apply(ctx(t), storage.Batch{Chunks: []storage.OwnerChunks{{Owner: itemRef("p1"), Chunks: []storage.Chunk{chunk(storage.SourceItem, 0, bad.s, unit(1))}}}}), storage.ErrInvalidRecord)
			}
			got, err := st.Items().Get(ctx(t), "p1")
			must(t, err)
			if got.Name != "Fungicida" {
				t.Errorf("Name = %q after rejected upserts, want %q", got.Name, "Fungicida")
			}
			cs, err := st.Chunks(ctx(t), itemRef("p1"))
			must(t, err)
			if len(cs) != 1 || cs[0].Content != "fungicida" {
				t.Errorf("chunks after rejected replaces = %+v, want the old one", cs)
			}
			wantCounts(t, st, storage.Counts{Items: 1, Chunks: 1, Embedded: 1})
		}},
		{"ReadsTreatIDAsAbsent", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st, storage.CatalogItem{ID: "a", Name: "Fungicida"})
			upsertFAQs(t, st, storage.FAQ{ID: "a", Question: "Q"})
			upsertDocs(t, st, storage.Document{ID: "a", Content: "texto"})
			replace(t, st, itemRef("a"), chunk(storage.SourceItem, 0, "fungicida", unit(0)))
			counts := storage.Counts{Items: 1, FAQs: 1, Documents: 1, Chunks: 1, Embedded: 1}
			for _, bad := range badTexts {
				t.Run(bad.name, func(t *testing.T) {
					b := bad.s
					_, err := st.Items().Get(ctx(t), b)
					wantErr(t, err, storage.ErrNotFound)
					_, err = st.FAQs().Get(ctx(t), b)
					wantErr(t, err, storage.ErrNotFound)
					_, err = st.Documents().Get(ctx(t), b)
					wantErr(t, err, storage.ErrNotFound)
					_, err = st.Documents().ByHash(ctx(t), b)
					wantErr(t, err, storage.ErrNotFound)
					wantErr(t, st.Items().Delete(ctx(t), b), storage.ErrNotFound)
					wantErr(t, st.FAQs().Delete(ctx(t), b), storage.ErrNotFound)
					wantErr(t, st.Documents().Delete(ctx(t), b), storage.ErrNotFound)

					its, err := st.Items().GetMany(ctx(t), []string{b, "a", b})
					must(t, err)
					if len(its) != 1 || its[0].ID != "a" {
						t.Errorf("GetItems = %d items, want a alone", len(its))
					}
					fs, err := st.FAQs().GetMany(ctx(t), []string{b, "a"})
					must(t, err)
					if len(fs) != 1 || fs[0].ID != "a" {
						t.Errorf("GetFAQs = %d FAQs, want a alone", len(fs))
					}
					ds, err := st.Documents().GetMany(ctx(t), []string{"a", b})
					must(t, err)
					if len(ds) != 1 || ds[0].ID != "a" {
						t.Errorf("GetDocuments = %d documents, want a alone", len(ds))
					}
					refs, err := st.ChunkRefs(ctx(t), storage.KindItem, []string{b, "a"})
					must(t, err)
					if len(refs) != 1 || refs[0].Owner.ID != "a" {
						t.Errorf("ChunkRefs = %+v, want a's chunk alone", refs)
					}
					refs, err = st.ChunkRefs(ctx(t), storage.KindItem, []string{b})
					must(t, err)
					if len(refs) != 0 {
						t.Errorf("ChunkRefs of %q = %+v, want none", b, refs)
					}
					// Chunks takes an owner reference and checks it like a
					// write does.
					_, err = st.Chunks(ctx(t), itemRef(b))
					wantErr(t, err, storage.ErrInvalidRecord)
					// Lexical terms and filter values are normalized, which
					// repairs them: no error.
					_, err = st.Items().Search(ctx(t), storage.LexicalQuery{Terms: []string{"fungicida" + b, b}})
					must(t, err)
					_, err = st.Items().Search(ctx(t), storage.LexicalQuery{Terms: []string{"fungicida"}, Filters: []storage.Filter{{Field: storage.FieldCategory, Value: b}}})
					must(t, err)
					wantCounts(t, st, counts)
				})
			}
		}},
		{"ListAfterBytewise", func(t *testing.T, s *suite) {
			st := s.store(t)
			ids := []string{"a", "a!b", "b", "bé", "c"}
			for _, id := range ids {
				upsertItems(t, st, storage.CatalogItem{ID: id})
			}
			for _, tc := range []struct {
				after string
				want  []string
			}{
				{"a\x00", []string{"a!b", "b", "bé", "c"}},
				{"a\x00z", []string{"a!b", "b", "bé", "c"}},
				{"a\xff", []string{"b", "bé", "c"}},
				{"b\xc3", []string{"bé", "c"}},
				{"b\xc3\xff", []string{"c"}},
				{"caf\xe9", nil},
				{"\xff", nil},
			} {
				page, err := st.Items().List(ctx(t), storage.Page{After: tc.after})
				must(t, err)
				var got []string
				for _, it := range page {
					got = append(got, it.ID)
				}
				diff(t, "ListItems after "+storage.QuoteID(tc.after), tc.want, got)
			}
		}},
	}
}

func cmpOr[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
