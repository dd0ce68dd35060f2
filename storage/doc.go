// Package storage defines hybridrag's domain records (CatalogItem, FAQ,
// Document, Chunk), the small store interfaces the rest of the library
// consumes, the query types for lexical and vector candidates, and the errors
// stores return.
//
// Implementations live in sub-packages: storage/memory (the embedded
// default) and storage/postgres (pgx + pgvector). storage/storagetest is the
// conformance suite both must pass, so they return the same candidates in
// the same order for the same data.
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
// active records are returned.
//
// # Vector semantics
//
// Distance is the negative inner product (pgvector's <#>); smaller is
// closer. Chunks farther than VectorQuery.MaxDistance are dropped. Only
// chunks of active owners are returned.
//
// # Errors
//
// Stores wrap the sentinels ErrNotFound, ErrDimensionMismatch,
// ErrInvalidVector, ErrInvalidRecord, ErrInvalidFilter, ErrInvalidTenant and
// ErrSchemaMismatch; validation failures are *ValidationError values naming
// the owner and field. A rejected write writes nothing.
package storage
