package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/internal/actions"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
)

// Quote arguments of the scripted model: 200 L first, 500 L after the
// user's correction.
const (
	quote200 = `{"product":"Glifosato 480 SL","quantity":200,"unit":"L","contact":"compras@fazenda.com.br"}`
	quote500 = `{"product":"Glifosato 480 SL","quantity":500,"unit":"L","contact":"compras@fazenda.com.br","city":"Rio Verde - GO"}`
)

// withAgent returns a swap giving the backend the scripted chat model and
// a quote tool submitting to a fresh book, which it returns.
func withAgent(t *testing.T, model llm.ChatModel) (func(*backend), *quoteBook) {
	t.Helper()
	book := newQuoteBook(nil)
	return func(be *backend) {
		opts := be.agentic
		opts.Actions = nil
		var err error
		if be.agentic, err = withQuoteAction(opts, book); err != nil {
			t.Fatal(err)
		}
		be.chat, be.quotes, be.info.Agentic = model, book, "llmtest (scripted)"
	}, book
}

// chatTurnJSON posts one agentic chat message, replying to confirmation
// id when set, and returns the response and its raw body.
func chatTurnJSON(t *testing.T, h http.Handler, message, id string) (chatResponse, string) {
	t.Helper()
	body := map[string]any{"message": message, "mode": "agentic"}
	if id != "" {
		body["confirmation_id"] = id
	}
	b, _ := json.Marshal(body)
	rec := do(t, h, "POST", "/api/chat", string(b))
	if rec.Code != http.StatusOK {
		t.Fatalf("%q: status %d: %s", message, rec.Code, rec.Body.String())
	}
	return decode[chatResponse](t, rec), rec.Body.String()
}

// wantConfirmation checks that r asks to confirm the quote with args and
// that the client sees nothing but the ID, tool, arguments, question and
// expiry (never the transcript).
func wantConfirmation(t *testing.T, r chatResponse, raw, args string) {
	t.Helper()
	c := r.Confirmation
	if c == nil {
		t.Fatalf("no confirmation: answer %q, debug %+v", r.Answer, r.Debug)
	}
	if !strings.HasPrefix(c.ID, "pc_") || c.Tool != actions.QuoteToolName || string(c.Arguments) != args ||
		c.Summary == "" || r.Answer != c.Summary || !strings.HasPrefix(c.Summary, "Confirma a solicitação de cotação") {
		t.Errorf("confirmation %+v (arguments %s), answer %q", c, c.Arguments, r.Answer)
	}
	if d := time.Until(c.ExpiresAt); d <= 0 || d > llm.DefaultConfirmationTTL {
		t.Errorf("expires_at %v: %v from now", c.ExpiresAt, d)
	}
	var top struct {
		Confirmation map[string]json.RawMessage `json:"confirmation"`
	}
	if err := json.Unmarshal([]byte(raw), &top); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range top.Confirmation {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"arguments", "expires_at", "id", "summary", "tool"}; !slices.Equal(keys, want) {
		t.Errorf("confirmation keys %v, want %v", keys, want)
	}
	if strings.Contains(raw, `"role":"system"`) || strings.Contains(raw, `"messages"`) {
		t.Errorf("the response leaks the transcript: %s", raw)
	}
	if n := len(r.Debug.ToolCalls); n == 0 || r.Debug.ToolCalls[n-1].Status != string(llm.ToolPendingConfirmation) {
		t.Errorf("tool calls %+v, want the last pending", r.Debug.ToolCalls)
	}
}

// The seed's dialogue over HTTP (seed 003 §9.3-9.4): the quote waits for
// the user; a correction asks again with the corrected quote; a
// confirmation submits it once; the used ID then starts a new turn.
func TestConfirmationCorrectThenConfirm(t *testing.T) {
	model := llmtest.NewModel(
		llmtest.ToolCalls(llmtest.Call("q1", actions.QuoteToolName, quote200)),
		llmtest.ToolCalls(llmtest.Call("q2", actions.QuoteToolName, quote500)),
		llmtest.Text("Pronto! Cotação solicitada."),
		llmtest.Text("Olá! Como posso ajudar?"),
	)
	swap, book := withAgent(t, model)
	h := newTestServer(t, nil, swap).routes()

	r, raw := chatTurnJSON(t, h, "quero cotação de 200 L de Glifosato 480 SL, e-mail compras@fazenda.com.br", "")
	wantConfirmation(t, r, raw, quote200)
	first := r.Confirmation.ID

	r, raw = chatTurnJSON(t, h, "não, 500 litros, entrega em Rio Verde - GO", first)
	if r.Debug.Decision != string(llm.DecisionCorrect) {
		t.Errorf("decision %q, want correct", r.Debug.Decision)
	}
	wantConfirmation(t, r, raw, quote500)
	if !strings.Contains(r.Confirmation.Summary, "500 L") || r.Confirmation.ID == first {
		t.Errorf("the correction did not ask again: %+v", r.Confirmation)
	}
	if n := book.submitted.Load(); n != 0 {
		t.Fatalf("submitted %d quotes before a confirmation", n)
	}

	second := r.Confirmation.ID
	r, _ = chatTurnJSON(t, h, "sim", second)
	if r.Debug.Decision != string(llm.DecisionConfirm) || r.Confirmation != nil || r.Answer != "Pronto! Cotação solicitada." {
		t.Errorf("confirm: decision %q, confirmation %+v, answer %q", r.Debug.Decision, r.Confirmation, r.Answer)
	}
	kept := book.kept()
	if len(kept) != 1 || kept[0].Quote.Quantity != 500 || !strings.HasPrefix(kept[0].Protocol, "COT-") || len(kept[0].Protocol) != 12 {
		t.Fatalf("quotes %+v", kept)
	}
	// The model was told the protocol.
	last := model.Requests()[2].Messages
	if got := last[len(last)-1].Content; !strings.Contains(got, kept[0].Protocol) {
		t.Errorf("tool result %q lacks the protocol %s", got, kept[0].Protocol)
	}

	// Used once: the same ID again is a new turn, and says so.
	r, _ = chatTurnJSON(t, h, "sim", second)
	if r.Debug.Decision != "" || r.Answer != "Olá! Como posso ajudar?" || book.submitted.Load() != 1 ||
		!slices.Contains(r.Debug.Errors, sanitizeDebugError(staleConfirmationNote)) {
		t.Errorf("reused ID: decision %q, answer %q, submitted %d, errors %q", r.Debug.Decision, r.Answer, book.submitted.Load(), r.Debug.Errors)
	}

	st := decode[statsResponse](t, do(t, h, "GET", "/api/stats", ""))
	if st.Actions.QuotesSubmitted != 1 || st.Actions.PendingConfirmations != 0 || !slices.Equal(st.Actions.Tools, []string{actions.QuoteToolName}) {
		t.Errorf("stats actions %+v", st.Actions)
	}
}

func TestConfirmationReject(t *testing.T) {
	model := llmtest.NewModel(
		llmtest.ToolCalls(llmtest.Call("q1", actions.QuoteToolName, quote200)),
		llmtest.Text("Tudo bem, não enviei a cotação."),
	)
	swap, book := withAgent(t, model)
	h := newTestServer(t, nil, swap).routes()
	r, raw := chatTurnJSON(t, h, "quero cotação de 200 L de Glifosato 480 SL, e-mail compras@fazenda.com.br", "")
	wantConfirmation(t, r, raw, quote200)
	if st := decode[statsResponse](t, do(t, h, "GET", "/api/stats", "")); st.Actions.PendingConfirmations != 1 {
		t.Errorf("pending confirmations %d, want 1", st.Actions.PendingConfirmations)
	}
	r, _ = chatTurnJSON(t, h, "Cancelar", r.Confirmation.ID)
	if r.Debug.Decision != string(llm.DecisionReject) || r.Confirmation != nil || r.Answer != "Tudo bem, não enviei a cotação." {
		t.Errorf("reject: decision %q, confirmation %+v, answer %q", r.Debug.Decision, r.Confirmation, r.Answer)
	}
	if n := book.submitted.Load(); n != 0 {
		t.Errorf("a rejected quote was submitted (%d)", n)
	}
	if n := len(r.Debug.ToolCalls); n == 0 || r.Debug.ToolCalls[n-1].Status != string(llm.ToolRejected) {
		t.Errorf("tool calls %+v, want the last rejected", r.Debug.ToolCalls)
	}
}

// An unknown ID runs the turn without a confirmation; an ID with planned
// mode, or an over-long one, is refused before anything runs.
func TestConfirmationIDErrors(t *testing.T) {
	model := llmtest.NewModel(llmtest.Text("Olá!"))
	swap, _ := withAgent(t, model)
	h := newTestServer(t, nil, swap).routes()

	r, _ := chatTurnJSON(t, h, "sim", "pc_unknown")
	if r.Answer != "Olá!" || r.Debug.Decision != "" || !slices.Contains(r.Debug.Errors, sanitizeDebugError(staleConfirmationNote)) {
		t.Errorf("unknown ID: answer %q, decision %q, errors %q", r.Answer, r.Debug.Decision, r.Debug.Errors)
	}
	for _, body := range []string{
		`{"message":"sim","confirmation_id":"pc_x"}`,
		`{"message":"sim","mode":"planned","confirmation_id":"pc_x"}`,
		fmt.Sprintf(`{"message":"sim","mode":"agentic","confirmation_id":%q}`, strings.Repeat("x", maxConfirmationIDLen+1)),
	} {
		wantError(t, do(t, h, "POST", "/api/chat", body), http.StatusBadRequest, codeInvalidField)
	}
	if model.Calls() != 1 {
		t.Errorf("model calls %d, want 1", model.Calls())
	}
}

// The SSE stream sends the confirmation as a confirm event, kept by the
// server by then: the reply can use its ID at once.
func TestSSEConfirmEvent(t *testing.T) {
	model := llmtest.NewModel(
		llmtest.ToolCalls(llmtest.Call("q1", actions.QuoteToolName, quote200)),
		llmtest.Text("Pronto! Cotação solicitada."),
	)
	swap, book := withAgent(t, model)
	h := newTestServer(t, nil, swap).routes()
	rec := postSSE(t, h, `{"message":"quero cotação de 200 L de Glifosato 480 SL, e-mail compras@fazenda.com.br","mode":"agentic"}`)
	events, _ := parseSSE(t, rec.Body.Bytes())
	var names []string
	var conf confirmationJSON
	var done chatResponse
	var answer strings.Builder
	for _, ev := range events {
		names = append(names, ev.Name)
		switch ev.Name {
		case "confirm":
			if err := json.Unmarshal(ev.Data, &conf); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(ev.Data), "messages") {
				t.Errorf("confirm event leaks the transcript: %s", ev.Data)
			}
		case "token":
			var tok tokenEventJSON
			_ = json.Unmarshal(ev.Data, &tok)
			answer.WriteString(tok.Token)
		case "reset":
			answer.Reset()
		case "done":
			if err := json.Unmarshal(ev.Data, &done); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := len(names); n < 2 || names[n-2] != "confirm" || names[n-1] != "done" {
		t.Fatalf("events %v, want ... confirm, done", names)
	}
	if !strings.HasPrefix(conf.ID, "pc_") || conf.Tool != actions.QuoteToolName || string(conf.Arguments) != quote200 ||
		done.Confirmation == nil || done.Confirmation.ID != conf.ID || answer.String() != conf.Summary {
		t.Errorf("confirm %+v, done confirmation %+v, tokens %q", conf, done.Confirmation, answer.String())
	}
	r, _ := chatTurnJSON(t, h, "sim, pode enviar", conf.ID)
	if r.Debug.Decision != string(llm.DecisionConfirm) || book.submitted.Load() != 1 {
		t.Errorf("confirm after SSE: decision %q, submitted %d", r.Debug.Decision, book.submitted.Load())
	}
}

func TestConfirmationsStore(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	c := newConfirmations(2, 2)
	c.now = func() time.Time { return now }
	pc := func(id string, created time.Time, ttl time.Duration) *llm.PendingConfirmation {
		return &llm.PendingConfirmation{ID: id, CreatedAt: created, ExpiresAt: created.Add(ttl)}
	}
	t.Run("used once", func(t *testing.T) {
		c.put("client", pc("a", now, time.Minute))
		if c.take("client", "a") == nil || c.take("client", "a") != nil {
			t.Error("take did not return the confirmation exactly once")
		}
	})
	t.Run("expired", func(t *testing.T) {
		c.put("client", pc("b", now.Add(-2*time.Minute), time.Minute))
		if c.take("client", "b") != nil {
			t.Error("an expired confirmation was returned")
		}
		c.put("client", pc("b", now.Add(-2*time.Minute), time.Minute))
		if n := c.pending(); n != 0 {
			t.Errorf("pending %d after expiry, want 0", n)
		}
	})
	t.Run("bounded: expired first, then the oldest", func(t *testing.T) {
		c.put("client", pc("old", now.Add(-time.Minute), 5*time.Minute))
		c.put("client", pc("gone", now.Add(-2*time.Minute), time.Minute)) // expired
		c.put("client", pc("new", now, 5*time.Minute))
		if c.take("client", "gone") != nil || c.take("client", "old") == nil {
			t.Error("the expired one should go first")
		}
		c.put("client", pc("old", now.Add(-time.Minute), 5*time.Minute))
		c.put("client", pc("newer", now.Add(time.Second), 5*time.Minute))
		if c.take("client", "old") != nil || c.take("client", "new") == nil || c.take("client", "newer") == nil {
			t.Error("the oldest should go when full")
		}
	})
	t.Run("no expiry", func(t *testing.T) {
		c.put("client", &llm.PendingConfirmation{ID: "forever", CreatedAt: now})
		if c.take("client", "forever") == nil {
			t.Error("a confirmation without ExpiresAt was dropped")
		}
	})
}

// A reply the Decide function cannot read keeps the confirmation pending:
// the same ID comes back, stored again, and a later reply resolves it.
func TestConfirmationDecideFailureKeepsIt(t *testing.T) {
	model := llmtest.NewModel(
		llmtest.ToolCalls(llmtest.Call("q1", actions.QuoteToolName, quote200)),
		llmtest.Text("Pronto! Cotação solicitada."),
	)
	swap, book := withAgent(t, model)
	fails := true
	h := newTestServer(t, nil, func(be *backend) {
		swap(be)
		be.agentic.Decide = func(ctx context.Context, p *llm.PendingConfirmation, reply string) (llm.Decision, error) {
			if fails {
				return llm.Decision{}, errors.New("decision model down")
			}
			return llm.Decision{Kind: llm.KeywordDecision(reply)}, nil
		}
	}).routes()
	r, _ := chatTurnJSON(t, h, "quero cotação de 200 L de Glifosato 480 SL, e-mail compras@fazenda.com.br", "")
	id := r.Confirmation.ID
	r, _ = chatTurnJSON(t, h, "sim", id)
	if r.Confirmation == nil || r.Confirmation.ID != id || !r.Debug.AnswerFallback || book.submitted.Load() != 0 {
		t.Fatalf("after a Decide failure: confirmation %+v, fallback %v, submitted %d", r.Confirmation, r.Debug.AnswerFallback, book.submitted.Load())
	}
	fails = false
	r, _ = chatTurnJSON(t, h, "sim", id)
	if r.Debug.Decision != string(llm.DecisionConfirm) || book.submitted.Load() != 1 {
		t.Errorf("retry: decision %q, submitted %d", r.Debug.Decision, book.submitted.Load())
	}
}
