package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
)

// ToolDefinition is what a model sees of a tool, plus how RunTools treats
// its calls (validation, confirmation).
type ToolDefinition struct {
	// Name identifies the tool: letters, digits, '_' and '-', at most 64.
	Name string `json:"name"`
	// Description tells the model when and how to use the tool.
	Description string `json:"description,omitempty"`
	// Parameters is a JSON Schema object for the arguments (drafts 4 to 7,
	// 2019-09 or 2020-12, the default; $ref only inside the document;
	// NewTypedTool infers it from a Go type). Nil means an object with no
	// properties.
	Parameters json.RawMessage `json:"parameters,omitempty"`
	// InputExamples are example argument objects; two to four examples
	// help a model fill the arguments the way the tool expects. Each must satisfy Parameters.
	// Providers without native support get them appended to the
	// description.
	InputExamples []json.RawMessage `json:"input_examples,omitempty"`
	// Strict asks the provider to enforce Parameters exactly (OpenAI strict
	// function calling).
	Strict bool `json:"strict,omitempty"`
}

// ToolHandler executes a tool call. args has already been validated against
// the tool's schema (an empty argument string arrives as "{}"). The returned
// string is sent to the model as the tool result, typically JSON. A non-nil
// error is reported to the model as a failed call, not to the caller of
// RunTools. Handlers must honor ctx.
type ToolHandler func(ctx context.Context, args json.RawMessage) (string, error)

// Tool is a tool definition plus how to run it:
//
//	llm.Tool{
//		ToolDefinition: llm.ToolDefinition{Name: "record_weight", Description: "...", Parameters: schema},
//		RequiresConfirmation: true,
//		Handler: recordWeight,
//	}
//
// A Tool is a plain value; RunTools never modifies it. Handlers may be called
// concurrently for parallel tool calls.
type Tool struct {
	// ToolDefinition is the model-facing definition (name, description,
	// parameters, input examples, strict mode): what RunTools sends in
	// Request.Tools.
	ToolDefinition

	// RequiresConfirmation makes RunTools stop before executing a call of
	// this tool and return a PendingConfirmation. Use it for
	// tools that write or delete.
	RequiresConfirmation bool

	// Summarize renders the human-readable question shown to the user for a
	// pending confirmation, e.g. "Registrar peso: 82 kg em 2026-01-20?".
	// Nil uses a generic pt-BR summary listing the arguments.
	Summarize func(args json.RawMessage) string

	// Handler runs the tool. Required.
	Handler ToolHandler
}

// toolDefinitions returns the model-facing definitions of tools, in order.
func toolDefinitions(tools []Tool) []ToolDefinition {
	out := make([]ToolDefinition, len(tools))
	for i, t := range tools {
		out[i] = t.ToolDefinition
	}
	return out
}

var toolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func validateToolName(name string) error {
	if !toolNamePattern.MatchString(name) {
		return fmt.Errorf("%w: name %q must be 1-64 letters, digits, '_' or '-'", ErrInvalidTool, name)
	}
	return nil
}

// ValidateTools checks tools before they are offered to a model: valid and
// unique names, a non-nil handler, a compilable schema whose top level is an
// object, and input examples that satisfy the schema. Errors wrap
// ErrInvalidTool (and ErrInvalidSchema for schema problems).
func ValidateTools(tools []Tool) error {
	_, err := compileTools(tools)
	return err
}

// compiledTool is a Tool with its schema compiled, used by the loop.
type compiledTool struct {
	Tool
	schema *schema
}

func compileTools(tools []Tool) (map[string]*compiledTool, error) {
	out := make(map[string]*compiledTool, len(tools))
	for _, t := range tools {
		if err := validateToolName(t.Name); err != nil {
			return nil, err
		}
		if _, dup := out[t.Name]; dup {
			return nil, fmt.Errorf("%w: duplicate tool name %q", ErrInvalidTool, t.Name)
		}
		if t.Handler == nil {
			return nil, fmt.Errorf("%w: tool %q has no handler", ErrInvalidTool, t.Name)
		}
		params := bytes.TrimSpace(t.Parameters)
		if len(params) > 0 && params[0] != '{' {
			return nil, fmt.Errorf("%w: tool %q: parameters must be a JSON schema object", ErrInvalidTool, t.Name)
		}
		s, err := compileSchema(params)
		if err != nil {
			return nil, fmt.Errorf("%w: tool %q: %w", ErrInvalidTool, t.Name, err)
		}
		for i, ex := range t.InputExamples {
			if err := s.validateDoc(ex); err != nil {
				return nil, fmt.Errorf("%w: tool %q: input example %d: %w", ErrInvalidTool, t.Name, i, err)
			}
		}
		out[t.Name] = &compiledTool{Tool: t, schema: s}
	}
	return out, nil
}

// NewTypedTool returns a Tool whose Parameters are inferred from In (see
// SchemaFor) and whose Handler is TypedHandler(fn), so the schema the model
// sees and the type the handler decodes cannot drift apart. In must be a
// struct (or a map with string keys): tool arguments are a JSON object.
// Describe fields for the model with `jsonschema:"..."` tags.
//
//	type searchArgs struct {
//		Query string `json:"query" jsonschema:"what to look for"`
//		Limit int    `json:"limit,omitempty" jsonschema:"at most this many hits"`
//	}
//	search, err := llm.NewTypedTool("search", "Searches the catalog.",
//		func(ctx context.Context, in searchArgs) ([]Hit, error) { ... })
//
// Set InputExamples, Strict, RequiresConfirmation or Summarize on the
// returned value. Errors wrap ErrInvalidTool (and ErrInvalidSchema when In
// has no JSON Schema, e.g. a func or chan field).
func NewTypedTool[In, Out any](name, description string, fn func(ctx context.Context, in In) (Out, error)) (Tool, error) {
	if err := validateToolName(name); err != nil {
		return Tool{}, err
	}
	if fn == nil {
		return Tool{}, fmt.Errorf("%w: tool %q has no handler", ErrInvalidTool, name)
	}
	s, err := schemaFor[In]()
	if err != nil {
		return Tool{}, fmt.Errorf("%w: tool %q: %w", ErrInvalidTool, name, err)
	}
	if !s.objectOnly() {
		return Tool{}, fmt.Errorf("%w: tool %q: arguments must be a JSON object, and %s is not a struct", ErrInvalidTool, name, reflect.TypeFor[In]())
	}
	return Tool{ToolDefinition: ToolDefinition{Name: name, Description: description, Parameters: s.document()}, Handler: TypedHandler(fn)}, nil
}

// TypedHandler adapts a typed function to a ToolHandler: the arguments are
// decoded into In with encoding/json, and Out is encoded as JSON (a string Out
// is returned as is).
//
//	search := llm.TypedHandler(func(ctx context.Context, in struct {
//		Query string `json:"query"`
//	}) ([]Hit, error) {
//		return searcher.Search(ctx, in.Query)
//	})
func TypedHandler[In, Out any](fn func(ctx context.Context, in In) (Out, error)) ToolHandler {
	return func(ctx context.Context, args json.RawMessage) (string, error) {
		var in In
		if len(bytes.TrimSpace(args)) > 0 {
			if err := json.Unmarshal(args, &in); err != nil {
				return "", fmt.Errorf("decode arguments: %w", err)
			}
		}
		out, err := fn(ctx, in)
		if err != nil {
			return "", err
		}
		if s, ok := any(out).(string); ok {
			return s, nil
		}
		b, err := json.Marshal(out)
		if err != nil {
			return "", fmt.Errorf("encode result: %w", err)
		}
		return string(b), nil
	}
}
