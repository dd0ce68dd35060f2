package otelrag_test

import (
	"context"
	"fmt"
	"slices"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hybridrag/hybridrag/otelrag"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/rag/trace"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// One Tracer on the Searcher and on the Pipeline: a chat turn run inside
// a span of the caller's (an HTTP server's, usually) records its model
// calls and searches under it, each search with its legs and the query
// embedding. Here the spans go to an in-memory recorder; in production,
// the TracerProvider is the application's, with its exporter.
func ExampleNew() {
	ctx := context.Background()
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	defer func() { _ = tp.Shutdown(ctx) }()

	store, _ := memory.New(memory.Options{Dimensions: 64}).Tenant("demo")
	emb, _ := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 64})
	_ = store.Apply(ctx, storage.Batch{FAQs: []storage.FAQ{
		{ID: "faq-1", Question: "Qual o prazo de entrega?", Answer: "Até 5 dias úteis nas capitais."},
	}})

	t := otelrag.New(otelrag.Options{TracerProvider: tp})
	p, err := rag.NewPipeline(rag.NewSearcher(store, emb, rag.SearcherOptions{Tracer: t}),
		offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{Tracer: t})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, turn := tp.Tracer("app").Start(ctx, "POST /api/chat")
	_, err = p.Chat(ctx, rag.ChatRequest{Message: "qual o prazo de entrega?"})
	turn.End()
	if err != nil {
		fmt.Println(err)
		return
	}

	var names []string
	for _, s := range sr.Ended() {
		names = append(names, s.Name())
	}
	slices.Sort(names)
	fmt.Println(names)
	// Output:
	// [POST /api/chat chat chat embeddings embeddings hybridrag.leg lexical hybridrag.leg lexical hybridrag.leg vector hybridrag.leg vector hybridrag.search hybridrag.search]
}

// With another tracer beside it (metrics, logs), trace.NewMulti gives both
// to the one options field.
func ExampleNew_multi() {
	var metrics countingTracer
	t := trace.NewMulti(otelrag.New(otelrag.Options{}), &metrics)

	store, _ := memory.New(memory.Options{Dimensions: 64}).Tenant("demo")
	s := rag.NewSearcher(store, nil, rag.SearcherOptions{Tracer: t})
	_, _ = s.SearchFAQs(context.Background(), rag.Query{Text: "prazo"})
	fmt.Println("searches counted:", metrics.searches)
	// Output:
	// searches counted: 1
}

// countingTracer counts searches (not safe for concurrent use: an
// example's sequential search only).
type countingTracer struct{ searches int }

func (c *countingTracer) TraceSearchStart(ctx context.Context, _ trace.SearchStartData) context.Context {
	return ctx
}

func (c *countingTracer) TraceSearchEnd(context.Context, trace.SearchEndData) { c.searches++ }
