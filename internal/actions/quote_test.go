package actions_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/internal/actions"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
	"github.com/hybridrag/hybridrag/rag"
)

func TestNewQuoteToolRejects(t *testing.T) {
	if _, err := actions.NewQuoteTool(nil, actions.QuoteOptions{}); err == nil {
		t.Error("nil submit accepted")
	}
	submit := func(context.Context, actions.Quote) (string, error) { return "", nil }
	if _, err := actions.NewQuoteTool(submit, actions.QuoteOptions{Language: "fr"}); err == nil {
		t.Error("unsupported language accepted")
	}
}

func TestQuoteSummary(t *testing.T) {
	q := actions.Quote{Product: "Glifosato 480 SL", Quantity: 500, Unit: "L", Contact: "compras@fazenda.com.br", City: "Rio Verde - GO"}
	for _, tc := range []struct {
		name string
		q    actions.Quote
		lang rag.Language
		want string
	}{
		{"pt-BR", q, rag.LanguagePortuguese, "Confirma a solicitação de cotação de 500 L de Glifosato 480 SL, entrega em Rio Verde - GO, contato compras@fazenda.com.br?"},
		{"en", q, rag.LanguageEnglish, "Request a quote for 500 L of Glifosato 480 SL, delivery to Rio Verde - GO, contact compras@fazenda.com.br?"},
		{"decimal comma, notes, no city", actions.Quote{Product: "Calcário", Quantity: 12.5, Unit: "t", Contact: "(64) 99999-0000", Notes: "até setembro"}, rag.LanguagePortuguese,
			"Confirma a solicitação de cotação de 12,5 t de Calcário, contato (64) 99999-0000 (até setembro)?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := actions.QuoteSummaryForTest(tc.q, tc.lang); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// The tool in llm's loop: a call waits for confirmation; arguments the
// schema refuses never reach submit; a confirmation submits the trimmed
// quote and the model gets the protocol; a failing submit is a failed call.
func TestQuoteToolInTheLoop(t *testing.T) {
	var got []actions.Quote
	fail := false
	quote, err := actions.NewQuoteTool(func(_ context.Context, q actions.Quote) (string, error) {
		if fail {
			return "", errors.New("CRM offline")
		}
		got = append(got, q)
		return "COT-0001", nil
	}, actions.QuoteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !quote.RequiresConfirmation || quote.Name != actions.QuoteToolName {
		t.Fatalf("tool %+v", quote)
	}
	tools := []llm.Tool{quote}
	req := llm.Request{Messages: []llm.Message{llm.UserMessage("quero cotação de 500 L de glifosato")}}
	args := `{"product":" Glifosato 480 SL ","quantity":500,"unit":"L","contact":"compras@fazenda.com.br"}`

	t.Run("invalid arguments never reach submit", func(t *testing.T) {
		for _, bad := range []string{
			`{"product":"Glifosato","quantity":0,"unit":"L","contact":"x@y.z"}`,
			`{"product":"Glifosato","quantity":10,"unit":"L"}`,
			`{"product":"Glifosato","quantity":10,"unit":"L","contact":"x@y.z","price":1}`,
		} {
			m := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("c", actions.QuoteToolName, bad)), llmtest.Text("faltou algo"))
			res, err := llm.RunTools(context.Background(), m, req, tools, nil)
			if err != nil || res.Pending != nil || res.Iterations[0].Tools[0].Status != llm.ToolInvalidArguments {
				t.Errorf("%s: err %v, pending %v, status %s", bad, err, res.Pending, res.Iterations[0].Tools[0].Status)
			}
		}
		if len(got) != 0 {
			t.Errorf("submitted %+v", got)
		}
	})
	t.Run("confirmed", func(t *testing.T) {
		m := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("c", actions.QuoteToolName, args)), llmtest.Text("Pedido enviado: protocolo COT-0001."))
		res, err := llm.RunTools(context.Background(), m, req, tools, nil)
		if err != nil || res.Pending == nil || len(got) != 0 {
			t.Fatalf("err %v, pending %v, submitted %d before the confirmation", err, res.Pending, len(got))
		}
		if want := "Confirma a solicitação de cotação de 500 L de Glifosato 480 SL, contato compras@fazenda.com.br?"; res.Pending.Summary != want {
			t.Errorf("summary %q", res.Pending.Summary)
		}
		res, err = llm.ResumeConfirmation(context.Background(), m, res.Pending, llm.Decision{Kind: llm.DecisionConfirm}, tools, nil)
		if err != nil || res.Response.Message.Content != "Pedido enviado: protocolo COT-0001." {
			t.Fatalf("err %v, answer %q", err, res.Response.Message.Content)
		}
		if len(got) != 1 || got[0].Product != "Glifosato 480 SL" || got[0].Quantity != 500 {
			t.Fatalf("submitted %+v", got)
		}
		var out struct {
			Status, Protocol string
			Quote            actions.Quote
		}
		last := m.Requests()[1].Messages
		if err := json.Unmarshal([]byte(last[len(last)-1].Content), &out); err != nil || out.Status != "submitted" || out.Protocol != "COT-0001" || out.Quote != got[0] {
			t.Errorf("tool result %s (%v)", last[len(last)-1].Content, err)
		}
	})
	t.Run("submit fails", func(t *testing.T) {
		fail = true
		defer func() { fail = false }()
		m := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("c", actions.QuoteToolName, args)), llmtest.Text("Não consegui enviar agora."))
		res, _ := llm.RunTools(context.Background(), m, req, tools, nil)
		res, err := llm.ResumeConfirmation(context.Background(), m, res.Pending, llm.Decision{Kind: llm.DecisionConfirm}, tools, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ex := res.Iterations[0].Tools[0]; ex.Status != llm.ToolFailed || !strings.Contains(ex.Result, "CRM offline") {
			t.Errorf("execution %+v", ex)
		}
	})
}
