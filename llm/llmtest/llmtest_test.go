package llmtest_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
)

var (
	_ llm.ChatModel = (*llmtest.Model)(nil)
)

func req(text string) llm.Request {
	return llm.Request{Messages: []llm.Message{llm.UserMessage(text)}}
}

func TestModelScript(t *testing.T) {
	boom := errors.New("boom")
	m := llmtest.NewModel(
		llmtest.Text("um"),
		llmtest.ToolCalls(llmtest.Call("c1", "t", `{}`)),
		llmtest.Fail(boom),
		llmtest.Step{Func: func(_ context.Context, r llm.Request) (llm.Response, error) {
			return llm.Response{Message: llm.AssistantMessage("eco: " + r.Messages[0].Content)}, nil
		}},
	)
	ctx := context.Background()
	if r, err := m.Complete(ctx, req("a")); err != nil || r.Message.Content != "um" || r.Model != "llmtest" || r.FinishReason != llm.FinishStop {
		t.Errorf("step 1: %+v, %v", r, err)
	}
	if r, err := m.Complete(ctx, req("b")); err != nil || len(r.Message.ToolCalls) != 1 || r.FinishReason != llm.FinishToolCalls {
		t.Errorf("step 2: %+v, %v", r, err)
	}
	if _, err := m.Complete(ctx, req("c")); !errors.Is(err, boom) {
		t.Errorf("step 3: %v", err)
	}
	if r, err := m.Complete(ctx, req("d")); err != nil || r.Message.Content != "eco: d" {
		t.Errorf("step 4: %+v, %v", r, err)
	}
	if _, err := m.Complete(ctx, req("e")); !errors.Is(err, llmtest.ErrScriptExhausted) {
		t.Errorf("exhausted: %v", err)
	}
	if _, err := m.Complete(ctx, llm.Request{}); !errors.Is(err, llm.ErrInvalidRequest) {
		t.Errorf("invalid request: %v", err)
	}
	var got []string
	for _, r := range m.Requests() {
		if len(r.Messages) > 0 {
			got = append(got, r.Messages[0].Content)
		} else {
			got = append(got, "<invalid>")
		}
	}
	if diff := cmp.Diff([]string{"a", "b", "c", "d", "e", "<invalid>"}, got); diff != "" {
		t.Errorf("recorded requests (-want +got):\n%s", diff)
	}
	if m.Calls() != 6 || m.Remaining() != 0 {
		t.Errorf("calls %d remaining %d", m.Calls(), m.Remaining())
	}
}

func TestModelRecordsCopies(t *testing.T) {
	m := llmtest.NewModel(llmtest.Text("x"))
	r := req("original")
	if _, err := m.Complete(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	r.Messages[0].Content = "changed"
	got := m.Requests()
	got[0].Messages[0].Content = "changed too"
	if m.Requests()[0].Messages[0].Content != "original" {
		t.Error("recorded request aliases the caller's or the returned copy")
	}
}

func TestModelStream(t *testing.T) {
	boom := errors.New("connection reset")
	tests := []struct {
		name    string
		step    llmtest.Step
		want    []string
		wantErr error
	}{
		{"text as one delta", llmtest.Text("olá"), []string{"text_delta:olá", "done:olá"}, nil},
		{"chunks", llmtest.Step{Response: llmtest.Text("olá mundo").Response, Chunks: []string{"olá", " mundo"}}, []string{"text_delta:olá", "text_delta: mundo", "done:olá mundo"}, nil},
		{"tool calls", llmtest.ToolCalls(llmtest.Call("1", "a", "{}"), llmtest.Call("2", "b", "{}")), []string{"tool_call:a", "tool_call:b", "done:"}, nil},
		{"fails midway", llmtest.Step{Chunks: []string{"par"}, Err: boom}, []string{"text_delta:par"}, boom},
		{"fails at once", llmtest.Fail(boom), nil, boom},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := llmtest.NewModel(tt.step)
			var got []string
			var gotErr error
			for ev, err := range m.Stream(context.Background(), req("x")) {
				if err != nil {
					gotErr = err
					break
				}
				switch ev.Kind {
				case llm.StreamTextDelta:
					got = append(got, "text_delta:"+ev.Text)
				case llm.StreamToolCall:
					got = append(got, "tool_call:"+ev.ToolCall.Name)
				case llm.StreamDone:
					got = append(got, "done:"+ev.Response.Message.Content)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if !errors.Is(gotErr, tt.wantErr) || (tt.wantErr == nil && gotErr != nil) {
				t.Errorf("err = %v, want %v", gotErr, tt.wantErr)
			}
		})
	}
	t.Run("lazy", func(t *testing.T) {
		m := llmtest.NewModel(llmtest.Text("x"))
		_ = m.Stream(context.Background(), req("x"))
		if m.Calls() != 0 {
			t.Error("Stream consumed a step before being ranged over")
		}
	})
}

func TestModelHang(t *testing.T) {
	m := llmtest.NewModel(llmtest.Hang(), llmtest.Hang())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := m.Complete(ctx, req("x")); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Complete: %v", err)
	}
	if _, err := llm.Collect(m.Stream(ctx, req("x")), nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Stream: %v", err)
	}
}

func TestModelConcurrent(t *testing.T) {
	const n = 50
	m := llmtest.NewModel()
	for i := range n {
		m.Push(llmtest.Text(fmt.Sprint(i)))
	}
	var wg sync.WaitGroup
	seen := make(chan string, n)
	for range n {
		wg.Go(func() {
			r, err := m.Complete(context.Background(), req("x"))
			if err != nil {
				t.Error(err)
			}
			seen <- r.Message.Content
		})
	}
	wg.Wait()
	close(seen)
	uniq := map[string]bool{}
	for s := range seen {
		uniq[s] = true
	}
	if len(uniq) != n || m.Calls() != n {
		t.Errorf("%d distinct answers, %d calls; want %d", len(uniq), m.Calls(), n)
	}
}
