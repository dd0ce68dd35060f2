package legal_test

import (
	"context"
	"fmt"

	"github.com/hybridrag/hybridrag/rag/chunk"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/ingest/legal"
	"github.com/hybridrag/hybridrag/rag/load"
)

// The extractor places each chunk in the act's structure; an Indexer runs
// it for every document given IndexerOptions{Extractors:
// []ingest.Extractor{legal.New(legal.Options{})}}.
func Example() {
	text := `LEI Nº 1.234, DE 10 DE MARÇO DE 2020
Art. 5º Constitui infração danificar árvore de pomar urbano.
§ 2º A multa será agravada quando a infração:
I – atingir árvore centenária;
II – for praticada:
a) por servidor público;
b) com emprego de fogo, e o fato constituir crime.`
	doc := load.ParsedDocument{}
	doc.ID, doc.Content = "lei-1234", text
	splitter, _ := chunk.NewRecursive(chunk.RecursiveOptions{Size: 70, Overlap: -1})
	chunks, _ := ingest.DocumentChunks(&doc, nil, splitter)
	extractors := []ingest.Extractor{legal.New(legal.Options{})}
	if err := ingest.ExtractDocument(context.Background(), extractors, &doc.Document, chunks); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(doc.Metadata[legal.KeyDocumentType], doc.Metadata[legal.KeyDocumentNumber])
	for _, c := range chunks {
		m := c.Metadata
		fmt.Printf("art=%s §=%s inciso=%s alínea=%s tipo=%s crime=%s | %.24s\n",
			m[legal.KeyArtigo], m[legal.KeyParagrafo], m[legal.KeyInciso], m[legal.KeyAlinea], m[legal.KeyTipo], m["marca_crime"], c.Content)
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
