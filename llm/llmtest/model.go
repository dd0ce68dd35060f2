package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"slices"
	"sync"

	"github.com/hybridrag/hybridrag/llm"
)

// ErrScriptExhausted is returned by Model when a call arrives after the last
// scripted step.
var ErrScriptExhausted = errors.New("llmtest: no scripted step left")

// Step is one scripted answer of a Model.
type Step struct {
	// Response is returned by Complete and streamed by Stream.
	Response llm.Response
	// Err is returned instead of Response. In Stream, Chunks are yielded
	// first, so a non-empty Chunks with Err is a stream failing midway.
	Err error
	// Chunks are the text deltas Stream yields; nil yields
	// Response.Message.Content as one delta. Complete ignores them.
	Chunks []string
	// Func, when set, computes the answer from the request instead of
	// Response and Err (Stream replays its Response).
	Func func(ctx context.Context, req llm.Request) (llm.Response, error)
}

// Text returns a step answering text with finish reason "stop".
func Text(text string) Step {
	return Step{Response: llm.Response{Message: llm.AssistantMessage(text), FinishReason: llm.FinishStop}}
}

// ToolCalls returns a step asking for calls, with finish reason "tool_calls".
func ToolCalls(calls ...llm.ToolCall) Step {
	return Step{Response: llm.Response{Message: llm.AssistantMessage("", calls...), FinishReason: llm.FinishToolCalls}}
}

// Fail returns a step that fails with err.
func Fail(err error) Step { return Step{Err: err} }

// Hang returns a step that blocks until the context is done.
func Hang() Step {
	return Step{Func: func(ctx context.Context, _ llm.Request) (llm.Response, error) {
		<-ctx.Done()
		return llm.Response{}, ctx.Err()
	}}
}

// Call builds a tool call; args is the JSON argument text.
func Call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: args}
}

// WithUsage returns s with its Response's Usage set (total = prompt +
// completion).
func (s Step) WithUsage(prompt, completion int) Step {
	s.Response.Usage = llm.Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion}
	return s
}

// Model is a scripted llm.ChatModel. The zero value has an empty script.
// See the package documentation for what it does not support.
type Model struct {
	mu       sync.Mutex
	steps    []Step
	requests []llm.Request
}

var _ llm.ChatModel = (*Model)(nil)

// NewModel returns a Model that answers with steps, in order.
func NewModel(steps ...Step) *Model {
	return &Model{steps: slices.Clone(steps)}
}

// Push appends steps to the script.
func (m *Model) Push(steps ...Step) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.steps = append(m.steps, steps...)
}

// Requests returns deep copies of the requests received so far, in order
// (invalid ones included).
func (m *Model) Requests() []llm.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]llm.Request, len(m.requests))
	for i, r := range m.requests {
		out[i] = copyRequest(r)
	}
	return out
}

// Calls returns how many requests were received.
func (m *Model) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.requests)
}

// Remaining returns how many scripted steps are left.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.steps)
}

// next records req and pops the next step.
func (m *Model) next(req llm.Request) (Step, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests = append(m.requests, copyRequest(req))
	if err := req.Validate(); err != nil {
		return Step{}, err
	}
	if len(m.steps) == 0 {
		return Step{}, ErrScriptExhausted
	}
	s := m.steps[0]
	m.steps = m.steps[1:]
	return s, nil
}

// Complete implements llm.ChatModel.
func (m *Model) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	s, err := m.next(req)
	if err != nil {
		return llm.Response{}, err
	}
	return answer(ctx, s, req)
}

func answer(ctx context.Context, s Step, req llm.Request) (llm.Response, error) {
	if err := ctx.Err(); err != nil {
		return llm.Response{}, err
	}
	if s.Func != nil {
		return s.Func(ctx, req)
	}
	if s.Err != nil {
		return llm.Response{}, s.Err
	}
	resp := s.Response
	resp.Message.Role = llm.RoleAssistant
	resp.Message.ToolCalls = slices.Clone(resp.Message.ToolCalls)
	if resp.Model == "" {
		resp.Model = "llmtest"
	}
	return resp, nil
}

// Stream implements llm.ChatModel. The step is taken when the sequence is
// ranged over, not when Stream is called.
func (m *Model) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.StreamEvent, error] {
	req = copyRequest(req)
	return func(yield func(llm.StreamEvent, error) bool) {
		s, err := m.next(req)
		if err != nil {
			yield(llm.StreamEvent{}, err)
			return
		}
		chunks := s.Chunks
		if s.Err != nil {
			for _, c := range chunks {
				if err := ctx.Err(); err != nil {
					yield(llm.StreamEvent{}, err)
					return
				}
				if !yield(llm.StreamEvent{Kind: llm.StreamTextDelta, Text: c}, nil) {
					return
				}
			}
			yield(llm.StreamEvent{}, s.Err)
			return
		}
		resp, err := answer(ctx, s, req)
		if err != nil {
			yield(llm.StreamEvent{}, err)
			return
		}
		if chunks == nil && resp.Message.Content != "" {
			chunks = []string{resp.Message.Content}
		}
		for _, c := range chunks {
			if err := ctx.Err(); err != nil {
				yield(llm.StreamEvent{}, err)
				return
			}
			if !yield(llm.StreamEvent{Kind: llm.StreamTextDelta, Text: c}, nil) {
				return
			}
		}
		for _, c := range resp.Message.ToolCalls {
			if !yield(llm.StreamEvent{Kind: llm.StreamToolCall, ToolCall: c}, nil) {
				return
			}
		}
		if err := ctx.Err(); err != nil {
			yield(llm.StreamEvent{}, err)
			return
		}
		yield(llm.StreamEvent{Kind: llm.StreamDone, Response: &resp}, nil)
	}
}

// copyRequest deep-copies the slices of a request so recorded requests do
// not alias the caller's.
func copyRequest(r llm.Request) llm.Request {
	msgs := make([]llm.Message, len(r.Messages))
	for i, m := range r.Messages {
		m.ToolCalls = slices.Clone(m.ToolCalls)
		msgs[i] = m
	}
	r.Messages = msgs
	tools := make([]llm.ToolDefinition, len(r.Tools))
	for i, t := range r.Tools {
		t.Parameters = slices.Clone(t.Parameters)
		t.InputExamples = slices.Clone(t.InputExamples)
		tools[i] = t
	}
	r.Tools = tools
	if r.Temperature != nil {
		t := *r.Temperature
		r.Temperature = &t
	}
	if r.ResponseFormat != nil {
		f := *r.ResponseFormat
		f.Schema = json.RawMessage(slices.Clone([]byte(f.Schema)))
		r.ResponseFormat = &f
	}
	return r
}
