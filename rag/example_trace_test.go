package rag_test

import (
	"context"
	"fmt"
	"time"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/trace"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// spanTracer is a tracer the way an OpenTelemetry adapter is written: the
// Start methods open a span and put it in the context they return, the End
// methods close the span they find there and record the data. Here the
// "span" is a start time, and End prints instead of exporting; with
// OpenTelemetry, Start would call tracer.Start(ctx, "rag.search") and set
// attributes, End span.SetAttributes, span.RecordError and span.End().
type spanTracer struct{}

type spanStart struct{}

func (spanTracer) TraceSearchStart(ctx context.Context, d trace.SearchStartData) context.Context {
	fmt.Printf("search %s %q\n", d.Kind, d.Text)
	return context.WithValue(ctx, spanStart{}, time.Now())
}

func (spanTracer) TraceSearchEnd(ctx context.Context, d trace.SearchEndData) {
	_ = time.Since(ctx.Value(spanStart{}).(time.Time)) // the span's duration
	fmt.Printf("search done: %d hits (lexical %d, vector %d), embedding used: %v, err: %v\n",
		d.Hits, d.LexicalCount, d.VectorCount, d.EmbeddingUsed, d.Err)
}

// Implementing trace.EmbedTracer too traces the query embeddings.
func (spanTracer) TraceEmbedStart(ctx context.Context, d trace.EmbedStartData) context.Context {
	fmt.Printf("embed %d text(s), query: %v\n", d.Texts, d.Query)
	return context.WithValue(ctx, spanStart{}, time.Now())
}

func (spanTracer) TraceEmbedEnd(ctx context.Context, d trace.EmbedEndData) {
	fmt.Printf("embed done: %d vector(s), err: %v\n", d.Vectors, d.Err)
}

// A tracer attached to a Searcher sees every search and, because it also
// implements trace.EmbedTracer, every query embedding. The same value can
// be given to PipelineOptions.Tracer (with trace.ModelTracer methods) and
// ingest.IndexerOptions.Tracer (with trace.BatchTracer methods).
func ExampleSearcherOptions_tracer() {
	ctx := context.Background()
	db := memory.New(memory.Options{Dimensions: 64})
	store, _ := db.Tenant("demo")
	emb, _ := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 64})
	_ = store.Apply(ctx, storage.Batch{FAQs: []storage.FAQ{
		{ID: "faq-1", Question: "Qual o prazo de entrega?", Answer: "Até 5 dias úteis nas capitais."},
	}})

	s := rag.NewSearcher(store, emb, rag.SearcherOptions{Tracer: spanTracer{}})
	_, _ = s.SearchFAQs(ctx, rag.Query{Text: "prazo de entrega"})
	// Output:
	// search faq "prazo de entrega"
	// embed 1 text(s), query: true
	// embed done: 1 vector(s), err: <nil>
	// search done: 1 hits (lexical 1, vector 0), embedding used: true, err: <nil>
}
