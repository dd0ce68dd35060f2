package otelrag_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/hybridrag/hybridrag/llm/llmtest"
	"github.com/hybridrag/hybridrag/otelrag"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

const dims = 64

func price(v float64) *float64 { return &v }

// recorder returns a TracerProvider recording every span in memory.
func recorder(t *testing.T) (*sdktrace.TracerProvider, *tracetest.SpanRecorder) {
	t.Helper()
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return tp, sr
}

// fixture indexes a small catalog and FAQ set into a memory store with
// the offline hash embedder (traced by tracer when non-nil) and returns
// the store.
func fixture(t testing.TB, ctx context.Context, tracer *otelrag.Tracer) *memory.Store {
	t.Helper()
	store, err := memory.New(memory.Options{Dimensions: dims}).Tenant("demo")
	if err != nil {
		t.Fatal(err)
	}
	emb, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: dims})
	if err != nil {
		t.Fatal(err)
	}
	opts := ingest.IndexerOptions{}
	if tracer != nil {
		opts.Tracer = tracer
	}
	ix := ingest.NewIndexer(store, emb, opts)
	if _, err := ix.IndexItems(ctx, []storage.CatalogItem{
		{ID: "f1", Name: "Oidiex 250 EC", Category: "Fungicida", Manufacturer: "AgroVale", Tags: []string{"Uva"}, Price: price(98.5)},
		{ID: "h1", Name: "Glifovale 480 SL", Category: "Herbicida", Tags: []string{"Soja"}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.IndexFAQs(ctx, []storage.FAQ{
		{ID: "faq-1", Question: "Preciso de receituário para comprar fungicida?", Answer: "Sim, defensivos exigem receituário agronômico."},
	}); err != nil {
		t.Fatal(err)
	}
	return store
}

// tree renders the spans as an indented tree, children in name order,
// each line "name [kind or step] status".
func tree(spans []sdktrace.ReadOnlySpan) string {
	children := map[oteltrace.SpanID][]sdktrace.ReadOnlySpan{}
	ids := map[oteltrace.SpanID]bool{}
	for _, s := range spans {
		ids[s.SpanContext().SpanID()] = true
	}
	var roots []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if p := s.Parent().SpanID(); s.Parent().IsValid() && ids[p] {
			children[p] = append(children[p], s)
		} else {
			roots = append(roots, s)
		}
	}
	var b strings.Builder
	var walk func(ss []sdktrace.ReadOnlySpan, depth int)
	walk = func(ss []sdktrace.ReadOnlySpan, depth int) {
		slices.SortStableFunc(ss, func(a, b sdktrace.ReadOnlySpan) int {
			return cmp.Or(cmp.Compare(a.Name(), b.Name()), cmp.Compare(label(a), label(b)))
		})
		for _, s := range ss {
			fmt.Fprintf(&b, "%s%s%s", strings.Repeat("  ", depth), s.Name(), label(s))
			if s.Status().Code == codes.Error {
				b.WriteString(" ERROR")
			}
			b.WriteString("\n")
			walk(children[s.SpanContext().SpanID()], depth+1)
		}
	}
	walk(roots, 0)
	return b.String()
}

// label is " [kind]" or " [step]" for the spans that have one.
func label(s sdktrace.ReadOnlySpan) string {
	for _, k := range []attribute.Key{otelrag.StepKey, otelrag.KindKey} {
		if v, ok := attr(s, k); ok {
			return " [" + v.Emit() + "]"
		}
	}
	return ""
}

func attr(s sdktrace.ReadOnlySpan, k attribute.Key) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if kv.Key == k {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

// named returns the ended spans named name.
func named(spans []sdktrace.ReadOnlySpan, name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	return out
}

// wantAttrs checks attributes of s.
func wantAttrs(t *testing.T, s sdktrace.ReadOnlySpan, want map[attribute.Key]string) {
	t.Helper()
	for k, w := range want {
		v, ok := attr(s, k)
		if !ok {
			t.Errorf("%s: no %s (attributes %v)", s.Name(), k, s.Attributes())
			continue
		}
		if got := v.Emit(); got != w {
			t.Errorf("%s: %s = %q, want %q", s.Name(), k, got, w)
		}
	}
}

// One chat turn of the real Pipeline, offline: the turn's own span holds
// the model calls and the searches, each search its legs, the vector leg
// its query embedding.
func TestChatTurnSpans(t *testing.T) {
	ctx := context.Background()
	tp, sr := recorder(t)
	tracer := otelrag.New(otelrag.Options{TracerProvider: tp, RecordQueryText: true})
	store := fixture(t, ctx, nil)
	emb, _ := vector.NewHashEmbedder(vector.HashOptions{Dimensions: dims})
	p, err := rag.NewPipeline(rag.NewSearcher(store, emb, rag.SearcherOptions{Tracer: tracer}),
		offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{Tracer: tracer})
	if err != nil {
		t.Fatal(err)
	}

	// The span a server opens for the request.
	tctx, turn := tp.Tracer("test").Start(ctx, "chat turn")
	resp, err := p.Chat(tctx, rag.ChatRequest{Message: "tem fungicida para videira?"})
	turn.End()
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Sources) == 0 {
		t.Fatalf("no sources: %+v", resp)
	}

	spans := sr.Ended()
	got := tree(spans)
	t.Logf("span tree:\n%s", got)
	// The catalog answers, so the documents' fallback search does not run.
	want := `chat turn
  chat [answer]
  chat [classify]
  hybridrag.search [faq]
    hybridrag.leg lexical [faq]
    hybridrag.leg vector [faq]
      embeddings [faq]
  hybridrag.search [item]
    hybridrag.leg lexical [item]
    hybridrag.leg vector [item]
      embeddings [item]
`
	if got != want {
		t.Errorf("span tree:\n%s\nwant:\n%s", got, want)
	}
	for _, s := range spans {
		if s.Status().Code == codes.Error {
			t.Errorf("%s: status Error on a turn that did not fail", s.Name())
		}
		if s.SpanContext().TraceID() != turn.SpanContext().TraceID() {
			t.Errorf("%s: another trace", s.Name())
		}
	}

	for _, s := range named(spans, otelrag.SpanChat) {
		if s.SpanKind() != oteltrace.SpanKindClient {
			t.Errorf("%s: kind %v, want client", s.Name(), s.SpanKind())
		}
		wantAttrs(t, s, map[attribute.Key]string{"gen_ai.operation.name": "chat"})
		if step, _ := attr(s, otelrag.StepKey); step.AsString() == "classify" {
			wantAttrs(t, s, map[attribute.Key]string{"gen_ai.response.model": "keyword"})
		}
	}
	for _, s := range named(spans, otelrag.SpanSearch) {
		wantAttrs(t, s, map[attribute.Key]string{
			otelrag.LegsKey: "hybrid", otelrag.EmbeddingUsedKey: "true", otelrag.QueryKey: "tem fungicida para videira?",
		})
		if kind, _ := attr(s, otelrag.KindKey); kind.AsString() == "item" {
			if hits, _ := attr(s, otelrag.HitsKey); hits.AsInt64() < 1 {
				t.Errorf("item search: %d hits", hits.AsInt64())
			}
		}
	}
	for _, s := range named(spans, otelrag.SpanEmbeddings) {
		wantAttrs(t, s, map[attribute.Key]string{
			"gen_ai.operation.name": "embeddings", otelrag.QueryEmbeddingKey: "true",
			otelrag.TextsKey: "1", otelrag.VectorsKey: "1",
		})
	}
}

// failingAnswerer fails every answer.
type failingAnswerer struct{ err error }

func (a failingAnswerer) Answer(context.Context, rag.AnswerRequest) (rag.Answer, error) {
	return rag.Answer{}, a.err
}

// Errors are recorded: a failed embedding fails its span and the vector
// leg's, the search (which goes on lexically) keeps status Unset with the
// error as an event, a failed answer fails its model span.
func TestErrorsRecorded(t *testing.T) {
	ctx := context.Background()
	tp, sr := recorder(t)
	tracer := otelrag.New(otelrag.Options{TracerProvider: tp})
	store := fixture(t, ctx, nil)
	errEmbed := errors.New("embedder down")
	emb := vector.EmbedderFunc{Dims: dims, Fn: func(context.Context, []string) ([][]float32, error) { return nil, errEmbed }}
	p, err := rag.NewPipeline(rag.NewSearcher(store, emb, rag.SearcherOptions{Tracer: tracer}),
		offline.KeywordClassifier{}, failingAnswerer{errors.New("model down")}, rag.PipelineOptions{Tracer: tracer})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Chat(ctx, rag.ChatRequest{Message: "tem fungicida para videira?"}); err != nil {
		t.Fatal(err) // the answer falls back
	}
	spans := sr.Ended()
	t.Logf("span tree:\n%s", tree(spans))

	hasException := func(s sdktrace.ReadOnlySpan) bool {
		for _, e := range s.Events() {
			if e.Name == "exception" {
				return true
			}
		}
		return false
	}
	failed := func(name string, s sdktrace.ReadOnlySpan) {
		t.Helper()
		if s.Status().Code != codes.Error || s.Status().Description == "" {
			t.Errorf("%s: status %+v, want Error with the message", name, s.Status())
		}
		if !hasException(s) {
			t.Errorf("%s: no exception event", name)
		}
		if _, ok := attr(s, "error.type"); !ok {
			t.Errorf("%s: no error.type", name)
		}
	}
	embeds := named(spans, otelrag.SpanEmbeddings)
	if len(embeds) == 0 {
		t.Fatal("no embedding span")
	}
	for _, s := range embeds {
		failed("embeddings", s)
	}
	for _, s := range named(spans, otelrag.SpanLegVector) {
		failed("vector leg", s)
	}
	for _, s := range named(spans, otelrag.SpanSearch) {
		if s.Status().Code == codes.Error {
			t.Errorf("search: status Error, but it succeeded lexically")
		}
		if !hasException(s) {
			t.Errorf("search: the vector error is not an event")
		}
		if v, _ := attr(s, otelrag.FallbackReasonKey); v.AsString() == "" {
			t.Errorf("search: no fallback reason")
		}
	}
	answered := false
	for _, s := range named(spans, otelrag.SpanChat) {
		if step, _ := attr(s, otelrag.StepKey); step.AsString() == "answer" {
			answered = true
			failed("answer", s)
		}
	}
	if !answered {
		t.Error("no answer span")
	}

	// A search that fails outright (its context is done) ends with status
	// Error.
	sr2 := tracetest.NewSpanRecorder()
	tp.RegisterSpanProcessor(sr2)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := p.Searcher().SearchCatalog(cctx, rag.Query{Text: "fungicida"}); err == nil {
		t.Fatal("a search with a done context succeeded")
	}
	searches := named(sr2.Ended(), otelrag.SpanSearch)
	if len(searches) != 1 {
		t.Fatalf("%d search spans", len(searches))
	}
	failed("search", searches[0])
	wantAttrs(t, searches[0], map[attribute.Key]string{"error.type": "context.Canceled"})
}

// An agentic turn's model calls carry the GenAI attributes the provider
// reports: the models, the token counts and the finish reason.
func TestModelCallGenAIAttributes(t *testing.T) {
	ctx := context.Background()
	tp, sr := recorder(t)
	tracer := otelrag.New(otelrag.Options{TracerProvider: tp, ProviderName: "openai"})
	store := fixture(t, ctx, nil)
	p, err := rag.NewPipeline(rag.NewSearcher(store, nil, rag.SearcherOptions{Tracer: tracer}),
		offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{Tracer: tracer})
	if err != nil {
		t.Fatal(err)
	}
	step := llmtest.Text("Olá! Como posso ajudar?").WithUsage(120, 9)
	step.Response.Model = "gpt-test-2026"
	model := llmtest.NewModel(step)
	agent, err := rag.NewAgent(p, model, rag.AgentOptions{Model: "gpt-test"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := agent.Chat(ctx, rag.ChatRequest{Message: "oi"}); err != nil {
		t.Fatal(err)
	}
	calls := named(sr.Ended(), "chat gpt-test")
	if len(calls) != 1 {
		t.Fatalf("spans:\n%s", tree(sr.Ended()))
	}
	wantAttrs(t, calls[0], map[attribute.Key]string{
		"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
		"gen_ai.request.model": "gpt-test", "gen_ai.response.model": "gpt-test-2026",
		"gen_ai.usage.input_tokens": "120", "gen_ai.usage.output_tokens": "9",
		"gen_ai.response.finish_reasons": `["stop"]`, otelrag.StepKey: "tools",
	})
}

// The Indexer's write groups are spans with their counts, each holding
// its embedding request.
func TestIngestBatchSpans(t *testing.T) {
	ctx := context.Background()
	tp, sr := recorder(t)
	fixture(t, ctx, otelrag.New(otelrag.Options{TracerProvider: tp}))
	spans := sr.Ended()
	got := tree(spans)
	want := `hybridrag.ingest.batch [faq]
  embeddings [faq]
hybridrag.ingest.batch [item]
  embeddings [item]
`
	if got != want {
		t.Errorf("span tree:\n%s\nwant:\n%s", got, want)
	}
	for _, s := range named(spans, otelrag.SpanBatch) {
		if k, _ := attr(s, otelrag.KindKey); k.AsString() == "item" {
			wantAttrs(t, s, map[attribute.Key]string{otelrag.OwnersKey: "2", otelrag.WrittenKey: "2", otelrag.ChunksKey: "2", otelrag.EmbeddedKey: "2"})
		}
	}
	for _, s := range named(spans, otelrag.SpanEmbeddings) {
		wantAttrs(t, s, map[attribute.Key]string{otelrag.QueryEmbeddingKey: "false"})
	}
}
