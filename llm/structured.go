package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// CompleteJSON asks model for a JSON answer matching format.Schema (OpenAI
// response_format json_schema; set format.Strict for strict mode), checks the
// answer against the schema with this package's validator and decodes it into
// out (a pointer, or nil to only validate). It returns the model's Response.
//
// To request the shape of a Go type, use SchemaFor:
//
//	s, err := llm.SchemaFor[Intent]()
//	...
//	format := llm.ResponseFormat{Name: "intent", Schema: s, Strict: true}
//
// Answers wrapped in a Markdown code fence (some local models add one) are
// unwrapped first. Output that is not JSON, breaks the schema or cannot be
// decoded into out returns an error wrapping ErrInvalidOutput; a schema this
// package cannot compile returns ErrInvalidSchema before anything is sent.
func CompleteJSON(ctx context.Context, model ChatModel, req Request, format ResponseFormat, out any) (Response, error) {
	schema, err := compileSchema(format.Schema)
	if err != nil {
		return Response{}, fmt.Errorf("llm: complete JSON %q: %w", format.Name, err)
	}
	req.ResponseFormat = &format
	resp, err := model.Complete(ctx, req)
	if err != nil {
		return resp, err
	}
	text := stripCodeFence(resp.Message.Content)
	if isBlank(text) && resp.Refusal != "" {
		return resp, fmt.Errorf("%w: the model refused: %s", ErrInvalidOutput, resp.Refusal)
	}
	if err := schema.validateDoc([]byte(text)); err != nil {
		return resp, fmt.Errorf("%w: %s: %w", ErrInvalidOutput, format.Name, err)
	}
	if out != nil {
		if err := json.Unmarshal([]byte(text), out); err != nil {
			return resp, fmt.Errorf("%w: %s: %w", ErrInvalidOutput, format.Name, err)
		}
	}
	return resp, nil
}

// stripCodeFence removes a surrounding ```json ... ``` fence.
func stripCodeFence(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return t
	}
	t = strings.TrimSuffix(t[3:], "```")
	if nl := strings.IndexByte(t, '\n'); nl >= 0 && !strings.ContainsAny(t[:nl], "{[\"") {
		t = t[nl+1:] // drop the info string ("json")
	}
	return strings.TrimSpace(t)
}
