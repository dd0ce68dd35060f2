package load

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"

	"github.com/hybridrag/hybridrag/storage"
)

// The phrases of the Windows-1252 tests, written in UTF-8.
const (
	latinPhrase = "fungicida para café, açúcar"
	latinName   = "Pulverizador “Ação” – 20 L"
)

// cp1252 encodes s in Windows-1252 with x/text's encoder (not the
// package's decoder table), as Excel or Notepad would save it.
func cp1252(t *testing.T, s string) string {
	t.Helper()
	out, err := charmap.Windows1252.NewEncoder().String(s)
	if err != nil {
		t.Fatalf("encode %q: %v", s, err)
	}
	if utf8.ValidString(out) {
		t.Fatalf("%q encoded in Windows-1252 is valid UTF-8; the test proves nothing", s)
	}
	return out
}

// TestReadersDecodeWindows1252 feeds Windows-1252 bytes to every reader
// that reads raw bytes: the accents must arrive, not U+FFFD.
func TestReadersDecodeWindows1252(t *testing.T) {
	ctx := context.Background()
	phrase, name := cp1252(t, latinPhrase), cp1252(t, latinName)
	itemWant := func(t *testing.T, items []storage.CatalogItem, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if len(items) != 1 || items[0].Name != latinName || items[0].Description != latinPhrase {
			t.Fatalf("items %+v, want name %q and description %q", items, latinName, latinPhrase)
		}
	}
	faqWant := func(t *testing.T, faqs []storage.FAQ, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if len(faqs) != 1 || faqs[0].Question != latinName+"?" || faqs[0].Answer != latinPhrase {
			t.Fatalf("faqs %+v, want question %q and answer %q", faqs, latinName+"?", latinPhrase)
		}
	}
	itemJSON := `{"id":"p1","name":"` + name + `","description":"` + phrase + `"}`
	faqJSON := `{"id":"f1","question":"` + name + `?","answer":"` + phrase + `"}`

	t.Run("catalog CSV", func(t *testing.T) {
		in := cp1252(t, "código;nome;descrição\n") + "p1;\"" + name + "\";" + phrase + "\n"
		items, err := readCatalogCSV(ctx, strings.NewReader(in), "c.csv", nil)
		itemWant(t, items, err)
	})
	t.Run("catalog CSV, extra column keeps its accented header", func(t *testing.T) {
		in := cp1252(t, "id,name,description,região\n") + "p1," + name + ",\"" + phrase + "\"," + cp1252(t, "São Paulo") + "\n"
		items, err := readCatalogCSV(ctx, strings.NewReader(in), "c.csv", nil)
		itemWant(t, items, err)
		if got := items[0].Metadata["região"]; got != "São Paulo" {
			t.Errorf("metadata %v, want região=São Paulo", items[0].Metadata)
		}
	})
	t.Run("catalog JSONL", func(t *testing.T) {
		items, err := readCatalogJSONL(ctx, strings.NewReader(itemJSON+"\n"), "c.jsonl", nil)
		itemWant(t, items, err)
	})
	t.Run("catalog JSON array", func(t *testing.T) {
		items, err := readCatalogJSON(ctx, strings.NewReader("[\n"+itemJSON+"\n]"), "c.json", nil)
		itemWant(t, items, err)
	})
	t.Run("FAQ CSV", func(t *testing.T) {
		in := "id,pergunta,resposta\nf1,\"" + name + "?\",\"" + phrase + "\"\n"
		faqs, err := readFAQsCSV(ctx, strings.NewReader(in), "f.csv", nil)
		faqWant(t, faqs, err)
	})
	t.Run("FAQ JSONL", func(t *testing.T) {
		faqs, err := readFAQsJSONL(ctx, strings.NewReader(faqJSON), "f.jsonl", nil)
		faqWant(t, faqs, err)
	})
	t.Run("FAQ JSON array", func(t *testing.T) {
		faqs, err := readFAQsJSON(ctx, strings.NewReader("["+faqJSON+"]"), "f.json", nil)
		faqWant(t, faqs, err)
	})
	t.Run("documents JSONL", func(t *testing.T) {
		in := `{"id":"d1","title":"` + name + `","content":"` + phrase + `"}`
		docs, err := ReadDocumentsJSONL(ctx, strings.NewReader(in), "d.jsonl", nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(docs) != 1 || docs[0].Title != latinName || docs[0].Content != latinPhrase {
			t.Fatalf("docs %+v", docs)
		}
	})
	t.Run("Markdown and text files", func(t *testing.T) {
		fsys := fstest.MapFS{
			"bula.md":   {Data: []byte("# " + name + "\n\n" + phrase + "\r\n")},
			"notas.txt": {Data: []byte(phrase)},
		}
		docs, err := LoadDocumentsFS(ctx, fsys, nil, "bula.md", "notas.txt")
		if err != nil {
			t.Fatal(err)
		}
		if len(docs) != 2 {
			t.Fatalf("%d documents, want 2", len(docs))
		}
		if md := docs[0]; md.Title != latinName || md.Content != "# "+latinName+"\n\n"+latinPhrase+"\n" || len(md.Sections) != 1 || md.Sections[0].HeadingPath[0] != latinName {
			t.Errorf("markdown %+v", md)
		}
		if txt := docs[1]; txt.Content != latinPhrase || txt.ContentHash != storage.ContentHash(latinPhrase) {
			t.Errorf("text %+v", txt)
		}
	})
}

// TestWindows1252Decoding pins the decoding rule: valid UTF-8 is kept,
// the C1 range is Windows-1252's (not Latin-1's controls), and a file that
// declares UTF-8 with a BOM keeps U+FFFD for its bad bytes.
func TestWindows1252Decoding(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"valid UTF-8 kept", latinPhrase, latinPhrase},
		{"Latin-1 letters", "a\xe7\xfacar, caf\xe9, S\xc3O", "açúcar, café, SÃO"},
		{"Windows-1252 punctuation", "\x93Ol\xe1\x94 \x96 \x80 10 \x85", "“Olá” – € 10 …"},
		{"bytes Windows-1252 leaves undefined", "\x81\x8d\x8f\x90\x9d\xe9", "\u0081\u008d\u008f\u0090\u009dé"},
		{"BOM declares UTF-8", "\ufeffcaf\xe9", "\ufeffcaf\uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decodeText(tt.in, false); got != tt.want {
				t.Errorf("decodeText(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	t.Run("CSV after a BOM keeps the file UTF-8", func(t *testing.T) {
		in := "\ufeffid,name\np1,caf\xe9\n"
		items, err := readCatalogCSV(context.Background(), strings.NewReader(in), "c.csv", nil)
		if err != nil || len(items) != 1 || items[0].Name != "caf\uFFFD" {
			t.Fatalf("items %+v, err %v; want name caf\\uFFFD", items, err)
		}
	})
	t.Run("CSV rows judged one by one", func(t *testing.T) {
		in := "id,name\np1,café\np2," + cp1252(t, "café") + "\n"
		items, err := readCatalogCSV(context.Background(), strings.NewReader(in), "c.csv", nil)
		if err != nil || len(items) != 2 || items[0].Name != "café" || items[1].Name != "café" {
			t.Fatalf("items %+v, err %v; want both named café", items, err)
		}
	})
	t.Run("CSV row of no-break spaces is blank", func(t *testing.T) {
		in := "id,name\n\xa0,\xa0\np1,a\n"
		items, err := readCatalogCSV(context.Background(), strings.NewReader(in), "c.csv", nil)
		if err != nil || len(items) != 1 {
			t.Fatalf("items %+v, err %v; want p1 alone and no error", items, err)
		}
	})
}

// TestRepairMojibake covers the repair of UTF-8 read as Windows-1252, and
// what it must leave alone.
func TestRepairMojibake(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"accents", "fungicida para cafÃ©, aÃ§Ãºcar", latinPhrase},
		{"typographic punctuation", "Pulverizador â€œAÃ§Ã£oâ€\u009d â€“ 20 L", latinName},
		{"Á through an undefined byte", "Ã\u0081gua", "Água"},
		{"à through a no-break space", "Ã\u00a0 venda", "à venda"},
		{"mangled twice", "cafÃƒÂ©", "café"},
		{"each line on its own", "cafÃ©\ncafé\naÃ§Ãºcar", "café\ncafé\naçúcar"},
		{"ASCII", "NPK 10-10-10", "NPK 10-10-10"},
		{"proper Portuguese", "NÃO É SÓ AÇÃO; não é só ação", "NÃO É SÓ AÇÃO; não é só ação"},
		{"mixed line left alone", "café ou cafÃ©", "café ou cafÃ©"},
		{"character outside Windows-1252 left alone", "cafÃ© ✓", "cafÃ© ✓"},
		{"bytes spelling a non-Windows-1252 character", "âœ“", "âœ“"},
		{"bytes spelling a C1 control", "Â\u0081", "Â\u0081"},
		{"replacement character left alone", "cafÃ©\uFFFD", "cafÃ©\uFFFD"},
		{"invalid sequence", "Ã ", "Ã "},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := repairMojibake(tt.in)
			if got != tt.want {
				t.Fatalf("repairMojibake(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := repairMojibake(got); again != got {
				t.Errorf("repairing %q again gives %q", got, again)
			}
		})
	}
}

// TestMojibakeThroughReaders: the readers repair mojibake in fields,
// long texts and documents; KeepMojibake turns it off; a field whose
// repair ends in a no-break space is trimmed and stays stable.
func TestMojibakeThroughReaders(t *testing.T) {
	ctx := context.Background()
	line := `{"id":"p1","name":"Pulverizador â€œAÃ§Ã£oâ€\u009d â€“ 20 L","description":"fungicida para cafÃ©, aÃ§Ãºcar","tags":["cafÃ©"],"metadata":{"regiÃ£o":"SÃ£o Paulo"}}`
	items, err := readCatalogJSONL(ctx, strings.NewReader(line), "c.jsonl", nil)
	if err != nil || len(items) != 1 {
		t.Fatalf("items %+v, err %v", items, err)
	}
	it := items[0]
	if it.Name != latinName || it.Description != latinPhrase || it.Tags[0] != "café" || it.Metadata["região"] != "São Paulo" {
		t.Errorf("item %+v not repaired", it)
	}
	kept, err := readCatalogJSONL(ctx, strings.NewReader(line), "c.jsonl", &Options{KeepMojibake: true})
	if err != nil || len(kept) != 1 || kept[0].Description != "fungicida para cafÃ©, aÃ§Ãºcar" {
		t.Errorf("KeepMojibake: items %+v, err %v", kept, err)
	}

	// "ÃƒÂ©Â\u00a0" repairs to "Ã©\u00a0" (the trailing no-break space is
	// half of "Â\u00a0"); trimmed to "Ã©" it repairs again.
	items, err = readCatalogJSONL(ctx, strings.NewReader(`{"id":"p2","name":"ÃƒÂ©Â\u00a0"}`), "c.jsonl", nil)
	if err != nil || len(items) != 1 || items[0].Name != "é" {
		t.Errorf("items %+v, err %v; want name é", items, err)
	}

	doc := "# cafÃ©\n\nSÃ£o Paulo â€“ aÃ§Ãºcar\ncafé\n"
	d, err := ParseDocument("a.md", []byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "# café\n\nSão Paulo – açúcar\ncafé\n"; d.Content != want || d.Title != "café" {
		t.Errorf("document %q titled %q, want %q titled café", d.Content, d.Title, want)
	}

	docx := docxZip(t, []byte(docxBody(`<w:p><w:r><w:t>aÃ§Ãºcar cristal</w:t></w:r></w:p>`)), nil, false)
	d, err = ParseDocument("a.docx", docx, nil)
	if err != nil || d.Content != "açúcar cristal" {
		t.Errorf("docx content %q, err %v; want açúcar cristal", d.Content, err)
	}
}

// FuzzRepairMojibake: the repair returns valid UTF-8, never lengthens the
// text, and repairing twice changes nothing.
func FuzzRepairMojibake(f *testing.F) {
	for _, s := range []string{"cafÃ©", "cafÃƒÂ©\nx", "Ã\u0081gua", "café ou cafÃ©", "âœ“", latinPhrase} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			s = decodeText(s, false)
		}
		got := repairMojibake(s)
		if !utf8.ValidString(got) || len(got) > len(s) {
			t.Fatalf("repairMojibake(%q) = %q", s, got)
		}
		if again := repairMojibake(got); again != got {
			t.Fatalf("repairMojibake(%q) = %q, then %q", s, got, again)
		}
		c := cleaner{}
		if f := c.field(s); c.field(f) != f {
			t.Fatalf("field(%q) = %q is not stable", s, f)
		}
	})
}
