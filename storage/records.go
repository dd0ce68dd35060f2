package storage

import "context"

// RecordStore holds the records of one kind, T (CatalogItem, FAQ or
// Document): the reads and the delete every kind of record has (writes go
// through a BatchWriter). A store implementation provides one per kind,
// written once generically, and gets the per-kind methods of CatalogStore,
// FAQStore and DocumentStore from RecordStores. Implementations must be
// safe for concurrent use, like the stores.
type RecordStore[T any] interface {
	// Get returns the record with the given ID, or ErrNotFound.
	Get(ctx context.Context, id string) (T, error)
	// GetMany returns the records (active or not) that exist among ids, in
	// the order of ids; missing IDs are skipped.
	GetMany(ctx context.Context, ids []string) ([]T, error)
	// List returns a page of records (active or not) ordered by ID,
	// bytewise.
	List(ctx context.Context, page Page) ([]T, error)
	// Delete removes the record and everything it owns (files, chunks), or
	// returns ErrNotFound.
	Delete(ctx context.Context, id string) error
	// Search returns lexical candidates among the active records; see
	// LexicalQuery. A query without non-empty terms returns none.
	Search(ctx context.Context, q LexicalQuery) ([]LexicalCandidate[T], error)
}

// RecordStores implements the methods of CatalogStore, FAQStore and
// DocumentStore that every kind of record shares (all but DocumentByHash)
// with one RecordStore per kind and a BatchWriter for the upserts. Store
// implementations embed it (storage/memory and storage/postgres do), so
// that these methods, and their contract, are written once. The zero value
// is not usable; see NewRecordStores.
//
// RecordStores is safe for concurrent use when its stores and writer are.
type RecordStores struct {
	items  RecordStore[CatalogItem]
	faqs   RecordStore[FAQ]
	docs   RecordStore[Document]
	writer BatchWriter
}

// NewRecordStores returns the RecordStores reading through items, faqs and
// docs and applying the batches of its Upsert methods with w.
func NewRecordStores(items RecordStore[CatalogItem], faqs RecordStore[FAQ], docs RecordStore[Document], w BatchWriter) RecordStores {
	return RecordStores{items: items, faqs: faqs, docs: docs, writer: w}
}

// UpsertItems inserts or replaces items, with their files, atomically (one
// batch). A zero CreatedAt keeps the stored one (or is set to now for a new
// item); UpdatedAt is always set to now; an empty Status is stored as
// active.
func (r RecordStores) UpsertItems(ctx context.Context, items []CatalogItem) error {
	return r.writer.Apply(ctx, Batch{Items: items})
}

// GetItem returns the item with its files, or ErrNotFound.
func (r RecordStores) GetItem(ctx context.Context, id string) (CatalogItem, error) {
	return r.items.Get(ctx, id)
}

// GetItems returns the items (active or not) that exist among ids, in the
// order of ids.
func (r RecordStores) GetItems(ctx context.Context, ids []string) ([]CatalogItem, error) {
	return r.items.GetMany(ctx, ids)
}

// ListItems returns a page of items (active or not) ordered by ID.
func (r RecordStores) ListItems(ctx context.Context, page Page) ([]CatalogItem, error) {
	return r.items.List(ctx, page)
}

// DeleteItem removes the item, its files and its chunks, or returns
// ErrNotFound.
func (r RecordStores) DeleteItem(ctx context.Context, id string) error {
	return r.items.Delete(ctx, id)
}

// SearchItems returns lexical candidates among active items, matching
// name, description, category, manufacturer, tags and file names and text.
func (r RecordStores) SearchItems(ctx context.Context, q LexicalQuery) ([]LexicalCandidate[CatalogItem], error) {
	return r.items.Search(ctx, q)
}

// UpsertFAQs inserts or replaces FAQs atomically, like UpsertItems.
func (r RecordStores) UpsertFAQs(ctx context.Context, faqs []FAQ) error {
	return r.writer.Apply(ctx, Batch{FAQs: faqs})
}

// GetFAQ returns the FAQ or ErrNotFound.
func (r RecordStores) GetFAQ(ctx context.Context, id string) (FAQ, error) { return r.faqs.Get(ctx, id) }

// GetFAQs returns the FAQs that exist among ids, in the order of ids.
func (r RecordStores) GetFAQs(ctx context.Context, ids []string) ([]FAQ, error) {
	return r.faqs.GetMany(ctx, ids)
}

// ListFAQs returns a page of FAQs ordered by ID.
func (r RecordStores) ListFAQs(ctx context.Context, page Page) ([]FAQ, error) {
	return r.faqs.List(ctx, page)
}

// DeleteFAQ removes the FAQ and its chunks, or returns ErrNotFound.
func (r RecordStores) DeleteFAQ(ctx context.Context, id string) error { return r.faqs.Delete(ctx, id) }

// SearchFAQs returns lexical candidates among active FAQs, matching
// question, answer, category and keywords.
func (r RecordStores) SearchFAQs(ctx context.Context, q LexicalQuery) ([]LexicalCandidate[FAQ], error) {
	return r.faqs.Search(ctx, q)
}

// UpsertDocuments inserts or replaces documents atomically, like
// UpsertItems; an empty ContentHash is filled from Content.
func (r RecordStores) UpsertDocuments(ctx context.Context, docs []Document) error {
	return r.writer.Apply(ctx, Batch{Documents: docs})
}

// GetDocument returns the document or ErrNotFound.
func (r RecordStores) GetDocument(ctx context.Context, id string) (Document, error) {
	return r.docs.Get(ctx, id)
}

// GetDocuments returns the documents that exist among ids, in the order of
// ids.
func (r RecordStores) GetDocuments(ctx context.Context, ids []string) ([]Document, error) {
	return r.docs.GetMany(ctx, ids)
}

// ListDocuments returns a page of documents ordered by ID.
func (r RecordStores) ListDocuments(ctx context.Context, page Page) ([]Document, error) {
	return r.docs.List(ctx, page)
}

// DeleteDocument removes the document and its chunks, or returns
// ErrNotFound.
func (r RecordStores) DeleteDocument(ctx context.Context, id string) error {
	return r.docs.Delete(ctx, id)
}

// SearchDocuments returns lexical candidates among active documents,
// matching title and content.
func (r RecordStores) SearchDocuments(ctx context.Context, q LexicalQuery) ([]LexicalCandidate[Document], error) {
	return r.docs.Search(ctx, q)
}
