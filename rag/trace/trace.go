package trace

import (
	"context"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/storage"
)

// SearchTracer traces the Searcher's searches (rag.SearcherOptions.Tracer).
// A tracer given there may also implement LegTracer, EmbedTracer and
// ModelTracer; the Searcher and the Pipeline find them by type assertion.
type SearchTracer interface {
	// TraceSearchStart is called when a search begins, before its
	// settings are resolved (a blank query, rejected with ErrEmptyQuery at
	// once, is not traced). The returned context is used for the rest of the
	// search (its legs, the query embedding, the store calls) and is
	// passed to TraceSearchEnd.
	TraceSearchStart(ctx context.Context, data SearchStartData) context.Context
	// TraceSearchEnd is called once when the search returns, failed or
	// not.
	TraceSearchEnd(ctx context.Context, data SearchEndData)
}

// SearchStartData describes a search as asked.
type SearchStartData struct {
	// Kind is the record kind searched: item, faq or document.
	Kind storage.OwnerKind
	// Text is the query text as given (before truncation, typo correction
	// and the FAQ context). It is the user's text: redact it before
	// exporting it where that matters.
	Text string
	// Limit is the limit asked for; 0 means the Searcher's default.
	Limit int
}

// SearchEndData is a search's outcome. On error only Err is set.
type SearchEndData struct {
	// Hits is the number of hits returned.
	Hits int
	// LexicalCount and VectorCount are the distinct owners each leg found
	// before fusion (rag.Result.LexicalCount, VectorCount).
	LexicalCount, VectorCount int
	// Legs, Fusion and Limit are the settings used ("hybrid", "weighted",
	// the clamped limit).
	Legs, Fusion string
	Limit        int
	// EmbeddingUsed reports that the vector leg ran; FallbackReason says
	// why it did not ("embedding-disabled", "embedding-generation-failed",
	// "vector-query-error") and VectorError is the error behind it.
	EmbeddingUsed  bool
	FallbackReason string
	VectorError    error
	// Err is the search's error (nil on success).
	Err error
}

// LegTracer traces each retrieval leg of a search: the lexical leg (the
// store's lexical candidates and their scoring) and the vector leg (the
// query embedding and the store's chunk search). The legs run
// concurrently, so their spans overlap.
type LegTracer interface {
	// TraceLegStart is called when a leg begins; the returned context is
	// used for the leg's calls and passed to TraceLegEnd.
	TraceLegStart(ctx context.Context, data LegStartData) context.Context
	// TraceLegEnd is called once when the leg is done.
	TraceLegEnd(ctx context.Context, data LegEndData)
}

// Leg names.
const (
	LegLexical = "lexical"
	LegVector  = "vector"
)

// LegStartData names a leg.
type LegStartData struct {
	// Kind is the record kind searched.
	Kind storage.OwnerKind
	// Leg is LegLexical or LegVector.
	Leg string
}

// LegEndData is a leg's outcome.
type LegEndData struct {
	// Candidates is the number of distinct owners the leg found.
	Candidates int
	// FallbackReason is set when the vector leg failed; the search then
	// goes on with the lexical results.
	FallbackReason string
	// Err is the leg's error: a lexical error fails the search, a vector
	// error does not.
	Err error
}

// EmbedTracer traces embedding requests: the Searcher's query embeddings
// (when its tracer implements EmbedTracer) and the Indexer's batches
// (rag/ingest.IndexerOptions.Tracer).
type EmbedTracer interface {
	// TraceEmbedStart is called before the embedder is called; the
	// returned context is the one the embedder gets, and is passed to
	// TraceEmbedEnd.
	TraceEmbedStart(ctx context.Context, data EmbedStartData) context.Context
	// TraceEmbedEnd is called once, when the embedder returned or when
	// the caller stopped waiting for it (a query embedding past its
	// timeout: Err wraps context.DeadlineExceeded).
	TraceEmbedEnd(ctx context.Context, data EmbedEndData)
}

// EmbedStartData describes an embedding request.
type EmbedStartData struct {
	// Kind is the record kind the texts belong to or are searched in.
	Kind storage.OwnerKind
	// Texts is the number of texts in the request; Tokens their
	// estimated tokens (llm.EstimateTokens).
	Texts, Tokens int
	// Query reports a query embedding (Texts is 1) rather than chunks
	// being indexed.
	Query bool
}

// EmbedEndData is an embedding request's outcome.
type EmbedEndData struct {
	// Vectors is the number of vectors returned (0 on error).
	Vectors int
	// Err is the request's error, as the caller saw it (a vector check
	// failure included).
	Err error
}

// ModelTracer traces the Pipeline's model calls
// (rag.PipelineOptions.Tracer): the summary, the classification and the
// answer of a planned turn, and each model call of an agentic turn. The
// Classifier, Summarizer or Answerer called need not be a model (the
// offline ones are not); the call is traced the same.
type ModelTracer interface {
	// TraceModelStart is called before the call; the returned context is
	// the one the component gets, and is passed to TraceModelEnd.
	TraceModelStart(ctx context.Context, data ModelStartData) context.Context
	// TraceModelEnd is called once when the call returned.
	TraceModelEnd(ctx context.Context, data ModelEndData)
}

// ModelStartData describes a model call.
type ModelStartData struct {
	// Step is the Pipeline's step: "summarize", "classify", "answer", or
	// "tools" for a model call of an agentic turn (the model may answer or
	// ask for tools).
	Step string
	// Model is the model asked for, when the caller names one ("" for the
	// component's or provider's default).
	Model string
	// PromptTokens is the estimated size of the input the caller knows of
	// (the message, the context), in tokens of the Pipeline's
	// TokenCounter; 0 when unknown.
	PromptTokens int
}

// ModelEndData is a model call's outcome.
type ModelEndData struct {
	// Model is the model that answered, as reported ("keyword" for the
	// offline classifier); may be empty.
	Model string
	// Usage is the provider's token count, when reported.
	Usage llm.Usage
	// FinishReason tells why the model stopped, when the component
	// reports it (the model calls of an agentic turn do; the planned
	// steps' components do not).
	FinishReason llm.FinishReason
	// Err is the call's error.
	Err error
}

// BatchTracer traces the Indexer's write groups
// (rag/ingest.IndexerOptions.Tracer): up to WriteBatch owners read,
// compared, embedded (each embedding request traced by EmbedTracer when
// the tracer implements it) and written in one transaction.
type BatchTracer interface {
	// TraceBatchStart is called before the group is read; the returned
	// context is used for the group's store and embedder calls and is
	// passed to TraceBatchEnd.
	TraceBatchStart(ctx context.Context, data BatchStartData) context.Context
	// TraceBatchEnd is called once, when the group is written, found
	// unchanged, or failed. With IndexerOptions.WriteConcurrency above 1
	// it may be called from another goroutine than the Index call's.
	TraceBatchEnd(ctx context.Context, data BatchEndData)
}

// BatchStartData describes a write group.
type BatchStartData struct {
	// Kind is the kind of the owners.
	Kind storage.OwnerKind
	// Owners is the number of records in the group.
	Owners int
}

// BatchEndData is a write group's outcome; the counts mean what the
// fields of rag/ingest.Stats of the same name mean, for this group.
type BatchEndData struct {
	// Written owners (record, chunks or both) and Unchanged ones.
	Written, Unchanged int
	// Chunks of the group's owners; Embedded texts and Skipped chunks.
	Chunks, Embedded, Skipped int
	// Err is the group's error: reading, embedding or writing.
	Err error
}
