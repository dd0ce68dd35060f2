package otelrag

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/hybridrag/hybridrag/rag/trace"
)

// ScopeName is the instrumentation scope of the spans: the module path.
const ScopeName = "github.com/hybridrag/hybridrag/otelrag"

// Span names.
const (
	SpanSearch     = "hybridrag.search"
	SpanLegLexical = "hybridrag.leg " + trace.LegLexical
	SpanLegVector  = "hybridrag.leg " + trace.LegVector
	// SpanEmbeddings is the GenAI convention's name of an embedding
	// request without a known model.
	SpanEmbeddings = "embeddings"
	// SpanChat is the GenAI convention's name of a model call without a
	// known model; with one, the span is named "chat MODEL".
	SpanChat  = "chat"
	SpanBatch = "hybridrag.ingest.batch"
)

// Attribute keys of what OpenTelemetry has no convention for.
const (
	// KindKey is the record kind: item, faq or document.
	KindKey = attribute.Key("hybridrag.kind")
	// QueryKey is the query text (only with Options.RecordQueryText).
	QueryKey = attribute.Key("hybridrag.query")
	// LimitKey is the search's limit: as asked (0 for the default) on
	// start, as used on end.
	LimitKey = attribute.Key("hybridrag.limit")
	// HitsKey is the number of hits a search returned.
	HitsKey = attribute.Key("hybridrag.hits")
	// LexicalCountKey and VectorCountKey are the distinct owners each leg
	// found before fusion.
	LexicalCountKey = attribute.Key("hybridrag.lexical_count")
	VectorCountKey  = attribute.Key("hybridrag.vector_count")
	// LegsKey and FusionKey are the legs and the fusion a search used.
	LegsKey   = attribute.Key("hybridrag.legs")
	FusionKey = attribute.Key("hybridrag.fusion")
	// EmbeddingUsedKey reports that a search's vector leg ran.
	EmbeddingUsedKey = attribute.Key("hybridrag.embedding_used")
	// FallbackReasonKey says why a search's vector leg did not run.
	FallbackReasonKey = attribute.Key("hybridrag.fallback_reason")
	// LegKey is a leg's name: lexical or vector.
	LegKey = attribute.Key("hybridrag.leg")
	// CandidatesKey is the number of distinct owners a leg found.
	CandidatesKey = attribute.Key("hybridrag.candidates")
	// QueryEmbeddingKey reports a query embedding (rather than chunks
	// being indexed).
	QueryEmbeddingKey = attribute.Key("hybridrag.embed.query")
	// TextsKey and VectorsKey are the texts sent and the vectors returned
	// by an embedding request.
	TextsKey   = attribute.Key("hybridrag.embed.texts")
	VectorsKey = attribute.Key("hybridrag.embed.vectors")
	// EstimatedTokensKey is the library's estimate of the input tokens
	// (the provider's count, when reported, is gen_ai.usage.input_tokens).
	EstimatedTokensKey = attribute.Key("hybridrag.estimated_input_tokens")
	// StepKey is a model call's step: summarize, classify, answer, tools.
	StepKey = attribute.Key("hybridrag.step")
	// OwnersKey and the other batch keys are a write group's counts
	// (rag/ingest.Stats).
	OwnersKey    = attribute.Key("hybridrag.batch.owners")
	WrittenKey   = attribute.Key("hybridrag.batch.written")
	UnchangedKey = attribute.Key("hybridrag.batch.unchanged")
	ChunksKey    = attribute.Key("hybridrag.batch.chunks")
	EmbeddedKey  = attribute.Key("hybridrag.batch.embedded")
	SkippedKey   = attribute.Key("hybridrag.batch.skipped")
)

// Options configures a Tracer. The zero value uses the global
// TracerProvider and leaves the query text out.
type Options struct {
	// TracerProvider creates the spans; nil means otel.GetTracerProvider()
	// at the time New is called.
	TracerProvider oteltrace.TracerProvider
	// RecordQueryText records each search's query text as
	// hybridrag.query. It is the user's text: leave it off where it must
	// not reach the trace backend.
	RecordQueryText bool
	// ProviderName, when set, is recorded on model and embedding spans as
	// gen_ai.provider.name ("openai", say).
	ProviderName string
}

// Tracer turns hybridrag's tracer calls into OpenTelemetry spans. It
// implements trace.SearchTracer, LegTracer, EmbedTracer, ModelTracer and
// BatchTracer. Create one with New; it is immutable and safe for
// concurrent use.
type Tracer struct {
	tracer oteltrace.Tracer
	opts   Options
}

// New returns a Tracer. It does no I/O.
func New(opts Options) *Tracer {
	tp := opts.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	return &Tracer{tracer: tp.Tracer(ScopeName), opts: opts}
}

// TraceSearchStart starts a search span.
func (t *Tracer) TraceSearchStart(ctx context.Context, d trace.SearchStartData) context.Context {
	attrs := []attribute.KeyValue{KindKey.String(string(d.Kind)), LimitKey.Int(d.Limit)}
	if t.opts.RecordQueryText {
		attrs = append(attrs, QueryKey.String(d.Text))
	}
	ctx, _ = t.tracer.Start(ctx, SpanSearch, oteltrace.WithSpanKind(oteltrace.SpanKindInternal), oteltrace.WithAttributes(attrs...))
	return ctx
}

// TraceSearchEnd ends the search span with the search's outcome.
func (t *Tracer) TraceSearchEnd(ctx context.Context, d trace.SearchEndData) {
	span := oteltrace.SpanFromContext(ctx)
	defer span.End()
	if d.Err != nil {
		fail(span, d.Err)
		return
	}
	span.SetAttributes(
		HitsKey.Int(d.Hits), LexicalCountKey.Int(d.LexicalCount), VectorCountKey.Int(d.VectorCount),
		LegsKey.String(d.Legs), FusionKey.String(d.Fusion), LimitKey.Int(d.Limit),
		EmbeddingUsedKey.Bool(d.EmbeddingUsed),
	)
	if d.FallbackReason != "" {
		span.SetAttributes(FallbackReasonKey.String(d.FallbackReason))
	}
	if d.VectorError != nil {
		// The search succeeded on the lexical leg: an event, not a
		// failed span.
		span.RecordError(d.VectorError, oteltrace.WithAttributes(LegKey.String(trace.LegVector)))
	}
}

// TraceLegStart starts a leg span.
func (t *Tracer) TraceLegStart(ctx context.Context, d trace.LegStartData) context.Context {
	ctx, _ = t.tracer.Start(ctx, "hybridrag.leg "+d.Leg, oteltrace.WithSpanKind(oteltrace.SpanKindInternal),
		oteltrace.WithAttributes(KindKey.String(string(d.Kind)), LegKey.String(d.Leg)))
	return ctx
}

// TraceLegEnd ends the leg span.
func (t *Tracer) TraceLegEnd(ctx context.Context, d trace.LegEndData) {
	span := oteltrace.SpanFromContext(ctx)
	defer span.End()
	span.SetAttributes(CandidatesKey.Int(d.Candidates))
	if d.FallbackReason != "" {
		span.SetAttributes(FallbackReasonKey.String(d.FallbackReason))
	}
	if d.Err != nil {
		fail(span, d.Err)
	}
}

// TraceEmbedStart starts an embedding span.
func (t *Tracer) TraceEmbedStart(ctx context.Context, d trace.EmbedStartData) context.Context {
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameEmbeddings, KindKey.String(string(d.Kind)),
		TextsKey.Int(d.Texts), EstimatedTokensKey.Int(d.Tokens), QueryEmbeddingKey.Bool(d.Query),
	}
	if t.opts.ProviderName != "" {
		attrs = append(attrs, semconv.GenAIProviderNameKey.String(t.opts.ProviderName))
	}
	ctx, _ = t.tracer.Start(ctx, SpanEmbeddings, oteltrace.WithSpanKind(oteltrace.SpanKindClient), oteltrace.WithAttributes(attrs...))
	return ctx
}

// TraceEmbedEnd ends the embedding span.
func (t *Tracer) TraceEmbedEnd(ctx context.Context, d trace.EmbedEndData) {
	span := oteltrace.SpanFromContext(ctx)
	defer span.End()
	span.SetAttributes(VectorsKey.Int(d.Vectors))
	if d.Err != nil {
		fail(span, d.Err)
	}
}

// TraceModelStart starts a model call span, named after the GenAI
// convention: "chat", or "chat MODEL" when the model asked for is known.
func (t *Tracer) TraceModelStart(ctx context.Context, d trace.ModelStartData) context.Context {
	name := SpanChat
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameChat, StepKey.String(d.Step)}
	if d.Model != "" {
		name += " " + d.Model
		attrs = append(attrs, semconv.GenAIRequestModel(d.Model))
	}
	if d.PromptTokens > 0 {
		attrs = append(attrs, EstimatedTokensKey.Int(d.PromptTokens))
	}
	if t.opts.ProviderName != "" {
		attrs = append(attrs, semconv.GenAIProviderNameKey.String(t.opts.ProviderName))
	}
	ctx, _ = t.tracer.Start(ctx, name, oteltrace.WithSpanKind(oteltrace.SpanKindClient), oteltrace.WithAttributes(attrs...))
	return ctx
}

// TraceModelEnd ends the model call span with the model that answered,
// the provider's token counts and the finish reason, when reported.
func (t *Tracer) TraceModelEnd(ctx context.Context, d trace.ModelEndData) {
	span := oteltrace.SpanFromContext(ctx)
	defer span.End()
	if d.Model != "" {
		span.SetAttributes(semconv.GenAIResponseModel(d.Model))
	}
	if u := d.Usage; u.PromptTokens > 0 || u.CompletionTokens > 0 {
		span.SetAttributes(semconv.GenAIUsageInputTokens(u.PromptTokens), semconv.GenAIUsageOutputTokens(u.CompletionTokens))
	}
	if d.FinishReason != "" {
		span.SetAttributes(semconv.GenAIResponseFinishReasons(string(d.FinishReason)))
	}
	if d.Err != nil {
		fail(span, d.Err)
	}
}

// TraceBatchStart starts a write group span.
func (t *Tracer) TraceBatchStart(ctx context.Context, d trace.BatchStartData) context.Context {
	ctx, _ = t.tracer.Start(ctx, SpanBatch, oteltrace.WithSpanKind(oteltrace.SpanKindInternal),
		oteltrace.WithAttributes(KindKey.String(string(d.Kind)), OwnersKey.Int(d.Owners)))
	return ctx
}

// TraceBatchEnd ends the write group span with its counts.
func (t *Tracer) TraceBatchEnd(ctx context.Context, d trace.BatchEndData) {
	span := oteltrace.SpanFromContext(ctx)
	defer span.End()
	span.SetAttributes(WrittenKey.Int(d.Written), UnchangedKey.Int(d.Unchanged), ChunksKey.Int(d.Chunks),
		EmbeddedKey.Int(d.Embedded), SkippedKey.Int(d.Skipped))
	if d.Err != nil {
		fail(span, d.Err)
	}
}

// fail records err on span: an exception event, error.type and status
// Error with the error's text.
func fail(span oteltrace.Span, err error) {
	span.RecordError(err)
	span.SetAttributes(semconv.ErrorTypeKey.String(errorType(err)))
	span.SetStatus(codes.Error, err.Error())
}

// errorType is the error.type of err: "context.Canceled" or
// "context.DeadlineExceeded" for those, else the Go type of the first
// error in its chain that is not a plain wrapper or string error (a typed
// error such as *pgconn.PgError), else "_OTHER".
func errorType(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "context.Canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "context.DeadlineExceeded"
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch typ := fmt.Sprintf("%T", e); typ {
		case "*errors.errorString", "*fmt.wrapError", "*fmt.wrapErrors", "*errors.joinError":
		default:
			return typ
		}
	}
	return semconv.ErrorTypeOther.Value.AsString()
}

var (
	_ trace.SearchTracer = (*Tracer)(nil)
	_ trace.LegTracer    = (*Tracer)(nil)
	_ trace.EmbedTracer  = (*Tracer)(nil)
	_ trace.ModelTracer  = (*Tracer)(nil)
	_ trace.BatchTracer  = (*Tracer)(nil)
)
