// Package postgres is hybridrag's PostgreSQL + pgvector store: a
// storage.Store for any number of tenants on a pgx/v5 pool, with lexical
// search on text normalized in Go and vector search on pgvector HNSW
// indexes.
//
// # Opening
//
// New wraps a ready *pgxpool.Pool and does no I/O. Migrate, an explicit
// call, creates or upgrades the schema (DDL that only it and the bulk-load
// calls run); Ping and Check verify it. DB.Tenant scopes the database to one tenant:
//
//	cfg, err := pgxpool.ParseConfig(dsn)
//	postgres.ConfigurePool(cfg) // register pgvector's types on connect
//	pool, err := pgxpool.NewWithConfig(ctx, cfg)
//	db := postgres.New(pool, postgres.Options{Dimensions: 1536})
//	err = db.Migrate(ctx)
//	err = db.Warm(ctx, 0)           // optional: prepare the pool's connections
//	store, err := db.Tenant("acme") // a storage.Store
//
// ConfigurePool is optional: stores register pgvector's types on
// connections that lack them (one query per new connection). Warm opens the
// pool's connections and runs a vector and a lexical probe on each, so that
// the first search on each does not pay for loading pgvector's index into
// its backend (BenchmarkFirstSearch: about 10 ms of the first search).
// Each new backend also takes a minor page fault the first time it touches
// each page of shared buffers; on Linux, PostgreSQL's huge_pages = on (with
// vm.nr_hugepages reserved) removes most of that cost: a new session's first
// lexical query went from 20–27 ms to 4–6 ms (BENCHMARKS.md). Prewarm
// reads the indexes searches walk (the postings' and the HNSW indexes,
// 16 GB at a million items) into the page cache with pg_prewarm: after a
// restart of the machine or a bulk load, a million items' p95 read 145–166
// ms without it and 41–45 ms with it.
//
// # Schema
//
// Migrations are embedded SQL files applied in order, each once, recorded in
// <schema>.schema_migrations, in one transaction under a PostgreSQL advisory
// lock, so concurrent Migrate calls are safe; Migrate needs the vector,
// pg_trgm and btree_gin extensions and creates those missing (pgvector 0.8
// or later for iterative scans; PostgreSQL 14 or later, whose bit_count the
// lexical search uses). All tables
// live in Options.Schema ("hybridrag" by default) and carry tenant_id, the first
// column of every primary key; every statement filters on it. Items (with
// item_files), FAQs and documents each have an active flag (the record's
// Status) and a chunk table (item_chunks, faq_chunks, document_chunks) whose
// rows are deleted with their owner (ON DELETE CASCADE); a chunk row holds
// its Start, HeadingPath and File in the columns start_offset,
// heading_path and file_name, and free-form Metadata in jsonb. Migration
// 0002 upgrades databases created before documents had a status and
// chunks those columns: documents become active, and the metadata keys
// rag's indexer used then ("start", "heading_path" joined by " › ",
// "file") move into the new columns. It rewrites those chunk rows, with
// the HNSW indexes dropped and rebuilt around the rewrite (cheaper than
// updating them row by row), holding the tables' locks until it commits:
// run it at deploy time. Migration 0003 builds the word index (see Lexical
// search) from the existing rows, also at deploy time. Migration 0004 adds
// metadata_norm to the chunk tables, the chunk's metadata with normalized
// values (NULL when empty), written by every write and backfilled by
// Migrate in Go for the existing chunks with metadata, with a GIN index on
// (tenant_id, metadata_norm jsonb_path_ops) for chunk filters (see
// Restricted searches). Migration 0005 adds tenant_versions, the change
// marker Store.Version reads (one primary-key lookup): deferred
// constraint triggers on the owner, file and chunk tables bump a tenant's
// row once per committed transaction that writes its rows, at commit, so
// concurrent writers of a tenant wait for each other only while
// committing; writes of every origin count (Apply, Delete, cascades, bulk
// loads, SQL run by hand; not TRUNCATE). Migration 0007 adds
// <kind>_chunk_meta, a narrow copy of the chunks' normalized metadata (one
// row per chunk and key, about 80 bytes), kept by statement triggers on
// the chunk tables in the transaction of every insert, update and delete
// (COPY, cascades, bulk loads and SQL run by hand included; not TRUNCATE)
// and filled from the existing chunks by the migration (0.6 s at 100k
// chunks); its index on (tenant_id, key, value) answers a lexical chunk
// filter from a few index pages. Migration 0008 adds <owner>_inactive,
// a partial index of each owner table's inactive rows (tenant_id, id),
// which an unfiltered vector search probes to leave out their chunks.
// Embeddings are
// vector(Options.Dimensions), stored inline
// (STORAGE PLAIN; exact scans of TOASTed 1536-dimension vectors are about
// 2.8× slower) and indexed with HNSW (m = 16, ef_construction = 64,
// vector_ip_ops). pgvector indexes at most 2000 dimensions: beyond that the
// tables have no HNSW index and vector search is exact. Check compares the
// columns' dimensions with the options and reports storage.ErrSchemaMismatch
// when they differ, so a database created for one embedding model is never
// silently used with another.
//
// # Lexical search
//
// Each owner row stores its search text, normalized by lexical.Normalize in
// Go (storage.ItemSearchText and friends), in a search_text column; no
// accent folding runs in SQL. A term matches when the text contains it, %,
// _ and \ literal, always as a bound parameter. The ranking is
// storage.LexicalQuery's: distinct terms matched, then newest, then ID; results are exactly the
// memory store's for every query (TestLexicalMatchesMemory compares them on
// random corpora through inserts, updates and deletes).
//
// Searches read a word index (migration 0003) rather than the text. A word
// is a maximal run of characters other than the ASCII characters that are
// not letters or digits, as in the memory store. Per kind, <kind>_words is
// each tenant's dictionary of the words of its active owners, with a
// btree_gin + pg_trgm index on (tenant_id, word), and <kind>_postings holds
// a row (tenant_id, word_id, created_at, owner_id), unique in that order
// with created_at descending, for every active owner and each distinct word
// of its text, created_at being the owner's. A term without
// separators is contained in a text exactly when it is contained in one of
// its words, so its matches are the postings of the dictionary words
// containing it (LIKE '%term%' on the trigram index; strpos over the
// tenant's dictionary for terms under three characters). Separated words
// have an index of their own (migration 0006): a token is a run of text
// without spaces, trimmed of separators at both ends, that still holds one
// ("g/l" in "(960 g/l).", "cana-de-acucar"), in <kind>_tokens with
// negative IDs and its postings beside the words'. A term without spaces
// whose core (the term so trimmed) holds a separator ("l/ha", "2,4-d",
// "(sc)" has none) is contained in a text only inside a token containing
// its core: those tokens' postings are its matches when the term is its
// own core, candidates confirmed with strpos otherwise ("(l/ha)"), and a
// term in no token matches nothing without reading a record. Another term
// with separators ("100%", "0,5 l") takes the owners posted under the
// words containing its longest run and confirms each with strpos on
// search_text; a term made only of separators ("%") is checked against
// every active owner.
//
// The ranking is found level by level: an owner matching at least L of T
// terms holds one of the T-L+1 rarest terms, so level L walks those terms'
// postings newest first (ordered index scans, merged), counts each walked
// owner's terms exactly (an index probe per dictionary word of each other
// term; for an item or FAQ term in more than 8 words, strpos on the
// owner's text instead) and
// stops at the limit; a level that falls short has found all of its
// owners, and the next level continues. (Such an owner also holds two of
// the T-L+2 rarest terms: when the walk already holds a common term, the
// level walks one term more and counts only the owners holding two.)
// Most queries end at the first
// level or two, after reading about as many postings as the limit. Rarity
// is each term's postings counted up to 1,024 and, for the terms with
// more, counted among the tenant's 256 newest owners (a sample that tells
// a term in 2% of the records from one in 95%). When four levels do not
// fill the limit and the query has common terms (in 10% of the sampled
// owners or more), the rest is first ranked by a score-bounded top-k in
// one statement: the common terms are only probed, the others' postings
// walked; the owners holding most walked terms are counted exactly, the
// need-th count among them, θ, bounds the ranking, and only the owners
// holding enough walked terms to reach θ are counted (one holding exactly
// enough must hold every common term: a chain of probes that stops at the
// first it lacks). It returns nothing when θ does not exceed the common
// terms (an owner of none of the walked terms could reach it), and the
// rest is then ranked under a MaxScore bound where probes
// are estimated to cost less than reading every posting: each term adds
// at most one, so the owners of the next level hold one of a few more of
// the rarest terms (or of every rare term, under 1,024 postings, when
// those are more); their postings are walked and their owners counted,
// and the result kept when its last count is more than an owner of no
// walked term can reach (else one more walk, at the bound the counts
// found prove). Otherwise every posting of every term is counted and
// ranked (with work_mem raised to 32 MB for that statement's hash). A
// level over a term made only of separators ("%"), or over substrings in
// many dictionary words ("a", the "2" of "2,4-d"), walks the records newest
// first instead (the *_recent index) with strpos for every term: such
// terms match most records, so the walk stops soon. The cost thus grows
// with the limit and, in the worst case, with the postings of the query's
// terms, or with the tenant's records for a query of such terms that
// matches little (a term "%" that few records hold). A term "l/ha" that no
// record holds took 220–300 ms at 100k items and 4.9 s at 1M before the
// tokens, and 0.06 ms with them (BENCHMARKS.md). A search runs with jit and enable_seqscan off: one round trip
// reads each term's dictionary words with the number of their postings (up
// to 1,024, and the sample), then one round trip per level needed; a level
// sure to fall short of the limit (its walked terms have fewer postings
// than the limit asks for) is sent in one statement with the level after
// it (UNION ALL, cut at the limit: PostgreSQL runs the second level only
// for what the first leaves), which saves a round trip for several of
// AGROFIT's two- and three-word questions, whose first level walks a rare
// term's few postings. The
// word lookups are cached per tenant and kind in the DB: a search whose
// terms were all looked up before skips that round trip, and the batch of
// its first level reads the tenant's change marker (Store.Version) to
// confirm that no write has come since (when one has, the terms are
// looked up again). There is no explicit transaction: each statement is
// sent in one batch with its settings (set_config local to the batch's
// implicit transaction), so no BEGIN or COMMIT round trip either. The
// statements' text depends only on the query's shape (word IDs are
// parameters), so pgx prepares each shape once per connection; the word
// lookup, the levels and an unfiltered HNSW search are also planned once
// (plan_cache_mode force_generic_plan, for that statement alone): their
// plans do not depend on the values, and PostgreSQL would otherwise plan
// them again on every search.
//
// A trigger on each owner table maintains the postings in the transaction
// of every insert, update (of the search text, status or CreatedAt) and
// delete. That is the index's cost: about 100 postings per AGROFIT item
// (10.4 million rows, 1.4 GB with their index, at 100k items; the tokens
// add about 12 more), and bulk
// loads about three times slower (COPY of 100k items: 5m39s against
// 1m45s without it, BENCHMARKS.md). A write first adds the batch's new words to the dictionary in
// one sorted statement of its own, so that concurrent writers never wait
// for each other's words inside their transactions. Dictionary words are
// never deleted: one that no active owner holds any more has no postings
// and matches nothing. A query uses its first storage.MaxLexicalTerms
// distinct normalized terms (empty ones dropped, duplicates once), as the
// memory store does.
//
// # Vector search
//
// SearchChunks orders a kind's chunks by negative inner product (<#>) on the
// HNSW index, for the tenant, leaving out the chunks of inactive owners (a
// probe of the owner table's index of inactive rows, or, with filters on
// the owners' fields, a join to the owners), in one batch (one round trip, no explicit transaction) that sets
// hnsw.ef_search (Options.EfSearch, 100 by default, raised to the limit
// plus 16) and hnsw.iterative_scan
// (relaxed_order by default) for that query only, so
// filtered searches still return up to the limit; rows are re-sorted exactly
// by (distance, owner ID, source, seq) and cut at VectorQuery.MaxDistance.
// HNSW is approximate; Options.ExactSearch bypasses it (an exact scan with
// the memory store's results). Distances are computed by pgvector in float32
// and returned as float64, like the memory store.
//
// Options.HalfPrecisionIndex indexes the embeddings in half precision
// (an expression index on embedding::halfvec(N), halfvec_ip_ops) while the
// column keeps them in full precision: the index is about half the size
// (and pgvector indexes halfvec up to 4,000 dimensions against 2,000 for
// vector), the search orders by the same expression to use it, and the
// candidates it returns are ranked by their full-precision distances,
// which are the distances returned. Keeping the full vector, rather than
// storing halfvec alone, is what makes that ranking exact without a second
// table, keeps exact and restricted scans and Chunks' embeddings
// unchanged, and makes switching the option an index rebuild (Migrate
// drops one index and builds the other) rather than a rewrite of every
// row; the price is that the table stays its full size (BENCHMARKS.md has
// both footprints).
//
// # Restricted searches
//
// Owner IDs and chunk filters (storage.VectorQuery and
// storage.LexicalQuery's OwnerIDs and ChunkFilters) are evaluated in the
// database, exactly. In the vector leg a chunk filter is a containment
// test of metadata_norm, answered by its GIN index (the leg reads the
// matching chunks' embeddings anyway); in the lexical leg it is a row of
// <kind>_chunk_meta with the key and the value. A restricted vector search
// runs, in one statement, an exact search of at most 2,001 of the
// matching chunks (distances computed for those rows alone, their owners
// checked nearest first) whose rows carry how many chunks matched; when the
// count is at most 2,000 that is the result. More matching chunks are
// searched on the HNSW index with the restriction in the scan's filter and
// an iterative scan, falling back to the exact scan if the iterative scan
// ends (hnsw.max_scan_tuples) before the limit. A restricted lexical
// search likewise ranks the listed owners, or the owners of at most 2,000
// matching chunks (found in <kind>_chunk_meta: an index-only scan of
// (tenant_id, key, value) for values of at most 64 characters, the md5 of
// longer ones, never the wide chunk rows, one page each), directly (strpos on their search text; a rare term,
// under 1,024 postings, by whether the owner is among its postings'
// owners when the word lookups are cached; postings probes for documents'
// plain terms), in one round trip after the word lookup; with more, the
// usual levels run with each walked owner's metadata rows probed by
// primary key.
//
// The three kinds of record share one implementation: a descriptor per
// kind (its columns, scanner and insert statement) drives the generic get,
// list, delete, upsert and search code.
//
// # Writes
//
// Every write is validated completely first (storage.ValidateBatch, which
// rejects text PostgreSQL cannot store, invalid UTF-8 and NUL bytes, with
// storage.ErrInvalidRecord, as the memory store does) and then applied in
// one transaction: records with pipelined statements, chunks with COPY. A
// failed batch leaves the store as it was. Times are stored in UTC with
// microsecond precision.
//
// After a bulk load the planner has no statistics for the new rows until
// autovacuum analyzes them (about a minute), and hybrid searches meanwhile
// ran 4× slower in the benchmarks; Store.Analyze runs ANALYZE on a kind's
// tables, and rag.Indexer calls it after large writes.
//
// # Bulk loading
//
// Maintaining the word index and the HNSW indexes row by row is what makes
// a large load slow. DB.BeginBulkLoad disables the word-index triggers and
// drops the HNSW indexes of the whole schema; load with the Indexer, Apply
// or COPY; DB.EndBulkLoad then rebuilds the postings from the owner rows
// (one statement per kind and dictionary, each text split once) and builds
// their index with a small sort memory (64 MB: faster than gigabytes),
// while a second connection builds the HNSW indexes, and vacuums
// (examples/ingest -bulk does both calls). In
// between, searches of every tenant are degraded (new records are not
// found lexically, vector search is exact), so it is for initial loads and
// full reloads. A million synthetic AGROFIT items (one 1536-dimension chunk
// each) loaded this way on this project's 2-core machine in 25 minutes:
// 2m55s of COPY, then EndBulkLoad's 12 minutes for 119 million postings
// and 9.5 for the HNSW index; 38.6 GB on disk (BENCHMARKS.md, "A million
// items"). Since each text is split once and the postings' index sorted
// in small runs, half a million loaded in 11m26s and 10m33s, against
// 17m55s and 10m47s before, and a million in 18m24s, 20m12s and 22m38s,
// as other sessions' load varied (load averages 3.3, 5.0 and 5.8): about
// 3 minutes of COPY, then the postings' rebuild, 14 to 17 minutes, beside
// the HNSW build (BENCHMARKS.md, "PostgreSQL: bulk ingest" and "A million
// items in bulk, again"). On a server with wal_level = minimal,
// EndBulkLoad's postings and indexes skip the WAL (the postings' table is
// truncated and the indexes created in the transactions that fill them):
// 11 GB of WAL for the whole million against 36 to 38, but no faster on
// this machine.
//
// # Scaling past one server
//
// One server of this project's size (2 cores, 24 GB) serves a million items
// at SearchCatalog p50 30 ms, p95 208 ms (BENCHMARKS.md). Past that, the
// schema is laid out to be split by tenant:
//
//   - tenant_id leads every primary key (owners (tenant_id, id), files,
//     chunks (tenant_id, owner_id, source, seq), words (tenant_id, word)),
//     every B-tree and GIN index (postings, recency, content hash, the
//     dictionary's trigram index), and every foreign key, and every
//     statement the stores run is scoped to one tenant. The tables can
//     therefore be distributed by tenant_id (Citus distributed tables,
//     co-located, so every join and every search runs on one node),
//     hash-partitioned by tenant_id, or split by tenant across servers
//     with one DB per server and a router from tenant to DB in the
//     application. Dictionary word IDs only need to be unique within a
//     tenant, so per-node sequences are enough.
//   - The exception is the HNSW index: one graph per chunk table over all
//     tenants, the tenant (and active, metadata) filter applied while the
//     iterative scan walks it. A small tenant next to large ones walks
//     their vectors too. Partitioning the chunk tables by tenant (or by a
//     hash of it) gives each partition its own graph, which pgvector
//     builds and searches per partition; that is the first split to make
//     when tenants differ by orders of magnitude.
//   - Searches only read (settings local to each read batch), so
//     they can run on streaming read replicas: give the rag.Searcher a DB
//     over a replica's pool and the rag/ingest.Indexer a DB over the
//     primary's. A write becomes searchable after the replication lag
//     (milliseconds on a LAN), and the Searcher's vocabularies follow
//     through the change marker (Store.Version) within about a second.
//     Writes, Migrate and bulk loads go to the primary.
//
// These are design properties, not measured deployments: the project's CI
// runs one server.
//
// # Errors
//
// Methods return errors wrapping the storage sentinels (storage.ErrNotFound,
// storage.ErrSchemaMismatch, storage.ErrInvalidRecord, ...) or
// *storage.ValidationError, and otherwise the pgx error wrapped with the
// operation that failed. IDs no record can have (storage.ValidID: NUL
// bytes, invalid UTF-8, ...) and page cursors holding such bytes are
// handled in Go, never sent: reads and deletes by such an ID return
// storage.ErrNotFound or skip it, as the memory store does, rather than a
// server error. Messages never contain the DSN. A cancelled or
// expired context stops the query (pgx cancels it on the server) and the
// error matches ctx.Err() with errors.Is.
//
// # Concurrency
//
// DB and Store are safe for concurrent use; each call takes a connection
// from the pool for its duration.
package postgres
