package rag_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/internal/tracetest"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/rag/trace"
	"github.com/hybridrag/hybridrag/storage"
)

// logRecords decodes the JSON log records in buf.
func logRecords(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// TestSearchLogRecord checks the per-search record (seed 000
// logHybridStats) of real searches over testdata.
func TestSearchLogRecord(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	ctx := context.Background()
	tests := []struct {
		name     string
		store    storage.Store
		embedder bool
		fallback rag.FallbackReason
	}{
		{"hybrid", store, true, rag.FallbackNone},
		{"no embedder", store, false, rag.FallbackEmbeddingDisabled},
		{"vector store down", failingVectorStore{store}, true, rag.FallbackVectorQueryError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			opts := rag.SearcherOptions{Logger: slog.New(slog.NewJSONHandler(&buf, nil))}
			s := rag.NewSearcher(tt.store, nil, opts)
			if tt.embedder {
				s = rag.NewSearcher(tt.store, emb, opts)
			}
			res, err := s.SearchCatalog(ctx, rag.Query{Text: "fungicida para videira", Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			recs := logRecords(t, &buf)
			if len(recs) != 1 {
				t.Fatalf("%d records, want 1:\n%s", len(recs), buf.String())
			}
			r := recs[0]
			want := map[string]any{
				"level": "INFO", "msg": "rag search", "kind": "item", "query": "fungicida para videira",
				"results": float64(len(res.Hits)), "lexical_count": float64(res.LexicalCount), "vector_count": float64(res.VectorCount),
				"embedding_used": res.EmbeddingUsed, "fallback_reason": string(tt.fallback),
				"legs": "hybrid", "fusion": "weighted", "limit": float64(3), "corrections": float64(0),
			}
			for k, v := range want {
				if r[k] != v {
					t.Errorf("%s = %v (%T), want %v", k, r[k], r[k], v)
				}
			}
			if res.FallbackReason != tt.fallback || res.LexicalCount == 0 || (tt.fallback == rag.FallbackNone) != (res.VectorCount > 0) {
				t.Errorf("result: fallback %q, lexical %d, vector %d", res.FallbackReason, res.LexicalCount, res.VectorCount)
			}
			tm, _ := r["timings"].(map[string]any)
			for _, k := range []string{"lexical", "embed", "vector", "fetch", "merge", "rerank", "total"} {
				if _, ok := tm[k].(float64); !ok {
					t.Errorf("timings.%s missing in %v", k, r["timings"])
				}
			}
			if tm["total"].(float64) <= 0 {
				t.Errorf("timings.total = %v", tm["total"])
			}
			_, hasVecErr := r["vector_error"]
			if hasVecErr != (tt.fallback == rag.FallbackVectorQueryError) {
				t.Errorf("vector_error = %v", r["vector_error"])
			}
		})
	}

	t.Run("failed search", func(t *testing.T) {
		var buf bytes.Buffer
		s := rag.NewSearcher(store, emb, rag.SearcherOptions{Logger: slog.New(slog.NewJSONHandler(&buf, nil))})
		s = rag.NewSearcher(failingFAQStore{store}, emb, s.Options())
		_, err := s.SearchFAQs(ctx, rag.Query{Text: "prazo de entrega"})
		if !errors.Is(err, errLexicalDown) {
			t.Fatalf("err = %v", err)
		}
		recs := logRecords(t, &buf)
		if len(recs) != 1 || recs[0]["level"] != "WARN" || recs[0]["msg"] != "rag search failed" || recs[0]["kind"] != "faq" ||
			recs[0]["error"] != err.Error() || recs[0]["query"] != "prazo de entrega" {
			t.Errorf("records %v", recs)
		}
		// A blank query is no search: rejected before it is logged.
		buf.Reset()
		if _, err := s.SearchFAQs(ctx, rag.Query{Text: "   "}); !errors.Is(err, rag.ErrEmptyQuery) || buf.Len() != 0 {
			t.Errorf("blank query: err %v, logged %q", err, buf.String())
		}
	})

	t.Run("level above info", func(t *testing.T) {
		var buf bytes.Buffer
		h := slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn})
		s := rag.NewSearcher(store, emb, rag.SearcherOptions{Logger: slog.New(h)})
		if _, err := s.SearchCatalog(ctx, rag.Query{Text: "fungicida"}); err != nil {
			t.Fatal(err)
		}
		if buf.Len() != 0 {
			t.Errorf("logged below the handler's level: %s", buf.String())
		}
	})
}

// failingFAQStore makes the FAQs' lexical search fail.
type failingFAQStore struct{ storage.Store }

func (f failingFAQStore) FAQs() storage.RecordStore[storage.FAQ] {
	return ragtest.Records[storage.FAQ]{RecordStore: f.Store.FAQs(), SearchFunc: func(context.Context, storage.LexicalQuery) ([]storage.LexicalCandidate[storage.FAQ], error) {
		return nil, errLexicalDown
	}}
}

const errLexicalDown = testErr("lexical index down")

// checkSpans fails t when rec's contract is broken.
func checkSpans(t *testing.T, rec *tracetest.Recorder) {
	t.Helper()
	if err := rec.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestSearchTracer(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	ctx := context.Background()

	t.Run("hybrid", func(t *testing.T) {
		rec := &tracetest.Recorder{}
		s := rag.NewSearcher(store, emb, rag.SearcherOptions{Tracer: rec})
		res, err := s.SearchCatalog(ctx, rag.Query{Text: "fungicida para videira", Limit: 4})
		if err != nil {
			t.Fatal(err)
		}
		checkSpans(t, rec)
		searches := rec.Named(tracetest.SpanSearch)
		if len(searches) != 1 {
			t.Fatalf("%d search spans", len(searches))
		}
		sp := searches[0]
		if got := sp.Start.(trace.SearchStartData); got != (trace.SearchStartData{Kind: storage.KindItem, Text: "fungicida para videira", Limit: 4}) {
			t.Errorf("search start %+v", got)
		}
		end := sp.End.(trace.SearchEndData)
		want := trace.SearchEndData{
			Hits: len(res.Hits), LexicalCount: res.LexicalCount, VectorCount: res.VectorCount,
			Legs: "hybrid", Fusion: "weighted", Limit: 4, EmbeddingUsed: true,
		}
		if end != want {
			t.Errorf("search end %+v, want %+v", end, want)
		}
		legs := rec.Named(tracetest.SpanLeg)
		if len(legs) != 2 {
			t.Fatalf("%d leg spans", len(legs))
		}
		counts := map[string]int{}
		for _, l := range legs {
			st := l.Start.(trace.LegStartData)
			if l.Parent != sp.ID || st.Kind != storage.KindItem {
				t.Errorf("leg %+v (parent %d, search %d)", st, l.Parent, sp.ID)
			}
			le := l.End.(trace.LegEndData)
			if le.Err != nil || le.FallbackReason != "" {
				t.Errorf("leg %s end %+v", st.Leg, le)
			}
			counts[st.Leg] = le.Candidates
		}
		if counts[trace.LegLexical] != res.LexicalCount || counts[trace.LegVector] != res.VectorCount {
			t.Errorf("leg counts %v, result %d lexical, %d vector", counts, res.LexicalCount, res.VectorCount)
		}
		embeds := rec.Named(tracetest.SpanEmbed)
		if len(embeds) != 1 {
			t.Fatalf("%d embed spans", len(embeds))
		}
		e := embeds[0]
		if st := e.Start.(trace.EmbedStartData); !st.Query || st.Texts != 1 || st.Tokens < 1 || st.Kind != storage.KindItem {
			t.Errorf("embed start %+v", st)
		}
		if en := e.End.(trace.EmbedEndData); en.Vectors != 1 || en.Err != nil {
			t.Errorf("embed end %+v", en)
		}
		if p := rec.Spans()[e.Parent]; p.Name != tracetest.SpanLeg || p.Start.(trace.LegStartData).Leg != trace.LegVector {
			t.Errorf("embed parent %+v, want the vector leg", p)
		}
	})

	t.Run("vector store down", func(t *testing.T) {
		rec := &tracetest.Recorder{}
		s := rag.NewSearcher(failingVectorStore{store}, emb, rag.SearcherOptions{Tracer: rec})
		if _, err := s.SearchFAQs(ctx, rag.Query{Text: "prazo de entrega"}); err != nil {
			t.Fatal(err)
		}
		checkSpans(t, rec)
		end := rec.Named(tracetest.SpanSearch)[0].End.(trace.SearchEndData)
		if end.EmbeddingUsed || end.FallbackReason != string(rag.FallbackVectorQueryError) || !errors.Is(end.VectorError, errVectorDown) {
			t.Errorf("search end %+v", end)
		}
		for _, l := range rec.Named(tracetest.SpanLeg) {
			if l.Start.(trace.LegStartData).Leg != trace.LegVector {
				continue
			}
			if le := l.End.(trace.LegEndData); le.FallbackReason != string(rag.FallbackVectorQueryError) || !errors.Is(le.Err, errVectorDown) {
				t.Errorf("vector leg end %+v", le)
			}
		}
	})

	t.Run("embedding timeout", func(t *testing.T) {
		rec := &tracetest.Recorder{}
		emb := &blockingEmbedder{release: make(chan struct{})}
		defer close(emb.release)
		s := rag.NewSearcher(store, emb, rag.SearcherOptions{Tracer: rec, Vector: rag.VectorOptions{EmbedTimeout: 20 * time.Millisecond}})
		if _, err := s.SearchCatalog(ctx, rag.Query{Text: "fungicida"}); err != nil {
			t.Fatal(err)
		}
		checkSpans(t, rec) // the abandoned call's span ended when the search stopped waiting
		e := rec.Named(tracetest.SpanEmbed)
		if len(e) != 1 || !errors.Is(e[0].End.(trace.EmbedEndData).Err, context.DeadlineExceeded) {
			t.Fatalf("embed spans %+v", e)
		}
		if end := rec.Named(tracetest.SpanSearch)[0].End.(trace.SearchEndData); end.FallbackReason != string(rag.FallbackEmbeddingFailed) {
			t.Errorf("search end %+v", end)
		}
	})

	t.Run("failed search", func(t *testing.T) {
		rec := &tracetest.Recorder{}
		s := rag.NewSearcher(failingFAQStore{store}, emb, rag.SearcherOptions{Tracer: rec})
		_, err := s.SearchFAQs(ctx, rag.Query{Text: "prazo de entrega"})
		checkSpans(t, rec)
		sp := rec.Named(tracetest.SpanSearch)
		if len(sp) != 1 || err == nil || sp[0].End != (trace.SearchEndData{Err: err}) {
			t.Fatalf("spans %+v, err %v", sp, err)
		}
		for _, l := range rec.Named(tracetest.SpanLeg) {
			if l.Start.(trace.LegStartData).Leg == trace.LegLexical && !errors.Is(l.End.(trace.LegEndData).Err, errLexicalDown) {
				t.Errorf("lexical leg end %+v", l.End)
			}
		}
	})
}

// longSummarizer summarizes any history.
type longSummarizer struct{}

func (longSummarizer) Summarize(context.Context, []rag.Turn) (rag.Summary, error) {
	return rag.Summary{Text: "o cliente procura fungicida"}, nil
}

func TestPipelineModelTracer(t *testing.T) {
	rec := &tracetest.Recorder{}
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{Tracer: rec, Summarizer: longSummarizer{}, SummarizeAfter: 2})
	var hist []rag.Turn
	for range 2 {
		hist = append(hist, rag.Turn{Role: llm.RoleUser, Content: "oi"}, rag.Turn{Role: llm.RoleAssistant, Content: "Olá!"})
	}
	resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: "tem fungicida para videira?", History: hist})
	if err != nil {
		t.Fatal(err)
	}
	checkSpans(t, rec)
	models := rec.Named(tracetest.SpanModel)
	var steps []string
	for _, m := range models {
		steps = append(steps, m.Start.(trace.ModelStartData).Step)
		if m.Start.(trace.ModelStartData).PromptTokens < 1 || m.End.(trace.ModelEndData).Err != nil {
			t.Errorf("model span %+v", m)
		}
	}
	if strings.Join(steps, ",") != "summarize,classify,answer" {
		t.Errorf("steps %v", steps)
	}
	if got := models[1].End.(trace.ModelEndData).Model; got != "keyword" {
		t.Errorf("classify model %q", got)
	}
	ans := models[2]
	if got := ans.End.(trace.ModelEndData).Model; got != "extractive" {
		t.Errorf("answer model %q", got)
	}
	if got := ans.Start.(trace.ModelStartData).PromptTokens; got != resp.Debug.ContextTokens {
		t.Errorf("answer prompt tokens %d, Debug.ContextTokens %d", got, resp.Debug.ContextTokens)
	}
	if want := llm.EstimateTokens(resp.Debug.Context); resp.Debug.ContextTokens != want || want == 0 {
		t.Errorf("Debug.ContextTokens = %d, want %d", resp.Debug.ContextTokens, want)
	}
	// The searches are the Searcher's: this one has no tracer.
	if n := len(rec.Named(tracetest.SpanSearch)); n != 0 {
		t.Errorf("%d search spans from a Searcher without a tracer", n)
	}
}

func TestAgenticModelTracer(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		name := "complete"
		if streaming {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) {
			rec := &tracetest.Recorder{}
			p := ragtest.OfflinePipeline(t, rag.PipelineOptions{Tracer: rec})
			m := llmtest.NewModel(
				llmtest.ToolCalls(llmtest.Call("c1", rag.ToolSearchCatalog, `{"query": "fungicida para videira"}`)).WithUsage(120, 15),
				llmtest.Text("Temos fungicidas para videira.").WithUsage(900, 30),
			)
			req := rag.ChatRequest{Message: "o que vocês têm para oídio na videira?"}
			var err error
			if streaming {
				_, err = ragtest.Drain(ragtest.Agent(t, p, m, rag.AgentOptions{Model: "agent"}).ChatStream(context.Background(), req), nil)
			} else {
				_, err = ragtest.Agent(t, p, m, rag.AgentOptions{Model: "agent"}).Chat(context.Background(), req)
			}
			if err != nil {
				t.Fatal(err)
			}
			checkSpans(t, rec)
			models := rec.Named(tracetest.SpanModel)
			if len(models) != 2 {
				t.Fatalf("%d model spans, want 2", len(models))
			}
			for i, total := range []int{135, 930} {
				st, en := models[i].Start.(trace.ModelStartData), models[i].End.(trace.ModelEndData)
				if st.Step != "tools" || st.Model != "agent" || st.PromptTokens < 1 || en.Usage.TotalTokens != total || en.Err != nil {
					t.Errorf("call %d: start %+v end %+v", i, st, en)
				}
			}
		})
	}
}

func TestTokenCounter(t *testing.T) {
	// A counter that counts words: the budget then holds fewer hits
	// than with a budget in characters.
	words := llm.TokenCounterFunc(func(s string) int { return len(strings.Fields(s)) * 50 })
	store, emb := ragtest.Fixture(t)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	def, err := rag.NewPipeline(s, offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tight, err := rag.NewPipeline(s, offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{TokenCounter: words})
	if err != nil {
		t.Fatal(err)
	}
	req := rag.ChatRequest{Message: "como controlar ferrugem asiática na soja?"}
	a, err := def.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := tight.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	kept := func(r *rag.ChatResponse) int { return len(r.Catalog) + len(r.FAQs) + len(r.Documents) }
	if kept(a) < 2 || kept(b) >= kept(a) || kept(b) < 1 {
		t.Errorf("hits kept: %d with the estimate, %d with the word counter", kept(a), kept(b))
	}
	if want := words(b.Debug.Context); b.Debug.ContextTokens != want {
		t.Errorf("Debug.ContextTokens = %d, want %d", b.Debug.ContextTokens, want)
	}
}
