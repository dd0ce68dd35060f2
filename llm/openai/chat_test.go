package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hybridrag/hybridrag/llm"
	llmopenai "github.com/hybridrag/hybridrag/llm/openai"
)

var _ llm.ChatModel = (*llmopenai.Model)(nil)

func chatReq() llm.Request {
	return llm.Request{
		Messages: []llm.Message{
			llm.SystemMessage("Você atende uma loja agropecuária."),
			llm.UserMessage("Vocês têm fungicida para soja?"),
		},
		Temperature: llm.Temperature(0),
		MaxTokens:   200,
	}
}

var catalogTool = llm.ToolDefinition{
	Name:        "searchCatalog",
	Description: "Busca produtos no catálogo.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","maximum":10}},"required":["query"],"additionalProperties":false}`),
	InputExamples: []json.RawMessage{
		json.RawMessage(`{"query": "fungicida para soja"}`),
		json.RawMessage(`{"query":"adubo","limit":3}`),
	},
}

func TestCompletePlainAnswer(t *testing.T) {
	srv := newFakeServer(t, jsonBody(200, completionText))
	m := llmopenai.New(srv.client(0), llmopenai.Options{Model: "gpt-4o-mini"})
	resp, err := m.Complete(context.Background(), chatReq())
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Response{
		ID:           "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
		Model:        "gpt-4o-mini-2024-07-18",
		Message:      llm.AssistantMessage("Sim! Temos o Fungicida Azoxistrobina 250 SC."),
		FinishReason: llm.FinishStop,
		Usage:        llm.Usage{PromptTokens: 19, CompletionTokens: 10, TotalTokens: 29},
	}
	if diff := cmp.Diff(want, resp); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Method != http.MethodPost || r.Path != "/v1/chat/completions" {
		t.Errorf("sent %s %s", r.Method, r.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got)
	}
	wantBody := mustJSON(t, `{
		"model": "gpt-4o-mini",
		"messages": [
			{"role": "system", "content": "Você atende uma loja agropecuária."},
			{"role": "user", "content": "Vocês têm fungicida para soja?"}
		],
		"temperature": 0,
		"max_completion_tokens": 200
	}`)
	if diff := cmp.Diff(wantBody, any(r.Body)); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
}

func TestCompleteToolCalls(t *testing.T) {
	srv := newFakeServer(t, jsonBody(200, completionToolCalls))
	m := llmopenai.New(srv.client(0), llmopenai.Options{})
	req := llm.Request{
		Model: "gpt-4.1-mini",
		Messages: []llm.Message{
			llm.UserMessage("Fungicida para soja? E o frete?"),
			llm.AssistantMessage("", llm.ToolCall{ID: "call_0", Name: "searchCatalog", Arguments: `{"query":"soja"}`}),
			{Role: llm.RoleTool, ToolCallID: "call_0", ToolName: "searchCatalog", Content: `[]`, IsError: false},
		},
		Tools:      []llm.ToolDefinition{catalogTool, {Name: "searchFaqs", Strict: true}},
		ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "searchCatalog"},
	}
	resp, err := m.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	wantCalls := []llm.ToolCall{
		{ID: "call_abc123", Name: "searchCatalog", Arguments: `{"query":"fungicida soja"}`},
		{ID: "call_def456", Name: "searchFaqs", Arguments: `{"query":"frete"}`},
	}
	if diff := cmp.Diff(wantCalls, resp.Message.ToolCalls); diff != "" {
		t.Errorf("tool calls (-want +got):\n%s", diff)
	}
	if resp.FinishReason != llm.FinishToolCalls || resp.Message.Content != "" || resp.Usage.TotalTokens != 99 {
		t.Errorf("response = %+v", resp)
	}
	body := srv.Requests()[0].Body
	wantTools := mustJSON(t, `[
		{"type": "function", "function": {
			"name": "searchCatalog",
			"description": "Busca produtos no catálogo.\n\nExamples of valid arguments:\n{\"query\":\"fungicida para soja\"}\n{\"query\":\"adubo\",\"limit\":3}",
			"parameters": {"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer","maximum":10}},"required":["query"],"additionalProperties":false}
		}},
		{"type": "function", "function": {"name": "searchFaqs", "strict": true, "parameters": {"type": "object", "properties": {}}}}
	]`)
	if diff := cmp.Diff(wantTools, body["tools"]); diff != "" {
		t.Errorf("tools sent (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(mustJSON(t, `{"type":"function","function":{"name":"searchCatalog"}}`), body["tool_choice"]); diff != "" {
		t.Errorf("tool_choice sent (-want +got):\n%s", diff)
	}
	wantMessages := mustJSON(t, `[
		{"role": "user", "content": "Fungicida para soja? E o frete?"},
		{"role": "assistant", "tool_calls": [{"id": "call_0", "type": "function", "function": {"name": "searchCatalog", "arguments": "{\"query\":\"soja\"}"}}]},
		{"role": "tool", "tool_call_id": "call_0", "content": "[]"}
	]`)
	if diff := cmp.Diff(wantMessages, body["messages"]); diff != "" {
		t.Errorf("messages sent (-want +got):\n%s", diff)
	}
	if body["model"] != "gpt-4.1-mini" {
		t.Errorf("model %v, want the request's override", body["model"])
	}
	if _, ok := body["stream"]; ok {
		t.Error("stream flag sent on Complete")
	}
}

func TestToolChoiceModes(t *testing.T) {
	tests := []struct {
		choice llm.ToolChoice
		want   any // nil: absent
	}{
		{llm.ToolChoice{}, nil},
		{llm.ToolChoice{Mode: llm.ToolChoiceAuto}, "auto"},
		{llm.ToolChoice{Mode: llm.ToolChoiceRequired}, "required"},
		{llm.ToolChoice{Mode: llm.ToolChoiceNone}, "none"},
	}
	for _, tt := range tests {
		t.Run(string(tt.choice.Mode), func(t *testing.T) {
			srv := newFakeServer(t, jsonBody(200, completionText))
			req := chatReq()
			req.Tools = []llm.ToolDefinition{catalogTool}
			req.ToolChoice = tt.choice
			if _, err := llmopenai.New(srv.client(0), llmopenai.Options{}).Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			got, ok := srv.Requests()[0].Body["tool_choice"]
			if (tt.want == nil && ok) || (tt.want != nil && got != tt.want) {
				t.Errorf("tool_choice = %v (present %v), want %v", got, ok, tt.want)
			}
		})
	}
}

func TestOptions(t *testing.T) {
	srv := newFakeServer(t, jsonBody(200, completionText))
	req := chatReq()
	req.Tools = []llm.ToolDefinition{catalogTool}
	base := llmopenai.New(srv.client(0), llmopenai.Options{
		LegacyMaxTokens:  true,
		OmitToolExamples: true,
	})
	other := base.WithModel("llama3.1")
	if base.Name() != "gpt-4o-mini" || other.Name() != "llama3.1" {
		t.Errorf("names %q %q: WithModel must return a copy", base.Name(), other.Name())
	}
	if _, err := other.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Body["model"] != "llama3.1" || r.Body["max_tokens"] != 200.0 || r.Body["max_completion_tokens"] != nil {
		t.Errorf("body %s", r.Raw)
	}
	desc := r.Body["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)["description"]
	if desc != "Busca produtos no catálogo." {
		t.Errorf("description with examples omitted = %q", desc)
	}
}

func TestInvalidRequestIsNotSent(t *testing.T) {
	srv := newFakeServer(t, jsonBody(200, completionText))
	m := llmopenai.New(srv.client(0), llmopenai.Options{})
	req := chatReq()
	req.ToolChoice = llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "nope"}
	if _, err := m.Complete(context.Background(), req); !errors.Is(err, llm.ErrInvalidRequest) {
		t.Errorf("Complete: %v", err)
	}
	if _, err := llm.Collect(m.Stream(context.Background(), llm.Request{}), nil); !errors.Is(err, llm.ErrInvalidRequest) {
		t.Errorf("Stream: %v", err)
	}
	bad := chatReq()
	bad.Tools = []llm.ToolDefinition{{Name: "x", Parameters: json.RawMessage(`[1]`)}}
	if _, err := m.Complete(context.Background(), bad); !errors.Is(err, llm.ErrInvalidTool) {
		t.Errorf("array parameters: %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

func TestCompleteErrors(t *testing.T) {
	tests := []struct {
		name       string
		responses  []http.HandlerFunc
		retries    int
		wantHits   int
		wantStatus int
		wantCode   string
		retryable  bool
		wantIs     error
	}{
		{
			name:      "429 then success",
			responses: []http.HandlerFunc{jsonBody(429, errRateLimit, "Retry-After", "0"), jsonBody(200, completionText)},
			retries:   2, wantHits: 2,
		},
		{
			name:      "429 exhausted",
			responses: []http.HandlerFunc{jsonBody(429, errRateLimit, "Retry-After-Ms", "0")},
			retries:   1, wantHits: 2,
			wantStatus: 429, wantCode: "rate_limit_exceeded", retryable: true,
		},
		{
			name:      "500",
			responses: []http.HandlerFunc{jsonBody(500, errServer, "Retry-After-Ms", "0")},
			retries:   1, wantHits: 2,
			wantStatus: 500, retryable: true,
		},
		{
			name:      "503 without retries",
			responses: []http.HandlerFunc{jsonBody(503, `{"error":{"message":"overloaded","type":"server_error"}}`)},
			retries:   0, wantHits: 1,
			wantStatus: 503, retryable: true,
		},
		{
			name:      "401 not retried",
			responses: []http.HandlerFunc{jsonBody(401, errInvalidKey)},
			retries:   2, wantHits: 1,
			wantStatus: 401, wantCode: "invalid_api_key",
		},
		{
			name:      "400 not retried",
			responses: []http.HandlerFunc{jsonBody(400, errContextLimit)},
			retries:   2, wantHits: 1,
			wantStatus: 400, wantCode: "context_length_exceeded",
		},
		{
			name:      "malformed JSON",
			responses: []http.HandlerFunc{jsonBody(200, `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,`)},
			retries:   2, wantHits: 1,
			wantIs: llm.ErrInvalidResponse,
		},
		{
			name:      "no choices",
			responses: []http.HandlerFunc{jsonBody(200, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[]}`)},
			retries:   0, wantHits: 1,
			wantIs: llm.ErrInvalidResponse,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, tt.responses...)
			start := time.Now()
			resp, err := llmopenai.New(srv.client(tt.retries), llmopenai.Options{}).Complete(context.Background(), chatReq())
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("took %s; retries must follow Retry-After", elapsed)
			}
			if got := len(srv.Requests()); got != tt.wantHits {
				t.Errorf("server hit %d times, want %d", got, tt.wantHits)
			}
			if tt.wantStatus == 0 && tt.wantIs == nil {
				if err != nil || resp.Message.Content == "" {
					t.Fatalf("got %+v, %v", resp, err)
				}
				return
			}
			if tt.wantIs != nil {
				if !errors.Is(err, tt.wantIs) {
					t.Fatalf("err = %v, want %v", err, tt.wantIs)
				}
				return
			}
			var apiErr *llm.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %#v, want *llm.APIError", err)
			}
			if apiErr.StatusCode != tt.wantStatus || apiErr.Code != tt.wantCode || apiErr.Retryable != tt.retryable || apiErr.Provider != "openai" {
				t.Errorf("APIError = %+v", apiErr)
			}
			if llm.IsRetryable(err) != tt.retryable {
				t.Errorf("IsRetryable = %v", llm.IsRetryable(err))
			}
			if text := fmt.Sprintf("%v %+v %#v", err, err, apiErr); strings.Contains(text, testKey) {
				t.Errorf("error text leaks the API key: %s", text)
			}
		})
	}
}

func TestCompleteContextDeadline(t *testing.T) {
	srv := newFakeServer(t, stall())
	m := llmopenai.New(srv.client(2), llmopenai.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := m.Complete(ctx, chatReq())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Errorf("returned after %s, want promptly after the deadline", elapsed)
	}
	if llm.IsRetryable(err) {
		t.Error("a deadline is not retryable")
	}
}

func TestTransportError(t *testing.T) {
	srv := newFakeServer(t, jsonBody(200, completionText))
	c := srv.client(0)
	srv.Close() // connection refused from now on
	_, err := llmopenai.New(c, llmopenai.Options{}).Complete(context.Background(), chatReq())
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 0 || !apiErr.Retryable {
		t.Fatalf("err = %#v, want a retryable transport APIError", err)
	}
	if strings.Contains(err.Error(), srv.URL) {
		t.Errorf("error text contains the URL: %v", err)
	}
}

func TestCompleteJSON(t *testing.T) {
	body := strings.Replace(completionText, `"Sim! Temos o Fungicida Azoxistrobina 250 SC."`, `"{\"intent\":\"catalog\",\"confidence\":0.93}"`, 1)
	srv := newFakeServer(t, jsonBody(200, body))
	m := llmopenai.New(srv.client(0), llmopenai.Options{})
	schema := json.RawMessage(`{"type":"object","properties":{"intent":{"type":"string","enum":["catalog","faq"]},"confidence":{"type":"number"}},"required":["intent","confidence"],"additionalProperties":false}`)
	var out struct {
		Intent     string  `json:"intent"`
		Confidence float64 `json:"confidence"`
	}
	if _, err := llm.CompleteJSON(context.Background(), m, chatReq(), llm.ResponseFormat{Name: "intent", Schema: schema, Strict: true}, &out); err != nil {
		t.Fatal(err)
	}
	if out.Intent != "catalog" || out.Confidence != 0.93 {
		t.Errorf("decoded %+v", out)
	}
	want := mustJSON(t, `{"type":"json_schema","json_schema":{"name":"intent","strict":true,"schema":`+string(schema)+`}}`)
	if diff := cmp.Diff(want, srv.Requests()[0].Body["response_format"]); diff != "" {
		t.Errorf("response_format sent (-want +got):\n%s", diff)
	}
}
