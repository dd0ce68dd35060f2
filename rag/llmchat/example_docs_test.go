package llmchat_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/llmchat"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// A Pipeline whose classifier and answerer ask a chat model. A scripted
// llmtest.Model stands in for a real one (llm/openai in a program): its
// first answer is the classification JSON, its second the reply.
func ExampleNewAnswerer() {
	ctx := context.Background()
	store, _ := memory.New(memory.Options{Dimensions: 256}).Tenant("demo")
	emb, _ := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 256})
	price := 98.5
	if _, err := ingest.NewIndexer(store, emb, ingest.IndexerOptions{}).IndexItems(ctx, []storage.CatalogItem{
		{ID: "f1", Name: "Oidiex 250 EC", Category: "Fungicida", Tags: []string{"Uva"}, Description: "Fungicida para oídio da videira.", Price: &price},
		{ID: "h1", Name: "Glifovale 480 SL", Category: "Herbicida", Tags: []string{"Soja"}, Description: "Herbicida não seletivo."},
	}); err != nil {
		fmt.Println(err)
		return
	}

	model := llmtest.NewModel(
		llmtest.Text(`{"intent":"catalog","confidence":0.93,"reason":"pede um produto"}`),
		llmtest.Text("Temos o Oidiex 250 EC, fungicida para oídio da videira, por R$ 98,50. Siga a bula."),
	)
	classifier, err := llmchat.NewClassifier(model, llmchat.ClassifierOptions{Offline: offline.KeywordClassifier{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	answerer, err := llmchat.NewAnswerer(model, llmchat.AnswererOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := rag.NewPipeline(rag.NewSearcher(store, emb, rag.SearcherOptions{}), classifier, answerer, rag.PipelineOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := p.Chat(ctx, rag.ChatRequest{Message: "tem fungicida para oídio na uva?"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("intent:", resp.Intent.Intent, "by", resp.Intent.Model)
	for _, s := range resp.Sources {
		fmt.Println("source:", s.ID, s.Title)
	}
	fmt.Println("answer:", resp.Answer)

	// The answer request: instructions, then the context and question.
	for _, m := range model.Requests()[1].Messages {
		fmt.Println("message:", m.Role)
	}
	// Output:
	// intent: catalog by llmtest
	// source: f1 Oidiex 250 EC
	// answer: Temos o Oidiex 250 EC, fungicida para oídio da videira, por R$ 98,50. Siga a bula.
	// message: system
	// message: user
}

// When the model fails, the classifier tries the fallback model; when that
// fails too, the offline classifier decides (its verdict's Model is
// "keyword").
func ExampleNewClassifier() {
	down := &llm.APIError{StatusCode: 503}
	c, err := llmchat.NewClassifier(llmtest.NewModel(llmtest.Fail(down)), llmchat.ClassifierOptions{
		Fallback: llmtest.NewModel(llmtest.Text("não sei")), // not the JSON asked for
		Offline:  offline.KeywordClassifier{},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	got, err := c.Classify(context.Background(), rag.ClassifyRequest{Message: "qual o prazo de entrega para Campinas?"})
	fmt.Println(got.Intent, got.Model, err)

	// Without an offline classifier the models' errors are returned.
	c, _ = llmchat.NewClassifier(llmtest.NewModel(llmtest.Fail(down)), llmchat.ClassifierOptions{})
	_, err = c.Classify(context.Background(), rag.ClassifyRequest{Message: "oi"})
	var apiErr *llm.APIError
	fmt.Println(errors.As(err, &apiErr), apiErr.StatusCode)
	// Output:
	// support keyword <nil>
	// true 503
}
