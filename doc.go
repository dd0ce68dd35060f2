// Package hybridrag is an embeddable Go library for hybrid catalog RAG: a chat
// assistant that answers from a company's own catalog, FAQs and documents.
//
// This root package holds no code; the library is a set of composable
// packages:
//
//   - lexical: accent-insensitive normalization, Portuguese-aware
//     tokenization and stemming, synonym tables, and the field-weighted
//     lexicalScore with typed Signals; lexical/snowball, the Snowball
//     Portuguese stemmer. The core (lexical, vector, merge, scoring) imports
//     the standard library and golang.org/x/text only, and vector
//     golang.org/x/sys/cpu to choose its amd64 kernels.
//   - vector: the Embedder interface and its contract (Checked, WithRetry),
//     vector math, exact top-k, chunk-to-owner aggregation and an offline
//     hash embedder; vector/cache, the query-embedding cache.
//   - merge: fusion of lexical and vector rankings (simple, weighted, RRF,
//     relative score), pure and explainable.
//   - scoring: the combined score and confidence levels.
//   - storage: domain records and the small store interfaces, with
//     storage/memory (embedded default), storage/postgres (pgx + pgvector)
//     and storage/storagetest (the conformance suite both pass).
//   - llm: provider-agnostic chat ports and the tool loop, with llm/openai
//     (any OpenAI-compatible API) and llm/llmtest (scripted fakes).
//   - rag: the front door — the Searcher and the chat Pipeline — with
//     rag/ingest (the Indexer), rag/offline and rag/llmchat (chat
//     components without and with a model), rag/fields, rag/load, rag/chunk
//     and rag/rerank beneath it. The quality evaluation (examples/eval) and
//     the demo server's catalog assist are code of the examples module.
//
// Data flows from loaders through chunking, hashing and batched embedding into
// a tenant-scoped store; a query runs lexical and vector candidates
// concurrently, aggregates chunks per owner, fuses the lists and explains
// every hit.
//
// Options follow one convention across packages: the zero value of a
// field means its default and a negative value (Off, -1) switches the
// feature off; lexical.Weights and scoring.Weights, the two Weights,
// follow the same rule.
//
// A short example, lexical scoring alone (no model needed):
//
//	s := lexical.NewScorer(lexical.ScorerOptions{})
//	q := s.Prepare("fungicida para videira")
//	score, signals := q.Score(lexical.Fields{
//		{Name: lexical.FieldName, Text: "Fungiprot 250 EC"},
//		{Name: lexical.FieldCategory, Text: "Fungicida"},
//		{Name: lexical.FieldTags, Text: "Uva"},
//	})
//	fmt.Println(score, signals.Pair)
//
// See README.md for the quickstart and the examples directory for runnable
// programs.
package hybridrag
