package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
)

// recorder is a tool handler that records its calls and answers with a
// fixed result or error.
type recorder struct {
	mu     sync.Mutex
	args   []string
	result string
	err    error
}

func (r *recorder) handle(_ context.Context, args json.RawMessage) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.args = append(r.args, string(args))
	return r.result, r.err
}

func (r *recorder) calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.args...)
}

func searchTool(h llm.ToolHandler) llm.Tool {
	return llm.Tool{
		ToolDefinition: llm.ToolDefinition{
			Name:        "searchCatalog",
			Description: "Busca produtos no catálogo.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","minLength":1},"limit":{"type":"integer","minimum":1,"maximum":10}},"required":["query"],"additionalProperties":false}`),
			InputExamples: []json.RawMessage{
				json.RawMessage(`{"query":"fungicida para soja"}`),
				json.RawMessage(`{"query":"adubo","limit":3}`),
			},
		},
		Handler: h,
	}
}

func userReq(text string) llm.Request {
	return llm.Request{Messages: []llm.Message{llm.SystemMessage("Você é um vendedor."), llm.UserMessage(text)}}
}

// lastMessages returns the messages of the n-th request after the first k.
func toolMessages(req llm.Request) []llm.Message {
	var out []llm.Message
	for _, m := range req.Messages {
		if m.Role == llm.RoleTool {
			out = append(out, m)
		}
	}
	return out
}

func TestRunToolsAnswerWithoutTools(t *testing.T) {
	model := llmtest.NewModel(llmtest.Text("Olá!").WithUsage(12, 3))
	rec := &recorder{result: `[]`}
	res, err := llm.RunTools(context.Background(), model, userReq("oi"), []llm.Tool{searchTool(rec.handle)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Response.Message.Content != "Olá!" || res.Pending != nil {
		t.Errorf("result = %q pending=%v", res.Response.Message.Content, res.Pending)
	}
	if got := res.Iterations[0].Response.Usage; len(res.Iterations) != 1 || got != (llm.Usage{PromptTokens: 12, CompletionTokens: 3, TotalTokens: 15}) {
		t.Errorf("usage = %+v", got)
	}
	reqs := model.Requests()
	if len(reqs) != 1 || len(reqs[0].Tools) != 1 || reqs[0].Tools[0].Name != "searchCatalog" || len(reqs[0].Tools[0].InputExamples) != 2 {
		t.Fatalf("request tools = %+v", reqs)
	}
	if len(res.Messages) != 3 || res.Messages[2].Role != llm.RoleAssistant {
		t.Errorf("transcript = %+v", res.Messages)
	}
	if len(rec.calls()) != 0 {
		t.Error("handler called")
	}
}

// Event kinds are readable names, like rag's, in logs and in JSON.
func TestEventKindIsReadable(t *testing.T) {
	model := llmtest.NewModel(
		llmtest.ToolCalls(llmtest.Call("c1", "searchCatalog", `{"query":"x"}`)),
		llmtest.Text("pronto"),
	)
	var kinds []string
	opts := &llm.RunOptions{Stream: true, OnEvent: func(ev llm.Event) {
		b, err := json.Marshal(struct{ Kind llm.EventKind }{ev.Kind})
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, fmt.Sprint(ev.Kind)+" "+string(b))
	}}
	if _, err := llm.RunTools(context.Background(), model, userReq("x"), []llm.Tool{searchTool((&recorder{result: "[]"}).handle)}, opts); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`model_response {"Kind":"model_response"}`,
		`tool_result {"Kind":"tool_result"}`,
		`text_delta {"Kind":"text_delta"}`,
		`model_response {"Kind":"model_response"}`,
	}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestRunToolsOneRound(t *testing.T) {
	model := llmtest.NewModel(
		llmtest.ToolCalls(llmtest.Call("c1", "searchCatalog", `{"query":"fungicida","limit":2}`)).WithUsage(100, 20),
		llmtest.Text("Temos o Fungicida X.").WithUsage(150, 10),
	)
	rec := &recorder{result: `[{"name":"Fungicida X"}]`}
	var events []string
	opts := &llm.RunOptions{OnEvent: func(ev llm.Event) {
		switch ev.Kind {
		case llm.EventModelResponse:
			events = append(events, fmt.Sprintf("model#%d calls=%d", ev.Iteration, len(ev.Response.Message.ToolCalls)))
		case llm.EventToolResult:
			events = append(events, fmt.Sprintf("tool#%d %s %s", ev.Iteration, ev.Tool.Call.Name, ev.Tool.Status))
		}
	}}
	input := userReq("tem fungicida?")
	res, err := llm.RunTools(context.Background(), model, input, []llm.Tool{searchTool(rec.handle)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Response.Message.Content != "Temos o Fungicida X." {
		t.Errorf("text = %q", res.Response.Message.Content)
	}
	if diff := cmp.Diff([]string{`{"query":"fungicida","limit":2}`}, rec.calls()); diff != "" {
		t.Errorf("handler args (-want +got):\n%s", diff)
	}
	want := []string{"model#1 calls=1", "tool#1 searchCatalog ok", "model#2 calls=0"}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	wantSecond := []llm.Message{
		input.Messages[0], input.Messages[1],
		llm.AssistantMessage("", llmtest.Call("c1", "searchCatalog", `{"query":"fungicida","limit":2}`)),
		{Role: llm.RoleTool, ToolCallID: "c1", ToolName: "searchCatalog", Content: `[{"name":"Fungicida X"}]`},
	}
	if diff := cmp.Diff(wantSecond, reqs[1].Messages); diff != "" {
		t.Errorf("second request messages (-want +got):\n%s", diff)
	}
	if len(res.Iterations) != 2 || res.Iterations[0].Response.Usage.TotalTokens+res.Iterations[1].Response.Usage.TotalTokens != 280 || len(res.Iterations[0].Tools) != 1 {
		t.Errorf("iterations %+v", res.Iterations)
	}
	if len(input.Messages) != 2 {
		t.Error("caller's request was modified")
	}
}

func TestRunToolsMaxIterations(t *testing.T) {
	for _, max := range []int{0, 2} {
		want := max
		if want == 0 {
			want = llm.DefaultMaxIterations
		}
		t.Run(fmt.Sprintf("max=%d", max), func(t *testing.T) {
			model := llmtest.NewModel()
			for i := range want + 1 {
				model.Push(llmtest.ToolCalls(llmtest.Call(fmt.Sprintf("c%d", i), "searchCatalog", `{"query":"x"}`)))
			}
			rec := &recorder{result: "[]"}
			res, err := llm.RunTools(context.Background(), model, userReq("loop"), []llm.Tool{searchTool(rec.handle)}, &llm.RunOptions{MaxIterations: max})
			if !errors.Is(err, llm.ErrMaxIterations) {
				t.Fatalf("err = %v, want ErrMaxIterations", err)
			}
			var mie *llm.MaxIterationsExceededError
			if !errors.As(err, &mie) || mie.MaxIterations != want || len(mie.Pending) != 1 {
				t.Fatalf("err = %#v", err)
			}
			if got := fmt.Sprintf("llm: max tool loop iterations (%d) exceeded", want); err.Error() != got {
				t.Errorf("message %q, want %q", err.Error(), got)
			}
			if model.Calls() != want {
				t.Errorf("model calls = %d, want %d", model.Calls(), want)
			}
			if got := len(rec.calls()); got != want-1 {
				t.Errorf("tool executions = %d, want %d (last turn not executed)", got, want-1)
			}
			if res == nil || len(res.Iterations) != want {
				t.Errorf("partial result = %+v", res)
			}
		})
	}
}

func TestRunToolsErrorResults(t *testing.T) {
	tests := []struct {
		name       string
		call       llm.ToolCall
		handler    llm.ToolHandler
		wantStatus llm.ToolStatus
		wantResult string
		wantErr    error // matched with errors.Is on ToolExecution.Err; nil skips
	}{
		{
			name:       "handler error",
			call:       llmtest.Call("c1", "searchCatalog", `{"query":"x"}`),
			handler:    func(context.Context, json.RawMessage) (string, error) { return "", errors.New("catalog offline") },
			wantStatus: llm.ToolFailed,
			wantResult: `{"error":"catalog offline"}`,
		},
		{
			name:       "panic",
			call:       llmtest.Call("c1", "searchCatalog", `{"query":"x"}`),
			handler:    func(context.Context, json.RawMessage) (string, error) { panic("nil map") },
			wantStatus: llm.ToolFailed,
			wantResult: `{"error":"the tool failed with an internal error"}`,
		},
		{
			name:       "schema violation",
			call:       llmtest.Call("c1", "searchCatalog", `{"query":"x","limit":12}`),
			wantStatus: llm.ToolInvalidArguments,
			wantResult: `{"error":"invalid arguments: $.limit: must be <= 10 (got 12)"}`,
			wantErr:    llm.ErrInvalidArguments,
		},
		{
			name:       "malformed JSON",
			call:       llmtest.Call("c1", "searchCatalog", `{"query":`),
			wantStatus: llm.ToolInvalidArguments,
			wantResult: `{"error":"invalid arguments: $: not valid JSON: unexpected EOF"}`,
			wantErr:    llm.ErrInvalidArguments,
		},
		{
			name:       "empty arguments against required",
			call:       llmtest.Call("c1", "searchCatalog", ``),
			wantStatus: llm.ToolInvalidArguments,
			wantResult: `{"error":"invalid arguments: $: missing required property \"query\""}`,
		},
		{
			name:       "unknown tool",
			call:       llmtest.Call("c1", "deleteEverything", `{}`),
			wantStatus: llm.ToolUnknown,
			wantResult: `{"error":"unknown tool \"deleteEverything\"; available tools: searchCatalog"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := llmtest.NewModel(llmtest.ToolCalls(tt.call), llmtest.Text("Desculpe, tente mais tarde."))
			called := false
			h := tt.handler
			if h == nil {
				h = func(context.Context, json.RawMessage) (string, error) { called = true; return "[]", nil }
			}
			res, err := llm.RunTools(context.Background(), model, userReq("x"), []llm.Tool{searchTool(h)}, nil)
			if err != nil {
				t.Fatalf("RunTools error = %v, want the model to get an error result", err)
			}
			if called {
				t.Error("handler ran for an invalid call")
			}
			if res.Response.Message.Content != "Desculpe, tente mais tarde." {
				t.Errorf("final answer %q", res.Response.Message.Content)
			}
			exec := res.Iterations[0].Tools[0]
			if exec.Status != tt.wantStatus || exec.Err == nil {
				t.Errorf("execution = %+v, want status %s with Err", exec, tt.wantStatus)
			}
			if tt.wantErr != nil && !errors.Is(exec.Err, tt.wantErr) {
				t.Errorf("execution error %v, want %v", exec.Err, tt.wantErr)
			}
			got := toolMessages(model.Requests()[1])
			want := []llm.Message{{Role: llm.RoleTool, ToolCallID: "c1", ToolName: tt.call.Name, Content: tt.wantResult, IsError: true}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("tool message sent to the model (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunToolsParallelCalls(t *testing.T) {
	const n = 3
	var started sync.WaitGroup
	started.Add(n)
	var running, peak atomic.Int32
	h := func(ctx context.Context, args json.RawMessage) (string, error) {
		cur := running.Add(1)
		defer running.Add(-1)
		for {
			p := peak.Load()
			if cur <= p || peak.CompareAndSwap(p, cur) {
				break
			}
		}
		started.Done()
		started.Wait() // returns only if all n calls run at the same time
		var in struct{ Query string }
		_ = json.Unmarshal(args, &in)
		return `"` + in.Query + `"`, nil
	}
	model := llmtest.NewModel(
		llmtest.ToolCalls(
			llmtest.Call("a", "searchCatalog", `{"query":"soja"}`),
			llmtest.Call("b", "searchCatalog", `{"query":"milho"}`),
			llmtest.Call("c", "searchCatalog", `{"query":"café"}`),
		),
		llmtest.Text("pronto"),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := llm.RunTools(ctx, model, userReq("x"), []llm.Tool{searchTool(h)}, &llm.RunOptions{MaxParallelTools: n})
	if err != nil {
		t.Fatal(err)
	}
	if peak.Load() != n {
		t.Errorf("peak concurrency %d, want %d", peak.Load(), n)
	}
	var got []string
	for _, m := range toolMessages(model.Requests()[1]) {
		got = append(got, m.ToolCallID+"="+m.Content)
	}
	if diff := cmp.Diff([]string{`a="soja"`, `b="milho"`, `c="café"`}, got); diff != "" {
		t.Errorf("results not in call order (-want +got):\n%s", diff)
	}
	if res.Response.Message.Content != "pronto" {
		t.Errorf("text %q", res.Response.Message.Content)
	}
}

func TestRunToolsSequentialWhenMaxParallelIsOne(t *testing.T) {
	var running, peak atomic.Int32
	h := func(context.Context, json.RawMessage) (string, error) {
		if cur := running.Add(1); cur > peak.Load() {
			peak.Store(cur)
		}
		time.Sleep(time.Millisecond)
		running.Add(-1)
		return "[]", nil
	}
	model := llmtest.NewModel(
		llmtest.ToolCalls(llmtest.Call("a", "searchCatalog", `{"query":"1"}`), llmtest.Call("b", "searchCatalog", `{"query":"2"}`), llmtest.Call("c", "searchCatalog", `{"query":"3"}`)),
		llmtest.Text("ok"),
	)
	if _, err := llm.RunTools(context.Background(), model, userReq("x"), []llm.Tool{searchTool(h)}, &llm.RunOptions{MaxParallelTools: 1}); err != nil {
		t.Fatal(err)
	}
	if peak.Load() != 1 {
		t.Errorf("peak concurrency %d, want 1", peak.Load())
	}
}

func TestRunToolsToolTimeout(t *testing.T) {
	h := func(ctx context.Context, _ json.RawMessage) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}
	model := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("c1", "searchCatalog", `{"query":"x"}`)), llmtest.Text("sem resultado"))
	res, err := llm.RunTools(context.Background(), model, userReq("x"), []llm.Tool{searchTool(h)}, &llm.RunOptions{ToolTimeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	exec := res.Iterations[0].Tools[0]
	if exec.Status != llm.ToolFailed || !errors.Is(exec.Err, context.DeadlineExceeded) {
		t.Errorf("execution = %+v", exec)
	}
	if got := toolMessages(model.Requests()[1])[0].Content; got != `{"error":"the tool timed out after 20ms"}` {
		t.Errorf("tool result %q", got)
	}
}

func TestRunToolsCancellation(t *testing.T) {
	t.Run("while the model runs", func(t *testing.T) {
		model := llmtest.NewModel(llmtest.Hang())
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		_, err := llm.RunTools(ctx, model, userReq("x"), []llm.Tool{searchTool((&recorder{}).handle)}, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("while a tool ignores ctx", func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		h := func(context.Context, json.RawMessage) (string, error) { <-release; return "late", nil }
		model := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("c1", "searchCatalog", `{"query":"x"}`)), llmtest.Text("never"))
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		res, err := llm.RunTools(ctx, model, userReq("x"), []llm.Tool{searchTool(h)}, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if model.Calls() != 1 {
			t.Errorf("model called %d times after cancellation", model.Calls())
		}
		if exec := res.Iterations[0].Tools[0]; exec.Status != llm.ToolFailed || !errors.Is(exec.Err, context.Canceled) {
			t.Errorf("execution = %+v", exec)
		}
	})
	t.Run("already cancelled", func(t *testing.T) {
		model := llmtest.NewModel(llmtest.Text("x"))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := llm.RunTools(ctx, model, userReq("x"), nil, nil); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
		if model.Calls() != 0 {
			t.Error("model called with a cancelled context")
		}
	})
}

func TestRunToolsResetsForcedToolChoice(t *testing.T) {
	model := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("c1", "searchCatalog", `{"query":"x"}`)), llmtest.Text("ok"))
	req := userReq("x")
	req.ToolChoice = llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "searchCatalog"}
	if _, err := llm.RunTools(context.Background(), model, req, []llm.Tool{searchTool((&recorder{result: "[]"}).handle)}, nil); err != nil {
		t.Fatal(err)
	}
	reqs := model.Requests()
	if reqs[0].ToolChoice != (llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "searchCatalog"}) || reqs[1].ToolChoice.Mode != llm.ToolChoiceAuto {
		t.Errorf("tool choices = %+v, %+v", reqs[0].ToolChoice, reqs[1].ToolChoice)
	}
}

func TestRunToolsStreamEvents(t *testing.T) {
	model := llmtest.NewModel(
		llmtest.ToolCalls(llmtest.Call("c1", "searchCatalog", `{"query":"x"}`)),
		llmtest.Step{Response: llmtest.Text("Temos dois.").Response, Chunks: []string{"Temos", " dois."}},
	)
	var deltas []string
	opts := &llm.RunOptions{Stream: true, OnEvent: func(ev llm.Event) {
		if ev.Kind == llm.EventTextDelta {
			deltas = append(deltas, fmt.Sprintf("%d:%s", ev.Iteration, ev.Text))
		}
	}}
	res, err := llm.RunTools(context.Background(), model, userReq("x"), []llm.Tool{searchTool((&recorder{result: "[]"}).handle)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"2:Temos", "2: dois."}, deltas); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
	if res.Response.Message.Content != "Temos dois." {
		t.Errorf("text %q", res.Response.Message.Content)
	}
}

func TestRunToolsModelError(t *testing.T) {
	boom := &llm.APIError{Provider: "test", StatusCode: 503, Retryable: true}
	model := llmtest.NewModel(llmtest.ToolCalls(llmtest.Call("c1", "searchCatalog", `{"query":"x"}`)), llmtest.Fail(boom))
	res, err := llm.RunTools(context.Background(), model, userReq("x"), []llm.Tool{searchTool((&recorder{result: "[]"}).handle)}, nil)
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 || !strings.Contains(err.Error(), "iteration 2") {
		t.Fatalf("err = %v", err)
	}
	if res == nil || len(res.Messages) != 4 {
		t.Errorf("partial transcript = %+v", res)
	}
}

func TestRunToolsRejectsBadInput(t *testing.T) {
	good := searchTool((&recorder{}).handle)
	badExample := good
	badExample.InputExamples = []json.RawMessage{json.RawMessage(`{"limit":3}`)}
	noHandler := good
	noHandler.Handler = nil
	badName := good
	badName.Name = "search catalog"
	badSchema := good
	badSchema.Parameters = json.RawMessage(`{"$ref":"#/x"}`)
	withTools := userReq("x")
	withTools.Tools = []llm.ToolDefinition{good.ToolDefinition}
	tests := []struct {
		name  string
		req   llm.Request
		tools []llm.Tool
		want  error
	}{
		{"tools in request", withTools, []llm.Tool{good}, llm.ErrInvalidRequest},
		{"invalid example", userReq("x"), []llm.Tool{badExample}, llm.ErrInvalidTool},
		{"nil handler", userReq("x"), []llm.Tool{noHandler}, llm.ErrInvalidTool},
		{"bad name", userReq("x"), []llm.Tool{badName}, llm.ErrInvalidTool},
		{"duplicate", userReq("x"), []llm.Tool{good, good}, llm.ErrInvalidTool},
		{"unresolvable schema", userReq("x"), []llm.Tool{badSchema}, llm.ErrInvalidSchema},
		{"no messages", llm.Request{}, []llm.Tool{good}, llm.ErrInvalidRequest},
		{"forced tool not offered", llm.Request{Messages: userReq("x").Messages, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "nope"}}, []llm.Tool{good}, llm.ErrInvalidRequest},
	}
	if err := llm.ValidateTools([]llm.Tool{good}); err != nil {
		t.Errorf("ValidateTools(good) = %v", err)
	}
	if err := llm.ValidateTools([]llm.Tool{badExample}); !errors.Is(err, llm.ErrInvalidTool) || !strings.Contains(err.Error(), "input example 0") {
		t.Errorf("ValidateTools(bad example) = %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := llmtest.NewModel(llmtest.Text("x"))
			_, err := llm.RunTools(context.Background(), model, tt.req, tt.tools, nil)
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
			if model.Calls() != 0 {
				t.Error("model called")
			}
		})
	}
}

func TestTypedHandler(t *testing.T) {
	type in struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	h := llm.TypedHandler(func(_ context.Context, v in) ([]string, error) {
		return []string{v.Query, fmt.Sprint(v.Limit)}, nil
	})
	got, err := h(context.Background(), json.RawMessage(`{"query":"soja","limit":2}`))
	if err != nil || got != `["soja","2"]` {
		t.Errorf("got %q, %v", got, err)
	}
	str := llm.TypedHandler(func(_ context.Context, v in) (string, error) { return "raw " + v.Query, nil })
	if got, _ := str(context.Background(), json.RawMessage(`{"query":"x"}`)); got != "raw x" {
		t.Errorf("string output %q", got)
	}
	if _, err := h(context.Background(), json.RawMessage(`{"limit":"two"}`)); err == nil {
		t.Error("want a decode error")
	}
}
