// Package otelrag turns hybridrag's tracers (package
// github.com/hybridrag/hybridrag/rag/trace) into OpenTelemetry spans, the
// way otelpgx does for pgx. It is a module of its own, so that the library
// does not depend on OpenTelemetry.
//
// One [Tracer] implements every tracer interface; give it to each
// options field that takes one:
//
//	t := otelrag.New(otelrag.Options{}) // the global TracerProvider
//	s := rag.NewSearcher(store, emb, rag.SearcherOptions{Tracer: t})
//	p, _ := rag.NewPipeline(s, classifier, answerer, rag.PipelineOptions{Tracer: t})
//	ix := ingest.NewIndexer(store, emb, ingest.IndexerOptions{Tracer: t})
//
// To keep another tracer (metrics, logs) beside it, combine them with
// trace.NewMulti.
//
// # Spans
//
// The spans nest under the span in the context the library is called
// with (a chat turn's HTTP server span, typically):
//
//   - "hybridrag.search" for each search (internal), with the record
//     kind, the limit, the legs and fusion used, the hit and candidate
//     counts and, when the vector leg did not run, the fallback reason;
//   - "hybridrag.leg lexical" and "hybridrag.leg vector" under it, with
//     the leg's candidate count;
//   - "embeddings" for each embedding request (client): a query's, under
//     its vector leg, or an ingestion batch's, under its write group;
//   - "chat" (or "chat MODEL" when the model asked for is known) for each
//     model call of the Pipeline (client), with the step (summarize,
//     classify, answer, tools);
//   - "hybridrag.ingest.batch" for each write group of the Indexer
//     (internal), with its counts.
//
// Model and embedding spans follow OpenTelemetry's GenAI semantic
// conventions (semconv v1.37.0): gen_ai.operation.name, gen_ai.request.model,
// gen_ai.response.model, gen_ai.usage.input_tokens and output_tokens (the
// provider's counts, when reported) and gen_ai.response.finish_reasons.
// Attributes without a convention are named hybridrag.*; the constants
// of this package name them.
//
// A failed operation's span records the error (an "exception" event),
// sets error.type to the error's Go type and ends with status Error. A
// search whose vector leg failed still succeeds, on the lexical leg: its
// span records the vector error as an event and keeps status Unset.
//
// The query text is the user's: it is recorded (as hybridrag.query)
// only with [Options.RecordQueryText].
//
// # Concurrency
//
// A Tracer is immutable and safe for concurrent use, as the library
// requires of tracers.
package otelrag
