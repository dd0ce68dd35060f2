package storage

import "context"

// RecordStore holds the records of one kind, T (CatalogItem, FAQ or
// Document): the reads, the lexical search and the delete every kind of
// record has. A store implementation writes it once, generically, and
// hands out one per kind (Store.Items, Store.FAQs, Store.Documents).
// Writes go through a BatchWriter. Implementations must be safe for
// concurrent use, like the stores.
type RecordStore[T any] interface {
	// Get returns the record with the given ID (an item with its files),
	// or ErrNotFound.
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
	// Search returns lexical candidates among the active records (items:
	// name, description, category, manufacturer, tags and file names and
	// text; FAQs: question, answer, category and keywords; documents:
	// title, source and content); see LexicalQuery. A query without
	// non-empty terms returns none.
	Search(ctx context.Context, q LexicalQuery) ([]LexicalCandidate[T], error)
}

// DocumentStore is the RecordStore of documents, with the lookup by
// content that ingestion uses to reject duplicates.
type DocumentStore interface {
	RecordStore[Document]
	// ByHash returns the document whose ContentHash is hash (the one with
	// the smallest ID when several share it), or ErrNotFound.
	ByHash(ctx context.Context, hash string) (Document, error)
}

// Store is one tenant's records and chunks: what applications, rag's
// Searcher and the chat Pipeline read. Both storage/memory and
// storage/postgres implement it; storage/storagetest checks that they
// agree.
//
// Store has no method that writes a record without its chunks: an
// application writes records through rag/ingest's Indexer, which cuts and
// embeds the chunks and writes them with the record (through the store's
// BatchWriter, see Backend). Delete, on each kind's RecordStore, removes a
// record with its chunks.
type Store interface {
	// Items, FAQs and Documents are the records of each kind.
	Items() RecordStore[CatalogItem]
	FAQs() RecordStore[FAQ]
	Documents() DocumentStore
	// ChunkRefs lists the stored chunks of the given owners (all owners of
	// the kind when ownerIDs is nil), ordered by owner ID, source and Seq.
	ChunkRefs(ctx context.Context, kind OwnerKind, ownerIDs []string) ([]ChunkRef, error)
	// Chunks returns the chunks of one owner with their embeddings, ordered
	// by source and Seq.
	Chunks(ctx context.Context, owner OwnerRef) ([]Chunk, error)
	// SearchChunks returns the chunks of active owners of q.Kind nearest to
	// q.Vector, closest first (ties by owner ID, source, Seq).
	SearchChunks(ctx context.Context, q VectorQuery) ([]ChunkMatch, error)
	// Counts returns the number of records and chunks of the tenant.
	Counts(ctx context.Context) (Counts, error)
	// Version returns the tenant's change marker: a number that differs
	// from every earlier one the store returned for the tenant once a
	// write of any of its records or chunks (an applied batch, a Delete)
	// has completed; equal numbers mean nothing changed in between. It is
	// cheap (a counter in memory, one indexed row in PostgreSQL), so that
	// a reader can poll it to know when what it derived from the records
	// is stale (rag's Searcher does). A tenant never written has version 0.
	Version(ctx context.Context) (uint64, error)
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

// BatchWriter applies batches atomically: the raw write of a store.
// Records and chunks are written as given; a record written without its
// chunks keeps the chunks of its old text. rag/ingest's Indexer writes
// through it, keeping chunks and embeddings in step with the records;
// applications write through the Indexer.
type BatchWriter interface {
	// Dimensions is the length every embedding written must have.
	Dimensions() int
	// Apply validates the whole batch first (nothing is written when any
	// record, chunk or vector is invalid) and then writes it in one
	// transaction. A zero CreatedAt keeps the stored one (or is set to now
	// for a new record); UpdatedAt is always set to now; an empty Status is
	// stored as active; an empty document ContentHash is filled from
	// Content.
	Apply(ctx context.Context, b Batch) error
}

// Backend is what a store implementation provides: a Store that also
// applies raw batches. storage/memory and storage/postgres are Backends;
// rag/ingest's Indexer writes to one.
type Backend interface {
	Store
	BatchWriter
}
