package storagetest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/storage"
)

// badIDs are IDs that are valid UTF-8 without a NUL byte, which no store
// accepts either: control characters make an ID print as two lines or
// columns, bidirectional overrides as another ID ("x\u202Efdp.exe" shows
// as "xexe.pdf").
var badIDs = []struct{ name, id string }{
	{"newline", "a\nb"},
	{"tab", "a\tb"},
	{"carriage return", "a\rb"},
	{"escape", "a\x1b[31mb"},
	{"DEL", "a\x7fb"},
	{"C1 control", "a\u0085b"},
	{"right-to-left override", "x\u202Efdp.exe"},
	{"left-to-right isolate", "a\u2066b"},
	{"right-to-left mark", "a\u200Fb"},
}

// idTests pin down that an ID with a control or bidirectional formatting
// character is rejected on every write (ErrInvalidRecord naming "id",
// nothing written), is not ValidID, and that reads treat it as absent; and
// that a document whose content has no text but control characters is
// rejected too (an empty content stays allowed).
func idTests() []testCase {
	return []testCase{
		{"ControlAndBidiIDsRejected", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st, storage.CatalogItem{ID: "a", Name: "Fungicida"})
			for _, bad := range badIDs {
				t.Run(bad.name, func(t *testing.T) {
					b := bad.id
					if storage.ValidID(b) {
						t.Errorf("ValidID(%q) = true", b)
					}
					for _, batch := range []storage.Batch{
						{Items: []storage.CatalogItem{{ID: "ok", Name: "x"}, {ID: b, Name: "x"}}},
						{FAQs: []storage.FAQ{{ID: b, Question: "q", Answer: "a"}}},
						{Documents: []storage.Document{{ID: b, Content: "texto"}}},
						{Deletes: []storage.OwnerRef{docRef(b)}},
					} {
						err := st.Apply(ctx(t), batch)
						wantErr(t, err, storage.ErrInvalidRecord)
						var ve *storage.ValidationError
						if !errors.As(err, &ve) || ve.Field != "id" {
							t.Errorf("err = %v, want a *storage.ValidationError on id", err)
						}
					}
					wantErr(t, st.Apply(ctx(t), storage.Batch{Documents: []storage.Document{{ID: b, Content: "texto"}}}), storage.ErrInvalidRecord)
					_, err := st.Items().Get(ctx(t), b)
					wantErr(t, err, storage.ErrNotFound)
					wantCounts(t, st, storage.Counts{Items: 1})
				})
			}
		}},
		{"ControlOnlyContentRejected", func(t *testing.T, s *suite) {
			st := s.store(t)
			for _, content := range []string{"\x01\x02\x03", "\x07\x1b", " \t\n\x0b ", "\u200b\u202e"} {
				err := st.Apply(ctx(t), storage.Batch{Documents: []storage.Document{{ID: "d", Title: "t", Content: content}}})
				wantErr(t, err, storage.ErrInvalidRecord)
				var ve *storage.ValidationError
				if !errors.As(err, &ve) || ve.Field != "content" {
					t.Errorf("content %q: err = %v, want a *storage.ValidationError on content", content, err)
				}
			}
			wantCounts(t, st, storage.Counts{})
			// Text with control characters in it, and no content at all,
			// stay valid.
			upsertDocs(t, st, storage.Document{ID: "d1", Content: "linha 1\n\tlinha 2\f"}, storage.Document{ID: "d2"})
			wantCounts(t, st, storage.Counts{Documents: 2})
		}},
	}
}

// limitTests pin down the record limits (storage.MaxTags and the others):
// a record one over a limit is rejected with a *storage.ValidationError
// wrapping ErrLimitExceeded (and ErrInvalidRecord) naming the field and
// the limit, and nothing is written; a record at every limit is accepted.
func limitTests() []testCase {
	n := func(count int, f func(i int) string) []string {
		out := make([]string, count)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	keys := func(count int) map[string]string {
		m := make(map[string]string, count)
		for i := range count {
			m[fmt.Sprintf("k%05d", i)] = "v"
		}
		return m
	}
	tag := func(i int) string { return fmt.Sprintf("tag%d", i) }
	long := func(chars int) string { return strings.Repeat("é", chars) } // 2 bytes each: lengths count characters
	return []testCase{
		{"OverLimitRejected", func(t *testing.T, s *suite) {
			st := s.store(t)
			for _, tc := range []struct {
				name, field, limit string
				batch              storage.Batch
			}{
				{"tags", "tags", "MaxTags", storage.Batch{Items: []storage.CatalogItem{{ID: "i", Name: "x", Tags: n(storage.MaxTags+1, tag)}}}},
				{"380000 tags", "tags", "MaxTags", storage.Batch{Items: []storage.CatalogItem{{ID: "i", Name: "x", Tags: n(380000, tag)}}}},
				{"tag length", "tags[1]", "MaxTagLength", storage.Batch{Items: []storage.CatalogItem{{ID: "i", Name: "x", Tags: []string{"ok", long(storage.MaxTagLength + 1)}}}}},
				{"keywords", "keywords", "MaxTags", storage.Batch{FAQs: []storage.FAQ{{ID: "f", Question: "q", Keywords: n(storage.MaxTags+1, tag)}}}},
				{"item metadata keys", "metadata", "MaxMetadataKeys", storage.Batch{Items: []storage.CatalogItem{{ID: "i", Name: "x", Metadata: keys(storage.MaxMetadataKeys + 1)}}}},
				{"50000 metadata keys", "metadata", "MaxMetadataKeys", storage.Batch{Documents: []storage.Document{{ID: "d", Content: "c", Metadata: keys(50000)}}}},
				{"metadata key length", "metadata key", "MaxMetadataKeyLength", storage.Batch{Items: []storage.CatalogItem{{ID: "i", Name: "x", Metadata: map[string]string{long(storage.MaxMetadataKeyLength + 1): "v"}}}}},
				{"metadata value length", `metadata["k"]`, "MaxMetadataValueLength", storage.Batch{Documents: []storage.Document{{ID: "d", Content: "c", Metadata: map[string]string{"k": long(storage.MaxMetadataValueLength + 1)}}}}},
				{"name", "name", "MaxNameLength", storage.Batch{Items: []storage.CatalogItem{{ID: "i", Name: long(storage.MaxNameLength + 1)}}}},
				{"question", "question", "MaxNameLength", storage.Batch{FAQs: []storage.FAQ{{ID: "f", Question: long(storage.MaxNameLength + 1)}}}},
				{"title", "title", "MaxNameLength", storage.Batch{Documents: []storage.Document{{ID: "d", Title: long(storage.MaxNameLength + 1), Content: "c"}}}},
				{"description", "description", "MaxDescriptionLength", storage.Batch{Items: []storage.CatalogItem{{ID: "i", Name: "x", Description: long(storage.MaxDescriptionLength + 1)}}}},
				{"answer", "answer", "MaxDescriptionLength", storage.Batch{FAQs: []storage.FAQ{{ID: "f", Question: "q", Answer: long(storage.MaxDescriptionLength + 1)}}}},
				{"files", "files", "MaxFiles", storage.Batch{Items: []storage.CatalogItem{{ID: "i", Name: "x", Files: make([]storage.CatalogFile, storage.MaxFiles+1)}}}},
				{"file text", "files[0].text", "MaxContentLength", storage.Batch{Items: []storage.CatalogItem{{ID: "i", Name: "x", Files: []storage.CatalogFile{{Name: "f", Text: strings.Repeat("a", storage.MaxContentLength+1)}}}}}},
				{"content", "content", "MaxContentLength", storage.Batch{Documents: []storage.Document{{ID: "d", Content: strings.Repeat("a", storage.MaxContentLength+1)}}}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					err := st.Apply(ctx(t), tc.batch)
					wantErr(t, err, storage.ErrLimitExceeded)
					wantErr(t, err, storage.ErrInvalidRecord)
					var ve *storage.ValidationError
					if !errors.As(err, &ve) || ve.Field != tc.field || !strings.Contains(ve.Reason, tc.limit) {
						t.Errorf("err = %v, want a *storage.ValidationError on %s naming %s", err, tc.field, tc.limit)
					}
					wantCounts(t, st, storage.Counts{})
				})
			}
		}},
		{"AtLimitAccepted", func(t *testing.T, s *suite) {
			st := s.store(t)
			must(t, st.Apply(ctx(t), storage.Batch{
				Items: []storage.CatalogItem{{ID: "i", Name: long(storage.MaxNameLength), Tags: n(storage.MaxTags, func(int) string { return long(storage.MaxTagLength) }),
					Metadata: keys(storage.MaxMetadataKeys)}},
				FAQs:      []storage.FAQ{{ID: "f", Question: "q", Answer: long(storage.MaxDescriptionLength), Keywords: n(storage.MaxTags, tag)}},
				Documents: []storage.Document{{ID: "d", Title: long(storage.MaxNameLength), Content: "c", Metadata: map[string]string{long(storage.MaxMetadataKeyLength): long(storage.MaxMetadataValueLength)}}},
			}))
			wantCounts(t, st, storage.Counts{Items: 1, FAQs: 1, Documents: 1})
		}},
	}
}
