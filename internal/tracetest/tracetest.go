// Package tracetest records traces, for tests of code that takes a tracer
// of package trace (and of tracers' callers): a Recorder implements every
// tracer interface, keeps each Start/End pair as a Span with its typed data
// and its parent, and Check reports a broken contract (an End without its
// Start's context, a span ended twice or never).
//
// A Recorder is safe for concurrent use.
package tracetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/hybridrag/hybridrag/rag/trace"
)

// Span names.
const (
	SpanSearch = "search"
	SpanLeg    = "leg"
	SpanEmbed  = "embed"
	SpanModel  = "model"
	SpanBatch  = "batch"
)

// Span is one traced operation.
type Span struct {
	// ID is the span's index in Recorder.Spans.
	ID int
	// Name is SpanSearch, SpanLeg, SpanEmbed, SpanModel or SpanBatch.
	Name string
	// Parent is the ID of the span whose context the Start got, or -1.
	Parent int
	// Start is the Start data (trace.SearchStartData, ...), End the End
	// data (trace.SearchEndData, ...) or nil while the span is open.
	Start, End any
	// Ended counts the End calls (1 when the contract holds).
	Ended int
}

// Recorder is a tracer implementing trace.SearchTracer, LegTracer,
// EmbedTracer, ModelTracer and BatchTracer. The zero value is ready.
type Recorder struct {
	mu    sync.Mutex
	spans []Span
	errs  []error
}

// spanKey is the context key of r's spans: each Recorder has its own, so
// that two Recorders behind one trace.NewMulti keep their spans apart.
type spanKey struct{ r *Recorder }

// Spans returns a copy of the spans recorded, in Start order.
func (r *Recorder) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.spans)
}

// Named returns the spans named name, in Start order.
func (r *Recorder) Named(name string) []Span {
	var out []Span
	for _, s := range r.Spans() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// Check reports every broken contract: an End whose context no Start of
// the same kind returned, a span ended more than once, a span not ended.
func (r *Recorder) Check() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	errs := slices.Clone(r.errs)
	for _, s := range r.spans {
		switch {
		case s.Ended == 0:
			errs = append(errs, fmt.Errorf("tracetest: %s span %d %+v never ended", s.Name, s.ID, s.Start))
		case s.Ended > 1:
			errs = append(errs, fmt.Errorf("tracetest: %s span %d ended %d times", s.Name, s.ID, s.Ended))
		}
	}
	return errors.Join(errs...)
}

func (r *Recorder) start(ctx context.Context, name string, data any) context.Context {
	parent := -1
	if id, ok := ctx.Value(spanKey{r}).(int); ok {
		parent = id
	}
	r.mu.Lock()
	id := len(r.spans)
	r.spans = append(r.spans, Span{ID: id, Name: name, Parent: parent, Start: data})
	r.mu.Unlock()
	return context.WithValue(ctx, spanKey{r}, id)
}

func (r *Recorder) end(ctx context.Context, name string, data any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	id, ok := ctx.Value(spanKey{r}).(int)
	if !ok || id >= len(r.spans) || r.spans[id].Name != name {
		r.errs = append(r.errs, fmt.Errorf("tracetest: %s End %+v without the context of its Start", name, data))
		return
	}
	r.spans[id].End = data
	r.spans[id].Ended++
}

// TraceSearchStart records a search span.
func (r *Recorder) TraceSearchStart(ctx context.Context, d trace.SearchStartData) context.Context {
	return r.start(ctx, SpanSearch, d)
}

// TraceSearchEnd ends it.
func (r *Recorder) TraceSearchEnd(ctx context.Context, d trace.SearchEndData) {
	r.end(ctx, SpanSearch, d)
}

// TraceLegStart records a leg span.
func (r *Recorder) TraceLegStart(ctx context.Context, d trace.LegStartData) context.Context {
	return r.start(ctx, SpanLeg, d)
}

// TraceLegEnd ends it.
func (r *Recorder) TraceLegEnd(ctx context.Context, d trace.LegEndData) { r.end(ctx, SpanLeg, d) }

// TraceEmbedStart records an embed span.
func (r *Recorder) TraceEmbedStart(ctx context.Context, d trace.EmbedStartData) context.Context {
	return r.start(ctx, SpanEmbed, d)
}

// TraceEmbedEnd ends it.
func (r *Recorder) TraceEmbedEnd(ctx context.Context, d trace.EmbedEndData) { r.end(ctx, SpanEmbed, d) }

// TraceModelStart records a model span.
func (r *Recorder) TraceModelStart(ctx context.Context, d trace.ModelStartData) context.Context {
	return r.start(ctx, SpanModel, d)
}

// TraceModelEnd ends it.
func (r *Recorder) TraceModelEnd(ctx context.Context, d trace.ModelEndData) { r.end(ctx, SpanModel, d) }

// TraceBatchStart records a batch span.
func (r *Recorder) TraceBatchStart(ctx context.Context, d trace.BatchStartData) context.Context {
	return r.start(ctx, SpanBatch, d)
}

// TraceBatchEnd ends it.
func (r *Recorder) TraceBatchEnd(ctx context.Context, d trace.BatchEndData) { r.end(ctx, SpanBatch, d) }

var (
	_ trace.SearchTracer = (*Recorder)(nil)
	_ trace.LegTracer    = (*Recorder)(nil)
	_ trace.EmbedTracer  = (*Recorder)(nil)
	_ trace.ModelTracer  = (*Recorder)(nil)
	_ trace.BatchTracer  = (*Recorder)(nil)
)
