package rag_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// A confirmation round trip (seed 003 §9): the model asks for a quote
// (FAQ 031), the turn ends with the question instead of sending it; the
// user corrects the quantity, so the model asks again; the user confirms,
// and only then does the quote reach submit. A server keeps
// resp.Confirmation between requests (by its ID, server-side) and passes
// it back with the user's next message.
func ExampleAgent_confirmation() {
	ctx := context.Background()
	db := memory.New(memory.Options{Dimensions: 64})
	store, _ := db.Tenant("demo")
	emb, _ := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 64})
	p, _ := rag.NewPipeline(rag.NewSearcher(store, emb, rag.SearcherOptions{}), offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{})

	// The action: a typed tool whose handler is the side effect (a CRM,
	// a queue, an e-mail), run only once the user confirms.
	type quote struct {
		Product  string  `json:"product" jsonschema:"the product, as in the catalog"`
		Quantity float64 `json:"quantity" jsonschema:"how much of unit"`
		Unit     string  `json:"unit" jsonschema:"L, kg, t, sacas"`
		Contact  string  `json:"contact" jsonschema:"the customer's e-mail or phone"`
	}
	tool, _ := llm.NewTypedTool("requestQuote", "Asks the sales team for a quote for a large volume.",
		func(_ context.Context, q quote) (string, error) {
			fmt.Printf("submitted: %g %s of %s for %s\n", q.Quantity, q.Unit, q.Product, q.Contact)
			return "COT-0042", nil
		})
	tool.RequiresConfirmation = true
	tool.Summarize = func(args json.RawMessage) string { // the question; llm.DefaultSummary when nil
		var q quote
		_ = json.Unmarshal(args, &q)
		return fmt.Sprintf("Confirma a solicitação de cotação de %g %s de %s, contato %s?", q.Quantity, q.Unit, q.Product, q.Contact)
	}
	opts := rag.AgentOptions{Actions: []llm.Tool{tool}} // Decide: nil, the keyword classifier

	model := llmtest.NewModel(
		llmtest.ToolCalls(llmtest.Call("q1", "requestQuote", `{"product":"Glifosato 480 SL","quantity":200,"unit":"L","contact":"compras@fazenda.com.br"}`)),
		llmtest.ToolCalls(llmtest.Call("q2", "requestQuote", `{"product":"Glifosato 480 SL","quantity":500,"unit":"L","contact":"compras@fazenda.com.br"}`)),
		llmtest.Text("Pronto! Sua cotação foi solicitada, protocolo COT-0042."),
	)
	agent, err := rag.NewAgent(p, model, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	req := rag.ChatRequest{Message: "quero uma cotação de 200 L de Glifosato 480 SL; e-mail compras@fazenda.com.br"}
	for _, reply := range []string{"não, 500 litros", "sim", ""} {
		resp, err := agent.Chat(ctx, req)
		if err != nil {
			fmt.Println(err)
			return
		}
		if resp.Debug.Decision != "" {
			fmt.Println("decision:", resp.Debug.Decision)
		}
		fmt.Println("assistant:", resp.Answer)
		if resp.Confirmation == nil {
			break
		}
		fmt.Println("user:", reply)
		req = rag.ChatRequest{Message: reply, Confirmation: resp.Confirmation}
	}
	// Output:
	// assistant: Confirma a solicitação de cotação de 200 L de Glifosato 480 SL, contato compras@fazenda.com.br?
	// user: não, 500 litros
	// decision: correct
	// assistant: Confirma a solicitação de cotação de 500 L de Glifosato 480 SL, contato compras@fazenda.com.br?
	// user: sim
	// submitted: 500 L of Glifosato 480 SL for compras@fazenda.com.br
	// decision: confirm
	// assistant: Pronto! Sua cotação foi solicitada, protocolo COT-0042.
}
