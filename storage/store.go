package storage

import "context"

// CatalogStore holds catalog items and their attached files.
type CatalogStore interface {
	// UpsertItems inserts or replaces items (with their files) atomically.
	UpsertItems(ctx context.Context, items []CatalogItem) error
	// GetItem returns the item with its files, or ErrNotFound.
	GetItem(ctx context.Context, id string) (CatalogItem, error)
	// GetItems returns the items that exist among ids, in the order of ids;
	// missing ids are skipped. Inactive items are included.
	GetItems(ctx context.Context, ids []string) ([]CatalogItem, error)
	// ListItems returns a page of items ordered by ID.
	ListItems(ctx context.Context, page Page) ([]CatalogItem, error)
	// DeleteItem removes the item, its files and its chunks, or returns
	// ErrNotFound.
	DeleteItem(ctx context.Context, id string) error
	// SearchItems returns lexical candidates among active items, matching
	// name, description, category, manufacturer, tags and file text.
	SearchItems(ctx context.Context, q LexicalQuery) ([]LexicalCandidate[CatalogItem], error)
}

// FAQStore holds FAQs.
type FAQStore interface {
	UpsertFAQs(ctx context.Context, faqs []FAQ) error
	// GetFAQ returns the FAQ or ErrNotFound.
	GetFAQ(ctx context.Context, id string) (FAQ, error)
	// GetFAQs returns the FAQs that exist among ids, in the order of ids.
	GetFAQs(ctx context.Context, ids []string) ([]FAQ, error)
	ListFAQs(ctx context.Context, page Page) ([]FAQ, error)
	// DeleteFAQ removes the FAQ and its chunks, or returns ErrNotFound.
	DeleteFAQ(ctx context.Context, id string) error
	// SearchFAQs returns lexical candidates among active FAQs, matching
	// question, answer, category and keywords.
	SearchFAQs(ctx context.Context, q LexicalQuery) ([]LexicalCandidate[FAQ], error)
}

// DocumentStore holds documents.
type DocumentStore interface {
	UpsertDocuments(ctx context.Context, docs []Document) error
	// GetDocument returns the document or ErrNotFound.
	GetDocument(ctx context.Context, id string) (Document, error)
	// GetDocuments returns the documents that exist among ids, in the order
	// of ids.
	GetDocuments(ctx context.Context, ids []string) ([]Document, error)
	// DocumentByHash returns the document whose ContentHash is hash, or
	// ErrNotFound; ingestion uses it to reject duplicates.
	DocumentByHash(ctx context.Context, hash string) (Document, error)
	ListDocuments(ctx context.Context, page Page) ([]Document, error)
	// DeleteDocument removes the document and its chunks, or returns
	// ErrNotFound.
	DeleteDocument(ctx context.Context, id string) error
	// SearchDocuments returns lexical candidates matching title and content.
	SearchDocuments(ctx context.Context, q LexicalQuery) ([]LexicalCandidate[Document], error)
}

// ChunkStore holds chunks and their embeddings.
type ChunkStore interface {
	// Dimensions is the length every stored embedding must have.
	Dimensions() int
	// ReplaceChunks atomically replaces all chunks of owner with chunks. The
	// owner must exist (ErrNotFound otherwise). Every embedding is checked
	// before anything is written (ErrDimensionMismatch, ErrInvalidVector).
	ReplaceChunks(ctx context.Context, owner OwnerRef, chunks []Chunk) error
	// ChunkRefs lists the stored chunks of the given owners (all owners of
	// the kind when ownerIDs is nil), ordered by owner ID, source and Seq.
	ChunkRefs(ctx context.Context, kind OwnerKind, ownerIDs []string) ([]ChunkRef, error)
	// Chunks returns the chunks of one owner with their embeddings, ordered
	// by source and Seq.
	Chunks(ctx context.Context, owner OwnerRef) ([]Chunk, error)
	// SearchChunks returns the chunks of active owners of q.Kind nearest to
	// q.Vector, closest first (ties by owner ID, source, Seq).
	SearchChunks(ctx context.Context, q VectorQuery) ([]ChunkMatch, error)
}

// Batch is a set of writes applied atomically by BatchWriter.Apply: either
// all of them take effect or none does. Within a batch, records are written
// first, then chunk replacements, then deletions.
type Batch struct {
	Items     []CatalogItem
	FAQs      []FAQ
	Documents []Document
	// Chunks replaces, for each owner named, all of its chunks.
	Chunks []OwnerChunks
	// Deletes removes owners (and their chunks).
	Deletes []OwnerRef
}

// Empty reports whether the batch writes nothing.
func (b *Batch) Empty() bool {
	return len(b.Items) == 0 && len(b.FAQs) == 0 && len(b.Documents) == 0 &&
		len(b.Chunks) == 0 && len(b.Deletes) == 0
}

// OwnerChunks is the new set of chunks of one owner.
type OwnerChunks struct {
	Owner  OwnerRef
	Chunks []Chunk
}

// BatchWriter applies batches atomically.
type BatchWriter interface {
	// Apply validates the whole batch first (nothing is written when any
	// record, chunk or vector is invalid) and then writes it in one
	// transaction.
	Apply(ctx context.Context, b Batch) error
}

// Store is everything a tenant-scoped store offers. Both storage/memory and
// storage/postgres implement it; storage/storagetest checks that they agree.
type Store interface {
	CatalogStore
	FAQStore
	DocumentStore
	ChunkStore
	BatchWriter
	// Counts returns the number of records and chunks of the tenant.
	Counts(ctx context.Context) (Counts, error)
}
