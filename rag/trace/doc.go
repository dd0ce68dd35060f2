// Package trace defines the tracer interfaces of hybridrag, in the style
// of pgx's tracers: small Start/End pairs with typed data, so that users
// can attach OpenTelemetry (or metrics, or logs) without the library
// depending on any of them.
//
// Each Start method returns the context the traced work runs with (a
// tracer puts its span there) and the matching End method gets that
// context back, with the outcome:
//
//   - [SearchTracer]: a Searcher's search (rag.SearcherOptions.Tracer);
//   - [LegTracer]: each retrieval leg of a search, lexical and vector;
//   - [EmbedTracer]: each embedding request, query or ingestion batch;
//   - [ModelTracer]: the Pipeline's model calls — summary,
//     classification, answer, and each call of an agentic turn
//     (rag.PipelineOptions.Tracer);
//   - [BatchTracer]: the Indexer's write groups
//     (rag/ingest.IndexerOptions.Tracer).
//
// One value may implement several interfaces: the options field names the
// main one, and the others are found by type assertion once, when the
// Searcher, Pipeline or Indexer is built. A nil tracer costs a nil check.
// [NewMulti] combines several tracers into one (an OpenTelemetry adapter
// and a metrics tracer, say). The module github.com/hybridrag/hybridrag/otelrag
// turns every tracer into OpenTelemetry spans.
//
// # Contract
//
// Every Start is followed by exactly one End, with the context Start
// returned. Tracers are called from the goroutines doing the work —
// concurrently for the legs of one search, the searches of one chat turn,
// the embedding requests of one ingestion — so they must be safe for
// concurrent use, and should be fast: they run on the search path. An
// End method must not modify the values it is given.
//
// The package imports only the standard library, package storage (record
// kinds) and package llm (token usage).
package trace
