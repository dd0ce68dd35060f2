package openai_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hybridrag/hybridrag/llm"
	llmopenai "github.com/hybridrag/hybridrag/llm/openai"
)

// streamEvents collects a stream as readable strings.
func streamEvents(t *testing.T, m llm.ChatModel, ctx context.Context, req llm.Request) ([]string, *llm.Response, error) {
	t.Helper()
	var got []string
	var done *llm.Response
	for ev, err := range m.Stream(ctx, req) {
		if err != nil {
			return got, done, err
		}
		switch ev.Kind {
		case llm.StreamTextDelta:
			got = append(got, "text:"+ev.Text)
		case llm.StreamToolCall:
			got = append(got, "call:"+ev.ToolCall.ID+":"+ev.ToolCall.Name+":"+ev.ToolCall.Arguments)
		case llm.StreamDone:
			done = ev.Response
			got = append(got, "done")
		}
	}
	return got, done, nil
}

func TestStreamTextAndToolCallDeltas(t *testing.T) {
	srv := newFakeServer(t, sse(
		deltaChunk(`{"role":"assistant","content":"","refusal":null}`, ""),
		deltaChunk(`{"content":"Vou "}`, ""),
		deltaChunk(`{"content":"buscar."}`, ""),
		// Two parallel calls, their argument deltas split and interleaved.
		deltaChunk(`{"tool_calls":[{"index":0,"id":"call_DdmO9pD3xa9XTPNJ32zg2hcA","type":"function","function":{"name":"searchCatalog","arguments":""}}]}`, ""),
		deltaChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"qu"}}]}`, ""),
		deltaChunk(`{"tool_calls":[{"index":1,"id":"call_ABC","type":"function","function":{"name":"searchFaqs","arguments":"{\"query\""}}]}`, ""),
		deltaChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"ery\":\"fungicida "}}]}`, ""),
		deltaChunk(`{"tool_calls":[{"index":1,"function":{"arguments":":\"frete\"}"}}]}`, ""),
		deltaChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"soja\"}"}}]}`, ""),
		deltaChunk(`{}`, "tool_calls"),
		usageChunk,
		"[DONE]",
	))
	m := llmopenai.New(srv.client(0), llmopenai.Options{Model: "gpt-4o-mini"})
	req := chatReq()
	req.Tools = []llm.ToolDefinition{catalogTool, {Name: "searchFaqs"}}
	got, done, err := streamEvents(t, m, context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"text:Vou ",
		"text:buscar.",
		`call:call_DdmO9pD3xa9XTPNJ32zg2hcA:searchCatalog:{"query":"fungicida soja"}`,
		`call:call_ABC:searchFaqs:{"query":"frete"}`,
		"done",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	wantResp := &llm.Response{
		ID:    "chatcmpl-stream1",
		Model: "gpt-4o-mini-2024-07-18",
		Message: llm.AssistantMessage("Vou buscar.",
			llm.ToolCall{ID: "call_DdmO9pD3xa9XTPNJ32zg2hcA", Name: "searchCatalog", Arguments: `{"query":"fungicida soja"}`},
			llm.ToolCall{ID: "call_ABC", Name: "searchFaqs", Arguments: `{"query":"frete"}`}),
		FinishReason: llm.FinishToolCalls,
		Usage:        llm.Usage{PromptTokens: 90, CompletionTokens: 31, TotalTokens: 121},
	}
	if diff := cmp.Diff(wantResp, done); diff != "" {
		t.Errorf("final response (-want +got):\n%s", diff)
	}
	r := srv.Requests()[0]
	if r.Path != "/v1/chat/completions" || r.Body["stream"] != true {
		t.Errorf("sent %s stream=%v", r.Path, r.Body["stream"])
	}
	if diff := cmp.Diff(map[string]any{"include_usage": true}, r.Body["stream_options"]); diff != "" {
		t.Errorf("stream_options (-want +got):\n%s", diff)
	}
	if len(r.Body["tools"].([]any)) != 2 || r.Header.Get("Authorization") != "Bearer "+testKey {
		t.Errorf("tools or auth missing: %s", r.Raw)
	}
}

func TestStreamTextOnly(t *testing.T) {
	srv := newFakeServer(t, sse(
		deltaChunk(`{"role":"assistant","content":""}`, ""),
		deltaChunk(`{"content":"Olá"}`, ""),
		deltaChunk(`{"content":"!"}`, ""),
		deltaChunk(`{}`, "stop"),
		"[DONE]",
	))
	m := llmopenai.New(srv.client(0), llmopenai.Options{DisableStreamUsage: true})
	var b strings.Builder
	resp, err := llm.Collect(m.Stream(context.Background(), chatReq()), func(s string) { b.WriteString(s) })
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "Olá!" || b.String() != "Olá!" || resp.FinishReason != llm.FinishStop || len(resp.Message.ToolCalls) != 0 {
		t.Errorf("response %+v, deltas %q", resp, b.String())
	}
	if _, ok := srv.Requests()[0].Body["stream_options"]; ok {
		t.Error("stream_options sent with DisableStreamUsage")
	}
}

func TestStreamFailures(t *testing.T) {
	t.Run("error event", func(t *testing.T) {
		srv := newFakeServer(t, sse(
			deltaChunk(`{"content":"Par"}`, ""),
			`{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`,
		))
		got, _, err := streamEvents(t, llmopenai.New(srv.client(0), llmopenai.Options{}), context.Background(), chatReq())
		var apiErr *llm.APIError
		if !errors.As(err, &apiErr) || !apiErr.Retryable || apiErr.Type != "server_error" || !strings.Contains(apiErr.Message, "server had an error") {
			t.Fatalf("err = %#v", err)
		}
		if !cmp.Equal(got, []string{"text:Par"}) {
			t.Errorf("events before the error %q", got)
		}
	})
	t.Run("ends without finish reason or [DONE]", func(t *testing.T) {
		srv := newFakeServer(t, sse(deltaChunk(`{"content":"Par"}`, "")))
		_, _, err := streamEvents(t, llmopenai.New(srv.client(0), llmopenai.Options{}), context.Background(), chatReq())
		if !errors.Is(err, llm.ErrInvalidResponse) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("malformed chunk", func(t *testing.T) {
		srv := newFakeServer(t, sse(`{"id":"chatcmpl-1","choices":[{"index":0,"delta":{"content":"x"`))
		_, _, err := streamEvents(t, llmopenai.New(srv.client(0), llmopenai.Options{}), context.Background(), chatReq())
		if !errors.Is(err, llm.ErrInvalidResponse) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("429 before the stream then success", func(t *testing.T) {
		srv := newFakeServer(t,
			jsonBody(429, errRateLimit, "Retry-After", "0"),
			sse(deltaChunk(`{"content":"ok"}`, "stop"), "[DONE]"),
		)
		resp, err := llm.Collect(llmopenai.New(srv.client(2), llmopenai.Options{}).Stream(context.Background(), chatReq()), nil)
		if err != nil || resp.Message.Content != "ok" || len(srv.Requests()) != 2 {
			t.Fatalf("got %+v, %v after %d requests", resp, err, len(srv.Requests()))
		}
	})
	t.Run("401", func(t *testing.T) {
		srv := newFakeServer(t, jsonBody(401, errInvalidKey))
		_, err := llm.Collect(llmopenai.New(srv.client(2), llmopenai.Options{}).Stream(context.Background(), chatReq()), nil)
		if apiStatus(err) != 401 || llm.IsRetryable(err) || strings.Contains(err.Error(), testKey) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("stalls past the deadline", func(t *testing.T) {
		srv := newFakeServer(t, stall(deltaChunk(`{"content":"Vou "}`, "")))
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		got, _, err := streamEvents(t, llmopenai.New(srv.client(0), llmopenai.Options{}), ctx, chatReq())
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want DeadlineExceeded", err)
		}
		if elapsed := time.Since(start); elapsed > 2*time.Second {
			t.Errorf("returned after %s", elapsed)
		}
		if !cmp.Equal(got, []string{"text:Vou "}) {
			t.Errorf("events %q", got)
		}
	})
	t.Run("consumer stops early", func(t *testing.T) {
		srv := newFakeServer(t, stall(deltaChunk(`{"content":"a"}`, "")))
		done := make(chan struct{})
		go func() {
			defer close(done)
			for range llmopenai.New(srv.client(0), llmopenai.Options{}).Stream(context.Background(), chatReq()) {
				break
			}
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("breaking out of the stream did not release it")
		}
	})
}

// TestStreamDoneWithoutFinishReason: some OpenAI-compatible servers end a
// complete answer with [DONE] but never send a finish reason. The answer is
// kept (finish reason empty), however the body is split into reads.
func TestStreamDoneWithoutFinishReason(t *testing.T) {
	events := []string{
		deltaChunk(`{"role":"assistant","content":""}`, ""),
		deltaChunk(`{"content":"Temos o "}`, ""),
		deltaChunk(`{"content":"Fosetal."}`, ""),
		"[DONE]",
	}
	tests := []struct {
		name    string
		handler http.HandlerFunc
	}{
		{"one write per event", sse(events...)},
		{"one byte per write", trickle(1, "", events...)},
		{"seven bytes per write, no space after data:", trickle(7, "data:", events...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t, tt.handler)
			got, done, err := streamEvents(t, llmopenai.New(srv.client(0), llmopenai.Options{DisableStreamUsage: true}), context.Background(), chatReq())
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if want := []string{"text:Temos o ", "text:Fosetal.", "done"}; !cmp.Equal(got, want) {
				t.Errorf("events %q, want %q", got, want)
			}
			if done == nil || done.Message.Content != "Temos o Fosetal." || done.FinishReason != "" {
				t.Errorf("done = %+v", done)
			}
		})
	}
	// The same answer cut before [DONE] is still an error.
	srv := newFakeServer(t, trickle(3, "", events[:3]...))
	if _, _, err := streamEvents(t, llmopenai.New(srv.client(0), llmopenai.Options{}), context.Background(), chatReq()); !errors.Is(err, llm.ErrInvalidResponse) {
		t.Fatalf("cut stream: err = %v", err)
	}
}

// trickle answers with an event stream written n bytes at a time, each
// flushed; prefix replaces "data: " before every event.
func trickle(n int, prefix string, events ...string) http.HandlerFunc {
	if prefix == "" {
		prefix = "data: "
	}
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		var body strings.Builder
		for _, e := range events {
			body.WriteString(prefix + e + "\n\n")
		}
		b := body.String()
		for i := 0; i < len(b); i += n {
			_, _ = io.WriteString(w, b[i:min(i+n, len(b))])
			w.(http.Flusher).Flush()
		}
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
