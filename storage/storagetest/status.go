package storagetest

import (
	"context"
	"testing"

	"github.com/hybridrag/hybridrag/storage"
)

// statusKind is one kind of record as the status tests use it: the
// store's records of the kind, how to put them in a batch, a record with a
// given ID and status (its text contains "milho"), and the ID and status
// of a record.
type statusKind[T any] struct {
	kind   storage.OwnerKind
	recs   storage.RecordStore[T]
	put    func(*storage.Batch, []T)
	record func(id string, s storage.Status) T
	view   func(*T) (string, storage.Status)
}

// upsert writes recs in one batch.
func (k statusKind[T]) upsert(ctx context.Context, st storage.BatchWriter, recs []T) error {
	var b storage.Batch
	k.put(&b, recs)
	return st.Apply(ctx, b)
}

// statusTests check the Status every kind of record has: the zero value
// stored as active, inactive records kept (Get still returns them) but
// never returned by lexical or vector searches, reactivation, and unknown
// statuses rejected with nothing written.
func statusTests() []testCase {
	return []testCase{
		{"Items", func(t *testing.T, s *suite) {
			st := s.store(t)
			testStatus(t, st, statusKind[storage.CatalogItem]{storage.KindItem, st.Items(), func(b *storage.Batch, r []storage.CatalogItem) { b.Items = r },
				func(id string, s storage.Status) storage.CatalogItem {
					return storage.CatalogItem{ID: id, Name: "Semente de milho", Status: s}
				},
				func(it *storage.CatalogItem) (string, storage.Status) { return it.ID, it.Status }})
		}},
		{"FAQs", func(t *testing.T, s *suite) {
			st := s.store(t)
			testStatus(t, st, statusKind[storage.FAQ]{storage.KindFAQ, st.FAQs(), func(b *storage.Batch, r []storage.FAQ) { b.FAQs = r },
				func(id string, s storage.Status) storage.FAQ {
					return storage.FAQ{ID: id, Question: "Quando plantar milho?", Answer: "Na primavera.", Status: s}
				},
				func(f *storage.FAQ) (string, storage.Status) { return f.ID, f.Status }})
		}},
		{"Documents", func(t *testing.T, s *suite) {
			st := s.store(t)
			testStatus(t, st, statusKind[storage.Document]{storage.KindDocument, st.Documents(), func(b *storage.Batch, r []storage.Document) { b.Documents = r },
				func(id string, s storage.Status) storage.Document {
					return storage.Document{ID: id, Title: "Manual", Content: "Plantio de milho, lote " + id, Status: s}
				},
				func(d *storage.Document) (string, storage.Status) { return d.ID, d.Status }})
		}},
	}
}

func testStatus[T any](t *testing.T, st storage.Backend, k statusKind[T]) {
	t.Helper()
	c := ctx(t)
	must(t, k.upsert(c, st, []T{k.record("a", ""), k.record("b", storage.StatusActive), k.record("c", storage.StatusInactive)}))
	for id, want := range map[string]storage.Status{"a": storage.StatusActive, "b": storage.StatusActive, "c": storage.StatusInactive} {
		got, err := k.recs.Get(c, id)
		must(t, err)
		if _, s := k.view(&got); s != want {
			t.Errorf("%s %s: Status %q, want %q", k.kind, id, s, want)
		}
	}
	for _, id := range []string{"a", "b", "c"} {
		replace(t, st, storage.OwnerRef{Kind: k.kind, ID: id}, chunk(storage.SourceDoc, 0, "milho "+id, unit(0)))
	}
	searched := func(what string, want []string) {
		t.Helper()
		res, err := k.recs.Search(c, storage.LexicalQuery{Terms: []string{"milho"}})
		must(t, err)
		var ids []string
		for _, r := range res {
			id, _ := k.view(&r.Record)
			ids = append(ids, id)
		}
		diff(t, what+": lexical IDs", want, ids)
		var vids []string
		for _, h := range searchHits(t, st, storage.VectorQuery{Kind: k.kind, Vector: unit(0), MaxDistance: storage.NoThreshold}) {
			vids = append(vids, h.Owner)
		}
		diff(t, what+": vector owners", want, vids)
	}
	searched("c inactive", []string{"a", "b"})

	must(t, k.upsert(c, st, []T{k.record("a", storage.StatusInactive), k.record("c", "")}))
	searched("a deactivated, c reactivated", []string{"b", "c"})

	err := k.upsert(c, st, []T{k.record("d", storage.StatusActive), k.record("e", "ativo?")})
	wantErr(t, err, storage.ErrInvalidRecord)
	_, err = k.recs.Get(c, "d")
	wantErr(t, err, storage.ErrNotFound)
}
