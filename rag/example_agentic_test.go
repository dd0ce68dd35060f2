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
	"github.com/hybridrag/hybridrag/rag/settings"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// Agentic mode: the model calls searchCatalog with a filter, reads the pt-BR
// payload and answers. A scripted llmtest model stands in for a real one.
func ExamplePipeline_ChatAgentic() {
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
	resp, err := p.ChatAgenticStream(ctx, rag.ChatRequest{Message: "o que vocês têm para oídio na uva?"}, model, rag.AgenticOptions{}, func(e rag.Event) {
		if e.Kind == rag.EventToolCall || e.Kind == rag.EventHits {
			fmt.Println(e.Kind, e.Tool, e.Query, len(e.Sources))
		}
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, tc := range resp.Debug.ToolCalls {
		fmt.Println("call:", tc.Name, tc.Status, tc.Results, "hit(s)")
	}
	fmt.Println("sources:", resp.Sources[0].ID, resp.Sources[0].Title)
	fmt.Println("answer:", resp.Answer)

	// Past the iteration limit the error is typed (with NoFallback).
	strict, _ := rag.NewPipeline(p.Searcher(), offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{NoFallback: true})
	looping := llmtest.NewModel(
		llmtest.ToolCalls(llmtest.Call("a", rag.ToolSearchFAQs, `{"query":"entrega"}`)),
		llmtest.ToolCalls(llmtest.Call("b", rag.ToolSearchFAQs, `{"query":"frete"}`)),
	)
	_, err = strict.ChatAgentic(ctx, rag.ChatRequest{Message: "entrega?"}, looping, rag.AgenticOptions{MaxIterations: 2})
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

// ConfigFromEnv reads the seeds' variables through the getenv it is given
// (os.Getenv in a program), reports every bad value by name and masks keys.
func ExampleConfigFromEnv() {
	env := map[string]string{
		"HYBRID_SEARCH_ENHANCED":     "true",
		"FAQ_HYBRID_ENABLED":         "false",
		"CATALOG_VECTOR_WEIGHT":      "5",
		"OPENROUTER_API_KEY":         "sk-or-v1-0123456789",
		"OPENROUTER_MODEL_ANSWER":    "openai/gpt-4o-mini",
		"CHAT_HISTORY_CONTEXT_LIMIT": "8",
	}
	cfg, err := settings.ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		fmt.Println(err)
		return
	}
	so := cfg.SearcherOptions()
	fmt.Println("mode:", so.Mode, "faq legs:", so.FAQLegs, "catalog vector weight:", so.CatalogWeights.Vector)
	fmt.Println("history:", cfg.PipelineOptions().HistoryLimit, "answer model:", cfg.Chat.AnswerModel)
	chat, _ := cfg.Providers.Chat()
	fmt.Println("chat provider:", chat.Provider, chat.BaseURL, chat.APIKey)

	env["EMBEDDING_DIMENSIONS"] = "-3"
	env["CATALOG_AI_MAX_PRICE"] = "caro"
	_, err = settings.ConfigFromEnv(func(k string) string { return env[k] })
	fmt.Println(err)
	fmt.Println(errors.Is(err, settings.ErrInvalidConfig))
	// Output:
	// mode: enhanced faq legs: lexical catalog vector weight: 5
	// history: 8 answer model: openai/gpt-4o-mini
	// chat provider: openrouter https://openrouter.ai/api/v1 [REDACTED]
	// rag: config: CATALOG_AI_MAX_PRICE="caro": not a number
	// rag: config: EMBEDDING_DIMENSIONS="-3": -3 out of range [1, 16000]
	// true
}
