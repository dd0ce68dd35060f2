package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Defaults of RunOptions.
const (
	// DefaultMaxIterations is the number of model calls per run before
	// MaxIterationsExceededError: enough for a search, a refined search
	// and an answer, while a model that keeps calling tools is stopped
	// before it costs a turn's worth of latency many times over.
	DefaultMaxIterations = 5
	// defaultMaxParallelTools bounds concurrent tool executions in one turn.
	defaultMaxParallelTools = 4
	// DefaultConfirmationTTL is how long a PendingConfirmation stays valid:
	// long enough to read and answer the question, short enough that a
	// "sim" typed much later does not execute a stale call.
	DefaultConfirmationTTL = 5 * time.Minute
)

// RunOptions configures RunTools and ResumeConfirmation. A nil *RunOptions
// and zero fields mean the defaults.
type RunOptions struct {
	// MaxIterations is the maximum number of model calls in one run,
	// counted across confirmations; 0 means DefaultMaxIterations.
	MaxIterations int
	// MaxParallelTools bounds how many tool calls of one turn run at the
	// same time; 0 means 4, 1 runs them in order.
	MaxParallelTools int
	// ToolTimeout bounds each tool execution; 0 means only ctx bounds it.
	// A timed-out tool is reported to the model as failed.
	ToolTimeout time.Duration
	// Stream makes the loop call ChatModel.Stream instead of Complete and
	// report text deltas as EventTextDelta events.
	Stream bool
	// OnEvent, when non-nil, is called for every model response, tool
	// result and (with Stream) text delta. It is called from the goroutine
	// running the loop, one event at a time, and must not block for long.
	OnEvent func(Event)
	// ConfirmationTTL is the lifetime of a PendingConfirmation; 0 means
	// DefaultConfirmationTTL, a negative value means it never expires.
	ConfirmationTTL time.Duration
}

func (o *RunOptions) withDefaults() RunOptions {
	var r RunOptions
	if o != nil {
		r = *o
	}
	if r.MaxIterations <= 0 {
		r.MaxIterations = DefaultMaxIterations
	}
	if r.MaxParallelTools <= 0 {
		r.MaxParallelTools = defaultMaxParallelTools
	}
	if r.ConfirmationTTL == 0 {
		r.ConfirmationTTL = DefaultConfirmationTTL
	}
	return r
}

// ToolStatus is the outcome of one tool call.
type ToolStatus string

// Tool call outcomes.
const (
	// ToolOK: the handler ran and returned a result.
	ToolOK ToolStatus = "ok"
	// ToolFailed: the handler returned an error, panicked or timed out.
	ToolFailed ToolStatus = "failed"
	// ToolInvalidArguments: the arguments did not satisfy the schema; the
	// handler did not run.
	ToolInvalidArguments ToolStatus = "invalid_arguments"
	// ToolUnknown: the model called a tool that was not offered.
	ToolUnknown ToolStatus = "unknown_tool"
	// ToolPendingConfirmation: the tool requires confirmation and waits for
	// ResumeConfirmation.
	ToolPendingConfirmation ToolStatus = "pending_confirmation"
	// ToolRejected: the user rejected the call; the handler did not run.
	ToolRejected ToolStatus = "rejected"
)

// ToolExecution records one tool call of the loop: its result and timing,
// for logs, traces and the caller's audit.
type ToolExecution struct {
	// Call is the call as executed (with corrected arguments after a
	// Correct decision).
	Call ToolCall
	// Status is the outcome.
	Status ToolStatus
	// Result is the content sent to the model ("" while pending).
	Result string
	// Err is the underlying failure: the handler's error, a
	// *ValidationError wrapped with ErrInvalidArguments, a recovered panic.
	// Nil for ToolOK, ToolPendingConfirmation and ToolRejected.
	Err error
	// Duration is the handler's run time (0 when it did not run). Call
	// holds the arguments it ran with, corrected ones included.
	Duration time.Duration
}

// Iteration records one model call of the loop and the tool calls it asked
// for.
type Iteration struct {
	// Number counts model calls from 1 across the whole run.
	Number int
	// Response is the model's answer. It is zero in the record that
	// ResumeConfirmation adds for the resolved call of an earlier turn.
	Response Response
	// ModelDuration is how long the model call took.
	ModelDuration time.Duration
	// Tools are the executions of Response's tool calls, in call order.
	Tools []ToolExecution
}

// EventKind identifies an Event. Its values are readable names, as for
// rag.EventKind and ToolStatus, so an Event logs and marshals as
// "model_response" rather than a number.
type EventKind string

// Event kinds.
const (
	// EventModelResponse: a model call finished; Response and
	// ModelDuration are set. Response.Message.ToolCalls are the calls about
	// to be handled (empty for the final answer).
	EventModelResponse EventKind = "model_response"
	// EventToolResult: a tool call was handled; Tool is set.
	EventToolResult EventKind = "tool_result"
	// EventTextDelta: a piece of model text arrived (RunOptions.Stream).
	EventTextDelta EventKind = "text_delta"
)

// Event is reported to RunOptions.OnEvent as the loop progresses (one
// tool-calls event per iteration, so a UI can show the calls as they run).
type Event struct {
	// Kind says which fields are set.
	Kind EventKind
	// Iteration is the model call number the event belongs to.
	Iteration int
	// Response is set for EventModelResponse.
	Response *Response
	// ModelDuration is set for EventModelResponse.
	ModelDuration time.Duration
	// Tool is set for EventToolResult.
	Tool *ToolExecution
	// Text is set for EventTextDelta.
	Text string
}

// RunResult is the outcome of RunTools or ResumeConfirmation.
type RunResult struct {
	// Response is the final answer; zero when Pending is set.
	Response Response
	// Messages is the transcript: the request's messages followed by every
	// assistant turn and tool result, ending with the final answer. When
	// Pending is set it ends with the assistant turn that asked for the
	// pending call.
	Messages []Message
	// Iterations record every model call and tool execution of this call
	// of RunTools or ResumeConfirmation (each call's tokens are in its
	// Response.Usage).
	Iterations []Iteration
	// Pending is set when the loop stopped because a tool requires
	// confirmation; resolve it with ResumeConfirmation.
	Pending *PendingConfirmation
}

// RunTools runs the tool loop: it sends req with the
// definitions of tools, executes the tool calls the model asks for, sends the
// results back and repeats until the model answers without tool calls.
//
// Tools are offered through the tools argument; req.Tools must be empty.
// req.ToolChoice applies to the first model call; after a turn with tool calls
// a Required or forced choice is reset to Auto so that the model can answer.
//
// Per turn, every call is checked before anything runs: an unknown tool name
// or arguments that fail the tool's JSON schema become error results for the
// model. Valid calls of tools that do not require confirmation run
// concurrently (RunOptions.MaxParallelTools); a handler error, panic or
// timeout becomes an error result for the model, never an error of RunTools.
// Results are sent back in call order.
//
// If the turn calls a tool with RequiresConfirmation, that call is not
// executed: RunTools returns a RunResult whose Pending describes it (with a
// pt-BR summary for the user) once the turn's other calls have run. Resolve
// it with ResumeConfirmation.
//
// After MaxIterations model calls that all asked for tools, RunTools returns
// a *MaxIterationsExceededError (errors.Is ErrMaxIterations); the last
// turn's tool calls are not executed. Model errors are returned wrapped. On
// every error the returned *RunResult, when non-nil, holds the transcript and
// iterations so far. Cancelling ctx stops the loop promptly; tool handlers
// get a cancelled context and their results are discarded.
//
// RunTools is safe for concurrent use if model and the tool handlers are.
func RunTools(ctx context.Context, model ChatModel, req Request, tools []Tool, opts *RunOptions) (*RunResult, error) {
	if model == nil {
		return nil, fmt.Errorf("%w: nil model", ErrInvalidRequest)
	}
	if len(req.Tools) > 0 {
		return nil, fmt.Errorf("%w: pass tools to RunTools through its tools argument, not Request.Tools", ErrInvalidRequest)
	}
	compiled, err := compileTools(tools)
	if err != nil {
		return nil, err
	}
	req.Tools = toolDefinitions(tools)
	req.Messages = cloneMessages(req.Messages)
	if err := req.Validate(); err != nil {
		return nil, err
	}
	r := &runner{model: model, tools: compiled, toolNames: toolNames(tools), opts: opts.withDefaults(), result: &RunResult{}}
	return r.loop(ctx, req, 0)
}

// runner holds the state of one RunTools or ResumeConfirmation call.
type runner struct {
	model     ChatModel
	tools     map[string]*compiledTool
	toolNames string
	opts      RunOptions
	result    *RunResult
}

func toolNames(tools []Tool) string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

func (r *runner) emit(ev Event) {
	if r.opts.OnEvent != nil {
		r.opts.OnEvent(ev)
	}
}

// loop calls the model starting after iteration done; req.Messages is the
// transcript so far.
func (r *runner) loop(ctx context.Context, req Request, done int) (*RunResult, error) {
	for n := done + 1; ; n++ {
		r.result.Messages = req.Messages
		if err := ctx.Err(); err != nil {
			return r.result, fmt.Errorf("llm: tool loop: %w", err)
		}
		start := time.Now()
		resp, err := r.call(ctx, req, n)
		elapsed := time.Since(start)
		if err != nil {
			return r.result, fmt.Errorf("llm: tool loop iteration %d: %w", n, err)
		}
		r.result.Iterations = append(r.result.Iterations, Iteration{Number: n, Response: resp, ModelDuration: elapsed})
		r.emit(Event{Kind: EventModelResponse, Iteration: n, Response: &resp, ModelDuration: elapsed})
		req.Messages = append(req.Messages, resp.Message.clone())
		r.result.Messages = req.Messages
		calls := resp.Message.ToolCalls
		if len(calls) == 0 {
			r.result.Response = resp
			return r.result, nil
		}
		if n >= r.opts.MaxIterations {
			return r.result, &MaxIterationsExceededError{MaxIterations: r.opts.MaxIterations, Pending: slices.Clone(calls)}
		}
		if req.ToolChoice.Mode == ToolChoiceRequired || req.ToolChoice.Mode == ToolChoiceTool {
			req.ToolChoice = ToolChoice{Mode: ToolChoiceAuto}
		}
		results, execs, err := r.runTurn(ctx, calls)
		it := &r.result.Iterations[len(r.result.Iterations)-1]
		it.Tools = execs
		if err != nil {
			return r.result, fmt.Errorf("llm: tool loop iteration %d: %w", n, err)
		}
		for i := range execs {
			r.emit(Event{Kind: EventToolResult, Iteration: n, Tool: &execs[i]})
		}
		if idx := nextUnresolved(results); idx >= 0 {
			r.result.Pending = r.newPending(req, n, idx, results)
			return r.result, nil
		}
		req.Messages = append(req.Messages, results...)
	}
}

// call performs one model call, streaming when configured.
func (r *runner) call(ctx context.Context, req Request, n int) (Response, error) {
	if !r.opts.Stream {
		return r.model.Complete(ctx, req)
	}
	return Collect(r.model.Stream(ctx, req), func(text string) {
		r.emit(Event{Kind: EventTextDelta, Iteration: n, Text: text})
	})
}

// nextUnresolved returns the index of the first call without a result, or -1.
func nextUnresolved(results []Message) int {
	for i, m := range results {
		if m.Role == "" {
			return i
		}
	}
	return -1
}

// runTurn handles the calls of one assistant turn. It returns one result
// message per call (a zero Message for calls awaiting confirmation) and the
// executions in call order. The error is non-nil only when ctx is done.
func (r *runner) runTurn(ctx context.Context, calls []ToolCall) ([]Message, []ToolExecution, error) {
	results := make([]Message, len(calls))
	execs := make([]ToolExecution, len(calls))
	var jobs []int
	for i, call := range calls {
		t, ok := r.tools[call.Name]
		if !ok {
			execs[i] = ToolExecution{
				Call:   call,
				Status: ToolUnknown,
				Result: errorContent(fmt.Sprintf("unknown tool %q; available tools: %s", call.Name, r.toolNames)),
				Err:    fmt.Errorf("llm: model called unknown tool %q", call.Name),
			}
			continue
		}
		if exec, bad := checkArguments(t, call); bad {
			execs[i] = exec
			continue
		}
		if t.RequiresConfirmation {
			execs[i] = ToolExecution{Call: call, Status: ToolPendingConfirmation}
			continue
		}
		jobs = append(jobs, i)
	}
	if err := r.executeAll(ctx, calls, jobs, execs); err != nil {
		return nil, execs, err
	}
	for i, e := range execs {
		if e.Status != ToolPendingConfirmation {
			results[i] = ToolResultMessage(e.Call, e.Result, e.Status != ToolOK)
		}
	}
	return results, execs, nil
}

// executeAll runs the calls at jobs concurrently (bounded) and stores their
// executions. It returns early with ctx's error when ctx is done.
func (r *runner) executeAll(ctx context.Context, calls []ToolCall, jobs []int, execs []ToolExecution) error {
	if len(jobs) == 0 {
		return nil
	}
	out := make([]ToolExecution, len(calls)) // written by workers only
	sem := make(chan struct{}, r.opts.MaxParallelTools)
	finished := make(chan int, len(jobs)) // buffered: workers never block
	for _, i := range jobs {
		go func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				finished <- -1
				return
			}
			defer func() { <-sem }()
			out[i] = r.execute(ctx, r.tools[calls[i].Name], calls[i])
			finished <- i
		}()
	}
	got := make(map[int]bool, len(jobs))
	abort := func() error {
		err := ctx.Err()
		for _, i := range jobs {
			if !got[i] {
				execs[i] = ToolExecution{Call: calls[i], Status: ToolFailed, Err: err}
			}
		}
		return err
	}
	for range jobs {
		select {
		case i := <-finished:
			if i < 0 {
				return abort()
			}
			execs[i], got[i] = out[i], true
		case <-ctx.Done():
			return abort()
		}
	}
	if ctx.Err() != nil {
		return abort()
	}
	return nil
}

// checkArguments validates call's arguments; bad reports an invalid call.
func checkArguments(t *compiledTool, call ToolCall) (exec ToolExecution, bad bool) {
	if err := t.schema.validateDoc(normalizeArgs(call.Arguments)); err != nil {
		return ToolExecution{
			Call:   call,
			Status: ToolInvalidArguments,
			Result: errorContent("invalid arguments: " + err.Error()),
			Err:    fmt.Errorf("%w: tool %q: %w", ErrInvalidArguments, call.Name, err),
		}, true
	}
	return ToolExecution{}, false
}

// execute validates and runs one call.
func (r *runner) execute(ctx context.Context, t *compiledTool, call ToolCall) ToolExecution {
	if exec, bad := checkArguments(t, call); bad {
		return exec
	}
	tctx, cancel := ctx, context.CancelFunc(func() {})
	if r.opts.ToolTimeout > 0 {
		tctx, cancel = context.WithTimeout(ctx, r.opts.ToolTimeout)
	}
	defer cancel()
	start := time.Now()
	out, err, panicked := safeCall(tctx, t.Handler, normalizeArgs(call.Arguments))
	exec := ToolExecution{Call: call, Duration: time.Since(start)}
	switch {
	case panicked:
		exec.Status, exec.Err = ToolFailed, err
		exec.Result = errorContent("the tool failed with an internal error")
	case err != nil && ctx.Err() == nil && errors.Is(tctx.Err(), context.DeadlineExceeded):
		exec.Status, exec.Err = ToolFailed, fmt.Errorf("llm: tool %q timed out after %s: %w", call.Name, r.opts.ToolTimeout, err)
		exec.Result = errorContent(fmt.Sprintf("the tool timed out after %s", r.opts.ToolTimeout))
	case err != nil:
		exec.Status, exec.Err = ToolFailed, err
		exec.Result = errorContent(err.Error())
	default:
		exec.Status, exec.Result = ToolOK, out
	}
	return exec
}

// safeCall runs a handler, turning a panic into an error.
func safeCall(ctx context.Context, h ToolHandler, args json.RawMessage) (out string, err error, panicked bool) {
	defer func() {
		if p := recover(); p != nil {
			out, err, panicked = "", fmt.Errorf("llm: tool handler panicked: %v", p), true
		}
	}()
	out, err = h(ctx, args)
	return out, err, false
}

// normalizeArgs maps the empty argument string some providers send for
// parameterless tools to "{}".
func normalizeArgs(args string) json.RawMessage {
	if strings.TrimSpace(args) == "" {
		return json.RawMessage("{}")
	}
	return json.RawMessage(args)
}

// errorContent renders a failure for the model: {"error":"..."}.
func errorContent(msg string) string {
	return jsonText(map[string]string{"error": msg})
}

// jsonText encodes a string map as JSON without HTML escaping ("<" stays
// readable for the model).
func jsonText(m map[string]string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(m) // cannot fail for a string map
	return strings.TrimSuffix(buf.String(), "\n")
}

// compactArgs returns args re-encoded compactly, or args when not JSON.
func compactArgs(args string) string {
	var buf bytes.Buffer
	if json.Compact(&buf, []byte(args)) != nil {
		return args
	}
	return buf.String()
}
