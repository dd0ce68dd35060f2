// Command dbgask prints the evidence of the top hits of each kind (debug only, not committed).
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/storage/memory"
)

func main() {
	ctx := context.Background()
	src, err := ingest.LoadDir(ctx, "../testdata", nil)
	if err != nil {
		log.Fatal(err)
	}
	if os.Getenv("DBG_IRPF") != "" {
		faqs, err := load.LoadFAQs(ctx, "../../shared/data/br_taxqa/faqs.jsonl", nil)
		if err != nil {
			log.Fatal(err)
		}
		src = ingest.Sources{FAQs: faqs}
	}
	emb := offline.NewEmbedder()
	store, _ := memory.New(memory.Options{Dimensions: emb.Dimensions()}).Tenant("acme")
	if _, err := ingest.NewIndexer(store, emb, ingest.IndexerOptions{}).Reindex(ctx, src); err != nil {
		log.Fatal(err)
	}
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	for _, q := range os.Args[1:] {
		fmt.Println("Q:", q)
		c, _ := s.SearchCatalog(ctx, rag.Query{Text: q, Limit: 3})
		for _, h := range c.Hits {
			e := h.Evidence
			fmt.Printf("  item %s %q rel=%.3f lex=%.3f vec=%.3f z=%.2f cov=%.2f covered=%v missing=%v reason=%s\n", h.ID, h.Record.Name, e.Relevance, e.Lexical, e.Vector, e.VectorZ, e.Coverage, e.Covered, e.Missing, e.Reason)
		}
		f, _ := s.SearchFAQs(ctx, rag.Query{Text: q, Limit: 3})
		for _, h := range f.Hits {
			e := h.Evidence
			fmt.Printf("  faq %s %q rel=%.3f lex=%.3f vec=%.3f z=%.2f cov=%.2f covered=%v missing=%v reason=%s\n", h.ID, h.Record.Question, e.Relevance, e.Lexical, e.Vector, e.VectorZ, e.Coverage, e.Covered, e.Missing, e.Reason)
		}
		d, _ := s.SearchDocuments(ctx, rag.Query{Text: q, Limit: 3})
		for _, h := range d.Hits {
			e := h.Evidence
			fmt.Printf("  doc %s rel=%.3f lex=%.3f vec=%.3f z=%.2f cov=%.2f covered=%v missing=%v reason=%s\n", h.ID, e.Relevance, e.Lexical, e.Vector, e.VectorZ, e.Coverage, e.Covered, e.Missing, e.Reason)
		}
	}
}
