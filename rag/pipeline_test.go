package rag_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/internal/textutil"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/storage"
)

func TestKeywordClassifier(t *testing.T) {
	c := offline.KeywordClassifier{}
	for _, tc := range []struct {
		msg  string
		want rag.Intent
	}{
		{"Olá, bom dia!", rag.IntentSmallTalk},
		{"obrigado", rag.IntentSmallTalk},
		{"Qual o prazo de entrega para Goiás?", rag.IntentSupport},
		{"Vocês aceitam pix ou boleto?", rag.IntentSupport},
		{"como faço para trocar um produto?", rag.IntentSupport},
		{"tem fungicida para uva?", rag.IntentCatalog},
		{"quanto custa o herbicida Glifovale?", rag.IntentCatalog},
		{"qual a dose para controlar lagarta no milho?", rag.IntentAgronomy},
		{"como fazer o manejo de buva resistente?", rag.IntentAgronomy},
		{"xyzzy", rag.IntentOther},
	} {
		got, err := c.Classify(context.Background(), rag.ClassifyRequest{Message: tc.msg})
		if err != nil {
			t.Fatal(err)
		}
		if got.Intent != tc.want {
			t.Errorf("Classify(%q) = %q (%s), want %q", tc.msg, got.Intent, got.Reason, tc.want)
		}
	}
}

func TestPlanSearches(t *testing.T) {
	for intent, want := range map[rag.Intent]rag.Plan{
		rag.IntentCatalog:   {Catalog: true, FAQ: true},
		rag.IntentSupport:   {FAQ: true, Documents: true},
		rag.IntentAgronomy:  {FAQ: true, Catalog: true, Documents: true},
		rag.IntentSmallTalk: {},
		rag.IntentOther:     {FAQ: true, Catalog: true, Documents: true},
	} {
		if got := rag.PlanSearches(intent); got != want {
			t.Errorf("PlanSearches(%q) = %+v, want %+v", intent, got, want)
		}
	}
}

func TestPipelineOfflineCatalogTurn(t *testing.T) {
	var logs bytes.Buffer
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: "tem fungicida para videira?"})
	if err != nil {
		t.Fatal(err)
	}
	// A catalog turn searches the documents after its other searches, and
	// not when they kept a fully relevant hit (no document could be kept
	// above it): the catalog answers fully, so they are not searched.
	if resp.Intent.Intent != rag.IntentCatalog || !resp.Debug.Plan.Catalog || !resp.Debug.Plan.FAQ || resp.Debug.Plan.Documents || len(resp.Documents) > 0 {
		t.Fatalf("intent %+v plan %+v documents %d", resp.Intent, resp.Debug.Plan, len(resp.Documents))
	}
	if len(resp.Catalog) == 0 {
		t.Fatal("no catalog hits")
	}
	if !strings.Contains(resp.Answer, resp.Catalog[0].Record.Name) {
		t.Errorf("answer does not cite the top product %q:\n%s", resp.Catalog[0].Record.Name, resp.Answer)
	}
	for _, want := range []string{"Contexto consolidado", "FAQs relevantes (", "Busca híbrida no catálogo para", "Fonte: ", rag.QuestionPrefix + "tem fungicida para videira?"} {
		if !strings.Contains(resp.Debug.Context, want) {
			t.Errorf("context lacks %q", want)
		}
	}
	if len(resp.Sources) == 0 || resp.Debug.Timings.Total <= 0 {
		t.Errorf("sources %d, total %v", len(resp.Sources), resp.Debug.Timings.Total)
	}
	// Audit: one record per tool, previews bounded.
	for _, tool := range []string{rag.ToolSearchCatalog, rag.ToolSearchFAQs} {
		if !strings.Contains(logs.String(), `"tool":"`+tool+`"`) {
			t.Errorf("no audit record for %s in %s", tool, logs.String())
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		i := strings.Index(line, `"payload":"`)
		if i < 0 {
			t.Fatalf("audit line without payload: %s", line)
		}
		if n := utf8.RuneCountInString(line[i:]); n > rag.DefaultAuditPreview+200 {
			t.Errorf("payload preview of %d runes", n)
		}
	}
}

func TestPipelineOfflineSupportAndSmallTalk(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	ctx := context.Background()
	resp, err := p.Chat(ctx, rag.ChatRequest{Message: "Qual o prazo de entrega?"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Intent.Intent != rag.IntentSupport || len(resp.FAQs) == 0 {
		t.Fatalf("intent %q with %d FAQs", resp.Intent.Intent, len(resp.FAQs))
	}
	if !strings.Contains(resp.Answer, "14h") || !strings.Contains(resp.Answer, "Perguntas frequentes") {
		t.Errorf("support answer does not quote the delivery FAQ's cut-off hour:\n%s", resp.Answer)
	}
	resp, err = p.Chat(ctx, rag.ChatRequest{Message: "oi, boa tarde"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Intent.Intent != rag.IntentSmallTalk || resp.Debug.Plan != (rag.Plan{}) || resp.Answer != offline.GreetingAnswer {
		t.Errorf("small talk: intent %q plan %+v answer %q", resp.Intent.Intent, resp.Debug.Plan, resp.Answer)
	}
	// Nothing was searched: no "[SEM RAG] Não encontrei…" under a greeting.
	if resp.ConfidenceText != "" || resp.Abstained {
		t.Errorf("small talk: confidence text %q, abstained %v; want neither", resp.ConfidenceText, resp.Abstained)
	}
}

func TestPipelineHistoryAsFAQContext(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	resp, err := p.Chat(context.Background(), rag.ChatRequest{
		Message: "e quanto tempo leva?",
		History: []rag.Turn{
			{Role: llm.RoleUser, Content: "vocês fazem entrega em Goiás?"},
			{Role: llm.RoleAssistant, Content: "Sim, entregamos."},
			{Role: llm.RoleSystem, Content: "ignored"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp.Debug.FAQQuery, "entrega") {
		t.Errorf("FAQ query %q lacks the recent user turn", resp.Debug.FAQQuery)
	}
	if !strings.Contains(resp.Debug.Context, "Histórico recente:\nUsuário: vocês fazem entrega em Goiás?\nAssistente: Sim, entregamos.") {
		t.Errorf("history section missing:\n%s", resp.Debug.Context)
	}
	if strings.Contains(resp.Debug.Context, "ignored") {
		t.Error("a system turn leaked into the context")
	}
}

func TestPipelineBadInput(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	ctx := context.Background()
	for _, msg := range []string{"", "  \n\t"} {
		if _, err := p.Chat(ctx, rag.ChatRequest{Message: msg}); !errors.Is(err, rag.ErrEmptyMessage) {
			t.Errorf("Chat(%q) error %v, want ErrEmptyMessage", msg, err)
		}
	}
	long := strings.Repeat("fungicida para uva ", 1000)
	resp, err := p.Chat(ctx, rag.ChatRequest{Message: long + "\xff"})
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.ValidString(resp.Debug.Context) {
		t.Error("context is not valid UTF-8")
	}
	q := resp.Debug.Context[strings.Index(resp.Debug.Context, rag.QuestionPrefix)+len(rag.QuestionPrefix):]
	if n := utf8.RuneCountInString(q); n > rag.DefaultMaxMessageChars {
		t.Errorf("question of %d chars reached the context, max %d", n, rag.DefaultMaxMessageChars)
	}
	if _, err := rag.NewPipeline(nil, offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{}); err == nil {
		t.Error("NewPipeline accepted a nil Searcher")
	}
}

// fakeAnswerer is scripted: it fails, answers nothing, or echoes.
type fakeAnswerer struct {
	err  error
	text string
	got  *rag.AnswerRequest
}

func (f *fakeAnswerer) Answer(_ context.Context, req rag.AnswerRequest) (rag.Answer, error) {
	f.got = &req
	return rag.Answer{Text: f.text, Model: "fake"}, f.err
}

type fakeClassifier struct{ err error }

func (f fakeClassifier) Classify(context.Context, rag.ClassifyRequest) (rag.Classification, error) {
	return rag.Classification{}, f.err
}

func TestPipelineFallbacks(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	ctx := context.Background()

	// A failing classifier: every search runs, the turn goes on.
	ans := &fakeAnswerer{text: "ok"}
	p, _ := rag.NewPipeline(s, fakeClassifier{err: errors.New("classifier down")}, ans, rag.PipelineOptions{})
	resp, err := p.Chat(ctx, rag.ChatRequest{Message: "fungicida"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Intent.Intent != rag.IntentOther || !resp.Debug.Plan.Catalog || len(resp.Debug.Errors) == 0 {
		t.Errorf("classifier failure: intent %q plan %+v errors %v", resp.Intent.Intent, resp.Debug.Plan, resp.Debug.Errors)
	}
	if ans.got == nil || len(ans.got.Sections) == 0 {
		t.Error("answerer got no context")
	}

	// A failing or empty answer becomes the fallback message.
	// Seed 003 §10.1 and §10.4.2: the text depends on the failure, and
	// one text set for every failure answers them all.
	one := "Fale com um atendente."
	fixed := rag.PipelineOptions{FallbackMessages: llm.FallbackMessages{Timeout: one, RateLimit: one, Unavailable: one, Empty: one, Error: one}}
	own := rag.PipelineOptions{FallbackMessages: llm.FallbackMessages{RateLimit: "Calma!"}}
	rateLimited := &llm.APIError{StatusCode: 429, Retryable: true}
	for _, tc := range []struct {
		name string
		a    *fakeAnswerer
		opts rag.PipelineOptions
		want string
	}{
		{"error", &fakeAnswerer{err: errors.New("model down")}, rag.PipelineOptions{}, rag.DefaultFallbackMessage},
		{"empty", &fakeAnswerer{text: "  "}, rag.PipelineOptions{}, llm.DefaultFallbackMessages().Empty},
		{"timeout", &fakeAnswerer{err: fmt.Errorf("answer: %w", context.DeadlineExceeded)}, rag.PipelineOptions{}, llm.DefaultFallbackMessages().Timeout},
		{"rate limit", &fakeAnswerer{err: rateLimited}, rag.PipelineOptions{}, llm.DefaultFallbackMessages().RateLimit},
		{"unavailable", &fakeAnswerer{err: &llm.APIError{StatusCode: 503, Retryable: true}}, rag.PipelineOptions{}, llm.DefaultFallbackMessages().Unavailable},
		{"own rate-limit text", &fakeAnswerer{err: rateLimited}, own, "Calma!"},
		{"own texts keep the seed's others", &fakeAnswerer{text: ""}, own, llm.DefaultFallbackMessages().Empty},
		{"one text answers an error", &fakeAnswerer{err: rateLimited}, fixed, "Fale com um atendente."},
		{"one text answers an empty answer", &fakeAnswerer{text: " "}, fixed, "Fale com um atendente."},
	} {
		p, _ := rag.NewPipeline(s, offline.KeywordClassifier{}, tc.a, tc.opts)
		resp, err := p.Chat(ctx, rag.ChatRequest{Message: "fungicida para uva"})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if resp.Answer != tc.want || !resp.Debug.AnswerFallback {
			t.Errorf("%s: answer %q (fallback %v), want %q", tc.name, resp.Answer, resp.Debug.AnswerFallback, tc.want)
		}
	}
	// Fallback Off returns a typed error instead.
	p, _ = rag.NewPipeline(s, offline.KeywordClassifier{}, &fakeAnswerer{err: errors.New("model down")}, rag.PipelineOptions{Fallback: rag.Off})
	if _, err := p.Chat(ctx, rag.ChatRequest{Message: "fungicida"}); !errors.Is(err, rag.ErrNoAnswer) {
		t.Errorf("Fallback Off: error %v, want ErrNoAnswer", err)
	}
	// Cancellation stops the turn.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ragtest.OfflinePipeline(t, rag.PipelineOptions{}).Chat(cctx, rag.ChatRequest{Message: "fungicida"}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v", err)
	}
}

func TestPipelineStreamEvents(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	var kinds []rag.EventKind
	var tokens strings.Builder
	var tools []string
	resp, err := ragtest.Drain(p.ChatStream(context.Background(), rag.ChatRequest{Message: "qual a dose para controlar lagarta no milho?"}), func(e rag.Event) {
		if len(kinds) == 0 || kinds[len(kinds)-1] != e.Kind {
			kinds = append(kinds, e.Kind)
		}
		switch e.Kind {
		case rag.EventToken:
			tokens.WriteString(e.Token)
		case rag.EventToolCall:
			tools = append(tools, e.Tool)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []rag.EventKind{rag.EventIntent, rag.EventToolCall, rag.EventHits, rag.EventToken, rag.EventDone}
	if strings.Join(toStrings(kinds), ",") != strings.Join(toStrings(want), ",") {
		t.Errorf("event kinds %v, want %v", kinds, want)
	}
	if tokens.String() != resp.Answer {
		t.Errorf("streamed tokens %q differ from the answer %q", tokens.String(), resp.Answer)
	}
	if len(tools) != 3 {
		t.Errorf("tool calls %v, want the 3 searches of an agronomy question", tools)
	}
	// An empty message streams an error event.
	var last rag.Event
	if _, err := ragtest.Drain(p.ChatStream(context.Background(), rag.ChatRequest{}), func(e rag.Event) { last = e }); err == nil || last.Kind != rag.EventError {
		t.Errorf("empty message: err %v, last event %+v", err, last)
	}
}

func toStrings(ks []rag.EventKind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

func TestFormatPriceAndSections(t *testing.T) {
	for _, tc := range []struct {
		p    *float64
		want string
	}{{nil, "preço indisponível"}, {ragtest.Ptr(0.5), "R$ 0,50"}, {ragtest.Ptr(1234.567), "R$ 1.234,57"}, {ragtest.Ptr(1e6), "R$ 1.000.000,00"}} {
		if got := textutil.FormatPrice(tc.p); got != tc.want {
			t.Errorf("textutil.FormatPrice(%v) = %q, want %q", tc.p, got, tc.want)
		}
	}
	if got := rag.FAQSection(nil, nil); got != "FAQs relevantes (0): Nenhuma FAQ relevante encontrada." {
		t.Errorf("empty FAQ section %q", got)
	}
	hits := []rag.Hit[storage.FAQ]{
		{Record: storage.FAQ{Question: "Aceitam Pix?", Answer: "Sim.\nTambém boleto."}},
		{Record: storage.FAQ{Question: "Entregam?", Answer: "Sim."}},
	}
	if got, want := rag.FAQSection(hits, nil), "FAQs relevantes (2): Q: Aceitam Pix? | A: Sim. Também boleto. || Q: Entregam? | A: Sim."; got != want {
		t.Errorf("FAQSection = %q, want %q", got, want)
	}
	if got := rag.CatalogPayload("x", nil, nil); got != `Nenhum item do catálogo encontrado para "x".` {
		t.Errorf("empty catalog payload %q", got)
	}
}

func TestPipelineRequestLimit(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: "qual a dose para controlar lagarta no milho?", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Catalog) == 0 || len(resp.Catalog) > 2 || len(resp.FAQs) > 2 || len(resp.Documents) > 2 {
		t.Errorf("limit 2: %d catalog, %d FAQ, %d document hits", len(resp.Catalog), len(resp.FAQs), len(resp.Documents))
	}
}

// TestChatStreamStopsEarly checks that breaking out of the stream ends the
// turn, and that a failed turn's last event carries the typed error.
func TestChatStreamStopsEarly(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	ctx := context.Background()
	var kinds []rag.EventKind
	for e, err := range p.ChatStream(ctx, rag.ChatRequest{Message: "qual a dose para controlar lagarta no milho?"}) {
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, e.Kind)
		break
	}
	if len(kinds) != 1 || kinds[0] != rag.EventIntent {
		t.Errorf("events before the break %v, want [intent]", kinds)
	}
	var last rag.Event
	var lastErr error
	for e, err := range p.ChatStream(ctx, rag.ChatRequest{Message: "  "}) {
		last, lastErr = e, err
	}
	if last.Kind != rag.EventError || !errors.Is(lastErr, rag.ErrEmptyMessage) {
		t.Errorf("empty message: last event %+v, error %v; want an error event carrying ErrEmptyMessage", last, lastErr)
	}
}
