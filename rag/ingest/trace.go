package ingest

import (
	"context"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag/trace"
	"github.com/hybridrag/hybridrag/storage"
)

// groupTrace traces one group of owners with IndexerOptions.Tracer; its
// methods do nothing without a tracer.
type groupTrace struct {
	t   trace.BatchTracer
	ctx context.Context
	// before holds the Stats counts when the group started, then (after
	// prepared) the group's own counts.
	before, counts trace.BatchEndData
}

// startGroup starts tracing a group of owners.
func (ix *Indexer) startGroup(ctx context.Context, kind storage.OwnerKind, owners int, st *Stats) *groupTrace {
	g := &groupTrace{t: ix.opts.Tracer, ctx: ctx}
	if g.t == nil {
		return g
	}
	g.ctx = g.t.TraceBatchStart(ctx, trace.BatchStartData{Kind: kind, Owners: owners})
	g.before = countsOf(st)
	return g
}

func countsOf(st *Stats) trace.BatchEndData {
	return trace.BatchEndData{Unchanged: st.Unchanged, Chunks: st.Chunks, Embedded: st.Embedded, Skipped: st.Skipped}
}

// prepared records the group's counts once it has been prepared (st is
// only changed by the Index call's goroutine).
func (g *groupTrace) prepared(st *Stats) {
	if g.t == nil {
		return
	}
	now := countsOf(st)
	g.counts = trace.BatchEndData{
		Unchanged: now.Unchanged - g.before.Unchanged, Chunks: now.Chunks - g.before.Chunks,
		Embedded: now.Embedded - g.before.Embedded, Skipped: now.Skipped - g.before.Skipped,
	}
}

// end ends the group's trace with the number of owners written.
func (g *groupTrace) end(written int, err error) {
	if g.t == nil {
		return
	}
	d := g.counts
	d.Written, d.Err = written, err
	g.t.TraceBatchEnd(g.ctx, d)
}

// startEmbed starts tracing an embedding request.
func (ix *Indexer) startEmbed(ctx context.Context, et trace.EmbedTracer, kind storage.OwnerKind, texts []string) context.Context {
	tokens := 0
	for _, t := range texts {
		tokens += llm.EstimateTokens(t)
	}
	return et.TraceEmbedStart(ctx, trace.EmbedStartData{Kind: kind, Texts: len(texts), Tokens: tokens})
}
