package tracetest_test

import (
	"context"
	"testing"

	"github.com/hybridrag/hybridrag/internal/tracetest"
	"github.com/hybridrag/hybridrag/rag/trace"
)

func TestRecorderCheck(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		run  func(r *tracetest.Recorder)
		ok   bool
	}{
		{"paired and nested", func(r *tracetest.Recorder) {
			sctx := r.TraceSearchStart(ctx, trace.SearchStartData{Text: "soja"})
			ectx := r.TraceEmbedStart(sctx, trace.EmbedStartData{Texts: 1})
			r.TraceEmbedEnd(ectx, trace.EmbedEndData{Vectors: 1})
			r.TraceSearchEnd(sctx, trace.SearchEndData{Hits: 2})
		}, true},
		{"never ended", func(r *tracetest.Recorder) {
			r.TraceModelStart(ctx, trace.ModelStartData{Step: "answer"})
		}, false},
		{"ended twice", func(r *tracetest.Recorder) {
			bctx := r.TraceBatchStart(ctx, trace.BatchStartData{Owners: 2})
			r.TraceBatchEnd(bctx, trace.BatchEndData{})
			r.TraceBatchEnd(bctx, trace.BatchEndData{})
		}, false},
		{"end without its start's context", func(r *tracetest.Recorder) {
			r.TraceLegStart(ctx, trace.LegStartData{Leg: trace.LegLexical})
			r.TraceLegEnd(ctx, trace.LegEndData{})
		}, false},
		{"end with another kind's context", func(r *tracetest.Recorder) {
			sctx := r.TraceSearchStart(ctx, trace.SearchStartData{})
			r.TraceLegEnd(sctx, trace.LegEndData{})
			r.TraceSearchEnd(sctx, trace.SearchEndData{})
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &tracetest.Recorder{}
			tt.run(r)
			if err := r.Check(); (err == nil) != tt.ok {
				t.Errorf("Check() = %v, want ok %v", err, tt.ok)
			}
		})
	}

	r := &tracetest.Recorder{}
	sctx := r.TraceSearchStart(ctx, trace.SearchStartData{Text: "soja"})
	lctx := r.TraceLegStart(sctx, trace.LegStartData{Leg: trace.LegVector})
	r.TraceLegEnd(lctx, trace.LegEndData{Candidates: 3})
	r.TraceSearchEnd(sctx, trace.SearchEndData{Hits: 3})
	sp := r.Spans()
	if len(sp) != 2 || sp[0].Parent != -1 || sp[1].Parent != 0 || sp[1].End.(trace.LegEndData).Candidates != 3 {
		t.Errorf("spans %+v", sp)
	}
	if n := len(r.Named(tracetest.SpanLeg)); n != 1 {
		t.Errorf("%d leg spans", n)
	}
}
