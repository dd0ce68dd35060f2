// Command ingest loads a catalog, FAQs and documents from files and indexes
// them with rag.Indexer into a memory snapshot or a PostgreSQL database.
//
// Usage:
//
//	ingest [-catalog F.jsonl|.json|.csv] [-faqs F.jsonl|.csv] [-docs DIR|F.jsonl]
//	       (-memfile OUT | -db DSN) [-schema S] [-tenant T]
//	       [-embedder hash|openai] [-dims N] [-batch-size N] [-replace-duplicates]
//	       [-prune] [-bulk] [-concurrency N] [-write-concurrency N] [-progress auto|bar|lines|none]
//
// At least one of -catalog, -faqs and -docs is needed, and exactly one of
// -memfile and -db.
//
//   - -memfile loads the snapshot OUT when it exists, so that a second run is
//     incremental (unchanged records are neither embedded nor written), and
//     saves it atomically at the end (also after a failure or an interrupt,
//     keeping what was written). A run that wrote nothing leaves it alone.
//   - -db connects with pgx, runs the embedded migrations (creating the
//     schema -schema, "hybridrag" by default, at -dims dimensions) and
//     indexes into it.
//
// -tenant scopes the data ("default" by default, like examples/search).
// -embedder hash (the default) is the offline vector.HashEmbedder; openai
// uses OPENAI_API_KEY, OPENAI_BASE_URL (any OpenAI-compatible server) and
// EMBEDDING_MODEL (default text-embedding-3-small) through llm/openai, with
// the client's retries. The environment is read with
// settings.ConfigFromEnv, so the variables are those of the library's
// configuration and an invalid one is a usage error naming it:
//
//   - -dims, else EMBEDDING_DIMENSIONS, else the snapshot's dimensions,
//     else 1536, sizes the vectors of either embedder (and the "dimensions"
//     sent to the API). A snapshot or schema of other dimensions is refused.
//   - -batch-size, else EMBEDDING_BATCH_SIZE, else 16, is the most texts per
//     embedding request (1 to 2048).
//
// Search the result with the same embedder and dimensions.
//
// -prune makes the run a full sync: after indexing, the tenant's records of
// each kind given (-catalog, -faqs, -docs) that are absent from the input
// are deleted with their chunks (ingest.IndexerOptions.Prune; the summary
// says pruned=N). A kind not given is left alone, so -faqs alone never
// deletes the catalog. Off by default.
//
// -bulk (with -db) is for an initial load or a full reload: the run calls
// postgres.DB.BeginBulkLoad before indexing and EndBulkLoad after it (also
// after a failure or an interrupt), so the word index and the HNSW indexes
// are rebuilt once, in bulk, instead of row by row. Until the run ends,
// searches of every tenant in the schema are degraded (lexical search does
// not see the new records; vector search is exact). If the process is
// killed before the end, run it again with -bulk.
//
// -concurrency is the number of embedding requests in flight (default 2);
// -write-concurrency the number of write transactions in flight: 2 by
// default with -db, where pgvector's HNSW index inserts dominate and scale
// with a second writer, 1 with -memfile. With more than one writer, groups
// of records may commit out of input order, so their CreatedAt (which
// breaks ties between equal lexical matches) no longer follows the file.
//
// Progress goes to stderr: a progress bar when stderr is a terminal, plain
// lines otherwise (-progress forces either, or none). Every malformed
// record is reported as "file:line: ..." on stderr and the good records are
// still ingested; duplicate documents are reported as warnings. The last
// line on stdout is the summary:
//
//	items=N faqs=N documents=N chunks=N embedded=N skipped=N failed=N duration=…
//
// Exit status: 0 on success; 1 when a record was malformed, a file could
// not be read, or indexing failed (what was written stays written, and a
// re-run resumes); 2 on a usage error or an invalid environment variable.
package main
