package rag_test

import (
	"context"
	"fmt"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// Every hit carries its Evidence: whether it answers the query at all.
// The soybean fungicide ranks, but lacks the culture of the
// culture+treatment pair the query names, so it is not relevant.
func ExampleEvidence() {
	ctx := context.Background()
	store, _ := memory.New(memory.Options{Dimensions: 256}).Tenant("demo")
	emb, _ := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 256})
	_, _ = ingest.NewIndexer(store, emb, ingest.IndexerOptions{}).IndexItems(ctx, []storage.CatalogItem{
		{ID: "f1", Name: "Oidiex 250 EC", Category: "Fungicida", Tags: []string{"Uva"}, Description: "Fungicida sistêmico para oídio."},
		{ID: "f2", Name: "Fungiprot 250 SC", Category: "Fungicida", Tags: []string{"Soja"}, Description: "Fungicida para ferrugem-asiática."},
		{ID: "h1", Name: "Glifovale 480 SL", Category: "Herbicida", Tags: []string{"Soja"}, Description: "Herbicida não seletivo."},
	})
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	res, err := s.SearchCatalog(ctx, rag.Query{Text: "vocês vendem fungicida para videira?", Limit: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range res.Hits {
		e := h.Evidence
		fmt.Printf("%s relevant=%v reason=%s coverage=%.2f missing=%v\n", h.ID, e.Relevant, e.Reason, e.Coverage, e.Missing)
	}
	// Output:
	// f1 relevant=true reason=covered coverage=1.00 missing=[]
	// f2 relevant=false reason=missing-pair coverage=0.32 missing=[videira]
}
