package storagetest

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/storage"
)

func fullItem(id string) storage.CatalogItem {
	return storage.CatalogItem{
		ID:           id,
		Name:         "Fungicida Ação Total " + id,
		Description:  "Controle de ferrugem na soja",
		Category:     "Fungicidas",
		Manufacturer: "AgroQuímica S.A.",
		Tags:         []string{"soja", "ferrugem"},
		Price:        ptr(129.9),
		Status:       storage.StatusActive,
		Metadata:     map[string]string{"crop": "Soja", "lang": "pt"},
		Files: []storage.CatalogFile{
			{Name: "bula.txt", Text: "Aplicar 0,5 L/ha."},
			{ItemID: id, Name: "ficha.txt", Text: "Classe III."},
		},
		CreatedAt: at(1),
	}
}

func itemTests() []testCase {
	return []testCase{
		{"RoundTrip", func(t *testing.T, s *suite) {
			st := s.store(t)
			before := time.Now().Add(-time.Minute)
			in := fullItem("p1")
			bare := storage.CatalogItem{ID: "p2", Name: "Sem preço"}
			upsertItems(t, st, in, bare)

			got, err := st.Items().Get(ctx(t), "p1")
			must(t, err)
			want := fullItem("p1")
			want.Files[0].ItemID = "p1"
			diff(t, "GetItem(p1)", want, got)
			if got.UpdatedAt.Before(before) {
				t.Errorf("UpdatedAt = %v, want set by the store", got.UpdatedAt)
			}

			got, err = st.Items().Get(ctx(t), "p2")
			must(t, err)
			if got.Status != storage.StatusActive {
				t.Errorf("empty Status stored as %q, want %q", got.Status, storage.StatusActive)
			}
			if got.Price != nil {
				t.Errorf("Price = %v, want nil", *got.Price)
			}
			if got.CreatedAt.Before(before) || got.UpdatedAt.Before(before) {
				t.Errorf("CreatedAt, UpdatedAt = %v, %v; want set by the store", got.CreatedAt, got.UpdatedAt)
			}
			wantCounts(t, st, storage.Counts{Items: 2})
		}},
		{"Upsert/Replaces", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st, storage.CatalogItem{ID: "p1", Name: "Old"})
			first, err := st.Items().Get(ctx(t), "p1")
			must(t, err)

			upd := fullItem("p1")
			upd.CreatedAt = time.Time{}
			upd.Files = upd.Files[1:]
			upd.Status = storage.StatusInactive
			upsertItems(t, st, upd)
			got, err := st.Items().Get(ctx(t), "p1")
			must(t, err)
			want := upd
			want.CreatedAt = first.CreatedAt
			diff(t, "after re-upsert", want, got)
			if !got.CreatedAt.Equal(first.CreatedAt) {
				t.Errorf("CreatedAt = %v, want kept %v", got.CreatedAt, first.CreatedAt)
			}
			if got.UpdatedAt.Before(first.UpdatedAt) {
				t.Errorf("UpdatedAt went back: %v < %v", got.UpdatedAt, first.UpdatedAt)
			}

			upd.CreatedAt = at(5)
			upsertItems(t, st, upd)
			got, err = st.Items().Get(ctx(t), "p1")
			must(t, err)
			if !got.CreatedAt.Equal(at(5)) {
				t.Errorf("explicit CreatedAt = %v, want %v", got.CreatedAt, at(5))
			}
			wantCounts(t, st, storage.Counts{Items: 1})
		}},
		{"DeepCopy", func(t *testing.T, s *suite) {
			st := s.store(t)
			in := fullItem("p1")
			upsertItems(t, st, in)
			in.Tags[0] = "mutated"
			in.Metadata["crop"] = "mutated"
			*in.Price = 1
			in.Files[0].Text = "mutated"

			got, err := st.Items().Get(ctx(t), "p1")
			must(t, err)
			got.Tags[0] = "mutated"
			got.Metadata["crop"] = "mutated"
			*got.Price = 1
			got.Files[0].Text = "mutated"

			again, err := st.Items().Get(ctx(t), "p1")
			must(t, err)
			want := fullItem("p1")
			want.Files[0].ItemID = "p1"
			diff(t, "stored item after callers mutated their copies", want, again)
		}},
		{"GetItems/OrderAndMissing", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st,
				storage.CatalogItem{ID: "a", Name: "A"},
				storage.CatalogItem{ID: "b", Name: "B", Status: storage.StatusInactive},
				storage.CatalogItem{ID: "c", Name: "C"})
			tests := []struct {
				name string
				ids  []string
				want []string
			}{
				{"requested order", []string{"c", "a", "b"}, []string{"c", "a", "b"}},
				{"missing skipped", []string{"x", "b", "y"}, []string{"b"}},
				{"none", nil, nil},
				{"all missing", []string{"x"}, nil},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					got, err := st.Items().GetMany(ctx(t), tc.ids)
					must(t, err)
					var ids []string
					for _, it := range got {
						ids = append(ids, it.ID)
					}
					diff(t, "GetItems", tc.want, ids)
				})
			}
		}},
		{"GetItems/SameAsGet", func(t *testing.T, s *suite) {
			// GetMany reads whole records, files in their order, as Get
			// does (PostgreSQL reads them another way: a join).
			st := s.store(t)
			three := fullItem("three")
			three.Files = append(three.Files, storage.CatalogFile{Name: "a.txt", Text: "primeiro nome, último arquivo"})
			upsertItems(t, st, fullItem("full"), three,
				storage.CatalogItem{ID: "bare", Name: "Sem nada"},
				storage.CatalogItem{ID: "one", Name: "Um", Files: []storage.CatalogFile{{Name: "z.txt", Text: ""}}})
			ids := []string{"three", "bare", "missing", "full", "one"}
			got, err := st.Items().GetMany(ctx(t), ids)
			must(t, err)
			var want []storage.CatalogItem
			for _, id := range ids {
				if id == "missing" {
					continue
				}
				it, err := st.Items().Get(ctx(t), id)
				must(t, err)
				want = append(want, it)
			}
			diff(t, "GetMany against Get", want, got)
			if len(got) == 4 && (len(got[0].Files) != 3 || got[0].Files[2].Name != "a.txt") {
				t.Errorf("GetMany: three's files %+v, want bula.txt, ficha.txt, a.txt", got[0].Files)
			}
		}},
		{"NotFound", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st, storage.CatalogItem{ID: "a", Name: "A"})
			_, err := st.Items().Get(ctx(t), "missing")
			wantErr(t, err, storage.ErrNotFound)
			wantErr(t, st.Items().Delete(ctx(t), "missing"), storage.ErrNotFound)
			wantCounts(t, st, storage.Counts{Items: 1})
		}},
		{"List/Pagination", func(t *testing.T, s *suite) {
			st := s.store(t)
			// Bytewise order: upper case before lower case, "c10" before "c2".
			ids := []string{"c2", "a", "B", "c10", "c1", "Z9", "d"}
			var items []storage.CatalogItem
			for i, id := range ids {
				it := storage.CatalogItem{ID: id, Name: "item " + id}
				if i%2 == 0 {
					it.Status = storage.StatusInactive
				}
				items = append(items, it)
			}
			upsertItems(t, st, items...)
			want := slices.Clone(ids)
			slices.Sort(want)

			var got []string
			after := ""
			for range len(ids) {
				page, err := st.Items().List(ctx(t), storage.Page{After: after, Limit: 3})
				must(t, err)
				if len(page) == 0 {
					break
				}
				if len(page) > 3 {
					t.Fatalf("page of %d items, limit 3", len(page))
				}
				for _, it := range page {
					got = append(got, it.ID)
				}
				after = page[len(page)-1].ID
			}
			diff(t, "paged IDs", want, got)
		}},
		{"List/DefaultResultLimit", func(t *testing.T, s *suite) {
			st := s.store(t)
			var items []storage.CatalogItem
			for i := range storage.DefaultResultLimit + 3 {
				items = append(items, storage.CatalogItem{ID: fmt.Sprintf("i%02d", i), Name: "x"})
			}
			upsertItems(t, st, items...)
			for _, limit := range []int{0, -1} {
				page, err := st.Items().List(ctx(t), storage.Page{Limit: limit})
				must(t, err)
				if len(page) != storage.DefaultResultLimit || page[0].ID != "i00" {
					t.Errorf("Limit %d: got %d items starting %q, want %d from i00", limit, len(page), page[0].ID, storage.DefaultResultLimit)
				}
			}
		}},
		{"Delete", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st, fullItem("p1"), fullItem("p2"))
			must(t, st.Items().Delete(ctx(t), "p1"))
			_, err := st.Items().Get(ctx(t), "p1")
			wantErr(t, err, storage.ErrNotFound)
			wantErr(t, st.Items().Delete(ctx(t), "p1"), storage.ErrNotFound)
			if _, err := st.Items().Get(ctx(t), "p2"); err != nil {
				t.Fatalf("p2 after deleting p1: %v", err)
			}
			wantCounts(t, st, storage.Counts{Items: 1})
			// Files went with the item: a re-created item has only its own.
			upsertItems(t, st, storage.CatalogItem{ID: "p1", Name: "again"})
			got, err := st.Items().Get(ctx(t), "p1")
			must(t, err)
			if len(got.Files) != 0 {
				t.Errorf("re-created item has files %+v", got.Files)
			}
			if n := searchItemIDs(t, st, storage.LexicalQuery{Terms: []string{"classe iii"}}); !slices.Equal(n, []string{"p2"}) {
				t.Errorf("file text of deleted item still searchable: %v", n)
			}
		}},
		{"Invalid", func(t *testing.T, s *suite) {
			st := s.store(t)
			good := storage.CatalogItem{ID: "good", Name: "Good"}
			tests := []struct {
				name string
				bad  storage.CatalogItem
			}{
				{"empty id", storage.CatalogItem{Name: "x"}},
				{"blank id", storage.CatalogItem{ID: "  ", Name: "x"}},
				{"long id", storage.CatalogItem{ID: strings.Repeat("x", storage.MaxIDLength+1), Name: "x"}},
				{"unknown status", storage.CatalogItem{ID: "x", Status: "ativo?"}},
				{"negative price", storage.CatalogItem{ID: "x", Price: ptr(-1.0)}},
				{"NaN price", storage.CatalogItem{ID: "x", Price: ptr(math.NaN())}},
				{"file of another item", storage.CatalogItem{ID: "x", Files: []storage.CatalogFile{{ItemID: "y", Name: "f"}}}},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					err := st.Apply(ctx(t), storage.Batch{Items: []storage.CatalogItem{good, tc.bad}})
					wantErr(t, err, storage.ErrInvalidRecord)
					wantCounts(t, st, storage.Counts{})
				})
			}
		}},
	}
}

func faqTests() []testCase {
	faq := func(id string) storage.FAQ {
		return storage.FAQ{
			ID:        id,
			Question:  "Qual o prazo de entrega?",
			Answer:    "Até 5 dias úteis.",
			Category:  "Logística",
			Keywords:  []string{"entrega", "prazo"},
			Priority:  3,
			Status:    storage.StatusActive,
			CreatedAt: at(2),
		}
	}
	return []testCase{
		{"RoundTrip", func(t *testing.T, s *suite) {
			st := s.store(t)
			inactive := faq("f2")
			inactive.Status = storage.StatusInactive
			inactive.Priority = -1
			upsertFAQs(t, st, faq("f1"), inactive)
			for _, want := range []storage.FAQ{faq("f1"), inactive} {
				got, err := st.FAQs().Get(ctx(t), want.ID)
				must(t, err)
				diff(t, "GetFAQ", want, got)
				if got.UpdatedAt.IsZero() {
					t.Errorf("UpdatedAt not set")
				}
			}
			wantCounts(t, st, storage.Counts{FAQs: 2})
		}},
		{"Upsert/Replaces", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertFAQs(t, st, storage.FAQ{ID: "f1", Question: "old"})
			first, err := st.FAQs().Get(ctx(t), "f1")
			must(t, err)
			upd := faq("f1")
			upd.CreatedAt = time.Time{}
			upd.Keywords = nil
			upsertFAQs(t, st, upd)
			got, err := st.FAQs().Get(ctx(t), "f1")
			must(t, err)
			upd.CreatedAt = first.CreatedAt
			diff(t, "after re-upsert", upd, got)
		}},
		{"GetListDelete", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertFAQs(t, st, faq("f3"), faq("f1"), faq("f2"))
			got, err := st.FAQs().GetMany(ctx(t), []string{"f2", "zz", "f1"})
			must(t, err)
			if len(got) != 2 || got[0].ID != "f2" || got[1].ID != "f1" {
				t.Fatalf("GetFAQs = %v, want [f2 f1]", got)
			}
			page, err := st.FAQs().List(ctx(t), storage.Page{After: "f1", Limit: 5})
			must(t, err)
			if len(page) != 2 || page[0].ID != "f2" || page[1].ID != "f3" {
				t.Fatalf("ListFAQs(after f1) = %v, want [f2 f3]", page)
			}
			must(t, st.FAQs().Delete(ctx(t), "f2"))
			_, err = st.FAQs().Get(ctx(t), "f2")
			wantErr(t, err, storage.ErrNotFound)
			wantErr(t, st.FAQs().Delete(ctx(t), "f2"), storage.ErrNotFound)
			wantCounts(t, st, storage.Counts{FAQs: 2})
		}},
		{"Invalid", func(t *testing.T, s *suite) {
			st := s.store(t)
			wantErr(t, st.Apply(ctx(t), storage.Batch{FAQs: []storage.FAQ{faq("ok"), {Question: "no id"}}}), storage.ErrInvalidRecord)
			wantCounts(t, st, storage.Counts{})
		}},
	}
}

func documentTests() []testCase {
	doc := func(id, content string) storage.Document {
		return storage.Document{
			ID:        id,
			Source:    "manual.md",
			Title:     "Manual " + id,
			Content:   content,
			Status:    storage.StatusActive,
			Metadata:  map[string]string{"lang": "pt"},
			CreatedAt: at(3),
		}
	}
	return []testCase{
		{"RoundTrip", func(t *testing.T, s *suite) {
			st := s.store(t)
			given := doc("d2", "outro texto")
			given.ContentHash = "0123abcd"
			upsertDocs(t, st, doc("d1", "texto"), given)
			got, err := st.Documents().Get(ctx(t), "d1")
			must(t, err)
			want := doc("d1", "texto")
			want.ContentHash = storage.ContentHash("texto")
			diff(t, "GetDocument (hash filled)", want, got)
			got, err = st.Documents().Get(ctx(t), "d2")
			must(t, err)
			diff(t, "GetDocument (hash kept)", given, got)
			wantCounts(t, st, storage.Counts{Documents: 2})
		}},
		{"ByHash", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertDocs(t, st, doc("d1", "alpha"), doc("d2", "beta"))
			got, err := st.Documents().ByHash(ctx(t), storage.ContentHash("beta"))
			must(t, err)
			if got.ID != "d2" {
				t.Fatalf("DocumentByHash(beta) = %q, want d2", got.ID)
			}
			_, err = st.Documents().ByHash(ctx(t), storage.ContentHash("gamma"))
			wantErr(t, err, storage.ErrNotFound)

			// New content: the old hash no longer finds the document.
			upsertDocs(t, st, doc("d2", "gamma"))
			_, err = st.Documents().ByHash(ctx(t), storage.ContentHash("beta"))
			wantErr(t, err, storage.ErrNotFound)
			got, err = st.Documents().ByHash(ctx(t), storage.ContentHash("gamma"))
			must(t, err)
			if got.ID != "d2" || got.Content != "gamma" {
				t.Fatalf("DocumentByHash(gamma) = %+v", got)
			}
			must(t, st.Documents().Delete(ctx(t), "d2"))
			_, err = st.Documents().ByHash(ctx(t), storage.ContentHash("gamma"))
			wantErr(t, err, storage.ErrNotFound)
		}},
		{"GetListDelete", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertDocs(t, st, doc("b", "1"), doc("a", "2"), doc("c", "3"))
			got, err := st.Documents().GetMany(ctx(t), []string{"c", "nope", "a"})
			must(t, err)
			if len(got) != 2 || got[0].ID != "c" || got[1].ID != "a" {
				t.Fatalf("GetDocuments = %v, want [c a]", got)
			}
			page, err := st.Documents().List(ctx(t), storage.Page{Limit: 2})
			must(t, err)
			if len(page) != 2 || page[0].ID != "a" || page[1].ID != "b" {
				t.Fatalf("ListDocuments = %v, want [a b]", page)
			}
			must(t, st.Documents().Delete(ctx(t), "a"))
			wantErr(t, st.Documents().Delete(ctx(t), "a"), storage.ErrNotFound)
			_, err = st.Documents().Get(ctx(t), "a")
			wantErr(t, err, storage.ErrNotFound)
			wantCounts(t, st, storage.Counts{Documents: 2})
		}},
		{"Invalid", func(t *testing.T, s *suite) {
			st := s.store(t)
			wantErr(t, st.Apply(ctx(t), storage.Batch{Documents: []storage.Document{doc("ok", "x"), doc("", "y")}}), storage.ErrInvalidRecord)
			wantCounts(t, st, storage.Counts{})
		}},
	}
}
