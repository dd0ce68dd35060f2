package legal_test

import (
	"context"
	"fmt"

	"github.com/hybridrag/hybridrag/rag/chunk"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/ingest/legal"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
)

// The extractor places each chunk in the act's structure; an Indexer runs
// it for every document given IndexerOptions{Extractors:
// []ingest.Extractor{legal.New(legal.Options{})}}, and the store keeps the
// metadata with the document and its chunks.
func Example() {
	text := `LEI Nº 1.234, DE 10 DE MARÇO DE 2020
Art. 5º Constitui infração danificar árvore de pomar urbano.
§ 2º A multa será agravada quando a infração:
I – atingir árvore centenária;
II – for praticada:
a) por servidor público;
b) com emprego de fogo, e o fato constituir crime.`
	ctx := context.Background()
	store, _ := memory.New(memory.Options{Dimensions: vector.DefaultDimensions}).Tenant("t")
	// Small chunks of plain text, to show how the structure is followed
	// across them: the extractor wrapped in an ExtractorFunc keeps this
	// chunking (as an ingest.Sectioner it would cut the act at its
	// articles).
	splitter, _ := chunk.NewRecursive(chunk.RecursiveOptions{Size: 70, Overlap: -1})
	ext := legal.New(legal.Options{})
	ix := ingest.NewIndexer(store, offline.NewEmbedder(), ingest.IndexerOptions{
		FileChunker: splitter,
		Extractors:  []ingest.Extractor{ingest.ExtractorFunc(ext.Extract)},
	})
	d := load.ParsedDocument{}
	d.ID, d.Content = "lei-1234", text
	if _, err := ix.IndexDocuments(ctx, []load.ParsedDocument{d}); err != nil {
		fmt.Println(err)
		return
	}
	doc, _ := store.Documents().Get(ctx, "lei-1234")
	chunks, _ := store.Chunks(ctx, storage.OwnerRef{Kind: storage.KindDocument, ID: "lei-1234"})
	fmt.Println(doc.Metadata["tipo_documento"], doc.Metadata["numero_documento"])
	for _, c := range chunks {
		m := c.Metadata
		fmt.Printf("art=%s §=%s inciso=%s alínea=%s tipo=%s crime=%s | %.24s\n",
			m["artigo"], m["paragrafo"], m["inciso"], m["alinea"], m["tipo"], m["marca_crime"], c.Content)
	}
	// Output:
	// lei 1234
	// art= §= inciso= alínea= tipo=content crime=false | LEI Nº 1.234, DE 10 DE M
	// art=5 §= inciso= alínea= tipo=caput crime=false | Art. 5º Constitui infraç
	// art=5 §=2 inciso= alínea= tipo=paragrafo crime=false | § 2º A multa será agrava
	// art=5 §=2 inciso=I alínea= tipo=inciso crime=false | I – atingir árvore cente
	// art=5 §=2 inciso=II alínea=a tipo=alinea crime=false | a) por servidor público;
	// art=5 §=2 inciso=II alínea=b tipo=alinea crime=true | b) com emprego de fogo,
}
