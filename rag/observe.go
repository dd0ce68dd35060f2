package rag

import (
	"context"
	"log/slog"
	"time"

	"github.com/hybridrag/hybridrag/internal/textutil"
	"github.com/hybridrag/hybridrag/rag/trace"
	"github.com/hybridrag/hybridrag/storage"
)

// logQueryChars caps the query text in the per-search log record.
const logQueryChars = 200

// The steps of trace.ModelStartData.
const (
	stepSummarize = "summarize"
	stepClassify  = "classify"
	stepAnswer    = "answer"
	stepTools     = "tools"
)

// searchTracers are the tracer interfaces SearcherOptions.Tracer
// implements, found once by NewSearcher; each nil when not implemented.
type searchTracers struct {
	search trace.SearchTracer
	leg    trace.LegTracer
	embed  trace.EmbedTracer
}

func newSearchTracers(t trace.SearchTracer) searchTracers {
	if t == nil {
		return searchTracers{}
	}
	st := searchTracers{search: t}
	st.leg, _ = t.(trace.LegTracer)
	st.embed, _ = t.(trace.EmbedTracer)
	return st
}

// searchOutcome is the non-generic part of a Result, for the log record
// and the tracer.
type searchOutcome struct {
	hits, lexical, vector int
	legs                  Legs
	fusion                string
	limit                 int
	embeddingUsed         bool
	fallback              FallbackReason
	vectorErr, rerankErr  error
	corrections           int
	timings               Timings
}

func outcomeOf[T any](r *Result[T]) searchOutcome {
	return searchOutcome{
		hits: len(r.Hits), lexical: r.LexicalCount, vector: r.VectorCount,
		legs: r.Legs, fusion: string(r.Fusion), limit: r.Limit,
		embeddingUsed: r.EmbeddingUsed, fallback: r.FallbackReason,
		vectorErr: r.VectorError, rerankErr: r.RerankError,
		corrections: len(r.Query.Corrections), timings: r.Timings,
	}
}

// observed runs a search with the Searcher's tracer and logger, when it
// has either; run is the search itself.
func observed[T any](ctx context.Context, s *Searcher, kind storage.OwnerKind, text string, limit int, run func(context.Context) (*Result[T], error)) (*Result[T], error) {
	start := time.Now()
	if t := s.tracers.search; t != nil {
		ctx = t.TraceSearchStart(ctx, trace.SearchStartData{Kind: kind, Text: text, Limit: limit})
	}
	res, err := run(ctx)
	var out searchOutcome
	if res != nil {
		out = outcomeOf(res)
	}
	if t := s.tracers.search; t != nil {
		d := trace.SearchEndData{Err: err}
		if err == nil {
			d = trace.SearchEndData{
				Hits: out.hits, LexicalCount: out.lexical, VectorCount: out.vector,
				Legs: string(out.legs), Fusion: out.fusion, Limit: out.limit,
				EmbeddingUsed: out.embeddingUsed, FallbackReason: string(out.fallback), VectorError: out.vectorErr,
			}
		}
		t.TraceSearchEnd(ctx, d)
	}
	if s.opts.Logger != nil {
		logSearch(ctx, s.opts.Logger, kind, text, &out, time.Since(start), err)
	}
	return res, err
}

// logSearch writes the search's record: the
// counts of each leg, whether the vector leg ran and why not, and the
// stage timings. A failed search is logged at warning level with its
// error.
func logSearch(ctx context.Context, l *slog.Logger, kind storage.OwnerKind, text string, o *searchOutcome, total time.Duration, err error) {
	if !l.Enabled(ctx, slog.LevelWarn) || (err == nil && !l.Enabled(ctx, slog.LevelInfo)) {
		return
	}
	query := textutil.TruncateRunes(textutil.OneLine(text), logQueryChars)
	if err != nil {
		l.LogAttrs(ctx, slog.LevelWarn, "rag search failed",
			slog.String("kind", string(kind)),
			slog.String("query", query),
			slog.Duration("total", total),
			slog.String("error", err.Error()))
		return
	}
	attrs := make([]slog.Attr, 0, 16)
	attrs = append(attrs,
		slog.String("kind", string(kind)),
		slog.String("query", query),
		slog.Int("results", o.hits),
		slog.Int("lexical_count", o.lexical),
		slog.Int("vector_count", o.vector),
		slog.Bool("embedding_used", o.embeddingUsed),
		slog.String("fallback_reason", string(o.fallback)),
		slog.String("legs", string(o.legs)),
		slog.String("fusion", o.fusion),
		slog.Int("limit", o.limit),
		slog.Int("corrections", o.corrections),
		slog.Group("timings",
			slog.Duration("lexical", o.timings.Lexical),
			slog.Duration("embed", o.timings.Embed),
			slog.Duration("vector", o.timings.Vector),
			slog.Duration("fetch", o.timings.Fetch),
			slog.Duration("merge", o.timings.Merge),
			slog.Duration("rerank", o.timings.Rerank),
			slog.Duration("total", o.timings.Total)),
	)
	if o.vectorErr != nil {
		attrs = append(attrs, slog.String("vector_error", o.vectorErr.Error()))
	}
	if o.rerankErr != nil {
		attrs = append(attrs, slog.String("rerank_error", o.rerankErr.Error()))
	}
	l.LogAttrs(ctx, slog.LevelInfo, "rag search", attrs...)
}
