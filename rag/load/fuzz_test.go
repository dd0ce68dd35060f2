package load

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/rag/chunk"
)

func FuzzReadCatalogJSONL(f *testing.F) {
	f.Add(goodItem)
	f.Add(`{"id":1,"name":"A","tags":"a;b","price":"1.234,56","metadata":{"k":true}}` + "\n" + `[1,2]`)
	f.Add("\ufeff{\"id\":\"a\",\"name\":\"Caf\xe9\"}\r\n{bad")
	f.Fuzz(func(t *testing.T, in string) {
		items, err := readCatalogJSONL(context.Background(), strings.NewReader(in), "f.jsonl", nil)
		for _, it := range items {
			if it.ID == "" || it.Name == "" || !utf8.ValidString(it.ID+it.Name+it.Description) {
				t.Fatalf("bad item %+v", it)
			}
		}
		if err != nil {
			for _, e := range recordErrors(t, err) {
				if e.File != "f.jsonl" || e.Line < 1 {
					t.Fatalf("error without file:line: %v", e)
				}
			}
		}
	})
}

func FuzzParseMarkdown(f *testing.F) {
	f.Add("# A\n\ntexto\n\n## B\n\nmais\n")
	f.Add("---\ntitle: x\n---\nSetext\n===\n\n   ### c\n")
	f.Add("> # q\n- # l\n```\n# c\n```\n#\n")
	f.Fuzz(func(t *testing.T, in string) {
		d, err := ParseDocument("f.md", []byte(in), nil)
		if err != nil {
			return
		}
		if !utf8.ValidString(d.Content) {
			t.Fatal("content not valid UTF-8")
		}
		st, _ := chunk.NewStructural(chunk.StructuralOptions{})
		if _, err := st.Split(d.Content, d.Sections); err != nil {
			t.Fatalf("sections rejected by the splitter: %v", err)
		}
	})
}
