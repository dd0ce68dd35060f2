package trace

import "context"

// Tracer implements every tracer interface of this package; [NewMulti]
// returns one.
type Tracer interface {
	SearchTracer
	LegTracer
	EmbedTracer
	ModelTracer
	BatchTracer
}

// multi is the Tracer of NewMulti.
type multi struct {
	search []SearchTracer
	leg    []LegTracer
	embed  []EmbedTracer
	model  []ModelTracer
	batch  []BatchTracer
}

// NewMulti returns a Tracer that forwards every Start and End to tracers,
// for instance an OpenTelemetry adapter and a metrics tracer on the same
// Searcher. Each value is used for the interfaces of this package it
// implements (SearchTracer, LegTracer, EmbedTracer, ModelTracer,
// BatchTracer); nil values and values implementing none of them are
// ignored, as a tracer given to an options field is ignored for the
// interfaces it does not implement.
//
// The Start methods call the tracers in order, each with the context the
// previous one returned, so that a later tracer sees the earlier ones'
// values (an OpenTelemetry span as parent, say); a tracer should
// therefore key its values by instance when two copies of it may share one
// (a per-instance context key). The End methods call the tracers
// in reverse order, each with the very context its own Start returned.
//
// The Tracer is immutable and safe for concurrent use when its tracers
// are.
func NewMulti(tracers ...any) Tracer {
	m := &multi{}
	for _, t := range tracers {
		if t == nil {
			continue
		}
		if x, ok := t.(SearchTracer); ok {
			m.search = append(m.search, x)
		}
		if x, ok := t.(LegTracer); ok {
			m.leg = append(m.leg, x)
		}
		if x, ok := t.(EmbedTracer); ok {
			m.embed = append(m.embed, x)
		}
		if x, ok := t.(ModelTracer); ok {
			m.model = append(m.model, x)
		}
		if x, ok := t.(BatchTracer); ok {
			m.batch = append(m.batch, x)
		}
	}
	return m
}

// multiKey is the context key under which a NewMulti tracer keeps the contexts its
// tracers' Start methods returned, one per tracer. m tells nested ones
// apart.
type multiKey struct{ m *multi }

// multiStart calls start for each of n tracers, chaining the contexts,
// and returns the last context with every tracer's own context attached.
func multiStart(m *multi, ctx context.Context, n int, start func(ctx context.Context, i int) context.Context) context.Context {
	if n == 0 {
		return ctx
	}
	ctxs := make([]context.Context, n)
	for i := range n {
		ctx = start(ctx, i)
		ctxs[i] = ctx
	}
	return context.WithValue(ctx, multiKey{m}, ctxs)
}

// multiEnd calls end for each of n tracers in reverse order, each with
// the context its Start returned; when ctx is not one a Start of m
// returned (a broken contract), every tracer gets ctx.
func multiEnd(m *multi, ctx context.Context, n int, end func(ctx context.Context, i int)) {
	ctxs, ok := ctx.Value(multiKey{m}).([]context.Context)
	if !ok || len(ctxs) != n {
		ctxs = nil
	}
	for i := n - 1; i >= 0; i-- {
		c := ctx
		if ctxs != nil {
			c = ctxs[i]
		}
		end(c, i)
	}
}

// TraceSearchStart calls TraceSearchStart of each SearchTracer.
func (m *multi) TraceSearchStart(ctx context.Context, d SearchStartData) context.Context {
	return multiStart(m, ctx, len(m.search), func(ctx context.Context, i int) context.Context {
		return m.search[i].TraceSearchStart(ctx, d)
	})
}

// TraceSearchEnd calls TraceSearchEnd of each SearchTracer.
func (m *multi) TraceSearchEnd(ctx context.Context, d SearchEndData) {
	multiEnd(m, ctx, len(m.search), func(ctx context.Context, i int) { m.search[i].TraceSearchEnd(ctx, d) })
}

// TraceLegStart calls TraceLegStart of each LegTracer.
func (m *multi) TraceLegStart(ctx context.Context, d LegStartData) context.Context {
	return multiStart(m, ctx, len(m.leg), func(ctx context.Context, i int) context.Context {
		return m.leg[i].TraceLegStart(ctx, d)
	})
}

// TraceLegEnd calls TraceLegEnd of each LegTracer.
func (m *multi) TraceLegEnd(ctx context.Context, d LegEndData) {
	multiEnd(m, ctx, len(m.leg), func(ctx context.Context, i int) { m.leg[i].TraceLegEnd(ctx, d) })
}

// TraceEmbedStart calls TraceEmbedStart of each EmbedTracer.
func (m *multi) TraceEmbedStart(ctx context.Context, d EmbedStartData) context.Context {
	return multiStart(m, ctx, len(m.embed), func(ctx context.Context, i int) context.Context {
		return m.embed[i].TraceEmbedStart(ctx, d)
	})
}

// TraceEmbedEnd calls TraceEmbedEnd of each EmbedTracer.
func (m *multi) TraceEmbedEnd(ctx context.Context, d EmbedEndData) {
	multiEnd(m, ctx, len(m.embed), func(ctx context.Context, i int) { m.embed[i].TraceEmbedEnd(ctx, d) })
}

// TraceModelStart calls TraceModelStart of each ModelTracer.
func (m *multi) TraceModelStart(ctx context.Context, d ModelStartData) context.Context {
	return multiStart(m, ctx, len(m.model), func(ctx context.Context, i int) context.Context {
		return m.model[i].TraceModelStart(ctx, d)
	})
}

// TraceModelEnd calls TraceModelEnd of each ModelTracer.
func (m *multi) TraceModelEnd(ctx context.Context, d ModelEndData) {
	multiEnd(m, ctx, len(m.model), func(ctx context.Context, i int) { m.model[i].TraceModelEnd(ctx, d) })
}

// TraceBatchStart calls TraceBatchStart of each BatchTracer.
func (m *multi) TraceBatchStart(ctx context.Context, d BatchStartData) context.Context {
	return multiStart(m, ctx, len(m.batch), func(ctx context.Context, i int) context.Context {
		return m.batch[i].TraceBatchStart(ctx, d)
	})
}

// TraceBatchEnd calls TraceBatchEnd of each BatchTracer.
func (m *multi) TraceBatchEnd(ctx context.Context, d BatchEndData) {
	multiEnd(m, ctx, len(m.batch), func(ctx context.Context, i int) { m.batch[i].TraceBatchEnd(ctx, d) })
}

var (
	_ SearchTracer = (*multi)(nil)
	_ LegTracer    = (*multi)(nil)
	_ EmbedTracer  = (*multi)(nil)
	_ ModelTracer  = (*multi)(nil)
	_ BatchTracer  = (*multi)(nil)
)
