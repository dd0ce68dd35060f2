package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
)

type metricArgs struct {
	Type  string  `json:"type" jsonschema:"weight, height or glucose"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
}

func TestNewTypedTool(t *testing.T) {
	var got []metricArgs
	record, err := llm.NewTypedTool("record_metric", "Registra uma medida.", func(_ context.Context, in metricArgs) (map[string]bool, error) {
		got = append(got, in)
		return map[string]bool{"ok": true}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if record.Name != "record_metric" || record.Description != "Registra uma medida." || record.Handler == nil {
		t.Errorf("tool = %+v", record)
	}
	want := `{"type":"object","properties":{"type":{"type":"string","description":"weight, height or glucose"},` +
		`"value":{"type":"number"},"unit":{"type":"string"}},"required":["type","value"],"additionalProperties":false}`
	if string(record.Parameters) != want {
		t.Errorf("Parameters\n got  %s\n want %s", record.Parameters, want)
	}
	model := llmtest.NewModel(
		llmtest.ToolCalls(
			llmtest.Call("c1", "record_metric", `{"type":"weight","value":82.5,"unit":"kg"}`),
			llmtest.Call("c2", "record_metric", `{"type":"weight","value":"82"}`),
		),
		llmtest.Text("Registrado."),
	)
	res, err := llm.RunTools(context.Background(), model, userReq("pesei 82.5kg"), []llm.Tool{record}, &llm.RunOptions{MaxParallelTools: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != (metricArgs{Type: "weight", Value: 82.5, Unit: "kg"}) {
		t.Errorf("handler got %+v, want one valid call", got)
	}
	execs := res.Iterations[0].Tools
	if execs[0].Status != llm.ToolOK || execs[0].Result != `{"ok":true}` {
		t.Errorf("valid call: %+v", execs[0])
	}
	if execs[1].Status != llm.ToolInvalidArguments || execs[1].Result != `{"error":"invalid arguments: $.value: must be number (got string)"}` {
		t.Errorf("invalid call: %+v", execs[1])
	}
}

func TestNewTypedToolErrors(t *testing.T) {
	ok := func(context.Context, metricArgs) (string, error) { return "", nil }
	tests := []struct {
		name string
		make func() (llm.Tool, error)
		want error
	}{
		{"bad name", func() (llm.Tool, error) { return llm.NewTypedTool("record metric", "", ok) }, llm.ErrInvalidTool},
		{"nil function", func() (llm.Tool, error) {
			return llm.NewTypedTool[metricArgs, string]("record_metric", "", nil)
		}, llm.ErrInvalidTool},
		{"not an object", func() (llm.Tool, error) {
			return llm.NewTypedTool("echo", "", func(_ context.Context, in string) (string, error) { return in, nil })
		}, llm.ErrInvalidTool},
		{"no JSON schema", func() (llm.Tool, error) {
			return llm.NewTypedTool("run", "", func(context.Context, struct{ Then func() }) (string, error) { return "", nil })
		}, llm.ErrInvalidSchema},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, err := tt.make()
			if !errors.Is(err, tt.want) || !errors.Is(err, llm.ErrInvalidTool) {
				t.Errorf("err = %v, want %v (and ErrInvalidTool)", err, tt.want)
			}
			if tool.Handler != nil || tool.Parameters != nil {
				t.Errorf("tool = %+v, want zero on error", tool)
			}
		})
	}
	// A typed tool passes ValidateTools as it is.
	tool, err := llm.NewTypedTool("record_metric", "", ok)
	if err != nil {
		t.Fatal(err)
	}
	tool.InputExamples = []json.RawMessage{json.RawMessage(`{"type":"weight","value":82}`)}
	if err := llm.ValidateTools([]llm.Tool{tool}); err != nil {
		t.Errorf("ValidateTools = %v", err)
	}
}
