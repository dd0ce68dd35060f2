package ingest_test

import (
	"context"
	"fmt"

	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// Reindex writes items, FAQs and documents with their chunks. Run again
// over the same records it embeds and writes nothing; after an edit it
// re-embeds the changed chunk alone.
func ExampleIndexer_Reindex() {
	ctx := context.Background()
	store, _ := memory.New(memory.Options{Dimensions: 256}).Tenant("demo")
	emb, _ := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 256})

	guide, err := load.ParseDocument("guias/oidio.md", []byte(
		"# Oídio da videira\n\nPó branco nas folhas e nos cachos.\n\n## Controle\n\nAplique fungicida registrado para a cultura no início dos sintomas.\n"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	src := ingest.Sources{
		Items: []storage.CatalogItem{
			{ID: "f1", Name: "Oidiex 250 EC", Category: "Fungicida", Tags: []string{"Uva"}, Description: "Fungicida sistêmico para oídio."},
			{ID: "h1", Name: "Glifovale 480 SL", Category: "Herbicida", Tags: []string{"Soja"}},
		},
		FAQs: []storage.FAQ{
			{ID: "faq-1", Question: "Qual o prazo de entrega?", Answer: "Até 5 dias úteis nas capitais."},
		},
		Documents: []load.ParsedDocument{guide},
	}

	ix := ingest.NewIndexer(store, emb, ingest.IndexerOptions{})
	report := func(st ingest.Stats) {
		fmt.Printf("owners %d+%d+%d: chunks %d, embedded %d, skipped %d, written %d, unchanged %d\n",
			st.Items, st.FAQs, st.Documents, st.Chunks, st.Embedded, st.Skipped, st.Written, st.Unchanged)
	}
	st, err := ix.Reindex(ctx, src)
	if err != nil {
		fmt.Println(err)
		return
	}
	report(st)

	st, _ = ix.Reindex(ctx, src) // nothing changed
	report(st)

	src.Items[1].Description = "Herbicida não seletivo para plantas daninhas."
	st, _ = ix.Reindex(ctx, src)
	report(st)
	// Output:
	// owners 2+1+1: chunks 6, embedded 6, skipped 0, written 4, unchanged 0
	// owners 2+1+1: chunks 6, embedded 0, skipped 6, written 0, unchanged 4
	// owners 2+1+1: chunks 6, embedded 1, skipped 5, written 1, unchanged 3
}
