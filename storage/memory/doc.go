// Package memory is hybridrag's embedded store: everything in RAM, no
// database, safe for concurrent use, with optional snapshots to a file. It
// implements storage.Store and passes storage/storagetest, so it returns
// the same candidates in the same order as storage/postgres.
//
//	db := memory.New(memory.Options{Dimensions: 1536, AllowedMetadataKeys: []string{"crop"}})
//	st, err := db.Tenant("acme") // a storage.Store confined to tenant "acme"
//
// # Tenancy
//
// A DB holds any number of tenants; DB.Tenant scopes it to one. Each tenant
// has its own records, indexes, slabs and lock, so tenants never see each
// other's data and writes to one never wait for another.
//
// # Layout
//
// Records are deep-copied in and out: callers never share a slice or map
// with the store (a chunk's HeadingPath and Metadata included). Each record
// keeps its normalized search text (storage.ItemSearchText and friends),
// normalized filter values and active flag, computed once on write. The
// three kinds of record share one implementation: a small descriptor per
// kind (how to copy a record and what to precompute for it) drives the
// generic get, list, delete, upsert, search and snapshot code.
//
// The embeddings of each tenant and owner kind live in one contiguous
// []float32 slab, one row per embedded chunk. Replacing or deleting chunks
// puts their rows on a free list that later writes reuse; when free rows
// outnumber live ones (and there are at least 1024), the slab is compacted
// in place, so memory and scan time stay proportional to live chunks.
//
// # Search
//
// Lexical search has the storage.LexicalQuery semantics: plain substring
// matches of the normalized terms in the normalized search text, ranked by
// distinct terms matched, then CreatedAt descending, then ID. It reads no
// record text for most terms: each kind keeps an inverted index from the
// words of its records' search text (maximal runs of letters, digits and
// non-ASCII bytes) to the records holding them, and a term without
// punctuation or spaces is contained in a text exactly when it is contained
// in one of its words, so its matches are the union of the postings of the
// dictionary words containing it (one bytes.Index pass over the
// dictionary). A term with punctuation or spaces ("2,4-d", "cana de
// acucar") is looked up by its longest word and confirmed with
// strings.Contains; one made only of punctuation ("%") is checked against
// every record. Results are those of a full scan, whatever the terms.
//
// Owner IDs and chunk filters (the queries' OwnerIDs and ChunkFilters)
// are checked on every row the scans visit: each chunk keeps its metadata
// with normalized values, so a chunk filter costs a map lookup per chunk,
// and a matching chunk is found however far it ranks.
//
// Vector search is exact: it returns the Limit chunks of active owners,
// passing the filters, with the highest inner product, and every reported
// distance is bitwise the float32 inner product vector.DotRows computes.
// Ties are broken by owner ID, source and Seq, so results do not depend on
// the number of CPUs or on where rows sit in the slab. The scan runs one
// goroutine per CPU (runtime.GOMAXPROCS) over disjoint ranges of the slab.
//
// Where the processor has AVX2 or AVX-512 VNNI, each row is also kept
// quantized to 8 bits (one scale per row) and the search reads those
// instead, a quarter of the bytes: the integer inner product of the codes
// (an assembly kernel), with a bound on its rounding, brackets every row's
// exact score. Only the
// rows whose upper bound reaches the best lower bounds, and then the best
// exact scores found, are scored exactly — typically a few more than Limit
// — so the result is the exact scan's, scores included. Elsewhere (and
// under the purego build tag) every row is scored with vector.DotRows, an
// AVX2/AVX-512 kernel on amd64 and portable Go otherwise.
//
// # Persistence
//
// DB.Save writes a versioned binary snapshot (magic, version, a gob stream
// with embeddings packed as little-endian float32 bytes, and a CRC-32C);
// Load reads it back, checking the dimensions. SaveFile writes to a
// temporary file and renames it over the target, so a crash never leaves a
// half-written snapshot; LoadFile reads one. Save writes version 2; Load
// also reads version 1 snapshots, upgrading them as storage/postgres's
// migration 0002 upgrades a database: a FAQ's Inactive flag becomes its
// Status, documents are active, and the chunk metadata keys rag's indexer
// used before chunks had typed fields ("start", "heading_path" joined by
// " › ", "file") move into Start, HeadingPath and File.
//
// # Limits
//
// Everything lives in RAM. A 1536-dimension embedding takes 6 KiB in the
// slab, plus 1.5 KiB of 8-bit codes where they are kept (plus about 100
// bytes of bookkeeping and the chunk's text), so 100 000 chunks need about
// 770 MB; a snapshot holds the float32 rows only (about 620 MB) and the
// codes are rebuilt on Load. Vector search reads every row's codes (or
// float32 row) of the kind on every query: its cost is linear in the
// number of embedded chunks and bound by memory bandwidth (1.5 KiB a chunk
// quantized, 6 KiB otherwise). The lexical word index costs four bytes per
// distinct word of each record, plus the dictionary: for the 4,220 AGROFIT
// items (5.1 MB of search text) it holds 9,121 words in a 75 KB dictionary
// and 437,166 postings, about 2 MB in all. See the package benchmarks for
// figures; beyond a few hundred thousand chunks, or when several processes
// must share the data, use storage/postgres with HNSW.
//
// # Errors
//
// Methods return the storage sentinels (storage.ErrNotFound,
// storage.ErrDimensionMismatch, storage.ErrInvalidVector,
// storage.ErrInvalidRecord, storage.ErrInvalidFilter,
// storage.ErrInvalidTenant) wrapped with context, validation failures as
// *storage.ValidationError, and ctx.Err() wrapped when the context is done.
// Load returns ErrCorruptSnapshot or ErrSnapshotVersion. A rejected write
// writes nothing. Writes are validated by storage.ValidateBatch, like
// storage/postgres's: text PostgreSQL cannot store (NUL bytes, invalid
// UTF-8) is rejected here too, so the two stores accept the same data (and
// Load rejects a snapshot holding such text as corrupt).
//
// # Concurrency
//
// DB and Store are safe for concurrent use. Each tenant has a
// sync.RWMutex: reads share it, and every write (a whole storage.Batch
// included) is validated and prepared outside the lock and then applied
// under it, so a reader sees either none or all of a write.
package memory
