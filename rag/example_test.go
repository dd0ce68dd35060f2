package rag_test

import (
	"context"
	"fmt"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

func price(v float64) *float64 { return &v }

// A catalog indexed into the memory store with the offline hash embedder,
// then searched: "videira" finds grape products through the synonym table.
func ExampleSearcher_SearchCatalog() {
	ctx := context.Background()
	db := memory.New(memory.Options{Dimensions: 256})
	store, _ := db.Tenant("demo")
	emb, _ := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 256})

	items := []storage.CatalogItem{
		{ID: "f1", Name: "Oidiex 250 EC", Category: "Fungicida", Manufacturer: "AgroVale", Tags: []string{"Uva", "Maçã"},
			Description: "Fungicida sistêmico para oídio.", Price: price(98.5)},
		{ID: "h1", Name: "Glifovale 480 SL", Category: "Herbicida", Manufacturer: "AgroVale", Tags: []string{"Soja"},
			Description: "Herbicida não seletivo para plantas daninhas."},
		{ID: "f2", Name: "Fungiprot 250 SC", Category: "Fungicida", Tags: []string{"Soja", "Milho"},
			Description: "Fungicida para ferrugem-asiática."},
	}
	ix := ingest.NewIndexer(store, emb, ingest.IndexerOptions{})
	stats, err := ix.IndexItems(ctx, items)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("indexed:", stats.Items, "items,", stats.Embedded, "chunks embedded")

	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	res, err := s.SearchCatalog(ctx, rag.Query{Text: "fungicida para videira", Limit: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("terms:", res.Query.Terms)
	top := res.Hits[0]
	fmt.Println("top:", top.ID, top.Record.Name, "| pair:", top.Lexical.Signals.Pair)
	// Output:
	// indexed: 3 items, 3 chunks embedded
	// terms: [fungicida videira uva]
	// top: f1 Oidiex 250 EC | pair: true
}

// Without an embedder every search is lexical, and says so.
func ExampleSearcher_fallback() {
	ctx := context.Background()
	db := memory.New(memory.Options{Dimensions: 8})
	store, _ := db.Tenant("demo")
	_ = store.Apply(ctx, storage.Batch{FAQs: []storage.FAQ{
		{ID: "faq-1", Question: "Qual o prazo de entrega?", Answer: "Até 5 dias úteis nas capitais."},
		{ID: "faq-2", Question: "Aceitam Pix?", Answer: "Sim, Pix, boleto e cartão."},
	}})
	s := rag.NewSearcher(store, nil, rag.SearcherOptions{})
	res, _ := s.SearchFAQs(ctx, rag.Query{Text: "prazo de entrega"})
	fmt.Println(res.FallbackReason, len(res.Hits), res.Hits[0].ID)
	// Output:
	// embedding-disabled 1 faq-1
}

// The planned pipeline with the offline components: the keyword classifier
// picks the intent, the plan runs the catalog and FAQ searches, and the
// extractive answerer replies in pt-BR from the hits.
func ExamplePipeline_Chat() {
	ctx := context.Background()
	db := memory.New(memory.Options{Dimensions: 256})
	store, _ := db.Tenant("demo")
	emb, _ := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 256})
	ix := ingest.NewIndexer(store, emb, ingest.IndexerOptions{})
	_, _ = ix.IndexItems(ctx, []storage.CatalogItem{
		{ID: "f1", Name: "Oidiex 250 EC", Category: "Fungicida", Manufacturer: "AgroVale", Tags: []string{"Uva"}, Price: price(98.5)},
		{ID: "h1", Name: "Glifovale 480 SL", Category: "Herbicida", Tags: []string{"Soja"}},
	})
	_, _ = ix.IndexFAQs(ctx, []storage.FAQ{
		{ID: "faq-1", Question: "Preciso de receituário para comprar fungicida?", Answer: "Sim, defensivos exigem receituário agronômico."},
	})

	p, err := rag.NewPipeline(rag.NewSearcher(store, emb, rag.SearcherOptions{}),
		offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := p.Chat(ctx, rag.ChatRequest{Message: "tem fungicida para videira?", Limit: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("intent:", resp.Intent.Intent, "| plan:", resp.Debug.Plan, "| sources:", len(resp.Sources), "| abstained:", resp.Abstained)
	fmt.Println(resp.Answer)

	// Nothing in the store is relevant: the answer says so and cites
	// nothing.
	resp, err = p.Chat(ctx, rag.ChatRequest{Message: "vocês vendem ração para cachorro?", Limit: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("sources:", len(resp.Sources), "| abstained:", resp.Abstained, "| confidence:", resp.Confidence)
	fmt.Println(resp.Answer == offline.AbstainAnswer)
	// Output:
	// intent: catalog | plan: {true true false} | sources: 1 | abstained: false
	// Oidiex 250 EC (Fungicida, AgroVale) — R$ 98,50; culturas: Uva.
	//
	// Confira sempre a bula e o receituário agronômico antes de aplicar qualquer defensivo.
	// sources: 0 | abstained: true | confidence: none
	// true
}
