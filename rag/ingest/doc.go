// Package ingest writes catalog items, FAQs and documents into a store in
// the shape the rag Searcher reads: records with their chunks and the
// chunks' embeddings.
//
// An [Indexer] turns items (one chunk for the item's own fields: name,
// category, manufacturer, tags and description, then recursive chunks of each attached file), FAQs (the
// question alone, then question and answer) and documents (structural
// chunks keeping the heading path, or recursive ones for text without
// headings) into chunks, hashes them with SHA-256, embeds only new text in
// batches (16 texts, ~200k tokens, bounded concurrency, retries on
// retryable errors) and writes each group of owners with their chunks in
// one transaction. Re-indexing unchanged content makes no embedding call
// and no write; [Stats] count what was embedded, skipped and written.
// [Indexer.Reindex] indexes the three kinds of [Sources] in turn and, with
// [IndexerOptions.Prune] (off by default), then deletes the records of the
// tenant absent from them, with their chunks ([Stats].Pruned counts them);
// [Indexer.IndexItems], [Indexer.IndexFAQs] and [Indexer.IndexDocuments]
// index one kind, and [Indexer.Delete] removes owners with their chunks.
//
// [IndexerOptions.Extractors] derive metadata from each document and its
// chunks before they are compared and embedded: an [Extractor] may set document metadata and chunk
// metadata, which searches can then filter on. Package
// [github.com/hybridrag/hybridrag/rag/ingest/legal] is the built-in one,
// for pt-BR statutes (artigo, parágrafo, inciso, alínea, the act's type,
// marca_* markers for STF citations, crimes, exam questions…). An extractor that is also a [Sectioner]
// gives documents sections before they are chunked (legal cuts a statute
// at its articles).
//
// [LoadDir] reads the Sources of a directory laid out like the
// repository's testdata (catalog.jsonl, faqs.jsonl, documents.jsonl,
// documents/) with the loaders of package rag/load.
//
// Documents come from
// package [github.com/hybridrag/hybridrag/rag/load], which also keeps the
// sections the structural splitter needs; the splitters are those of
// [github.com/hybridrag/hybridrag/rag/chunk] ([IndexerOptions] can replace
// them).
//
// The store is a storage.Backend (the memory and Postgres stores are):
// the Indexer reads the stored records and chunks through its
// storage.Store side and writes through its raw BatchWriter; a store that
// is also an [Analyzer] is asked to
// refresh its planner statistics after a bulk load. The Indexer embeds
// with the same vector.Embedder the Searcher embeds queries with: vectors
// stored with another embedder must be re-indexed.
// [IndexerOptions.Tracer] traces each group of owners and, when it is also
// a trace.EmbedTracer, each embedding request (package
// [github.com/hybridrag/hybridrag/rag/trace]).
//
// # Writes must go through the Indexer
//
// A store's raw write (storage.BatchWriter's Apply with records and no
// chunks), which the storage.Store interface applications use leaves out,
// replaces the record only: the chunks cut from its old text stay, with their vectors,
// and the vector leg keeps finding the old words. Write changed records
// through an Indexer (IndexItems, IndexFAQs, IndexDocuments), which
// re-chunks them and re-embeds the chunks whose text changed, and remove
// records with [Indexer.Delete] (or the stores' Delete methods), which
// remove their chunks too. A rag.Searcher over the store notices the
// writes through the store's change marker within about a second
// (rag.Searcher.Refresh makes its next search see them at once).
// examples/chatserver's write API (PUT and DELETE /api/items/{id},
// /api/faqs/{id}, /api/documents/{id}) writes through an Indexer and
// calls Refresh.
//
// # Errors
//
// An embedder whose vectors the store cannot hold fails the run before
// anything is embedded, with an error wrapping
// storage.ErrDimensionMismatch. Embedding and store errors are returned
// wrapped; the groups of owners already written stay written, the failing
// group leaves the store as it was, and [Stats] say what happened. An
// embedder that panics fails its group the same way, with an
// *[EmbedderPanicError] wrapping [ErrEmbedderPanic] (and the panic value,
// when it is an error). A vector that breaks the embedder contract (nil,
// empty, zero, non-finite, of the wrong size) fails its group with the
// *vector.VectorError naming the text, and is not counted in
// Stats.Embedded. A document whose content duplicates another is reported
// in Stats.Duplicates as a *load.DuplicateDocumentError, not as an error
// of the run.
//
// An Index call returns when its context is done even if the embedder
// ignores the context: each embedding request runs in a goroutine the
// Indexer stops waiting for. Such an abandoned request may still finish
// in the background (its vectors are dropped, nothing is written); its
// goroutine exits when the embedder returns, and stays blocked for as long
// as the embedder does not.
//
// # Concurrency
//
// An Indexer is safe for concurrent use, but two concurrent runs over the
// same owners race like any two writers. It never logs; progress is
// reported through IndexerOptions.Progress, counts and timings in [Stats].
package ingest
