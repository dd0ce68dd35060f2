// Command minimal is the library's main path on one page: load the
// repository's testdata, index it, search it and chat over it, with no
// model and no network. Run it from the repository root:
//
//	go run ./examples/minimal
package main

import (
	"context"
	"fmt"
	"log"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/storage/memory"
)

func main() {
	ctx := context.Background()
	// catalog.jsonl, faqs.jsonl, documents.jsonl and documents/ (Markdown, text, .docx).
	src, err := ingest.LoadDir(ctx, "testdata", nil)
	check(err)

	// The offline hash embedder; llm/openai has a model's. Or postgres.New(pool, …).
	emb := offline.NewEmbedder()
	store, err := memory.New(memory.Options{Dimensions: emb.Dimensions()}).Tenant("acme")
	check(err)
	stats, err := ingest.NewIndexer(store, emb, ingest.IndexerOptions{}).Reindex(ctx, src)
	check(err)
	fmt.Println(stats) // a second run embeds and writes nothing

	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	res, err := s.SearchCatalog(ctx, rag.Query{Text: "fungicida para videira", Limit: 3})
	check(err)
	for _, h := range res.Hits {
		fmt.Println(h.ID, h.Record.Name, h.Evidence.Relevant)
	}

	// Offline components; llmchat.NewClassifier and llmchat.NewAnswerer put a model in their place.
	p, err := rag.NewPipeline(s, offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{})
	check(err)
	resp, err := p.Chat(ctx, rag.ChatRequest{Message: "tem fungicida para videira?"})
	check(err)
	fmt.Println(resp.Answer) // quotes the relevant hits, cites them, abstains when none is
	for _, c := range resp.Sources {
		fmt.Println("-", c.Kind, c.ID, c.Title)
	}
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
