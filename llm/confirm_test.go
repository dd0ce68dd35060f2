package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
)

// recordMetric is seed 003 §6.2's record_metric, which requires confirmation.
func recordMetric(h llm.ToolHandler) llm.Tool {
	return llm.Tool{
		ToolDefinition: llm.ToolDefinition{
			Name:        "record_metric",
			Description: "Registra uma métrica do usuário.",
			Parameters: json.RawMessage(`{"type":"object","properties":{
				"type":{"type":"string","enum":["weight","water","sleep"]},
				"value":{"type":"number","minimum":0},
				"unit":{"type":"string"},
				"date":{"type":"string"}},
				"required":["type","value","date"],"additionalProperties":false}`),
		},
		RequiresConfirmation: true,
		Handler:              h,
	}
}

const weightArgs = `{"type":"weight","value":82,"unit":"kg","date":"2026-01-20"}`

// startPending runs the loop until record_metric asks for confirmation.
func startPending(t *testing.T, model *llmtest.Model, tools []llm.Tool, opts *llm.RunOptions) *llm.RunResult {
	t.Helper()
	res, err := llm.RunTools(context.Background(), model, userReq("Pesei 82kg hoje"), tools, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Pending == nil {
		t.Fatalf("no pending confirmation: %+v", res)
	}
	return res
}

func TestConfirmationFlow(t *testing.T) {
	tests := []struct {
		name        string
		decision    llm.Decision
		wantArgs    []string // handler calls
		wantResult  llm.Message
		wantCallArg string // arguments of the call in the transcript sent back
	}{
		{
			name:        "confirm",
			decision:    llm.Decision{Kind: llm.DecisionConfirm},
			wantArgs:    []string{weightArgs},
			wantResult:  llm.Message{Role: llm.RoleTool, ToolCallID: "m1", ToolName: "record_metric", Content: `{"id":"e1"}`},
			wantCallArg: weightArgs,
		},
		{
			name:        "reject",
			decision:    llm.Decision{Kind: llm.DecisionReject, Reason: "o usuário desistiu"},
			wantResult:  llm.Message{Role: llm.RoleTool, ToolCallID: "m1", ToolName: "record_metric", IsError: true, Content: `{"message":"The user rejected this action; it was not executed.","reason":"o usuário desistiu","status":"rejected"}`},
			wantCallArg: weightArgs,
		},
		{
			name:        "correct",
			decision:    llm.Decision{Kind: llm.DecisionCorrect, Arguments: json.RawMessage(`{"value":82.5}`)},
			wantArgs:    []string{`{"date":"2026-01-20","type":"weight","unit":"kg","value":82.5}`},
			wantResult:  llm.Message{Role: llm.RoleTool, ToolCallID: "m1", ToolName: "record_metric", Content: `{"id":"e1"}`},
			wantCallArg: `{"date":"2026-01-20","type":"weight","unit":"kg","value":82.5}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{result: `{"id":"e1"}`}
			tools := []llm.Tool{recordMetric(rec.handle)}
			model := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("m1", "record_metric", weightArgs)), llmtest.Text("Pronto!"))
			res := startPending(t, model, tools, nil)
			p := res.Pending
			if len(rec.calls()) != 0 {
				t.Fatal("tool requiring confirmation was executed before the decision")
			}
			if p.Call.Name != "record_metric" || p.Call.Arguments != weightArgs || p.Iteration != 1 || !strings.HasPrefix(p.ID, "pc_") {
				t.Errorf("pending = %+v", p)
			}
			if want := "Confirma a execução de record_metric (date: 2026-01-20, type: weight, unit: kg, value: 82)?"; p.Summary != want {
				t.Errorf("summary %q, want %q", p.Summary, want)
			}
			if exec := res.Iterations[0].Tools[0]; exec.Status != llm.ToolPendingConfirmation {
				t.Errorf("execution status %s", exec.Status)
			}

			res2, err := llm.ResumeConfirmation(context.Background(), model, p, tt.decision, tools, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res2.Response.Message.Content != "Pronto!" || res2.Pending != nil {
				t.Errorf("result %q pending %v", res2.Response.Message.Content, res2.Pending)
			}
			if diff := cmp.Diff(tt.wantArgs, rec.calls()); diff != "" {
				t.Errorf("handler calls (-want +got):\n%s", diff)
			}
			sent := model.Requests()[1].Messages
			if diff := cmp.Diff(tt.wantResult, sent[len(sent)-1]); diff != "" {
				t.Errorf("tool result sent (-want +got):\n%s", diff)
			}
			if got := sent[len(sent)-2].ToolCalls[0].Arguments; got != tt.wantCallArg {
				t.Errorf("call arguments in transcript %s, want %s", got, tt.wantCallArg)
			}
			if got := p.Request.Messages[len(p.Request.Messages)-1].ToolCalls[0].Arguments; got != weightArgs {
				t.Errorf("ResumeConfirmation modified the pending confirmation: %s", got)
			}
			if n := res2.Iterations[len(res2.Iterations)-1].Number; n != 2 {
				t.Errorf("iteration numbering continues: last = %d, want 2", n)
			}
		})
	}
}

func TestConfirmationInvalidCorrectionKeepsPending(t *testing.T) {
	rec := &recorder{result: `{"id":"e1"}`}
	tools := []llm.Tool{recordMetric(rec.handle)}
	model := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("m1", "record_metric", weightArgs)), llmtest.Text("Pronto!"))
	p := startPending(t, model, tools, nil).Pending

	for _, patch := range []string{`{"value":-1}`, `{"value":"oitenta"}`, `{"color":"blue"}`, `{"value":`} {
		_, err := llm.ResumeConfirmation(context.Background(), model, p, llm.Decision{Kind: llm.DecisionCorrect, Arguments: json.RawMessage(patch)}, tools, nil)
		if !errors.Is(err, llm.ErrInvalidArguments) {
			t.Errorf("patch %s: err = %v, want ErrInvalidArguments", patch, err)
		}
	}
	if len(rec.calls()) != 0 || model.Calls() != 1 {
		t.Fatalf("invalid correction had effects: handler %v, model calls %d", rec.calls(), model.Calls())
	}
	if _, err := llm.ResumeConfirmation(context.Background(), model, p, llm.Decision{Kind: "maybe"}, tools, nil); !errors.Is(err, llm.ErrInvalidRequest) {
		t.Errorf("unknown decision: %v", err)
	}
	res, err := llm.ResumeConfirmation(context.Background(), model, p, llm.Decision{Kind: llm.DecisionConfirm}, tools, nil)
	if err != nil || res.Response.Message.Content != "Pronto!" || len(rec.calls()) != 1 {
		t.Fatalf("confirm after failed correction: %v %+v", err, res)
	}
}

func TestConfirmationMixedTurn(t *testing.T) {
	search := &recorder{result: `[]`}
	metric := &recorder{result: `{"ok":true}`}
	tools := []llm.Tool{searchTool(search.handle), recordMetric(metric.handle)}
	model := llmtest.NewModel(
		llmtest.ToolCalls(
			llmtest.Call("m1", "record_metric", weightArgs),
			llmtest.Call("s1", "searchCatalog", `{"query":"balança"}`),
			llmtest.Call("m2", "record_metric", `{"type":"water","value":2,"date":"2026-01-20"}`),
		),
		llmtest.Text("Feito."),
	)
	res := startPending(t, model, tools, nil)
	if len(search.calls()) != 1 {
		t.Fatalf("the turn's other calls must run before pausing: %v", search.calls())
	}
	if res.Pending.Call.ID != "m1" {
		t.Fatalf("first pending %s", res.Pending.Call.ID)
	}
	// The pending confirmation survives a JSON round trip (stored between requests).
	raw, err := json.Marshal(res.Pending)
	if err != nil {
		t.Fatal(err)
	}
	var stored llm.PendingConfirmation
	if err := json.Unmarshal(raw, &stored); err != nil {
		t.Fatal(err)
	}
	res2, err := llm.ResumeConfirmation(context.Background(), model, &stored, llm.Decision{Kind: llm.DecisionConfirm}, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Pending == nil || res2.Pending.Call.ID != "m2" || model.Calls() != 1 {
		t.Fatalf("want a second pending for m2 without a model call, got %+v (model calls %d)", res2.Pending, model.Calls())
	}
	res3, err := llm.ResumeConfirmation(context.Background(), model, res2.Pending, llm.Decision{Kind: llm.DecisionReject, Message: "e me lembra de beber água"}, tools, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res3.Response.Message.Content != "Feito." {
		t.Errorf("text %q", res3.Response.Message.Content)
	}
	sent := model.Requests()[1].Messages
	var got []string
	for _, m := range sent[len(sent)-4:] {
		got = append(got, string(m.Role)+":"+m.ToolCallID)
	}
	if diff := cmp.Diff([]string{"tool:m1", "tool:s1", "tool:m2", "user:"}, got); diff != "" {
		t.Errorf("results must follow call order, then the user message (-want +got):\n%s", diff)
	}
	if sent[len(sent)-1].Content != "e me lembra de beber água" || !sent[len(sent)-2].IsError {
		t.Errorf("tail = %+v", sent[len(sent)-2:])
	}
	if diff := cmp.Diff([]string{weightArgs}, metric.calls()); diff != "" {
		t.Errorf("metric handler calls (-want +got):\n%s", diff)
	}
}

func TestConfirmationExpiry(t *testing.T) {
	tools := []llm.Tool{recordMetric((&recorder{result: "{}"}).handle)}
	model := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("m1", "record_metric", weightArgs)), llmtest.Text("ok"))
	before := time.Now()
	p := startPending(t, model, tools, nil).Pending
	if p.CreatedAt.Before(before) || p.CreatedAt.After(time.Now()) || !p.ExpiresAt.Equal(p.CreatedAt.Add(llm.DefaultConfirmationTTL)) {
		t.Errorf("created %v expires %v", p.CreatedAt, p.ExpiresAt)
	}
	expires := p.ExpiresAt
	p.ExpiresAt = time.Now().Add(-time.Second)
	if _, err := llm.ResumeConfirmation(context.Background(), model, p, llm.Decision{Kind: llm.DecisionConfirm}, tools, nil); !errors.Is(err, llm.ErrConfirmationExpired) {
		t.Errorf("err = %v, want ErrConfirmationExpired", err)
	}
	p.ExpiresAt = expires
	if _, err := llm.ResumeConfirmation(context.Background(), model, p, llm.Decision{Kind: llm.DecisionConfirm}, tools, nil); err != nil {
		t.Errorf("in time: %v", err)
	}
}

func TestConfirmationNeedsTheTool(t *testing.T) {
	tools := []llm.Tool{recordMetric((&recorder{result: "{}"}).handle)}
	model := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("m1", "record_metric", weightArgs)))
	p := startPending(t, model, tools, nil).Pending
	if _, err := llm.ResumeConfirmation(context.Background(), model, p, llm.Decision{Kind: llm.DecisionConfirm}, []llm.Tool{searchTool((&recorder{}).handle)}, nil); !errors.Is(err, llm.ErrInvalidRequest) {
		t.Errorf("err = %v", err)
	}
	broken := *p
	broken.CallIndex = 5
	if _, err := llm.ResumeConfirmation(context.Background(), model, &broken, llm.Decision{Kind: llm.DecisionConfirm}, tools, nil); !errors.Is(err, llm.ErrInvalidRequest) {
		t.Errorf("inconsistent pending: err = %v", err)
	}
}

func TestConfirmationCustomSummary(t *testing.T) {
	tool := recordMetric((&recorder{}).handle)
	tool.Summarize = func(args json.RawMessage) string {
		var a struct {
			Value float64
			Unit  string
			Date  string
		}
		_ = json.Unmarshal(args, &a)
		return "Registrar peso: " + strings.TrimRight(strings.TrimRight(jsonNum(a.Value), "0"), ".") + " " + a.Unit + " em " + a.Date + "?"
	}
	model := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("m1", "record_metric", weightArgs)))
	p := startPending(t, model, []llm.Tool{tool}, nil).Pending
	if p.Summary != "Registrar peso: 82 kg em 2026-01-20?" {
		t.Errorf("summary %q", p.Summary)
	}
}

func jsonNum(f float64) string { b, _ := json.Marshal(f); return string(b) }

func TestDefaultSummary(t *testing.T) {
	tests := []struct{ args, want string }{
		{`{}`, "Confirma a execução de t?"},
		{`not json`, "Confirma a execução de t?"},
		{`{"b":2,"a":"x"}`, "Confirma a execução de t (a: x, b: 2)?"},
		{`{"updates":{"relationship":"esposa"}}`, `Confirma a execução de t (updates: {"relationship":"esposa"})?`},
		{`{"notes":"` + strings.Repeat("á", 70) + `"}`, "Confirma a execução de t (notes: " + strings.Repeat("á", 59) + "…)?"},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			if got := llm.DefaultSummary("t", json.RawMessage(tt.args)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDetectDecision(t *testing.T) {
	p := &llm.PendingConfirmation{Call: llmtest.Call("m1", "record_metric", weightArgs), Summary: "Registrar peso: 82 kg?"}
	tests := []struct {
		name    string
		args    string
		want    llm.Decision
		wantErr error
	}{
		{"confirm", `{"intent":"confirm","confidence":0.92}`, llm.Decision{Kind: llm.DecisionConfirm}, nil},
		{"reject", `{"intent":"reject"}`, llm.Decision{Kind: llm.DecisionReject}, nil},
		{"correct", `{"intent":"correct","corrected_arguments":{"value":81}}`, llm.Decision{Kind: llm.DecisionCorrect, Arguments: json.RawMessage(`{"value":81}`)}, nil},
		{"unrelated", `{"intent":"unrelated"}`, llm.Decision{Kind: llm.DecisionReject, Reason: "the user changed the subject", Message: "beleza"}, nil},
		{"correct without arguments", `{"intent":"correct"}`, llm.Decision{}, llm.ErrInvalidOutput},
		{"bad intent", `{"intent":"talvez"}`, llm.Decision{}, llm.ErrInvalidOutput},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("x", "respond_to_confirmation", tt.args)))
			got, err := llm.DetectDecision(context.Background(), model, p, "beleza")
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
			req := model.Requests()[0]
			if req.ToolChoice != (llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "respond_to_confirmation"}) || req.Temperature == nil || *req.Temperature != 0 {
				t.Errorf("request tool choice %+v temperature %v", req.ToolChoice, req.Temperature)
			}
			if !strings.Contains(req.Messages[0].Content, "Registrar peso: 82 kg?") || req.Messages[1].Content != "beleza" {
				t.Errorf("messages %+v", req.Messages)
			}
		})
	}
	t.Run("model error keeps pending", func(t *testing.T) {
		boom := errors.New("down")
		_, err := llm.DetectDecision(context.Background(), llmtest.NewModel(llmtest.Fail(boom)), p, "sim")
		if !errors.Is(err, boom) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("no tool call", func(t *testing.T) {
		_, err := llm.DetectDecision(context.Background(), llmtest.NewModel(llmtest.Text("sim")), p, "sim")
		if !errors.Is(err, llm.ErrInvalidOutput) {
			t.Errorf("err = %v", err)
		}
	})
}
