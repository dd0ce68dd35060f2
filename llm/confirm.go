package llm

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// PendingConfirmation is a tool call that waits for the user's decision.
// RunTools returns it instead of executing a tool with
// RequiresConfirmation; ResumeConfirmation resolves it.
//
// It is a plain JSON-serializable value holding everything needed to resume,
// so it can be stored between HTTP requests (in a session, a cache or a
// database, next to the conversation). ResumeConfirmation never modifies it.
type PendingConfirmation struct {
	// ID identifies the confirmation (random, URL-safe).
	ID string `json:"id"`
	// Call is the tool call awaiting the decision: tool name and arguments.
	Call ToolCall `json:"call"`
	// Summary is the question for the user in pt-BR, e.g.
	// "Confirma a execução de record_metric (type: weight, value: 82.5)?".
	Summary string `json:"summary"`
	// Iteration is the model call that asked for Call.
	Iteration int `json:"iteration"`
	// CreatedAt and ExpiresAt bound the confirmation's validity; ExpiresAt
	// is zero when it never expires.
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at,omitzero"`
	// Request is the request of the next model call without its tools:
	// Messages ends with the assistant turn that made Call.
	Request Request `json:"request"`
	// CallIndex is Call's position among that turn's tool calls.
	CallIndex int `json:"call_index"`
	// Results holds one tool result per call of that turn; a zero Message
	// marks a call still awaiting confirmation.
	Results []Message `json:"results"`
}

// DecisionKind is the user's answer to a PendingConfirmation.
type DecisionKind string

// Decisions a user can make about a pending confirmation.
const (
	// DecisionConfirm executes the call as the model asked.
	DecisionConfirm DecisionKind = "confirm"
	// DecisionReject does not execute the call and tells the model so.
	DecisionReject DecisionKind = "reject"
	// DecisionCorrect executes the call with corrected arguments.
	DecisionCorrect DecisionKind = "correct"
)

// Decision resolves a PendingConfirmation.
type Decision struct {
	// Kind is the decision.
	Kind DecisionKind `json:"kind"`
	// Arguments, for DecisionCorrect, is a JSON object merged onto the
	// call's arguments as an RFC 7396 merge patch: {"value": 82.5} replaces
	// only "value". The result must satisfy the tool's schema.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Reason, for DecisionReject, is passed to the model. Optional.
	Reason string `json:"reason,omitempty"`
	// Message, when not empty, is appended as a user message after the
	// turn's tool results, before the model is called again (for a reply
	// that also says something new).
	Message string `json:"message,omitempty"`
}

// ResumeConfirmation resolves pending with decision and continues the tool
// loop:
//
//   - DecisionConfirm executes the call (arguments validated again);
//   - DecisionReject answers the call with a "rejected" result, not executed;
//   - DecisionCorrect merges decision.Arguments onto the call's arguments,
//     validates them against the tool's schema and executes the call with
//     them; the transcript shows the corrected call.
//
// If the same turn has another call awaiting confirmation, the result holds a
// new Pending for it; otherwise the turn's results go back to the model and
// the loop continues as in RunTools, counting iterations from
// pending.Iteration. tools must contain the pending tool.
//
// Errors that leave pending usable, so the caller may ask again: corrected
// arguments that fail the schema (wrapping ErrInvalidArguments), an unknown
// decision (ErrInvalidRequest). An expired confirmation returns
// ErrConfirmationExpired. Later failures are those of RunTools.
func ResumeConfirmation(ctx context.Context, model ChatModel, pending *PendingConfirmation, decision Decision, tools []Tool, opts *RunOptions) (*RunResult, error) {
	if model == nil || pending == nil {
		return nil, fmt.Errorf("%w: nil model or pending confirmation", ErrInvalidRequest)
	}
	o := opts.withDefaults()
	if !pending.ExpiresAt.IsZero() && time.Now().After(pending.ExpiresAt) {
		return nil, fmt.Errorf("%w: %s expired at %s", ErrConfirmationExpired, pending.ID, pending.ExpiresAt.Format(time.RFC3339))
	}
	compiled, err := compileTools(tools)
	if err != nil {
		return nil, err
	}
	t, ok := compiled[pending.Call.Name]
	if !ok {
		return nil, fmt.Errorf("%w: tool %q of the pending confirmation is not among the tools", ErrInvalidRequest, pending.Call.Name)
	}
	msgs := cloneMessages(pending.Request.Messages)
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != RoleAssistant ||
		len(msgs[len(msgs)-1].ToolCalls) != len(pending.Results) ||
		pending.CallIndex < 0 || pending.CallIndex >= len(pending.Results) ||
		pending.Results[pending.CallIndex].Role != "" {
		return nil, fmt.Errorf("%w: pending confirmation %s is inconsistent", ErrInvalidRequest, pending.ID)
	}
	turn := &msgs[len(msgs)-1]
	call := pending.Call

	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("llm: resume confirmation: %w", err)
	}
	r := &runner{model: model, tools: compiled, toolNames: toolNames(tools), opts: o, result: &RunResult{}}
	var exec ToolExecution
	switch decision.Kind {
	case DecisionConfirm:
		exec = r.execute(ctx, t, call)
	case DecisionReject:
		content := map[string]string{"status": "rejected", "message": "The user rejected this action; it was not executed."}
		if decision.Reason != "" {
			content["reason"] = decision.Reason
		}
		exec = ToolExecution{Call: call, Status: ToolRejected, Result: jsonText(content)}
	case DecisionCorrect:
		merged, err := mergePatch(normalizeArgs(call.Arguments), decision.Arguments)
		if err != nil {
			return nil, fmt.Errorf("%w: corrected arguments: %w", ErrInvalidArguments, err)
		}
		if err := t.schema.validateDoc(merged); err != nil {
			return nil, fmt.Errorf("%w: corrected arguments for %q: %w", ErrInvalidArguments, call.Name, err)
		}
		call.Arguments = string(merged)
		turn.ToolCalls[pending.CallIndex].Arguments = call.Arguments
		exec = r.execute(ctx, t, call)
	default:
		return nil, fmt.Errorf("%w: unknown decision %q", ErrInvalidRequest, decision.Kind)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("llm: resume confirmation: %w", err)
	}

	results := slices.Clone(pending.Results)
	results[pending.CallIndex] = ToolResultMessage(exec.Call, exec.Result, exec.Status != ToolOK)
	r.result.Iterations = []Iteration{{Number: pending.Iteration, Tools: []ToolExecution{exec}}}
	r.emit(Event{Kind: EventToolResult, Iteration: pending.Iteration, Tool: &exec})

	req := pending.Request
	req.Tools = toolDefinitions(tools)
	req.Messages = msgs
	if idx := nextUnresolved(results); idx >= 0 {
		r.result.Messages = msgs
		r.result.Pending = r.newPending(req, pending.Iteration, idx, results)
		return r.result, nil
	}
	req.Messages = append(req.Messages, results...)
	if decision.Message != "" {
		req.Messages = append(req.Messages, UserMessage(decision.Message))
	}
	return r.loop(ctx, req, pending.Iteration)
}

// newPending builds the confirmation for the call at idx of req's last
// (assistant) message.
func (r *runner) newPending(req Request, iteration, idx int, results []Message) *PendingConfirmation {
	calls := req.Messages[len(req.Messages)-1].ToolCalls
	call := calls[idx]
	now := time.Now()
	p := &PendingConfirmation{
		ID:        newID(),
		Call:      call,
		Summary:   summarize(r.tools[call.Name], call),
		Iteration: iteration,
		CreatedAt: now,
		CallIndex: idx,
		Results:   cloneMessages(results),
	}
	if r.opts.ConfirmationTTL > 0 {
		p.ExpiresAt = now.Add(r.opts.ConfirmationTTL)
	}
	req.Tools = nil
	req.Messages = cloneMessages(req.Messages)
	p.Request = req
	return p
}

// newID returns 16 random bytes in hex, prefixed "pc_".
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return "pc_" + hex.EncodeToString(b[:])
}

// summarize renders the pt-BR confirmation question for call.
func summarize(t *compiledTool, call ToolCall) (s string) {
	args := normalizeArgs(call.Arguments)
	if t != nil && t.Summarize != nil {
		func() {
			defer func() {
				if recover() != nil {
					s = ""
				}
			}()
			s = t.Summarize(args)
		}()
		if !isBlank(s) {
			return s
		}
	}
	return DefaultSummary(call.Name, args)
}

// DefaultSummary is the generic pt-BR confirmation question for a call:
//
//	Confirma a execução de record_metric (type: weight, unit: kg, value: 82.5)?
//
// Top-level arguments are listed in key order, strings without quotes, each
// value cut at 60 characters.
func DefaultSummary(tool string, args json.RawMessage) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil || len(obj) == 0 {
		return "Confirma a execução de " + tool + "?"
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v := compactArgs(string(obj[k]))
		var str string
		if json.Unmarshal(obj[k], &str) == nil {
			v = str
		}
		parts = append(parts, k+": "+truncateRunes(v, 60))
	}
	return "Confirma a execução de " + tool + " (" + strings.Join(parts, ", ") + ")?"
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// mergePatch applies an RFC 7396 JSON merge patch to doc.
func mergePatch(doc, patch json.RawMessage) (json.RawMessage, error) {
	p, err := decodeJSON(patch)
	if err != nil {
		return nil, fmt.Errorf("patch: %w", err)
	}
	d, err := decodeJSON(doc)
	if err != nil {
		d = nil // RFC 7396: a non-object target is replaced
	}
	return json.Marshal(applyPatch(d, p))
}

func applyPatch(target, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	tm, ok := target.(map[string]any)
	if !ok {
		tm = map[string]any{}
	}
	for k, v := range pm {
		if v == nil {
			delete(tm, k)
			continue
		}
		tm[k] = applyPatch(tm[k], v)
	}
	return tm
}

// confirmationTool is the tool DetectDecision forces the model to call.
var confirmationTool = ToolDefinition{
	Name: "respond_to_confirmation",
	Description: "Classifica a resposta do usuário a um pedido de confirmação. " +
		"confirm: o usuário concorda (sim, ok, pode, beleza, manda ver, bora, tá certo). " +
		"reject: o usuário recusa (não, cancela, deixa, esquece, não precisa). " +
		"correct: o usuário fornece um valor diferente (na verdade 81, errei era 80kg); " +
		"preencha corrected_arguments só com os campos alterados, com os mesmos nomes e tipos dos argumentos originais. " +
		"unrelated: a mensagem não responde à confirmação (mudou de assunto).",
	Parameters: json.RawMessage(`{
		"type": "object",
		"properties": {
			"intent": {"type": "string", "enum": ["confirm", "reject", "correct", "unrelated"]},
			"corrected_arguments": {"type": "object"},
			"confidence": {"type": "number", "minimum": 0, "maximum": 1},
			"reasoning": {"type": "string"}
		},
		"required": ["intent"]
	}`),
}

var confirmationSchema, _ = compileSchema(confirmationTool.Parameters)

// DetectDecision asks model how the user's reply answers pending, with the
// respond_to_confirmation tool forced and temperature 0, so the answer is a
// structured decision and as repeatable as the model allows. There is no
// word-list fallback here: natural replies ("beleza", "na verdade 81")
// defeat word lists; KeywordDecision is the offline alternative. An "unrelated" reply becomes a rejection
// whose Message is the reply, so that the loop goes on with it.
//
// On error the pending confirmation stays valid; errors wrap the model's
// error or ErrInvalidOutput when the model did not call the tool properly.
func DetectDecision(ctx context.Context, model ChatModel, pending *PendingConfirmation, reply string) (Decision, error) {
	if model == nil || pending == nil {
		return Decision{}, fmt.Errorf("%w: nil model or pending confirmation", ErrInvalidRequest)
	}
	prompt := fmt.Sprintf("Pergunta feita ao usuário: %q\nFerramenta: %s\nArgumentos originais (JSON): %s\n"+
		"Chame respond_to_confirmation com a intenção da resposta do usuário.",
		pending.Summary, pending.Call.Name, compactArgs(string(normalizeArgs(pending.Call.Arguments))))
	resp, err := model.Complete(ctx, Request{
		Messages:    []Message{SystemMessage(prompt), UserMessage(reply)},
		Tools:       []ToolDefinition{confirmationTool},
		ToolChoice:  ToolChoice{Mode: ToolChoiceTool, Name: confirmationTool.Name},
		Temperature: Temperature(0),
	})
	if err != nil {
		return Decision{}, fmt.Errorf("llm: detect confirmation decision: %w", err)
	}
	for _, c := range resp.Message.ToolCalls {
		if c.Name != confirmationTool.Name {
			continue
		}
		if err := confirmationSchema.validateDoc(normalizeArgs(c.Arguments)); err != nil {
			return Decision{}, fmt.Errorf("%w: respond_to_confirmation: %w", ErrInvalidOutput, err)
		}
		var out struct {
			Intent    string          `json:"intent"`
			Corrected json.RawMessage `json:"corrected_arguments"`
			Reasoning string          `json:"reasoning"`
		}
		if err := json.Unmarshal(normalizeArgs(c.Arguments), &out); err != nil {
			return Decision{}, fmt.Errorf("%w: respond_to_confirmation: %w", ErrInvalidOutput, err)
		}
		switch out.Intent {
		case "confirm":
			return Decision{Kind: DecisionConfirm}, nil
		case "reject":
			return Decision{Kind: DecisionReject}, nil
		case "correct":
			if len(out.Corrected) == 0 {
				return Decision{}, fmt.Errorf("%w: correct without corrected_arguments", ErrInvalidOutput)
			}
			return Decision{Kind: DecisionCorrect, Arguments: out.Corrected}, nil
		default: // "unrelated"
			return Decision{Kind: DecisionReject, Reason: "the user changed the subject", Message: reply}, nil
		}
	}
	return Decision{}, fmt.Errorf("%w: the model did not call respond_to_confirmation", ErrInvalidOutput)
}
