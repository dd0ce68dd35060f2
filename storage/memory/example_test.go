package memory_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
)

func Example() {
	ctx := context.Background()
	db := memory.New(memory.Options{Dimensions: 3})
	st, err := db.Tenant("acme")
	if err != nil {
		log.Fatal(err)
	}
	err = st.Apply(ctx, storage.Batch{
		Items: []storage.CatalogItem{
			{ID: "p1", Name: "Fungicida Cúprico", Tags: []string{"café"}},
			{ID: "p2", Name: "Inseticida", Description: "Controle de lagartas no café"},
		},
		Chunks: []storage.OwnerChunks{
			{Owner: storage.OwnerRef{Kind: storage.KindItem, ID: "p1"}, Chunks: []storage.Chunk{
				{Source: storage.SourceItem, Content: "Fungicida Cúprico", Embedding: []float32{1, 0, 0}},
			}},
			{Owner: storage.OwnerRef{Kind: storage.KindItem, ID: "p2"}, Chunks: []storage.Chunk{
				{Source: storage.SourceItem, Content: "Inseticida", Embedding: []float32{0.6, 0.8, 0}},
			}},
		},
	})
	if err != nil {
		log.Fatal(err)
	}

	lex, err := st.Items().Search(ctx, storage.LexicalQuery{Terms: []string{"cafe", "fungicida"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range lex {
		fmt.Printf("lexical %s: %d terms\n", c.Record.ID, c.TermsMatched)
	}

	vec, err := st.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindItem, Vector: []float32{1, 0, 0}, MaxDistance: -0.5})
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range vec {
		fmt.Printf("vector %s: distance %.2f\n", m.Chunk.Owner.ID, m.Distance)
	}
	// Output:
	// lexical p1: 2 terms
	// lexical p2: 1 terms
	// vector p1: distance -1.00
	// vector p2: distance -0.60
}

func ExampleDB_Tenant() {
	ctx := context.Background()
	db := memory.New(memory.Options{Dimensions: 3})
	acme, _ := db.Tenant("acme")
	globex, _ := db.Tenant("globex")
	_ = acme.Apply(ctx, storage.Batch{Items: []storage.CatalogItem{{ID: "p1", Name: "Adubo"}}})

	_, err := globex.Items().Get(ctx, "p1")
	fmt.Println(err)
	_, err = db.Tenant("no spaces allowed")
	fmt.Println(err != nil)
	// Output:
	// memory: item "p1": storage: not found
	// true
}

func ExampleDB_SaveFile() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "hybridrag")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "catalog.hrag")

	db := memory.New(memory.Options{Dimensions: 3})
	st, _ := db.Tenant("acme")
	if err := st.Apply(ctx, storage.Batch{Items: []storage.CatalogItem{{ID: "p1", Name: "Adubo"}}}); err != nil {
		log.Fatal(err)
	}
	if err := db.SaveFile(path); err != nil { // atomic: temp file + rename
		log.Fatal(err)
	}

	loaded, err := memory.LoadFile(path, memory.Options{}) // dimensions from the file
	if err != nil {
		log.Fatal(err)
	}
	st, _ = loaded.Tenant("acme")
	it, err := st.Items().Get(ctx, "p1")
	fmt.Println(loaded.Dimensions(), it.Name, err)
	// Output: 3 Adubo <nil>
}
