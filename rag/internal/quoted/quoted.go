// Package quoted carries, from the Pipeline to the offline extractive
// answerer, the passages a turn's context quotes for each record it
// keeps, so that the extractive answer states what a model answering from
// that context would read: one passage picker (rag's, chosen by the
// search's question, the previous turn joined for a follow-up), two
// readers. The passages travel in the answer call's context.Context,
// request-scoped and invisible to other answerers.
package quoted

import (
	"context"

	"github.com/hybridrag/hybridrag/storage"
)

// Record are the passages the context quotes for one record, best first,
// and for a document the section they come from ("Título › Seção").
type Record struct {
	Passages []string
	Cite     string
}

// Turn are the passages of a turn's records, by kind and ID.
type Turn struct {
	records map[storage.OwnerRef]Record
}

// Add records the passages of the record ref (none is recorded too: the
// context keeps the record's snippet).
func (t *Turn) Add(ref storage.OwnerRef, r Record) {
	if t.records == nil {
		t.records = map[storage.OwnerRef]Record{}
	}
	t.records[ref] = r
}

// Get returns the passages of ref; ok is false when t is nil or the turn
// did not record ref.
func (t *Turn) Get(ref storage.OwnerRef) (r Record, ok bool) {
	if t == nil {
		return Record{}, false
	}
	r, ok = t.records[ref]
	return r, ok
}

type key struct{}

// With returns ctx carrying t.
func With(ctx context.Context, t *Turn) context.Context { return context.WithValue(ctx, key{}, t) }

// From returns the Turn ctx carries, or nil.
func From(ctx context.Context) *Turn {
	t, _ := ctx.Value(key{}).(*Turn)
	return t
}
