package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
)

var intentFormat = llm.ResponseFormat{
	Name:   "intent",
	Strict: true,
	Schema: json.RawMessage(`{"type":"object","properties":{
		"intent":{"type":"string","enum":["catalog","faq","smalltalk"]},
		"confidence":{"type":"number","minimum":0,"maximum":1}},
		"required":["intent","confidence"],"additionalProperties":false}`),
}

func TestCompleteJSON(t *testing.T) {
	type intent struct {
		Intent     string  `json:"intent"`
		Confidence float64 `json:"confidence"`
	}
	tests := []struct {
		name    string
		step    llmtest.Step
		want    intent
		wantErr error
	}{
		{"plain", llmtest.Text(`{"intent":"catalog","confidence":0.9}`), intent{"catalog", 0.9}, nil},
		{"code fence", llmtest.Text("```json\n{\"intent\":\"faq\",\"confidence\":1}\n```"), intent{"faq", 1}, nil},
		{"schema violation", llmtest.Text(`{"intent":"weather","confidence":0.9}`), intent{}, llm.ErrInvalidOutput},
		{"not JSON", llmtest.Text(`Acho que é catálogo.`), intent{}, llm.ErrInvalidOutput},
		{"refusal", llmtest.Step{Response: llm.Response{Refusal: "não posso"}}, intent{}, llm.ErrInvalidOutput},
		{"model error", llmtest.Fail(llm.ErrInvalidResponse), intent{}, llm.ErrInvalidResponse},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := llmtest.NewModel(tt.step)
			var got intent
			_, err := llm.CompleteJSON(context.Background(), model, userReq("tem fungicida?"), intentFormat, &got)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			rf := model.Requests()[0].ResponseFormat
			if rf == nil || rf.Name != "intent" || !rf.Strict {
				t.Errorf("response format sent = %+v", rf)
			}
		})
	}
	t.Run("uncompilable schema", func(t *testing.T) {
		model := llmtest.NewModel()
		_, err := llm.CompleteJSON(context.Background(), model, userReq("x"), llm.ResponseFormat{Name: "x", Schema: json.RawMessage(`{"$ref":"#/$defs/missing"}`)}, nil)
		if !errors.Is(err, llm.ErrInvalidSchema) || model.Calls() != 0 {
			t.Errorf("err = %v, calls %d", err, model.Calls())
		}
	})
}

func TestRequestValidate(t *testing.T) {
	msgs := []llm.Message{llm.UserMessage("x")}
	tools := []llm.ToolDefinition{{Name: "a"}}
	tests := []struct {
		name string
		req  llm.Request
		ok   bool
	}{
		{"minimal", llm.Request{Messages: msgs}, true},
		{"no messages", llm.Request{}, false},
		{"bad role", llm.Request{Messages: []llm.Message{{Role: "bot"}}}, false},
		{"tool without id", llm.Request{Messages: []llm.Message{{Role: llm.RoleTool, Content: "x"}}}, false},
		{"call without name", llm.Request{Messages: []llm.Message{llm.AssistantMessage("", llm.ToolCall{ID: "1"})}}, false},
		{"required without tools", llm.Request{Messages: msgs, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceRequired}}, false},
		{"required with tools", llm.Request{Messages: msgs, Tools: tools, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceRequired}}, true},
		{"forced offered", llm.Request{Messages: msgs, Tools: tools, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "a"}}, true},
		{"forced not offered", llm.Request{Messages: msgs, Tools: tools, ToolChoice: llm.ToolChoice{Mode: llm.ToolChoiceTool, Name: "b"}}, false},
		{"unknown mode", llm.Request{Messages: msgs, ToolChoice: llm.ToolChoice{Mode: "any"}}, false},
		{"duplicate tools", llm.Request{Messages: msgs, Tools: append(tools, tools...)}, false},
		{"negative max tokens", llm.Request{Messages: msgs, MaxTokens: -1}, false},
		{"format bad name", llm.Request{Messages: msgs, ResponseFormat: &llm.ResponseFormat{Name: "a b", Schema: json.RawMessage(`{}`)}}, false},
		{"format bad schema", llm.Request{Messages: msgs, ResponseFormat: &llm.ResponseFormat{Name: "ab", Schema: json.RawMessage(`{`)}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.req.Validate()
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, llm.ErrInvalidRequest)) {
				t.Errorf("Validate() = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestStreamResponseAndCollect(t *testing.T) {
	resp := llm.Response{Message: llm.AssistantMessage("oi", llm.ToolCall{ID: "1", Name: "a", Arguments: "{}"}), FinishReason: llm.FinishToolCalls}
	var kinds []string
	for ev, err := range llm.StreamResponse(resp) {
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, string(ev.Kind))
	}
	if got, want := strings.Join(kinds, ","), "text_delta,tool_call,done"; got != want {
		t.Errorf("kinds %s, want %s", got, want)
	}
	got, err := llm.Collect(llm.StreamResponse(resp), nil)
	if err != nil || got.Message.Content != "oi" || len(got.Message.ToolCalls) != 1 {
		t.Errorf("Collect = %+v, %v", got, err)
	}
	empty := func(func(llm.StreamEvent, error) bool) {}
	if _, err := llm.Collect(empty, nil); !errors.Is(err, llm.ErrInvalidResponse) {
		t.Errorf("stream without done: %v", err)
	}
}
