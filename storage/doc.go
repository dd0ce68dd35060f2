// Package storage defines hybridrag's domain records (CatalogItem, FAQ,
// Document, Chunk), the small store interfaces the rest of the library
// consumes, the query types for lexical and vector candidates, and the errors
// stores return.
//
// Implementations live in sub-packages: storage/memory (the embedded
// default) and storage/postgres (pgx + pgvector). storage/storagetest is the
// conformance suite both must pass, so they return the same candidates in
// the same order for the same data. An implementation writes the reads
// every kind of record shares once, as a generic RecordStore, and hands
// out one per kind (Store.Items, FAQs, Documents).
//
// # Which interface
//
// Applications, rag's Searcher and the chat Pipeline use Store: the
// records of each kind (read, searched, deleted with their chunks), the
// chunks, the counts and the change marker (Version). Store has no raw
// write: records are written through rag/ingest's Indexer, which cuts and
// embeds their chunks and writes both in one batch through the store's
// BatchWriter (Apply, Dimensions). A store implementation is a Backend,
// Store and BatchWriter together; the memory and PostgreSQL stores are.
//
// # Change marker
//
// Store.Version changes once every completed write of a tenant (an applied
// batch, a Delete), in the memory store (a counter) and in PostgreSQL (a
// per-tenant row that triggers bump when a transaction writing the
// tenant's records, files or chunks commits, whoever runs it). rag's
// Searcher polls it to rebuild what it derived from the records.
//
// # Records
//
// The three owner records (CatalogItem, FAQ, Document) share their
// life-cycle representation: a Status field whose zero value means active,
// StatusInactive hiding the record from every search (lexical and
// vector) while Get, List and the chunk methods still see it, and the same
// Active method. Stores store an empty Status as StatusActive and reject
// any other value with ErrInvalidRecord.
//
// A Chunk carries where it came from as typed fields: Start (byte offset
// in its source text), HeadingPath (headings above it, outermost first)
// and File (the attached file it was cut from); Metadata is left to
// free-form chunker or extractor data. Stores keep all of them and return
// them with every chunk, ChunkMatch included.
//
// # Tenancy
//
// Stores are opened once and scoped to a tenant by an explicit call (for
// example memory.DB.Tenant("acme")); every read and write of the returned
// Store, lexical and vector, is confined to that tenant.
//
// # Lexical semantics
//
// A query term matches a record when the record's normalized search text
// (see ItemSearchText, FAQSearchText, DocumentSearchText) contains the
// normalized term as a plain substring; '%', '_', '\' and quotes have no
// special meaning. Terms are ORed; candidates are ranked by the number of
// distinct terms matched, then CreatedAt descending, then ID ascending. Only
// active records are returned. A query's Limit below 1 means
// DefaultResultLimit; above MaxResultLimit, MaxResultLimit.
//
// # Vector semantics
//
// Distance is the negative inner product (pgvector's <#>); smaller is
// closer. Chunks farther than VectorQuery.MaxDistance are dropped (the
// constant NoThreshold keeps them all). Only chunks of active owners are
// returned.
//
// # Restrictions
//
// Both query types take OwnerIDs and ChunkFilters. OwnerIDs confine a
// search to the listed owners; ChunkFilters (key = value on a chunk's
// Metadata, values compared normalized, alternatives within a key, all
// keys on the same chunk) confine a vector search to the matching chunks
// and a lexical search to the owners holding one. Stores evaluate them
// over all of the tenant's chunks before ranking, so the nearest matching
// chunk (or the best matching owner) is returned however many better
// non-matching ones exist; ValidateRestrictions bounds them.
//
// # Text and IDs
//
// Stores hold text as PostgreSQL does: valid UTF-8 without NUL bytes
// (ValidText). Every write is checked by ValidateBatch, shared by all
// stores: an ID that is blank, longer than MaxIDLength, not ValidText or
// holding a control character (newline, tab, ...) or a bidirectional
// formatting character such as U+202E (ValidID), a NUL byte or invalid
// UTF-8 in any text field of a record or chunk (list elements and map keys
// included), and a document content with no text but white space and
// control characters, fail the write with a *ValidationError wrapping
// ErrInvalidRecord that names the owner and the field, and nothing is
// written. Callers repair user text beforehand
// (lexical.Normalize and the ingestion loaders do); stores refuse rather
// than silently alter it.
//
// Reads treat an ID no record can have like any missing one, in every
// store: Get, Delete and ByHash return ErrNotFound, GetMany and
// ChunkRefs skip it, and a Page.After cursor holding such bytes is compared
// bytewise like any other. Calls that take an OwnerRef (Chunks, Batch owners and deletions) validate it like a write:
// ErrInvalidRecord. Lexical terms and filter values are normalized
// (lexical.Normalize repairs them) before they are compared.
//
// # Limits
//
// ValidateBatch also bounds what one record may hold, so that one write
// cannot cost minutes: at most MaxTags (256) tags or keywords of at most
// MaxTagLength (200) characters each, MaxMetadataKeys (64) metadata keys
// of at most MaxMetadataKeyLength (128) characters with values of at most
// MaxMetadataValueLength (4,000), MaxFiles (100) files per item,
// MaxNameLength (1,000) characters in a name, title, question, category,
// manufacturer, source or file name, MaxDescriptionLength (100,000) in a
// description or an answer, and MaxContentLength (8 Mi) in a document's
// content or a file's text. A record over one fails with a
// *ValidationError wrapping ErrLimitExceeded (which wraps
// ErrInvalidRecord) whose Reason names the limit.
//
// # Errors
//
// Stores wrap the sentinels ErrNotFound, ErrDimensionMismatch,
// ErrInvalidVector, ErrInvalidRecord (ErrLimitExceeded among them),
// ErrInvalidFilter, ErrInvalidTenant and ErrSchemaMismatch; validation failures are *ValidationError values naming
// the owner and field. A rejected write writes nothing.
package storage
