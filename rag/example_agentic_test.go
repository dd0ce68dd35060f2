package rag_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// Agentic mode: the model calls searchCatalog with a filter, reads the pt-BR
// payload and answers. A scripted llmtest model stands in for a real one.
func ExampleAgent() {
	ctx := context.Background()
	db := memory.New(memory.Options{Dimensions: 256})
	store, _ := db.Tenant("demo")
	emb, _ := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 256})
	items := []storage.CatalogItem{
		{ID: "f1", Name: "Oidiex 250 EC", Category: "Fungicida", Tags: []string{"Uva"}, Description: "Fungicida para oídio da videira.", Price: price(98.5)},
		{ID: "h1", Name: "Glifovale 480 SL", Category: "Herbicida", Tags: []string{"Soja"}, Description: "Herbicida não seletivo."},
	}
	if _, err := ingest.NewIndexer(store, emb, ingest.IndexerOptions{}).IndexItems(ctx, items); err != nil {
		fmt.Println(err)
		return
	}
	p, _ := rag.NewPipeline(rag.NewSearcher(store, emb, rag.SearcherOptions{}), offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{})

	model := llmtest.NewModel(
		llmtest.ToolCalls(llmtest.Call("call-1", rag.ToolSearchCatalog, `{"query":"fungicida oídio","category":"fungicida","limit":3}`)),
		llmtest.Text("Para oídio na videira, temos o Oidiex 250 EC por R$ 98,50. Siga a bula."),
	)
	var resp *rag.ChatResponse
	agent, err := rag.NewAgent(p, model, rag.AgentOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for e, err := range agent.ChatStream(ctx, rag.ChatRequest{Message: "o que vocês têm para oídio na uva?"}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		switch e.Kind {
		case rag.EventToolCall, rag.EventHits:
			fmt.Println(e.Kind, e.Tool, e.Query, len(e.Sources))
		case rag.EventDone:
			resp = e.Response
		}
	}
	for _, tc := range resp.Debug.ToolCalls {
		fmt.Println("call:", tc.Name, tc.Status, tc.Results, "hit(s)")
	}
	fmt.Println("sources:", resp.Sources[0].ID, resp.Sources[0].Title)
	fmt.Println("answer:", resp.Answer)

	// Past the iteration limit the error is typed (with Fallback Off).
	strict, _ := rag.NewPipeline(p.Searcher(), offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{Fallback: rag.Off})
	looping := llmtest.NewModel(
		llmtest.ToolCalls(llmtest.Call("a", rag.ToolSearchFAQs, `{"query":"entrega"}`)),
		llmtest.ToolCalls(llmtest.Call("b", rag.ToolSearchFAQs, `{"query":"frete"}`)),
	)
	strictAgent, _ := rag.NewAgent(strict, looping, rag.AgentOptions{MaxIterations: 2})
	_, err = strictAgent.Chat(ctx, rag.ChatRequest{Message: "entrega?"})
	var maxErr *llm.MaxIterationsExceededError
	fmt.Println("limit:", errors.As(err, &maxErr), maxErr.MaxIterations)
	// Output:
	// tool_call searchCatalog fungicida oídio 0
	// hits searchCatalog fungicida oídio 1
	// call: searchCatalog ok 1 hit(s)
	// sources: f1 Oidiex 250 EC
	// answer: Para oídio na videira, temos o Oidiex 250 EC por R$ 98,50. Siga a bula.
	// limit: true 2
}
