package load_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hybridrag/hybridrag/rag/load"
)

func ExampleReadCatalog() {
	jsonl := `{"id":"agro-1","name":"Fungicida Alfa","category":"Fungicida","tags":["Soja","Café"],"price":null,"status":"ativo","files":[{"name":"bula.txt","text":"Ferrugem asiática."}]}
{"id":"agro-2","name":"Herbicida Beta","price":"1.234,56","status":"inativo"}
{"id":"agro-3","name":
{"id":"agro-4","price":10}
`
	items, err := load.ReadCatalog(context.Background(), strings.NewReader(jsonl), "catalog.jsonl", nil)
	for _, it := range items {
		price := "sem preço"
		if it.Price != nil {
			price = fmt.Sprintf("%.2f", *it.Price)
		}
		fmt.Printf("%s %q %s %v files=%d %s\n", it.ID, it.Name, it.Status, it.Tags, len(it.Files), price)
	}
	var bad load.RecordErrors
	if errors.As(err, &bad) {
		for _, e := range bad {
			fmt.Println("error:", e)
		}
	}
	// Output:
	// agro-1 "Fungicida Alfa" active [Soja Café] files=1 sem preço
	// agro-2 "Herbicida Beta" inactive [] files=0 1234.56
	// error: catalog.jsonl:3: load: malformed record: unexpected end of JSON input
	// error: catalog.jsonl:4: id "agro-4": name: storage: invalid record: empty
}
