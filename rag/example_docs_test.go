package rag_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// Documents are indexed in sections (the Markdown headings), so a hit
// cites the section that matched: DocumentCitation gives "Title › Section".
func ExampleSearcher_SearchDocuments() {
	ctx := context.Background()
	store, _ := memory.New(memory.Options{Dimensions: 256}).Tenant("demo")
	emb, _ := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 256})

	files := []struct{ name, text string }{
		{"guias/oidio.md", "# Oídio da videira\n\nPó branco nas folhas e nos cachos, com tempo seco e noites frias.\n\n" +
			"## Controle\n\nAplique fungicida registrado para a videira no início dos sintomas e repita conforme a bula.\n"},
		{"politicas/frete.md", "# Política de frete\n\n## Prazos\n\nEntregas em até 5 dias úteis nas capitais.\n\n" +
			"## Devoluções\n\nProdutos lacrados podem ser devolvidos em 7 dias.\n"},
	}
	var docs []load.ParsedDocument
	for _, f := range files {
		d, err := load.ParseDocument(f.name, []byte(f.text), nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		docs = append(docs, d)
	}
	if _, err := ingest.NewIndexer(store, emb, ingest.IndexerOptions{}).IndexDocuments(ctx, docs); err != nil {
		fmt.Println(err)
		return
	}

	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	for _, q := range []string{"qual fungicida usar na videira?", "posso devolver um produto?"} {
		res, err := s.SearchDocuments(ctx, rag.Query{Text: q, Limit: 3})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(q)
		for _, h := range res.Hits {
			fmt.Printf("  %s | %s | relevant: %v\n", h.ID, rag.DocumentCitation(&h), h.Evidence.Relevant)
		}
	}
	// Output:
	// qual fungicida usar na videira?
	//   guias/oidio.md | Oídio da videira › Controle | relevant: true
	// posso devolver um produto?
	//   politicas/frete.md | Política de frete › Devoluções | relevant: true
}

// ChatStream yields the turn as events to range over: the intent, each
// search and its hits, the answer's tokens, then done with the response
// Chat would return. The extractive answerer streams word by word.
func ExamplePipeline_ChatStream() {
	ctx := context.Background()
	store, _ := memory.New(memory.Options{Dimensions: 256}).Tenant("demo")
	emb, _ := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 256})
	ix := ingest.NewIndexer(store, emb, ingest.IndexerOptions{})
	if _, err := ix.Reindex(ctx, ingest.Sources{
		Items: []storage.CatalogItem{
			{ID: "f1", Name: "Oidiex 250 EC", Category: "Fungicida", Tags: []string{"Uva"}, Price: price(98.5)},
		},
		FAQs: []storage.FAQ{
			{ID: "faq-1", Question: "Qual o prazo de entrega?", Answer: "Até 5 dias úteis nas capitais."},
			{ID: "faq-2", Question: "Aceitam Pix?", Answer: "Sim, Pix, boleto e cartão."},
		},
	}); err != nil {
		fmt.Println(err)
		return
	}
	p, err := rag.NewPipeline(rag.NewSearcher(store, emb, rag.SearcherOptions{}),
		offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}

	var streamed strings.Builder
	for e, err := range p.ChatStream(ctx, rag.ChatRequest{Message: "qual o prazo de entrega?"}) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		switch e.Kind {
		case rag.EventIntent:
			fmt.Println("intent:", e.Intent.Intent)
		case rag.EventToolCall:
			fmt.Println("search:", e.Tool)
		case rag.EventHits:
			ids := []string{}
			for _, c := range e.Sources {
				ids = append(ids, c.ID)
			}
			fmt.Println("hits:", e.Tool, ids)
		case rag.EventToken:
			streamed.WriteString(e.Token)
		case rag.EventDone:
			resp := e.Response
			fmt.Println("done: sources", len(resp.Sources), "| abstained", resp.Abstained, "| tokens make the answer", streamed.String() == resp.Answer)
			fmt.Println(resp.Answer)
		}
	}
	// Output:
	// intent: support
	// search: searchFaqs
	// search: searchDocuments
	// hits: searchFaqs [faq-1]
	// hits: searchDocuments []
	// done: sources 1 | abstained false | tokens make the answer true
	// Perguntas frequentes — Qual o prazo de entrega?: Até 5 dias úteis nas capitais.
}
