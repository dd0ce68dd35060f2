package rag

import (
	"context"
	"time"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/rag/fields"
	"github.com/hybridrag/hybridrag/rag/internal/fieldname"
	"github.com/hybridrag/hybridrag/storage"
)

// recordKind describes one kind of record, T, to the Searcher's generic
// code (search, fusion, evidence, vocabularies, calibration): where the
// store keeps the kind, how to read a record's ID, fields and texts, and
// which options apply to it. The three kinds are the package-level values
// itemKind, faqKind and docKind; nothing else in the Searcher spells a
// kind out.
type recordKind[T any] struct {
	kind storage.OwnerKind
	// index is the kind's slot in the Searcher's per-kind caches.
	index int
	// records are the kind's records in a store.
	records func(storage.Store) storage.RecordStore[T]
	id      func(*T) string
	updated func(*T) time.Time
	// vocab adds the words of a record to its kind's vocabulary, or
	// nothing when the record is not searched (inactive items and FAQs).
	vocab func(*lexical.VocabularyBuilder, *T)
	// fields are the record's fields as the kind's lexical scorer reads
	// them.
	fields func(*T) lexical.Record
	// title names the record; text is its main text (snippets, reranking).
	title, text func(*T) string
	// titleField is the field a query names a record by.
	titleField string
	// options are the kind's settings in SearcherOptions.
	options func(*SearcherOptions) *KindOptions
	// scorer is the kind's default lexical scorer.
	scorer func() *lexical.Scorer
}

// numKinds is the number of record kinds (the length of per-kind caches).
const numKinds = 3

var (
	itemKind = &recordKind[storage.CatalogItem]{
		kind: storage.KindItem, index: 0,
		records: func(s storage.Store) storage.RecordStore[storage.CatalogItem] { return s.Items() },
		id:      func(it *storage.CatalogItem) string { return it.ID },
		updated: func(it *storage.CatalogItem) time.Time { return it.UpdatedAt },
		vocab: func(b *lexical.VocabularyBuilder, it *storage.CatalogItem) {
			if it.Status.Active() {
				b.Add(storage.ItemSearchText(it))
			}
		},
		fields:     func(it *storage.CatalogItem) lexical.Record { return itemRecord{it} },
		title:      func(it *storage.CatalogItem) string { return it.Name },
		text:       func(it *storage.CatalogItem) string { return it.Description },
		titleField: lexical.FieldName,
		options:    func(o *SearcherOptions) *KindOptions { return &o.Kinds.Catalog },
		scorer:     func() *lexical.Scorer { return lexical.NewScorer(fields.CatalogScorer()) },
	}
	faqKind = &recordKind[storage.FAQ]{
		kind: storage.KindFAQ, index: 1,
		records: func(s storage.Store) storage.RecordStore[storage.FAQ] { return s.FAQs() },
		id:      func(f *storage.FAQ) string { return f.ID },
		updated: func(f *storage.FAQ) time.Time { return f.UpdatedAt },
		vocab: func(b *lexical.VocabularyBuilder, f *storage.FAQ) {
			if f.Status.Active() {
				b.AddRecord(faqRecord{f})
			}
		},
		fields:     func(f *storage.FAQ) lexical.Record { return faqRecord{f} },
		title:      func(f *storage.FAQ) string { return f.Question },
		text:       func(f *storage.FAQ) string { return f.Answer },
		titleField: fieldname.Question,
		options:    func(o *SearcherOptions) *KindOptions { return &o.Kinds.FAQs },
		scorer:     func() *lexical.Scorer { return lexical.NewScorer(withQuestionSynonyms(fields.FAQScorer())) },
	}
	docKind = &recordKind[storage.Document]{
		kind: storage.KindDocument, index: 2,
		records: func(s storage.Store) storage.RecordStore[storage.Document] { return s.Documents() },
		id:      func(d *storage.Document) string { return d.ID },
		updated: func(d *storage.Document) time.Time { return d.UpdatedAt },
		// Every document counts, inactive ones included (as before the
		// kinds were described as data).
		vocab:      func(b *lexical.VocabularyBuilder, d *storage.Document) { b.AddRecord(docRecord{d}) },
		fields:     func(d *storage.Document) lexical.Record { return docRecord{d} },
		title:      func(d *storage.Document) string { return d.Title },
		text:       func(d *storage.Document) string { return d.Content },
		titleField: fieldname.Title,
		options:    func(o *SearcherOptions) *KindOptions { return &o.Kinds.Documents },
		scorer:     func() *lexical.Scorer { return lexical.NewScorer(withQuestionSynonyms(fields.DocumentScorer())) },
	}
)

// kindDeriver is what the Searcher derives from one kind's records,
// whatever the record type: the kinds as a list (Warm, the background
// rebuild).
type kindDeriver interface {
	ownerKind() storage.OwnerKind
	slot() int
	// buildVocabulary lists every record of the kind in store and returns
	// its vocabulary.
	buildVocabulary(ctx context.Context, store storage.Store) (*lexical.Vocabulary, error)
	// listIDs returns the IDs of the first n records of the kind, by ID.
	listIDs(ctx context.Context, store storage.Store, n int) ([]string, error)
}

// kinds are the record kinds, in kindIndex order.
var kinds = [numKinds]kindDeriver{itemKind, faqKind, docKind}

func (k *recordKind[T]) ownerKind() storage.OwnerKind { return k.kind }
func (k *recordKind[T]) slot() int                    { return k.index }

func (k *recordKind[T]) buildVocabulary(ctx context.Context, store storage.Store) (*lexical.Vocabulary, error) {
	var b lexical.VocabularyBuilder
	recs := k.records(store)
	page := storage.Page{Limit: vocabularyPage}
	for {
		list, err := recs.List(ctx, page)
		if err != nil {
			return nil, err
		}
		for i := range list {
			k.vocab(&b, &list[i])
		}
		if len(list) < vocabularyPage {
			return b.Build(), nil
		}
		page.After = k.id(&list[len(list)-1])
	}
}

func (k *recordKind[T]) listIDs(ctx context.Context, store storage.Store, n int) ([]string, error) {
	list, err := k.records(store).List(ctx, storage.Page{Limit: n})
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(list))
	for i := range list {
		ids[i] = k.id(&list[i])
	}
	return ids, nil
}

// kindIndex is the slot of kind in the per-kind caches.
func kindIndex(kind storage.OwnerKind) int {
	for _, k := range kinds {
		if k.ownerKind() == kind {
			return k.slot()
		}
	}
	return 0
}

// kindOf returns the description of kind, or nil for an unknown kind.
func kindOf(kind storage.OwnerKind) kindDeriver {
	for _, k := range kinds {
		if k.ownerKind() == kind {
			return k
		}
	}
	return nil
}

// itemRecord adapts a catalog item to lexical.Record.
type itemRecord struct{ it *storage.CatalogItem }

func (r itemRecord) NumFields() int { return 4 + len(r.it.Tags) + len(r.it.Files) }
func (r itemRecord) Field(i int) lexical.Field {
	switch i {
	case 0:
		return lexical.Field{Name: lexical.FieldName, Text: r.it.Name}
	case 1:
		return lexical.Field{Name: lexical.FieldDescription, Text: r.it.Description}
	case 2:
		return lexical.Field{Name: lexical.FieldCategory, Text: r.it.Category}
	case 3:
		return lexical.Field{Name: lexical.FieldManufacturer, Text: r.it.Manufacturer}
	}
	i -= 4
	if i < len(r.it.Tags) {
		return lexical.Field{Name: lexical.FieldTags, Text: r.it.Tags[i]}
	}
	i -= len(r.it.Tags)
	if i < len(r.it.Files) {
		return lexical.Field{Name: fieldname.Files, Text: r.it.Files[i].Text}
	}
	return lexical.Field{}
}

type faqRecord struct{ f *storage.FAQ }

func (r faqRecord) NumFields() int { return 3 + len(r.f.Keywords) }
func (r faqRecord) Field(i int) lexical.Field {
	switch i {
	case 0:
		return lexical.Field{Name: fieldname.Question, Text: r.f.Question}
	case 1:
		return lexical.Field{Name: fieldname.Answer, Text: r.f.Answer}
	case 2:
		return lexical.Field{Name: lexical.FieldCategory, Text: r.f.Category}
	}
	if i -= 3; i < len(r.f.Keywords) {
		return lexical.Field{Name: fieldname.Keywords, Text: r.f.Keywords[i]}
	}
	return lexical.Field{}
}

type docRecord struct{ d *storage.Document }

func (r docRecord) NumFields() int { return 3 }
func (r docRecord) Field(i int) lexical.Field {
	switch i {
	case 0:
		return lexical.Field{Name: fieldname.Title, Text: r.d.Title}
	case 1:
		return lexical.Field{Name: fieldname.Source, Text: r.d.Source}
	case 2:
		return lexical.Field{Name: fieldname.Content, Text: r.d.Content}
	}
	return lexical.Field{}
}
