// Command search is hybridrag's search debugger: it runs one catalog, FAQ or
// document search and shows how the query was understood and why every hit
// ranks where it does. It merges the seeds' debugCatalogSearch,
// debugCatalogHybrid, debugCatalogVector and debugFaqHybrid scripts into one
// tool.
//
// Usage:
//
//	search (-catalog F.jsonl | -faqs F.jsonl | -docs DIR|F.jsonl | -memfile F | -db DSN) -q "texto"
//	       [-kind catalog|faq|doc] [-mode lexical|vector|hybrid]
//	       [-fusion weighted|rrf|relative|simple] [-seedmode simple|enhanced]
//	       [-limit N] [-tenant T] [-dims N] [-schema S] [-embedder hash|openai|none]
//	       [-threshold X] [-json] [-explain]
//	       [-category C] [-manufacturer M] [-tag T] [-source S] [-meta key=value]...
//	       [-chunk key=value]... [-extract none|legal]
//
// Data sources:
//
//   - -catalog, -faqs and -docs (any combination) load files with package
//     rag/load, build an in-memory store and index it with the Indexer; the
//     indexing time is printed on stderr.
//   - -memfile loads a memory snapshot written by examples/ingest.
//   - -db opens a PostgreSQL database migrated and filled by examples/ingest
//     (-schema names its schema when it is not the default "hybridrag").
//
// -kind defaults to the kind of the only file given (faq for -faqs alone, doc
// for -docs alone) and to catalog otherwise. -mode picks the retrieval legs
// (default hybrid); -fusion the fusion method of enhanced mode (default
// weighted, the seeds' computeCombinedScore); -seedmode simple runs the seeds'
// simple mode (store order, vector hits first, no lexicalScore).
//
// Filters (storage.Filter, the ones /api/rag/search takes) restrict both
// legs and are ANDed; values compare without case or accents: -category
// (items, FAQs), -manufacturer and -tag (items), -source (documents) and
// the repeatable -meta key=value (items, documents). The store allows the
// metadata keys -meta names (this is a local tool; examples/chatserver has
// an allowlist). A filter the kind does not have is a usage error. The
// report shows the filters ("filters" in -json). The repeatable -chunk
// key=value (rag.Query.ChunkFilters) keeps the chunks whose metadata
// matches, and the records having one; -extract legal runs
// rag/ingest/legal on the documents of -docs as they are indexed, so that
// -chunk artigo=5 finds Art. 5º of a statute (chunked at its articles,
// so that no chunk spans two). The repeatable -doc-id ID
// (rag.Query.DocumentIDs; -kind doc, at most 100) restricts a document
// search to those documents, both legs. -context adds the hits formatted
// as a chat turn's context for the model (rag.FormatContext; "context" in
// -json).
//
// The query embedder must be the one the data was indexed with: the hash
// embedder by default (at the store's dimensions), or -embedder openai
// (OPENAI_API_KEY, OPENAI_BASE_URL, EMBEDDING_MODEL).
//
// Output:
//
// The human output shows the query analysis (tokens, terms, synonyms applied,
// cultures and treatments detected, fallback), the leg counts, whether an
// embedding was used and why not, the timings of each stage, and per hit its
// rank, ID, title, category and tags, source (lexical, vector or both), fused
// score with the contribution of each list, lexical signals (matched terms
// and their fields, cultures, treatments, pair), vector distance and
// similarity, and the snippet. -explain adds the combined-score components,
// the lexicalScore breakdown and longer snippets.
//
// -json prints one JSON object (snake_case field names) with the same
// information, for scripts:
//
//	{"kind":"catalog","query":{"text":...,"tokens":[...],"terms":[...],
//	 "synonyms":[...],"cultures":[...],"treatments":[...]},"mode":"enhanced",
//	 "legs":"hybrid","fusion":"weighted","limit":10,"lexical_count":N,
//	 "vector_count":N,"embedding_used":true,"fallback_reason":"",
//	 "timings_ms":{...},"hits":[{"rank":1,"id":...,"title":...,"source":"both",
//	 "score":...,"explanation":{...},"lexical":{...},"vector":{...},
//	 "snippet":...}]}
//
// Exit status: 0 on success (even with no hits), 1 on a runtime error, 2 on a
// usage error (missing or conflicting flags, empty query).
package main
