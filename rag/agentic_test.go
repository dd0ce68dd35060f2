package rag_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/storage"
)

// toolMessages returns the tool result messages of req.
func toolMessages(req llm.Request) []llm.Message {
	var out []llm.Message
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool {
			out = append(out, m)
		}
	}
	return out
}

func TestChatAgenticSearchesThenAnswers(t *testing.T) {
	var logs bytes.Buffer
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	m := llmtest.NewModel(
		llmtest.ToolCalls(llmtest.Call("c1", rag.ToolSearchCatalog, `{"query": "fungicida para videira", "limit": 3}`)).WithUsage(120, 15),
		llmtest.Text("Para oídio na videira, temos fungicidas no catálogo.").WithUsage(900, 30),
	)
	resp, err := ragtest.Agent(t, p, m, rag.AgentOptions{Model: "agent-model"}).Chat(context.Background(), rag.ChatRequest{
		Message: "o que vocês têm para oídio na videira?",
		History: []rag.Turn{{Role: llm.RoleUser, Content: "oi"}, {Role: llm.RoleAssistant, Content: "Olá!"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Answer != "Para oídio na videira, temos fungicidas no catálogo." || resp.Debug.AnswerFallback {
		t.Errorf("answer %q (fallback %v)", resp.Answer, resp.Debug.AnswerFallback)
	}
	if n := len(resp.Catalog); n == 0 || n > 3 {
		t.Fatalf("%d catalog hits, want 1..3 (the tool's limit)", n)
	}
	if len(resp.Sources) != len(resp.Catalog) || resp.Sources[0].ID != resp.Catalog[0].ID {
		t.Errorf("sources %+v", resp.Sources)
	}
	if !resp.Debug.Plan.Catalog || resp.Debug.Plan.FAQ || resp.Debug.CatalogQuery != "fungicida para videira" {
		t.Errorf("plan %+v, catalog query %q", resp.Debug.Plan, resp.Debug.CatalogQuery)
	}
	calls := resp.Debug.ModelCalls
	if len(calls) != 2 || calls[0].Step != "tools" || calls[1].Step != "answer" || calls[0].Usage.TotalTokens != 135 || calls[1].Usage.TotalTokens != 930 {
		t.Errorf("model calls %+v", calls)
	}
	tc := resp.Debug.ToolCalls
	if len(tc) != 1 || tc[0].Status != llm.ToolOK || tc[0].Results != len(resp.Catalog) || tc[0].Iteration != 1 || tc[0].ID != "c1" {
		t.Errorf("tool calls %+v", tc)
	}

	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	first := reqs[0]
	var names []string
	for _, d := range first.Tools {
		names = append(names, d.Name)
	}
	if strings.Join(names, ",") != "searchCatalog,searchFaqs,searchDocuments" || first.Model != "agent-model" {
		t.Errorf("tools %v, model %q", names, first.Model)
	}
	if roles := []llm.Role{first.Messages[0].Role, first.Messages[1].Role, first.Messages[2].Role, first.Messages[3].Role}; !slices.Equal(roles, []llm.Role{llm.RoleSystem, llm.RoleUser, llm.RoleAssistant, llm.RoleUser}) {
		t.Errorf("roles %v", roles)
	}
	results := toolMessages(reqs[1])
	if len(results) != 1 || results[0].IsError || !strings.HasPrefix(results[0].Content, `Busca híbrida no catálogo para "fungicida para videira" (`) {
		t.Fatalf("tool results %+v", results)
	}
	if resp.Debug.Context != results[0].Content {
		t.Error("Debug.Context is not what the model received")
	}
	if !strings.Contains(logs.String(), `"tool":"searchCatalog"`) || !strings.Contains(logs.String(), `\"limit\":3`) {
		t.Errorf("audit log: %s", logs.String())
	}
}

func TestChatAgenticFiltersAndParallelTools(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	m := llmtest.NewModel(
		llmtest.ToolCalls(
			llmtest.Call("a", rag.ToolSearchCatalog, `{"query":"fungicida","category":"FUNGICIDA","tag":"uva","limit":20}`),
			llmtest.Call("b", rag.ToolSearchFAQs, `{"query":"prazo de entrega"}`),
			llmtest.Call("c", rag.ToolSearchDocuments, `{"query":"intervalo de segurança"}`),
		),
		llmtest.Text("ok"),
	)
	resp, err := ragtest.Agent(t, p, m, rag.AgentOptions{}).Chat(context.Background(), rag.ChatRequest{Message: "fungicidas para uva e prazo de entrega"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Catalog) == 0 || len(resp.FAQs) == 0 {
		t.Fatalf("%d catalog, %d FAQ hits", len(resp.Catalog), len(resp.FAQs))
	}
	for _, h := range resp.Catalog {
		if lexical.Normalize(h.Record.Category) != "fungicida" || !slices.ContainsFunc(h.Record.Tags, func(t string) bool { return lexical.Normalize(t) == "uva" }) {
			t.Errorf("filtered hit %s: category %q tags %v", h.ID, h.Record.Category, h.Record.Tags)
		}
	}
	if !resp.Debug.Plan.Catalog || !resp.Debug.Plan.FAQ || !resp.Debug.Plan.Documents || len(resp.Debug.ToolCalls) != 3 {
		t.Errorf("plan %+v, tool calls %d", resp.Debug.Plan, len(resp.Debug.ToolCalls))
	}
	// Results go back in call order, whatever order the searches ended in.
	var ids []string
	for _, r := range toolMessages(m.Requests()[1]) {
		ids = append(ids, r.ToolCallID)
	}
	if strings.Join(ids, ",") != "a,b,c" {
		t.Errorf("tool result order %v", ids)
	}
	// Sources: FAQs, then catalog, then documents, like planned mode.
	if resp.Sources[0].Kind != storage.KindFAQ {
		t.Errorf("first source %+v", resp.Sources[0])
	}
}

func TestChatAgenticToolErrors(t *testing.T) {
	for _, tc := range []struct {
		name       string
		call       llm.ToolCall
		wantStatus llm.ToolStatus
		wantResult string // in the error result the model receives
	}{
		{"blank query fails the tool", llmtest.Call("x", rag.ToolSearchCatalog, `{"query":"   "}`), llm.ToolFailed, "the query is empty"},
		{"missing query", llmtest.Call("x", rag.ToolSearchFAQs, `{"limit":3}`), llm.ToolInvalidArguments, "invalid arguments"},
		{"limit above 20", llmtest.Call("x", rag.ToolSearchCatalog, `{"query":"soja","limit":50}`), llm.ToolInvalidArguments, "invalid arguments"},
		{"unknown argument", llmtest.Call("x", rag.ToolSearchDocuments, `{"query":"soja","sql":"drop table"}`), llm.ToolInvalidArguments, "invalid arguments"},
		{"filter on the wrong tool", llmtest.Call("x", rag.ToolSearchFAQs, `{"query":"soja","manufacturer":"AgroVale"}`), llm.ToolInvalidArguments, "invalid arguments"},
		{"malformed JSON", llmtest.Call("x", rag.ToolSearchCatalog, `{"query":`), llm.ToolInvalidArguments, "invalid arguments"},
		{"unknown tool", llmtest.Call("x", "searchWeb", `{"query":"soja"}`), llm.ToolUnknown, "unknown tool"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
			m := llmtest.NewModel(llmtest.ToolCalls(tc.call), llmtest.Text("Não consegui buscar agora."))
			resp, err := ragtest.Agent(t, p, m, rag.AgentOptions{}).Chat(context.Background(), rag.ChatRequest{Message: "soja"})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Answer != "Não consegui buscar agora." {
				t.Errorf("answer %q", resp.Answer)
			}
			if tcs := resp.Debug.ToolCalls; len(tcs) != 1 || tcs[0].Status != tc.wantStatus || tcs[0].Error == "" {
				t.Errorf("tool calls %+v", tcs)
			}
			res := toolMessages(m.Requests()[1])
			if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Content, tc.wantResult) {
				t.Errorf("tool result %+v, want an error with %q", res, tc.wantResult)
			}
			if len(resp.Catalog)+len(resp.FAQs)+len(resp.Documents) != 0 {
				t.Error("a failed call added hits")
			}
		})
	}
}

// failingLexicalStore fails lexical catalog searches with an error holding
// a secret.
type failingLexicalStore struct{ storage.Store }

func (f failingLexicalStore) Items() storage.RecordStore[storage.CatalogItem] {
	return ragtest.Records[storage.CatalogItem]{RecordStore: f.Store.Items(), SearchFunc: func(context.Context, storage.LexicalQuery) ([]storage.LexicalCandidate[storage.CatalogItem], error) {
		return nil, errors.New("dial tcp 10.0.0.7:5432: password=hunter2 rejected")
	}}
}

func TestChatAgenticStoreErrorIsHiddenFromModel(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	p, _ := rag.NewPipeline(rag.NewSearcher(failingLexicalStore{store}, emb, rag.SearcherOptions{}), offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{})
	m := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("x", rag.ToolSearchCatalog, `{"query":"soja"}`)), llmtest.Text("ok"))
	resp, err := ragtest.Agent(t, p, m, rag.AgentOptions{}).Chat(context.Background(), rag.ChatRequest{Message: "soja"})
	if err != nil {
		t.Fatal(err)
	}
	res := toolMessages(m.Requests()[1])
	if len(res) != 1 || !res[0].IsError || strings.Contains(res[0].Content, "hunter2") || !strings.Contains(res[0].Content, "search failed") {
		t.Errorf("model saw %+v", res)
	}
	if tc := resp.Debug.ToolCalls; len(tc) != 1 || !strings.Contains(tc[0].Error, "hunter2") {
		t.Errorf("debug lost the real error: %+v", tc)
	}
}

func TestChatAgenticIterationLimit(t *testing.T) {
	loop := func() *llmtest.Model {
		return llmtest.NewModel(
			llmtest.ToolCalls(llmtest.Call("1", rag.ToolSearchCatalog, `{"query":"soja"}`)),
			llmtest.ToolCalls(llmtest.Call("2", rag.ToolSearchCatalog, `{"query":"milho"}`)),
			llmtest.ToolCalls(llmtest.Call("3", rag.ToolSearchCatalog, `{"query":"café"}`)),
		)
	}
	t.Run("typed error with Fallback Off", func(t *testing.T) {
		p := ragtest.OfflinePipeline(t, rag.PipelineOptions{Fallback: rag.Off})
		m := loop()
		_, err := ragtest.Agent(t, p, m, rag.AgentOptions{MaxIterations: 3}).Chat(context.Background(), rag.ChatRequest{Message: "soja"})
		var maxErr *llm.MaxIterationsExceededError
		if !errors.As(err, &maxErr) || maxErr.MaxIterations != 3 || !errors.Is(err, rag.ErrNoAnswer) || !errors.Is(err, llm.ErrMaxIterations) {
			t.Fatalf("error %v, want ErrNoAnswer wrapping *MaxIterationsExceededError(3)", err)
		}
		if m.Calls() != 3 {
			t.Errorf("%d model calls, want 3", m.Calls())
		}
	})
	t.Run("fallback message", func(t *testing.T) {
		p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
		var events []rag.EventKind
		var toolCalls int
		resp, err := ragtest.Drain(ragtest.Agent(t, p, loop(), rag.AgentOptions{MaxIterations: 3}).ChatStream(context.Background(), rag.ChatRequest{Message: "soja"}), func(e rag.Event) {
			events = append(events, e.Kind)
			if e.Kind == rag.EventToolCall {
				toolCalls++
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Answer != rag.DefaultFallbackMessage || !resp.Debug.AnswerFallback || len(resp.Debug.ModelCalls) != 3 {
			t.Errorf("answer %q fallback %v model calls %d", resp.Answer, resp.Debug.AnswerFallback, len(resp.Debug.ModelCalls))
		}
		if len(resp.Debug.ToolCalls) != 2 || toolCalls != 2 {
			t.Errorf("%d recorded and %d streamed tool calls, want 2 (the third never runs)", len(resp.Debug.ToolCalls), toolCalls)
		}
		if !slices.ContainsFunc(resp.Debug.Errors, func(s string) bool { return strings.Contains(s, "max tool loop iterations (3)") }) {
			t.Errorf("errors %v", resp.Debug.Errors)
		}
		if events[len(events)-1] != rag.EventDone || events[len(events)-2] != rag.EventToken {
			t.Errorf("events %v", events)
		}
	})
	t.Run("default limit is 5", func(t *testing.T) {
		p := ragtest.OfflinePipeline(t, rag.PipelineOptions{Fallback: rag.Off})
		m := llmtest.NewModel()
		for i := range 6 {
			m.Push(llmtest.ToolCalls(llmtest.Call(string(rune('a'+i)), rag.ToolSearchFAQs, `{"query":"entrega"}`)))
		}
		if _, err := ragtest.Agent(t, p, m, rag.AgentOptions{}).Chat(context.Background(), rag.ChatRequest{Message: "entrega"}); !errors.Is(err, llm.ErrMaxIterations) || m.Calls() != 5 {
			t.Errorf("error %v after %d calls", err, m.Calls())
		}
	})
}

func TestChatAgenticModelFailures(t *testing.T) {
	apiErr := &llm.APIError{Provider: "test", StatusCode: 500, Message: "boom"}
	for _, tc := range []struct {
		name       string
		steps      []llmtest.Step
		wantIs     error
		wantCall   int
		wantAnswer string
	}{
		{"API error", []llmtest.Step{llmtest.Fail(apiErr)}, nil, 1, rag.DefaultFallbackMessage},
		// Seed 003 §10.4.2: an empty answer has its own text.
		{"empty answer", []llmtest.Step{llmtest.Text(" ")}, llm.ErrEmptyAnswer, 1, llm.DefaultFallbackMessages().Empty},
		{"API error after a search", []llmtest.Step{llmtest.ToolCalls(llmtest.Call("a", rag.ToolSearchFAQs, `{"query":"pix"}`)), llmtest.Fail(apiErr)}, nil, 2, rag.DefaultFallbackMessage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := ragtest.Agent(t, ragtest.OfflinePipeline(t, rag.PipelineOptions{}), llmtest.NewModel(tc.steps...), rag.AgentOptions{}).Chat(context.Background(), rag.ChatRequest{Message: "pix?"})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Answer != tc.wantAnswer || !resp.Debug.AnswerFallback {
				t.Errorf("answer %q, want %q", resp.Answer, tc.wantAnswer)
			}
			_, err = ragtest.Agent(t, ragtest.OfflinePipeline(t, rag.PipelineOptions{Fallback: rag.Off}), llmtest.NewModel(tc.steps...), rag.AgentOptions{}).Chat(context.Background(), rag.ChatRequest{Message: "pix?"})
			if !errors.Is(err, rag.ErrNoAnswer) {
				t.Fatalf("Fallback Off: error %v", err)
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("error %v, want %v", err, tc.wantIs)
			}
			if tc.wantIs == nil && apiStatus(err) != 500 {
				t.Errorf("error %v lost the API error", err)
			}
		})
	}
}

func TestChatAgenticCancellation(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	t.Run("model hangs", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		var last rag.Event
		_, err := ragtest.Drain(ragtest.Agent(t, p, llmtest.NewModel(llmtest.Hang()), rag.AgentOptions{}).ChatStream(ctx, rag.ChatRequest{Message: "soja"}), func(e rag.Event) { last = e })
		if !errors.Is(err, context.DeadlineExceeded) || last.Kind != rag.EventError {
			t.Fatalf("error %v, last event %+v", err, last)
		}
	})
	t.Run("cancelled during a tool call", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		m := llmtest.NewModel(
			llmtest.ToolCalls(llmtest.Call("a", rag.ToolSearchCatalog, `{"query":"soja"}`)),
			llmtest.Text("never"),
		)
		_, err := ragtest.Drain(ragtest.Agent(t, p, m, rag.AgentOptions{}).ChatStream(ctx, rag.ChatRequest{Message: "soja"}), func(e rag.Event) {
			if e.Kind == rag.EventToolCall {
				cancel()
			}
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v", err)
		}
		if m.Calls() != 1 {
			t.Errorf("%d model calls after cancellation, want 1", m.Calls())
		}
	})
}

func TestChatAgenticStream(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	answer := llmtest.Text("Entregamos em até 5 dias úteis.")
	answer.Chunks = []string{"Entregamos ", "em até ", "5 dias úteis."}
	m := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("f", rag.ToolSearchFAQs, `{"query":"prazo de entrega"}`)), answer)
	var kinds []rag.EventKind
	var tokens strings.Builder
	var hits rag.Event
	resp, err := ragtest.Drain(ragtest.Agent(t, p, m, rag.AgentOptions{Tools: []string{rag.ToolSearchFAQs}}).ChatStream(context.Background(), rag.ChatRequest{Message: "qual o prazo de entrega?"}), func(e rag.Event) {
		if len(kinds) == 0 || kinds[len(kinds)-1] != e.Kind {
			kinds = append(kinds, e.Kind)
		}
		switch e.Kind {
		case rag.EventToken:
			tokens.WriteString(e.Token)
		case rag.EventHits:
			hits = e
		case rag.EventToolCall:
			if e.Tool != rag.ToolSearchFAQs || e.Query != "prazo de entrega" {
				t.Errorf("tool call event %+v", e)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []rag.EventKind{rag.EventToolCall, rag.EventHits, rag.EventToken, rag.EventDone}
	if !slices.Equal(kinds, want) {
		t.Errorf("events %v, want %v", kinds, want)
	}
	if tokens.String() != resp.Answer || resp.Answer != "Entregamos em até 5 dias úteis." {
		t.Errorf("tokens %q answer %q", tokens.String(), resp.Answer)
	}
	if len(hits.Sources) == 0 || len(hits.Sources) != len(resp.FAQs) || hits.Sources[0].Kind != storage.KindFAQ {
		t.Errorf("hits event %+v", hits)
	}
	if tools := m.Requests()[0].Tools; len(tools) != 1 || tools[0].Name != rag.ToolSearchFAQs {
		t.Errorf("offered tools %+v", tools)
	}
}

// flakyStore fails the first failures lexical FAQ searches, then answers.
type flakyStore struct {
	storage.Store
	failures int
	calls    *atomic.Int64
}

func (f flakyStore) FAQs() storage.RecordStore[storage.FAQ] {
	r := f.Store.FAQs()
	return ragtest.Records[storage.FAQ]{RecordStore: r, SearchFunc: func(ctx context.Context, q storage.LexicalQuery) ([]storage.LexicalCandidate[storage.FAQ], error) {
		if n := f.calls.Add(1); n <= int64(f.failures) {
			return nil, errors.New("connection reset by peer")
		}
		return r.Search(ctx, q)
	}}
}

// Seed 003 §10.2: a failed tool call is retried once; only a second
// failure reaches the model.
func TestChatAgenticRetriesAFailedSearchOnce(t *testing.T) {
	for _, tc := range []struct {
		name         string
		failures     int
		wantStatus   llm.ToolStatus
		wantAttempts int
		wantSearches int64
	}{
		{"fails once, then succeeds", 1, llm.ToolOK, 2, 2},
		{"fails twice, reported", 2, llm.ToolFailed, 2, 2},
		{"succeeds at once", 0, llm.ToolOK, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store, emb := ragtest.Fixture(t)
			var calls atomic.Int64
			p, _ := rag.NewPipeline(rag.NewSearcher(flakyStore{store, tc.failures, &calls}, emb, rag.SearcherOptions{}),
				offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{})
			m := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("f", rag.ToolSearchFAQs, `{"query":"prazo de entrega"}`)), llmtest.Text("ok"))
			resp, err := ragtest.Agent(t, p, m, rag.AgentOptions{}).Chat(context.Background(), rag.ChatRequest{Message: "prazo de entrega?"})
			if err != nil {
				t.Fatal(err)
			}
			if got := calls.Load(); got != tc.wantSearches {
				t.Errorf("%d store searches, want %d", got, tc.wantSearches)
			}
			rec := resp.Debug.ToolCalls
			if len(rec) != 1 || rec[0].Status != tc.wantStatus || rec[0].Attempts != tc.wantAttempts {
				t.Fatalf("tool calls %+v", rec)
			}
			res := toolMessages(m.Requests()[1])
			if len(res) != 1 {
				t.Fatalf("tool results %+v", res)
			}
			if tc.wantStatus == llm.ToolOK {
				if res[0].IsError || len(resp.FAQs) == 0 || rec[0].Error != "" {
					t.Errorf("model got %+v; %d FAQ hits; error %q", res[0], len(resp.FAQs), rec[0].Error)
				}
				return
			}
			if !res[0].IsError || !strings.Contains(res[0].Content, "search failed") || !strings.Contains(rec[0].Error, "connection reset") {
				t.Errorf("model got %+v; record %+v", res[0], rec[0])
			}
		})
	}
}

// AgentOptions.FallbackModel: a model call that fails with a server
// error is asked again of the fallback model, and the turn goes on.
func TestChatAgenticFallbackModel(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	unavailable := &llm.APIError{Provider: "test", StatusCode: 503, Retryable: true}
	m := llmtest.NewModel(
		llmtest.Fail(unavailable),
		llmtest.ToolCalls(llmtest.Call("f", rag.ToolSearchFAQs, `{"query":"prazo de entrega"}`)),
		llmtest.Fail(unavailable),
		llmtest.Text("Entregamos em até 5 dias úteis."),
	)
	resp, err := ragtest.Agent(t, p, m, rag.AgentOptions{Model: "main", FallbackModel: "backup"}).Chat(context.Background(), rag.ChatRequest{Message: "prazo de entrega?"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Answer != "Entregamos em até 5 dias úteis." || resp.Debug.AnswerFallback || len(resp.FAQs) == 0 {
		t.Errorf("answer %q (fallback message %v), %d FAQs", resp.Answer, resp.Debug.AnswerFallback, len(resp.FAQs))
	}
	var models []string
	for _, r := range m.Requests() {
		models = append(models, r.Model)
	}
	if !slices.Equal(models, []string{"main", "backup", "main", "backup"}) {
		t.Errorf("requests named %v", models)
	}

	// Without a fallback model the same failure is the fallback message.
	resp, err = ragtest.Agent(t, p, llmtest.NewModel(llmtest.Fail(unavailable)), rag.AgentOptions{Model: "main"}).Chat(context.Background(), rag.ChatRequest{Message: "prazo de entrega?"})
	if err != nil || resp.Answer != llm.DefaultFallbackMessages().Unavailable || !resp.Debug.AnswerFallback {
		t.Errorf("without fallback: answer %q, error %v", resp.Answer, err)
	}
}

// apiStatus is the HTTP status of the *llm.APIError in err's chain, or 0.
func apiStatus(err error) int {
	var e *llm.APIError
	if errors.As(err, &e) {
		return e.StatusCode
	}
	return 0
}

// TestChatAgenticRelatedWhenTheCropIsNotSold: the model searched for a
// seed the store sells only for other crops; the turn abstains and lists
// those seeds as related, never as sources, as the planned pipeline does.
func TestChatAgenticRelatedWhenTheCropIsNotSold(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	m := llmtest.NewModel(
		llmtest.ToolCalls(llmtest.Call("c1", rag.ToolSearchCatalog, `{"query": "semente de girassol"}`)),
		llmtest.Text("Não temos semente de girassol no catálogo."),
	)
	resp, err := ragtest.Agent(t, p, m, rag.AgentOptions{Model: "agent-model"}).Chat(context.Background(), rag.ChatRequest{Message: "vocês vendem semente de girassol?"})
	if err != nil {
		t.Fatal(err)
	}
	checkRelatedSeeds(t, resp)
}
