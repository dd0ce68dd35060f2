package trace_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/hybridrag/hybridrag/internal/tracetest"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/trace"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// callLog is a SearchTracer and ModelTracer that logs its calls and checks
// that each End gets the context its Start returned.
type callLog struct {
	name string
	mu   *sync.Mutex
	log  *[]string
}

type callKey struct{ name string }

func (c callLog) add(s string) {
	c.mu.Lock()
	*c.log = append(*c.log, s)
	c.mu.Unlock()
}

func (c callLog) TraceSearchStart(ctx context.Context, _ trace.SearchStartData) context.Context {
	// Values of the tracers before this one are visible.
	seen := []string{}
	for _, n := range []string{"a", "b"} {
		if ctx.Value(callKey{n}) != nil {
			seen = append(seen, n)
		}
	}
	c.add(fmt.Sprintf("%s start (sees %v)", c.name, seen))
	return context.WithValue(ctx, callKey{c.name}, c.name)
}

func (c callLog) TraceSearchEnd(ctx context.Context, d trace.SearchEndData) {
	c.add(fmt.Sprintf("%s end (own value %v, err %v)", c.name, ctx.Value(callKey{c.name}), d.Err))
}

func (c callLog) TraceModelStart(ctx context.Context, _ trace.ModelStartData) context.Context {
	c.add(c.name + " model start")
	return ctx
}

func (c callLog) TraceModelEnd(context.Context, trace.ModelEndData) { c.add(c.name + " model end") }

// Starts run in order, each with the context the previous one returned;
// Ends run in reverse order, each with its own Start's context.
func TestMultiOrderAndContexts(t *testing.T) {
	var (
		mu  sync.Mutex
		log []string
	)
	a := callLog{name: "a", mu: &mu, log: &log}
	b := callLog{name: "b", mu: &mu, log: &log}
	m := trace.NewMulti(a, nil, "not a tracer", b)

	ctx := m.TraceSearchStart(context.Background(), trace.SearchStartData{Kind: storage.KindItem, Text: "x"})
	m.TraceSearchEnd(ctx, trace.SearchEndData{Err: errors.New("boom")})
	// A Multi without LegTracers returns the context it got.
	base := context.Background()
	if got := m.TraceLegStart(base, trace.LegStartData{}); got != base {
		t.Errorf("TraceLegStart without LegTracers returned a new context")
	}
	m.TraceLegEnd(base, trace.LegEndData{})

	want := []string{
		"a start (sees [])",
		"b start (sees [a])",
		"b end (own value b, err boom)",
		"a end (own value a, err boom)",
	}
	if !slices.Equal(log, want) {
		t.Errorf("calls:\n got %q\nwant %q", log, want)
	}
}

// Two Recorders in a Multi on a real Searcher: each End gets its own
// Start's context, so both see every search, leg and embedding closed
// once, nested as they ran.
func TestMultiOnSearcher(t *testing.T) {
	ctx := context.Background()
	store, err := memory.New(memory.Options{Dimensions: 32}).Tenant("t")
	if err != nil {
		t.Fatal(err)
	}
	emb, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 32})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Apply(ctx, storage.Batch{FAQs: []storage.FAQ{{ID: "f1", Question: "Qual o prazo de entrega?", Answer: "Cinco dias."}}}); err != nil {
		t.Fatal(err)
	}
	var r1, r2 tracetest.Recorder
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{Tracer: trace.NewMulti(&r1, &r2)})
	for range 2 {
		if _, err := s.SearchFAQs(ctx, rag.Query{Text: "prazo de entrega"}); err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range []*tracetest.Recorder{&r1, &r2} {
		if err := r.Check(); err != nil {
			t.Errorf("recorder %d: %v", i+1, err)
		}
		if n := len(r.Named(tracetest.SpanSearch)); n != 2 {
			t.Errorf("recorder %d: %d searches, want 2", i+1, n)
		}
		legs := r.Named(tracetest.SpanLeg)
		if len(legs) != 4 {
			t.Fatalf("recorder %d: %d legs, want 4", i+1, len(legs))
		}
		for _, l := range legs {
			if p := r.Spans()[l.Parent]; l.Parent < 0 || p.Name != tracetest.SpanSearch {
				t.Errorf("recorder %d: leg %d's parent is %d, not a search", i+1, l.ID, l.Parent)
			}
		}
		if n := len(r.Named(tracetest.SpanEmbed)); n != 2 {
			t.Errorf("recorder %d: %d embeddings, want 2", i+1, n)
		}
	}
}

// Nested Multis keep their contexts apart.
func TestMultiNested(t *testing.T) {
	var r1, r2, r3 tracetest.Recorder
	m := trace.NewMulti(trace.NewMulti(&r1, &r2), &r3)
	ctx := m.TraceModelStart(context.Background(), trace.ModelStartData{Step: "answer"})
	m.TraceModelEnd(ctx, trace.ModelEndData{Model: "m"})
	bctx := m.TraceBatchStart(context.Background(), trace.BatchStartData{Owners: 2})
	ectx := m.TraceEmbedStart(bctx, trace.EmbedStartData{Texts: 2})
	m.TraceEmbedEnd(ectx, trace.EmbedEndData{Vectors: 2})
	m.TraceBatchEnd(bctx, trace.BatchEndData{Written: 2})
	for i, r := range []*tracetest.Recorder{&r1, &r2, &r3} {
		if err := r.Check(); err != nil {
			t.Errorf("recorder %d: %v", i+1, err)
		}
		if n := len(r.Spans()); n != 3 {
			t.Errorf("recorder %d: %d spans, want 3", i+1, n)
		}
	}
}

// Two tracers behind one options field: both see the search.
func ExampleNewMulti() {
	ctx := context.Background()
	store, _ := memory.New(memory.Options{Dimensions: 32}).Tenant("demo")
	_ = store.Apply(ctx, storage.Batch{FAQs: []storage.FAQ{{ID: "f1", Question: "Aceitam Pix?", Answer: "Sim."}}})

	var metrics, spans tracetest.Recorder // say, a Prometheus tracer and an OpenTelemetry one
	s := rag.NewSearcher(store, nil, rag.SearcherOptions{Tracer: trace.NewMulti(&metrics, &spans)})
	_, _ = s.SearchFAQs(ctx, rag.Query{Text: "pix"})
	fmt.Println(len(metrics.Named(tracetest.SpanSearch)), len(spans.Named(tracetest.SpanSearch)))
	// Output:
	// 1 1
}
