package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
)

// The model (scripted here) asks for a catalog search, gets the result and
// answers. OnEvent reports each step.
func ExampleRunTools() {
	search := llm.Tool{
		ToolDefinition: llm.ToolDefinition{
			Name:        "searchCatalog",
			Description: "Busca produtos no catálogo da loja.",
			Parameters: json.RawMessage(`{"type":"object",
				"properties":{"query":{"type":"string","minLength":1}},
				"required":["query"],"additionalProperties":false}`),
			InputExamples: []json.RawMessage{json.RawMessage(`{"query":"fungicida para soja"}`)},
		},
		Handler: llm.TypedHandler(func(_ context.Context, in struct {
			Query string `json:"query"`
		}) ([]string, error) {
			return []string{"Fungicida Azoxistrobina 250 SC"}, nil
		}),
	}
	model := llmtest.NewModel(
		llmtest.ToolCalls(llmtest.Call("call_1", "searchCatalog", `{"query":"fungicida soja"}`)),
		llmtest.Text("Temos o Fungicida Azoxistrobina 250 SC."),
	)
	req := llm.Request{Messages: []llm.Message{
		llm.SystemMessage("Você atende uma loja agropecuária."),
		llm.UserMessage("Vocês têm fungicida para soja?"),
	}}
	opts := &llm.RunOptions{OnEvent: func(ev llm.Event) {
		switch ev.Kind {
		case llm.EventModelResponse:
			fmt.Printf("iteration %d: %d tool call(s)\n", ev.Iteration, len(ev.Response.Message.ToolCalls))
		case llm.EventToolResult:
			fmt.Printf("  %s(%s) -> %s %s\n", ev.Tool.Call.Name, ev.Tool.Call.Arguments, ev.Tool.Status, ev.Tool.Result)
		}
	}}
	res, err := llm.RunTools(context.Background(), model, req, []llm.Tool{search}, opts)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(res.Response.Message.Content)
	// Output:
	// iteration 1: 1 tool call(s)
	//   searchCatalog({"query":"fungicida soja"}) -> ok ["Fungicida Azoxistrobina 250 SC"]
	// iteration 2: 0 tool call(s)
	// Temos o Fungicida Azoxistrobina 250 SC.
}

// A model that never stops calling tools hits the iteration limit.
func ExampleRunTools_maxIterations() {
	model := llmtest.NewModel()
	for range 3 {
		model.Push(llmtest.ToolCalls(llmtest.Call("c", "ping", `{}`)))
	}
	ping := llm.Tool{ToolDefinition: llm.ToolDefinition{Name: "ping"}, Handler: func(context.Context, json.RawMessage) (string, error) { return "pong", nil }}
	_, err := llm.RunTools(context.Background(), model, llm.Request{Messages: []llm.Message{llm.UserMessage("?")}},
		[]llm.Tool{ping}, &llm.RunOptions{MaxIterations: 3})
	fmt.Println(err)
	fmt.Println(errors.Is(err, llm.ErrMaxIterations))
	// Output:
	// llm: max tool loop iterations (3) exceeded
	// true
}

// A write tool waits for the user's confirmation; the user corrects the value.
func ExampleResumeConfirmation() {
	record := llm.Tool{
		ToolDefinition: llm.ToolDefinition{
			Name: "record_metric",
			Parameters: json.RawMessage(`{"type":"object","properties":{
				"type":{"type":"string"},"value":{"type":"number","minimum":0},"unit":{"type":"string"}},
				"required":["type","value"]}`),
		},
		RequiresConfirmation: true,
		Handler: func(_ context.Context, args json.RawMessage) (string, error) {
			fmt.Println("executing record_metric", string(args))
			return `{"ok":true}`, nil
		},
	}
	tools := []llm.Tool{record}
	model := llmtest.NewModel(
		llmtest.ToolCalls(llmtest.Call("c1", "record_metric", `{"type":"weight","value":82,"unit":"kg"}`)),
		llmtest.Text("Pronto! Registrei 82.5 kg."),
	)
	req := llm.Request{Messages: []llm.Message{llm.UserMessage("Pesei 82kg hoje")}}

	res, err := llm.RunTools(context.Background(), model, req, tools, nil)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(res.Pending.Summary)

	// The user answers "na verdade 82.5": only the value changes.
	res, err = llm.ResumeConfirmation(context.Background(), model, res.Pending,
		llm.Decision{Kind: llm.DecisionCorrect, Arguments: json.RawMessage(`{"value":82.5}`)}, tools, nil)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(res.Response.Message.Content)
	// Output:
	// Confirma a execução de record_metric (type: weight, unit: kg, value: 82)?
	// executing record_metric {"type":"weight","unit":"kg","value":82.5}
	// Pronto! Registrei 82.5 kg.
}

// A typed tool: the parameters schema is inferred from the argument struct,
// so it cannot drift from what the handler decodes. Arguments that break it
// go back to the model as an error result; the handler never sees them.
func ExampleNewTypedTool() {
	type searchArgs struct {
		Query string `json:"query" jsonschema:"o que buscar"`
		Limit int    `json:"limit,omitempty" jsonschema:"máximo de resultados"`
	}
	search, err := llm.NewTypedTool("searchCatalog", "Busca produtos no catálogo da loja.",
		func(_ context.Context, in searchArgs) ([]string, error) {
			return []string{"Fungicida Azoxistrobina 250 SC"}, nil
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(search.Parameters))

	model := llmtest.NewModel(
		llmtest.ToolCalls(llmtest.Call("c1", "searchCatalog", `{"query":"fungicida","limit":"3"}`)),
		llmtest.ToolCalls(llmtest.Call("c2", "searchCatalog", `{"query":"fungicida","limit":3}`)),
		llmtest.Text("Temos o Fungicida Azoxistrobina 250 SC."),
	)
	opts := &llm.RunOptions{OnEvent: func(ev llm.Event) {
		if ev.Kind == llm.EventToolResult {
			fmt.Println(ev.Tool.Status, ev.Tool.Result)
		}
	}}
	req := llm.Request{Messages: []llm.Message{llm.UserMessage("Tem fungicida?")}}
	res, err := llm.RunTools(context.Background(), model, req, []llm.Tool{search}, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Response.Message.Content)
	// Output:
	// {"type":"object","properties":{"query":{"type":"string","description":"o que buscar"},"limit":{"type":"integer","description":"máximo de resultados"}},"required":["query"],"additionalProperties":false}
	// invalid_arguments {"error":"invalid arguments: $.limit: must be integer (got string)"}
	// ok ["Fungicida Azoxistrobina 250 SC"]
	// Temos o Fungicida Azoxistrobina 250 SC.
}

func ExampleCompleteJSON() {
	model := llmtest.NewModel(llmtest.Text(`{"intent":"catalog"}`))
	var out struct {
		Intent string `json:"intent"`
	}
	format := llm.ResponseFormat{
		Name:   "intent",
		Strict: true,
		Schema: json.RawMessage(`{"type":"object","properties":{"intent":{"type":"string","enum":["catalog","faq"]}},
			"required":["intent"],"additionalProperties":false}`),
	}
	req := llm.Request{Messages: []llm.Message{llm.UserMessage("Quanto custa o adubo NPK?")}, Temperature: llm.Temperature(0)}
	if _, err := llm.CompleteJSON(context.Background(), model, req, format, &out); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Intent)
	// Output: catalog
}

func ExampleWithFallback() {
	primary := llmtest.NewModel(llmtest.Fail(&llm.APIError{Provider: "openai", StatusCode: 503, Retryable: true}))
	backup := llmtest.NewModel(llmtest.Text("Resposta do modelo reserva."))
	model := llm.WithFallback(primary, backup)
	resp, err := model.Complete(context.Background(), llm.Request{Messages: []llm.Message{llm.UserMessage("oi")}})
	fmt.Println(resp.Message.Content, err)
	// Output: Resposta do modelo reserva. <nil>
}
