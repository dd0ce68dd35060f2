package openai

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/hybridrag/hybridrag/llm"
)

// defaultModel is the chat model used when neither Options.Model nor
// Request.Model names one.
const defaultModel = "gpt-4o-mini"

// Options configures a Model. The zero value works with OpenAI.
type Options struct {
	// Model is the default chat model name; "" means "gpt-4o-mini".
	// Request.Model overrides it per call.
	Model string
	// OmitToolExamples stops appending tools' InputExamples to their
	// descriptions (OpenAI has no native field for them).
	OmitToolExamples bool
	// LegacyMaxTokens sends Request.MaxTokens as "max_tokens" instead of
	// "max_completion_tokens", for servers that only know the old name.
	LegacyMaxTokens bool
	// DisableStreamUsage stops asking for the final usage chunk when
	// streaming (stream_options.include_usage), for servers that reject it.
	DisableStreamUsage bool
}

// Model is an llm.ChatModel on the OpenAI chat completions API. It is
// immutable and safe for concurrent use.
type Model struct {
	client oai.Client
	opts   Options
}

var _ llm.ChatModel = (*Model)(nil)

// New returns a Model using client, which must be ready to use (API key, base
// URL, retries, HTTP client). New does no I/O.
func New(client oai.Client, opts Options) *Model {
	return &Model{client: client, opts: opts}
}

// WithModel returns a copy of m whose default model is name; m is unchanged.
func (m *Model) WithModel(name string) *Model {
	c := *m
	c.opts.Model = name
	return &c
}

// Name returns the default model name.
func (m *Model) Name() string { return cmp.Or(m.opts.Model, defaultModel) }

// Complete implements llm.ChatModel with one chat completion request.
func (m *Model) Complete(ctx context.Context, req llm.Request) (llm.Response, error) {
	params, err := m.params(req)
	if err != nil {
		return llm.Response{}, err
	}
	c, err := m.client.Chat.Completions.New(ctx, params)
	if err != nil {
		return llm.Response{}, mapError("chat completion", err)
	}
	if c == nil || len(c.Choices) == 0 {
		return llm.Response{}, fmt.Errorf("openai: chat completion: %w: no choices", llm.ErrInvalidResponse)
	}
	ch := c.Choices[0]
	resp := llm.Response{
		ID:           c.ID,
		Model:        c.Model,
		FinishReason: llm.FinishReason(ch.FinishReason),
		Refusal:      ch.Message.Refusal,
		Usage:        usage(c.Usage),
		Message:      llm.Message{Role: llm.RoleAssistant, Content: ch.Message.Content},
	}
	for i, tc := range ch.Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue // custom tools are never offered
		}
		resp.Message.ToolCalls = append(resp.Message.ToolCalls, llm.ToolCall{
			ID:        cmp.Or(tc.ID, fmt.Sprintf("call_%d", i)),
			Name:      tc.Function.Name,
			Arguments: tc.Function.Arguments,
		})
	}
	return resp, nil
}

// Stream implements llm.ChatModel with a streamed chat completion. Text
// deltas are yielded as they arrive; tool-call deltas are assembled by index
// and yielded once the stream has finished, followed by StreamDone.
//
// A stream is complete when a choice reports a finish reason or the server
// ends it with the "data: [DONE]" marker: some OpenAI-compatible servers
// send [DONE] without any finish reason, and their answer is kept (with an
// empty Response.FinishReason). A stream that ends with neither (a
// connection closed part-way) yields an error wrapping
// llm.ErrInvalidResponse.
func (m *Model) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.StreamEvent, error] {
	return func(yield func(llm.StreamEvent, error) bool) {
		params, err := m.params(req)
		if err != nil {
			yield(llm.StreamEvent{}, err)
			return
		}
		if !m.opts.DisableStreamUsage {
			params.StreamOptions.IncludeUsage = oai.Bool(true)
		}
		var sawDone atomic.Bool
		stream := m.client.Chat.Completions.NewStreaming(ctx, params, option.WithMiddleware(watchDone(&sawDone)))
		defer stream.Close()

		var (
			resp     = llm.Response{Message: llm.Message{Role: llm.RoleAssistant}}
			text     strings.Builder
			refusal  strings.Builder
			calls    = map[int64]*llm.ToolCall{}
			finished bool
		)
		for stream.Next() {
			chunk := stream.Current()
			resp.ID = cmp.Or(resp.ID, chunk.ID)
			resp.Model = cmp.Or(chunk.Model, resp.Model)
			if chunk.JSON.Usage.Valid() {
				resp.Usage = usage(chunk.Usage)
			}
			for _, ch := range chunk.Choices {
				if ch.Index != 0 {
					continue
				}
				d := ch.Delta
				if d.Content != "" {
					text.WriteString(d.Content)
					if !yield(llm.StreamEvent{Kind: llm.StreamTextDelta, Text: d.Content}, nil) {
						return
					}
				}
				refusal.WriteString(d.Refusal)
				for _, tc := range d.ToolCalls {
					c, ok := calls[tc.Index]
					if !ok {
						c = &llm.ToolCall{}
						calls[tc.Index] = c
					}
					c.ID = cmp.Or(c.ID, tc.ID)
					c.Name = cmp.Or(c.Name, tc.Function.Name)
					c.Arguments += tc.Function.Arguments
				}
				if ch.FinishReason != "" {
					resp.FinishReason = llm.FinishReason(ch.FinishReason)
					finished = true
				}
			}
		}
		if err := stream.Err(); err != nil {
			yield(llm.StreamEvent{}, mapError("chat completion stream", err))
			return
		}
		if err := ctx.Err(); err != nil {
			yield(llm.StreamEvent{}, fmt.Errorf("openai: chat completion stream: %w", err))
			return
		}
		if !finished && !sawDone.Load() {
			yield(llm.StreamEvent{}, fmt.Errorf("openai: chat completion stream: %w: the stream ended without a finish reason or [DONE]", llm.ErrInvalidResponse))
			return
		}
		resp.Message.Content = text.String()
		resp.Refusal = refusal.String()
		indexes := make([]int64, 0, len(calls))
		for i := range calls {
			indexes = append(indexes, i)
		}
		slices.Sort(indexes)
		for _, i := range indexes {
			c := *calls[i]
			c.ID = cmp.Or(c.ID, fmt.Sprintf("call_%d", i))
			resp.Message.ToolCalls = append(resp.Message.ToolCalls, c)
			if !yield(llm.StreamEvent{Kind: llm.StreamToolCall, ToolCall: c}, nil) {
				return
			}
		}
		yield(llm.StreamEvent{Kind: llm.StreamDone, Response: &resp}, nil)
	}
}

// doneMarker is the last event of a complete chat completion stream, as it
// appears on the wire after a line break.
var doneMarker = []byte("\ndata: [DONE]")

// watchDone is a middleware that sets done when the response body carries
// the [DONE] marker at the start of a line ("data: [DONE]"; the space may
// be missing). openai-go ends its stream on [DONE] and on a plain end of
// the body alike; this tells the two apart.
func watchDone(done *atomic.Bool) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		if err == nil && res != nil && res.Body != nil {
			res.Body = &doneWatcher{ReadCloser: res.Body, done: done, tail: []byte{'\n'}}
		}
		return res, err
	}
}

// doneWatcher scans a body for doneMarker as it is read, keeping the end of
// the previous read so a marker split across reads is found.
type doneWatcher struct {
	io.ReadCloser
	done *atomic.Bool
	tail []byte
}

func (w *doneWatcher) Read(p []byte) (int, error) {
	n, err := w.ReadCloser.Read(p)
	if n > 0 && !w.done.Load() {
		buf := append(w.tail, p[:n]...)
		// "data:[DONE]" is the same event without the optional space.
		if bytes.Contains(buf, doneMarker) || bytes.Contains(buf, []byte("\ndata:[DONE]")) {
			w.done.Store(true)
		}
		keep := min(len(buf), len(doneMarker)-1)
		w.tail = append(w.tail[:0], buf[len(buf)-keep:]...)
	}
	return n, err
}

// params translates a Request into chat completion parameters.
func (m *Model) params(req llm.Request) (oai.ChatCompletionNewParams, error) {
	if err := req.Validate(); err != nil {
		return oai.ChatCompletionNewParams{}, fmt.Errorf("openai: %w", err)
	}
	p := oai.ChatCompletionNewParams{Model: cmp.Or(req.Model, m.opts.Model, defaultModel)}
	for _, msg := range req.Messages {
		p.Messages = append(p.Messages, message(msg))
	}
	for _, t := range req.Tools {
		tool, err := m.tool(t)
		if err != nil {
			return oai.ChatCompletionNewParams{}, err
		}
		p.Tools = append(p.Tools, tool)
	}
	switch req.ToolChoice.Mode {
	case llm.ToolChoiceAuto, llm.ToolChoiceRequired, llm.ToolChoiceNone:
		p.ToolChoice.OfAuto = oai.String(string(req.ToolChoice.Mode))
	case llm.ToolChoiceTool:
		p.ToolChoice.OfFunctionToolChoice = &oai.ChatCompletionNamedToolChoiceParam{
			Function: oai.ChatCompletionNamedToolChoiceFunctionParam{Name: req.ToolChoice.Name},
		}
	}
	if req.Temperature != nil {
		p.Temperature = oai.Float(*req.Temperature)
	}
	if req.MaxTokens > 0 {
		if m.opts.LegacyMaxTokens {
			p.MaxTokens = oai.Int(int64(req.MaxTokens))
		} else {
			p.MaxCompletionTokens = oai.Int(int64(req.MaxTokens))
		}
	}
	if f := req.ResponseFormat; f != nil {
		js := shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: f.Name, Schema: json.RawMessage(f.Schema)}
		if f.Description != "" {
			js.Description = oai.String(f.Description)
		}
		if f.Strict {
			js.Strict = oai.Bool(true)
		}
		p.ResponseFormat.OfJSONSchema = &shared.ResponseFormatJSONSchemaParam{JSONSchema: js}
	}
	return p, nil
}

func message(msg llm.Message) oai.ChatCompletionMessageParamUnion {
	switch msg.Role {
	case llm.RoleSystem:
		return oai.SystemMessage(msg.Content)
	case llm.RoleUser:
		return oai.UserMessage(msg.Content)
	case llm.RoleTool:
		return oai.ToolMessage(msg.Content, msg.ToolCallID)
	}
	var a oai.ChatCompletionAssistantMessageParam
	if msg.Content != "" || len(msg.ToolCalls) == 0 {
		a.Content.OfString = oai.String(msg.Content)
	}
	for _, c := range msg.ToolCalls {
		a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
				ID: c.ID,
				Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{
					Name:      c.Name,
					Arguments: cmp.Or(c.Arguments, "{}"),
				},
			},
		})
	}
	return oai.ChatCompletionMessageParamUnion{OfAssistant: &a}
}

// emptyParameters is sent for tools without a schema.
var emptyParameters = shared.FunctionParameters{"type": "object", "properties": map[string]any{}}

func (m *Model) tool(t llm.ToolDefinition) (oai.ChatCompletionToolUnionParam, error) {
	fd := shared.FunctionDefinitionParam{Name: t.Name, Parameters: emptyParameters}
	if len(bytes.TrimSpace(t.Parameters)) > 0 {
		// Top-level keys with raw values: the schema is sent exactly as written.
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(t.Parameters, &raw); err != nil || raw == nil {
			return oai.ChatCompletionToolUnionParam{}, fmt.Errorf("openai: %w: %w: tool %q: parameters must be a JSON object", llm.ErrInvalidRequest, llm.ErrInvalidTool, t.Name)
		}
		params := make(shared.FunctionParameters, len(raw))
		for k, v := range raw {
			params[k] = v
		}
		fd.Parameters = params
	}
	desc := t.Description
	if !m.opts.OmitToolExamples && len(t.InputExamples) > 0 {
		var b strings.Builder
		b.WriteString(desc)
		if desc != "" {
			b.WriteString("\n\n")
		}
		b.WriteString("Examples of valid arguments:")
		for _, ex := range t.InputExamples {
			var buf bytes.Buffer
			if json.Compact(&buf, ex) != nil {
				continue
			}
			b.WriteString("\n")
			b.Write(buf.Bytes())
		}
		desc = b.String()
	}
	if desc != "" {
		fd.Description = oai.String(desc)
	}
	if t.Strict {
		fd.Strict = oai.Bool(true)
	}
	return oai.ChatCompletionFunctionTool(fd), nil
}

func usage(u oai.CompletionUsage) llm.Usage {
	return llm.Usage{
		PromptTokens:     int(u.PromptTokens),
		CompletionTokens: int(u.CompletionTokens),
		TotalTokens:      int(u.TotalTokens),
	}
}
