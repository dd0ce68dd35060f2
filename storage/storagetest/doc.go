// Package storagetest is the conformance suite every storage.Backend
// implementation must pass, so that storage/memory and storage/postgres
// return the same records, candidates and errors, in the same order, for
// the same calls.
//
// A backend runs it from its own tests:
//
//	func TestConformance(t *testing.T) {
//		storagetest.Run(t, func(t *testing.T, cfg storagetest.Config) storagetest.TenantFunc {
//			db := memory.New(memory.Options{Dimensions: cfg.Dims, AllowedMetadataKeys: cfg.AllowedMetadataKeys})
//			return func(tenant string) (storage.Backend, error) { return db.Tenant(tenant) }
//		})
//	}
//
// Every subtest opens the backend through the Opener and works in tenants
// whose IDs are unique to the run, so a backend may hand out one shared,
// already migrated database. Embeddings have Config.Dims (8) elements built from
// values exact in float32, so expected distances are compared exactly.
//
// # What it checks
//
//   - CRUD of items (with files), FAQs and documents: round trips, deep
//     copies, upsert replacing records while keeping CreatedAt when the
//     input's is zero, GetMany order and missing IDs, pagination in
//     bytewise ID order, ErrNotFound, invalid records rejected with nothing
//     written, document hashes.
//   - Lexical semantics: accents and NFD input on both sides, '%', '_', '\'
//     and quotes matched literally, every searchable field including file
//     names and text, no match across fields, ranking by distinct terms,
//     ties by CreatedAt descending then ID, inactive records excluded,
//     limits, filters (normalized equality, AND), filter validation.
//   - Status: for items, FAQs and documents alike, an empty Status stored
//     as active, inactive records kept but never returned by lexical or
//     vector searches, reactivation, unknown statuses rejected.
//   - Chunks: replace and read back (sorted by source and Seq, hashes
//     filled), the typed fields Start, HeadingPath and File returned by
//     Chunks and SearchChunks, idempotent replace, missing owners,
//     ChunkRefs, dimension, NaN and ±Inf rejection leaving old chunks
//     intact, a negative Start rejected, deep copies, cascading deletes.
//   - Vector search: negative inner-product distances, the threshold
//     (distance <= MaxDistance, boundary included), limits, ties by owner
//     ID, source and Seq, owner kinds, inactive owners, filters, query
//     validation.
//   - Batches: owners and chunks in one batch, atomicity on a bad vector,
//     a missing owner or an invalid record, write order (records, chunks,
//     deletions), ValidationError naming the owner.
//   - Text: NUL bytes and invalid UTF-8 in any ID or text field of a
//     record or chunk rejected on write with a *storage.ValidationError
//     wrapping ErrInvalidRecord that names the field, nothing written;
//     such IDs absent on read (Get, Delete and ByHash return
//     ErrNotFound, GetMany and ChunkRefs skip them, Chunks rejects the
//     owner reference with ErrInvalidRecord); a page cursor holding such
//     bytes compared bytewise like any other.
//   - Tenancy: invalid tenant IDs; the same IDs in two tenants are
//     independent; tenant A cannot get, list, search (lexical or vector),
//     read chunks of, replace chunks of, delete or count tenant B's rows.
//   - Version: 0 for a tenant never written; a new value after every
//     completed write (records, chunks alone, deletions), the same after
//     reads, a rejected batch and another tenant's writes.
//   - Concurrency (run it with -race): parallel writers and readers,
//     readers never seeing half of a replace, parallel tenants.
//   - Cancellation: every method returns an error wrapping
//     context.Canceled or context.DeadlineExceeded for a done context, and
//     nothing is written.
//
// # Contract details the suite pins down
//
// Beyond the storage interface comments, it requires: IDs ordered bytewise
// everywhere (Postgres: COLLATE "C"); an empty Status (of any record)
// stored and returned as StatusActive; an empty HeadingPath or Metadata of
// a chunk returned as nil or empty;
// item files kept in input order; a lexical query with no non-empty terms
// returning no candidates and no error; Chunks of an owner without chunks
// (or of a missing owner) returning none and no error; deleting a missing
// owner inside a Batch not being an error; the search text of a record
// being exactly storage.ItemSearchText (and friends), so terms never match
// across two fields.
//
// # Concurrency
//
// Run must be called from the test goroutine. Subtests run sequentially;
// the concurrency subtests start their own goroutines.
package storagetest
