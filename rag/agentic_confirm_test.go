package rag_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/internal/actions"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
)

// quoteDesk records the quotes submitted by the quote tool.
type quoteDesk struct {
	mu     sync.Mutex
	quotes []actions.Quote
}

func (d *quoteDesk) submit(_ context.Context, q actions.Quote) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.quotes = append(d.quotes, q)
	return "COT-" + string(rune('0'+len(d.quotes))), nil
}

func (d *quoteDesk) submitted() []actions.Quote {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.quotes)
}

func newQuoteTool(t *testing.T, d *quoteDesk) llm.Tool {
	t.Helper()
	tool, err := actions.NewQuoteTool(d.submit, actions.QuoteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

const (
	quote200 = `{"product":"Glifosato 480 SL","quantity":200,"unit":"L","contact":"compras@fazenda.com.br"}`
	quote500 = `{"product":"Glifosato 480 SL","quantity":500,"unit":"L","contact":"compras@fazenda.com.br"}`
	ask200   = "Confirma a solicitação de cotação de 200 L de Glifosato 480 SL, contato compras@fazenda.com.br?"
	ask500   = "Confirma a solicitação de cotação de 500 L de Glifosato 480 SL, contato compras@fazenda.com.br?"
)

// askQuote runs the first turn, in which the model calls the quote tool,
// and checks that it ends waiting for the user with nothing submitted.
func askQuote(t *testing.T, p *rag.Pipeline, m llm.ChatModel, opts rag.AgentOptions, d *quoteDesk) *rag.ChatResponse {
	t.Helper()
	resp, err := ragtest.Agent(t, p, m, opts).Chat(context.Background(), rag.ChatRequest{Message: "quero cotação de 200 L de glifosato, meu e-mail é compras@fazenda.com.br"})
	if err != nil {
		t.Fatal(err)
	}
	c := resp.Confirmation
	if c == nil || c.Call.Name != actions.QuoteToolName || resp.Answer != ask200 || c.Summary != ask200 || resp.Debug.AnswerFallback {
		t.Fatalf("first turn: answer %q, confirmation %+v", resp.Answer, c)
	}
	if len(d.submitted()) != 0 {
		t.Fatal("the quote was submitted before the user confirmed")
	}
	if tc := resp.Debug.ToolCalls; len(tc) != 1 || tc[0].Status != llm.ToolPendingConfirmation {
		t.Errorf("tool calls %+v", tc)
	}
	return resp
}

func TestChatAgenticConfirmation(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	ctx := context.Background()

	t.Run("confirm executes and answers with the result", func(t *testing.T) {
		d := &quoteDesk{}
		opts := rag.AgentOptions{Actions: []llm.Tool{newQuoteTool(t, d)}}
		m := llmtest.NewModel(
			llmtest.ToolCalls(llmtest.Call("q1", actions.QuoteToolName, quote200)),
			llmtest.Text("Pronto! Cotação solicitada, protocolo COT-1."),
		)
		first := askQuote(t, p, m, opts, d)
		resp, err := ragtest.Agent(t, p, m, opts).Chat(ctx, rag.ChatRequest{Message: "sim, pode", Confirmation: first.Confirmation})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Answer != "Pronto! Cotação solicitada, protocolo COT-1." || resp.Confirmation != nil || resp.Debug.Decision != llm.DecisionConfirm {
			t.Errorf("answer %q, confirmation %v, decision %q", resp.Answer, resp.Confirmation, resp.Debug.Decision)
		}
		if q := d.submitted(); len(q) != 1 || q[0].Quantity != 200 {
			t.Fatalf("submitted %+v", q)
		}
		res := toolMessages(m.Requests()[1])
		if len(res) != 1 || res[0].IsError || !strings.Contains(res[0].Content, `"protocol":"COT-1"`) {
			t.Errorf("the model got %+v", res)
		}
		if tc := resp.Debug.ToolCalls; len(tc) != 1 || tc[0].Status != llm.ToolOK || tc[0].Name != actions.QuoteToolName {
			t.Errorf("tool calls %+v", tc)
		}
		if mc := resp.Debug.ModelCalls; len(mc) != 1 || mc[0].Step != "answer" {
			t.Errorf("model calls %+v", mc)
		}
	})

	t.Run("reject does not execute", func(t *testing.T) {
		d := &quoteDesk{}
		opts := rag.AgentOptions{Actions: []llm.Tool{newQuoteTool(t, d)}}
		m := llmtest.NewModel(
			llmtest.ToolCalls(llmtest.Call("q1", actions.QuoteToolName, quote200)),
			llmtest.Text("Tudo bem, não enviei a cotação."),
		)
		first := askQuote(t, p, m, opts, d)
		resp, err := ragtest.Agent(t, p, m, opts).Chat(ctx, rag.ChatRequest{Message: "não, cancela", Confirmation: first.Confirmation})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Answer != "Tudo bem, não enviei a cotação." || resp.Confirmation != nil || resp.Debug.Decision != llm.DecisionReject || len(d.submitted()) != 0 {
			t.Errorf("answer %q, confirmation %v, decision %q, submitted %d", resp.Answer, resp.Confirmation, resp.Debug.Decision, len(d.submitted()))
		}
		res := toolMessages(m.Requests()[1])
		if len(res) != 1 || !res[0].IsError || !strings.Contains(res[0].Content, `"status":"rejected"`) {
			t.Errorf("the model got %+v", res)
		}
	})

	// Seed 003 §9.4: "não, 500 litros" is not executed with patched
	// arguments: the model calls the tool again and the user is asked
	// again; only the next "sim" submits 500 L.
	t.Run("correction asks again", func(t *testing.T) {
		d := &quoteDesk{}
		opts := rag.AgentOptions{Actions: []llm.Tool{newQuoteTool(t, d)}}
		m := llmtest.NewModel(
			llmtest.ToolCalls(llmtest.Call("q1", actions.QuoteToolName, quote200)),
			llmtest.ToolCalls(llmtest.Call("q2", actions.QuoteToolName, quote500)),
			llmtest.Text("Pronto! Cotação de 500 L solicitada, protocolo COT-1."),
		)
		first := askQuote(t, p, m, opts, d)
		second, err := ragtest.Agent(t, p, m, opts).Chat(ctx, rag.ChatRequest{Message: "não, 500 litros", Confirmation: first.Confirmation})
		if err != nil {
			t.Fatal(err)
		}
		if second.Debug.Decision != llm.DecisionCorrect || second.Confirmation == nil || second.Answer != ask500 || len(d.submitted()) != 0 {
			t.Fatalf("after the correction: decision %q, answer %q, confirmation %v, submitted %d",
				second.Debug.Decision, second.Answer, second.Confirmation, len(d.submitted()))
		}
		if second.Confirmation.ID == first.Confirmation.ID {
			t.Error("the correction kept the old confirmation")
		}
		// The model saw its call answered as not executed, then the
		// correction.
		r := m.Requests()[1]
		last := r.Messages[len(r.Messages)-1]
		res := toolMessages(r)
		if last.Role != llm.RoleUser || last.Content != "não, 500 litros" || len(res) != 1 || !strings.Contains(res[0].Content, "not_executed") || res[0].ToolCallID != "q1" {
			t.Errorf("the model got %+v then %+v", res, last)
		}
		third, err := ragtest.Agent(t, p, m, opts).Chat(ctx, rag.ChatRequest{Message: "sim", Confirmation: second.Confirmation})
		if err != nil {
			t.Fatal(err)
		}
		if q := d.submitted(); len(q) != 1 || q[0].Quantity != 500 || third.Answer != "Pronto! Cotação de 500 L solicitada, protocolo COT-1." {
			t.Errorf("submitted %+v, answer %q", q, third.Answer)
		}
	})

	// The server keeps the confirmation between requests: it survives a
	// JSON round trip.
	t.Run("JSON round trip", func(t *testing.T) {
		d := &quoteDesk{}
		opts := rag.AgentOptions{Actions: []llm.Tool{newQuoteTool(t, d)}}
		m := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("q1", actions.QuoteToolName, quote200)), llmtest.Text("Enviado."))
		first := askQuote(t, p, m, opts, d)
		b, err := json.Marshal(first)
		if err != nil {
			t.Fatal(err)
		}
		var back struct {
			Confirmation *llm.PendingConfirmation `json:"confirmation"`
		}
		if err := json.Unmarshal(b, &back); err != nil || back.Confirmation == nil {
			t.Fatalf("decoded %+v, %v", back, err)
		}
		if _, err := ragtest.Agent(t, p, m, opts).Chat(ctx, rag.ChatRequest{Message: "ok", Confirmation: back.Confirmation}); err != nil || len(d.submitted()) != 1 {
			t.Errorf("err %v, submitted %d", err, len(d.submitted()))
		}
	})

	// Seed 003 §9.3: when deciding fails, the confirmation stays pending
	// and the user is asked to try again.
	t.Run("decide error keeps it pending", func(t *testing.T) {
		d := &quoteDesk{}
		opts := rag.AgentOptions{Actions: []llm.Tool{newQuoteTool(t, d)}}
		m := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("q1", actions.QuoteToolName, quote200)))
		first := askQuote(t, p, m, opts, d)
		opts.Decide = func(ctx context.Context, pc *llm.PendingConfirmation, reply string) (llm.Decision, error) {
			return llm.DetectDecision(ctx, llmtest.NewModel(llmtest.Fail(&llm.APIError{StatusCode: 503, Retryable: true})), pc, reply)
		}
		resp, err := ragtest.Agent(t, p, m, opts).Chat(ctx, rag.ChatRequest{Message: "beleza", Confirmation: first.Confirmation})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Confirmation != first.Confirmation || resp.Answer != llm.DefaultFallbackMessages().Unavailable || !resp.Debug.AnswerFallback || len(d.submitted()) != 0 {
			t.Errorf("answer %q, confirmation kept %v, submitted %d", resp.Answer, resp.Confirmation == first.Confirmation, len(d.submitted()))
		}
		strict := ragtest.OfflinePipeline(t, rag.PipelineOptions{Fallback: rag.Off})
		if _, err := ragtest.Agent(t, strict, m, opts).Chat(ctx, rag.ChatRequest{Message: "beleza", Confirmation: first.Confirmation}); !errors.Is(err, rag.ErrNoAnswer) || apiStatus(err) != 503 {
			t.Errorf("Fallback Off: %v", err)
		}
	})

	t.Run("a model decides", func(t *testing.T) {
		d := &quoteDesk{}
		opts := rag.AgentOptions{Actions: []llm.Tool{newQuoteTool(t, d)}}
		m := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("q1", actions.QuoteToolName, quote200)), llmtest.Text("Enviado."))
		first := askQuote(t, p, m, opts, d)
		judge := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("j", "respond_to_confirmation", `{"intent":"confirm","confidence":0.9}`)))
		opts.Decide = func(ctx context.Context, pc *llm.PendingConfirmation, reply string) (llm.Decision, error) {
			return llm.DetectDecision(ctx, judge, pc, reply)
		}
		resp, err := ragtest.Agent(t, p, m, opts).Chat(ctx, rag.ChatRequest{Message: "vai lá, manda bala", Confirmation: first.Confirmation})
		if err != nil || resp.Debug.Decision != llm.DecisionConfirm || len(d.submitted()) != 1 {
			t.Errorf("err %v, decision %q, submitted %d", err, resp.Debug.Decision, len(d.submitted()))
		}
	})

	t.Run("expired starts afresh", func(t *testing.T) {
		d := &quoteDesk{}
		opts := rag.AgentOptions{Actions: []llm.Tool{newQuoteTool(t, d)}, ConfirmationTTL: time.Nanosecond}
		m := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("q1", actions.QuoteToolName, quote200)), llmtest.Text("Quer que eu solicite a cotação de novo?"))
		first := askQuote(t, p, m, opts, d)
		time.Sleep(time.Millisecond)
		resp, err := ragtest.Agent(t, p, m, opts).Chat(ctx, rag.ChatRequest{Message: "sim", Confirmation: first.Confirmation})
		if err != nil {
			t.Fatal(err)
		}
		if len(d.submitted()) != 0 || resp.Debug.Decision != "" || resp.Answer != "Quer que eu solicite a cotação de novo?" ||
			!slices.ContainsFunc(resp.Debug.Errors, func(s string) bool { return strings.Contains(s, "expired") }) {
			t.Errorf("submitted %d, decision %q, answer %q, errors %v", len(d.submitted()), resp.Debug.Decision, resp.Answer, resp.Debug.Errors)
		}
		if r := m.Requests()[1]; len(r.Messages) != 2 || r.Messages[1].Content != "sim" {
			t.Errorf("the fresh turn sent %+v", r.Messages)
		}
	})

	t.Run("an action named like a search", func(t *testing.T) {
		bad := newQuoteTool(t, &quoteDesk{})
		bad.Name = rag.ToolSearchFAQs
		if _, err := rag.NewAgent(p, llmtest.NewModel(), rag.AgentOptions{Actions: []llm.Tool{bad}}); err == nil {
			t.Error("accepted")
		}
	})
}

// The stream ends a waiting turn with the question's tokens, a confirm
// event and done; the pending call has no tool_call event (it did not
// run), and the confirmed call has one in the next turn.
func TestChatAgenticStreamConfirmation(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	d := &quoteDesk{}
	opts := rag.AgentOptions{Actions: []llm.Tool{newQuoteTool(t, d)}}
	ask := llmtest.ToolCalls(llmtest.Call("q1", actions.QuoteToolName, quote200))
	ask.Response.Message.Content = "Vou pedir a cotação."
	m := llmtest.NewModel(ask, llmtest.Text("Enviado: protocolo COT-1."))
	drain := func(req rag.ChatRequest) ([]rag.Event, *rag.ChatResponse) {
		t.Helper()
		var events []rag.Event
		resp, err := ragtest.Drain(ragtest.Agent(t, p, m, opts).ChatStream(context.Background(), req), func(e rag.Event) { events = append(events, e) })
		if err != nil {
			t.Fatal(err)
		}
		return events, resp
	}
	kinds := func(events []rag.Event) string {
		var k []string
		for _, e := range events {
			k = append(k, string(e.Kind))
		}
		return strings.Join(k, " ")
	}

	events, resp := drain(rag.ChatRequest{Message: "cotação de 200 L de glifosato, compras@fazenda.com.br"})
	if got := kinds(events); got != "token reset token confirm done" {
		t.Errorf("events %q", got)
	}
	confirm := events[len(events)-2]
	if confirm.Confirmation == nil || confirm.Confirmation != resp.Confirmation || confirm.Tool != actions.QuoteToolName || events[2].Token != ask200 || resp.Answer != ask200 {
		t.Errorf("confirm event %+v, question token %q, answer %q", confirm, events[2].Token, resp.Answer)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(confirm.Confirmation.Call.Arguments), &args); err != nil || args["quantity"] != 200.0 {
		t.Errorf("arguments %s", confirm.Confirmation.Call.Arguments)
	}

	events, resp = drain(rag.ChatRequest{Message: "sim", Confirmation: resp.Confirmation})
	if got := kinds(events); got != "tool_call hits token done" {
		t.Errorf("events %q", got)
	}
	if events[0].Tool != actions.QuoteToolName || len(d.submitted()) != 1 || resp.Answer != "Enviado: protocolo COT-1." {
		t.Errorf("tool_call %+v, submitted %d, answer %q", events[0], len(d.submitted()), resp.Answer)
	}
}
