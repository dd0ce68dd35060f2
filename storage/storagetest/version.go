package storagetest

import (
	"testing"

	"github.com/hybridrag/hybridrag/storage"
)

// versionTests check the change marker (Store.Version): 0 for a tenant
// never written, a new value after every completed write (records,
// chunks alone, a Delete), the same value after reads, a rejected write
// and another tenant's writes.
func versionTests() []testCase {
	return []testCase{
		{"Changes", func(t *testing.T, s *suite) {
			sts := s.tenants(t, 2)
			st, other := sts[0], sts[1]
			version := func() uint64 {
				t.Helper()
				v, err := st.Version(ctx(t))
				must(t, err)
				return v
			}
			seen := map[uint64]string{}
			changed := func(after string) {
				t.Helper()
				v := version()
				if prev, ok := seen[v]; ok {
					t.Errorf("version %d after %s, as after %s", v, after, prev)
				}
				seen[v] = after
			}
			same := func(after string, want uint64) {
				t.Helper()
				if v := version(); v != want {
					t.Errorf("version %d after %s, want %d (unchanged)", v, after, want)
				}
			}
			if v := version(); v != 0 {
				t.Errorf("version of a tenant never written = %d, want 0", v)
			}
			seen[0] = "nothing"
			upsertItems(t, st, storage.CatalogItem{ID: "i", Name: "Semente de milho"})
			changed("an item")
			upsertFAQs(t, st, storage.FAQ{ID: "f", Question: "Quando plantar?"})
			changed("a FAQ")
			upsertDocs(t, st, storage.Document{ID: "d", Content: "Plantio"})
			changed("a document")
			replace(t, st, itemRef("i"), chunk(storage.SourceItem, 0, "milho", unit(0)))
			changed("chunks alone")

			v := version()
			_, err := st.Items().Search(ctx(t), storage.LexicalQuery{Terms: []string{"milho"}})
			must(t, err)
			_, err = st.Items().List(ctx(t), storage.Page{})
			must(t, err)
			_, err = st.Chunks(ctx(t), itemRef("i"))
			must(t, err)
			same("reads", v)
			err = st.Apply(ctx(t), storage.Batch{Items: []storage.CatalogItem{{ID: "j"}, {ID: ""}}})
			wantErr(t, err, storage.ErrInvalidRecord)
			same("a rejected batch", v)
			upsertItems(t, other, storage.CatalogItem{ID: "i", Name: "Outro"})
			same("another tenant's write", v)

			must(t, st.Items().Delete(ctx(t), "i"))
			changed("a Delete")
			must(t, st.Apply(ctx(t), storage.Batch{Deletes: []storage.OwnerRef{faqRef("f")}}))
			changed("a batch deletion")
		}},
	}
}
