package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
)

// ChatModel is the provider-agnostic chat port. Adapters such
// as llm/openai implement it; llmtest provides a scripted fake.
//
// Implementations must be safe for concurrent use and must not retain or
// modify the Request. Tools are passed per request, so a model value never
// changes after construction.
type ChatModel interface {
	// Complete sends req and returns the whole answer.
	Complete(ctx context.Context, req Request) (Response, error)

	// Stream sends req and yields the answer as it is produced: text deltas
	// as they arrive, then each complete tool call, then one StreamDone
	// event carrying the assembled Response. On failure it yields one
	// (zero event, non-nil error) pair and stops.
	//
	// Nothing is sent until the sequence is ranged over; each range
	// performs a new request, so range it once. Breaking out of the loop
	// early closes the underlying connection.
	Stream(ctx context.Context, req Request) iter.Seq2[StreamEvent, error]
}

// Request is one call to a chat model. The zero value of every optional
// field means "provider default".
type Request struct {
	// Model overrides the adapter's default model name for this call.
	Model string `json:"model,omitempty"`
	// Messages is the conversation, oldest first. Required.
	Messages []Message `json:"messages"`
	// Tools are the tool definitions offered to the model.
	Tools []ToolDefinition `json:"tools,omitempty"`
	// ToolChoice constrains tool use; the zero value is the provider default
	// (auto when tools are offered).
	ToolChoice ToolChoice `json:"tool_choice,omitzero"`
	// Temperature is the sampling temperature; nil is the provider default.
	// Use Temperature(0) for deterministic classification.
	Temperature *float64 `json:"temperature,omitempty"`
	// MaxTokens caps the answer length in tokens; 0 is the provider default.
	MaxTokens int `json:"max_tokens,omitempty"`
	// ResponseFormat asks for structured output matching a JSON schema.
	ResponseFormat *ResponseFormat `json:"response_format,omitempty"`
}

// Temperature returns a pointer to t, for Request.Temperature.
func Temperature(t float64) *float64 { return &t }

// Validate reports a request that no provider can accept. The error wraps
// ErrInvalidRequest (and ErrInvalidTool for bad tool definitions).
func (r Request) Validate() error {
	if len(r.Messages) == 0 {
		return fmt.Errorf("%w: no messages", ErrInvalidRequest)
	}
	for i, m := range r.Messages {
		switch m.Role {
		case RoleSystem, RoleUser:
		case RoleAssistant:
			for j, c := range m.ToolCalls {
				if c.Name == "" {
					return fmt.Errorf("%w: message %d: tool call %d has no name", ErrInvalidRequest, i, j)
				}
			}
		case RoleTool:
			if m.ToolCallID == "" {
				return fmt.Errorf("%w: message %d: tool message without tool call ID", ErrInvalidRequest, i)
			}
		default:
			return fmt.Errorf("%w: message %d: unknown role %q", ErrInvalidRequest, i, m.Role)
		}
	}
	if r.MaxTokens < 0 {
		return fmt.Errorf("%w: negative MaxTokens %d", ErrInvalidRequest, r.MaxTokens)
	}
	seen := make(map[string]bool, len(r.Tools))
	for _, t := range r.Tools {
		if err := validateToolName(t.Name); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidRequest, err)
		}
		if seen[t.Name] {
			return fmt.Errorf("%w: %w: duplicate tool name %q", ErrInvalidRequest, ErrInvalidTool, t.Name)
		}
		seen[t.Name] = true
	}
	switch r.ToolChoice.Mode {
	case "", ToolChoiceAuto, ToolChoiceNone:
	case ToolChoiceRequired:
		if len(r.Tools) == 0 {
			return fmt.Errorf("%w: tool choice %q without tools", ErrInvalidRequest, r.ToolChoice.Mode)
		}
	case ToolChoiceTool:
		if !seen[r.ToolChoice.Name] {
			return fmt.Errorf("%w: forced tool %q is not among the offered tools", ErrInvalidRequest, r.ToolChoice.Name)
		}
	default:
		return fmt.Errorf("%w: unknown tool choice mode %q", ErrInvalidRequest, r.ToolChoice.Mode)
	}
	if f := r.ResponseFormat; f != nil {
		if err := validateToolName(f.Name); err != nil {
			return fmt.Errorf("%w: response format: %w", ErrInvalidRequest, err)
		}
		if !json.Valid(f.Schema) {
			return fmt.Errorf("%w: response format %q: schema is not valid JSON", ErrInvalidRequest, f.Name)
		}
	}
	return nil
}

// ToolChoiceMode selects how the model may use the offered tools.
type ToolChoiceMode string

// Tool choice modes: whether the model may, must or must not call tools,
// or must call one named tool. The empty mode leaves the choice to the
// provider (auto with tools).
const (
	// ToolChoiceAuto lets the model decide whether to call tools.
	ToolChoiceAuto ToolChoiceMode = "auto"
	// ToolChoiceRequired makes the model call at least one tool.
	ToolChoiceRequired ToolChoiceMode = "required"
	// ToolChoiceNone forbids tool calls.
	ToolChoiceNone ToolChoiceMode = "none"
	// ToolChoiceTool forces a call of the tool named in ToolChoice.Name.
	ToolChoiceTool ToolChoiceMode = "tool"
)

// ToolChoice constrains tool use. The zero value is the provider default.
type ToolChoice struct {
	// Mode is the constraint.
	Mode ToolChoiceMode `json:"mode,omitempty"`
	// Name is the forced tool when Mode is ToolChoiceTool.
	Name string `json:"name,omitempty"`
}

// ResponseFormat asks the model for a JSON answer matching Schema (OpenAI
// "response_format: json_schema"). See CompleteJSON.
type ResponseFormat struct {
	// Name identifies the schema: letters, digits, '_' and '-', at most 64.
	Name string `json:"name"`
	// Description tells the model what the object is for. Optional.
	Description string `json:"description,omitempty"`
	// Schema is a JSON Schema object.
	Schema json.RawMessage `json:"schema"`
	// Strict asks the provider to enforce the schema exactly (OpenAI strict
	// mode requires every property to be listed in "required" and
	// "additionalProperties": false on every object).
	Strict bool `json:"strict,omitempty"`
}

// FinishReason tells why the model stopped.
type FinishReason string

// Finish reasons as reported by OpenAI-compatible providers.
const (
	FinishStop          FinishReason = "stop"
	FinishLength        FinishReason = "length"
	FinishToolCalls     FinishReason = "tool_calls"
	FinishContentFilter FinishReason = "content_filter"
)

// Usage counts tokens of one or more model calls.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Response is a complete model answer.
type Response struct {
	// ID is the provider's identifier of the completion, if any.
	ID string `json:"id,omitempty"`
	// Model is the model that produced the answer, as reported by the
	// provider (useful behind a FallbackModel).
	Model string `json:"model,omitempty"`
	// Message is the assistant message: text and/or tool calls.
	Message Message `json:"message"`
	// FinishReason tells why the model stopped.
	FinishReason FinishReason `json:"finish_reason,omitempty"`
	// Refusal is the model's refusal text when it declined to answer.
	Refusal string `json:"refusal,omitempty"`
	// Usage counts the tokens of this call.
	Usage Usage `json:"usage"`
}

// StreamEventKind identifies a StreamEvent; its values read as words, as
// EventKind's and rag.EventKind's do.
type StreamEventKind string

// Stream event kinds.
const (
	// StreamTextDelta carries a piece of answer text in Text.
	StreamTextDelta StreamEventKind = "text_delta"
	// StreamToolCall carries one complete, assembled tool call in ToolCall.
	StreamToolCall StreamEventKind = "tool_call"
	// StreamDone is the last event; Response holds the assembled answer
	// (all text, all tool calls, finish reason and usage).
	StreamDone StreamEventKind = "done"
)

// StreamEvent is one element of ChatModel.Stream.
type StreamEvent struct {
	// Kind says which field is set.
	Kind StreamEventKind
	// Text is the delta for StreamTextDelta.
	Text string
	// ToolCall is the call for StreamToolCall.
	ToolCall ToolCall
	// Response is the assembled answer for StreamDone.
	Response *Response
}

// Collect ranges over a stream and returns its final Response, calling
// onText (when non-nil) with each text delta. It returns the stream's error,
// or ErrInvalidResponse when the stream ended without a StreamDone event.
func Collect(stream iter.Seq2[StreamEvent, error], onText func(string)) (Response, error) {
	for ev, err := range stream {
		if err != nil {
			return Response{}, err
		}
		switch ev.Kind {
		case StreamTextDelta:
			if onText != nil {
				onText(ev.Text)
			}
		case StreamDone:
			if ev.Response != nil {
				return *ev.Response, nil
			}
		}
	}
	return Response{}, fmt.Errorf("%w: stream ended without a final response", ErrInvalidResponse)
}

// StreamResponse returns a stream that replays resp: its text as one delta,
// each tool call, then StreamDone. ChatModel implementations without native
// streaming can implement Stream with it.
func StreamResponse(resp Response) iter.Seq2[StreamEvent, error] {
	return func(yield func(StreamEvent, error) bool) {
		if resp.Message.Content != "" {
			if !yield(StreamEvent{Kind: StreamTextDelta, Text: resp.Message.Content}, nil) {
				return
			}
		}
		for _, c := range resp.Message.ToolCalls {
			if !yield(StreamEvent{Kind: StreamToolCall, ToolCall: c}, nil) {
				return
			}
		}
		r := resp
		r.Message = resp.Message.clone()
		yield(StreamEvent{Kind: StreamDone, Response: &r}, nil)
	}
}
