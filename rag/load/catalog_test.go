package load

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hybridrag/hybridrag/storage"
)

const goodItem = `{"id":"p1","name":"Fungicida X","description":"Controle de ferrugem.","category":"Fungicida","manufacturer":"Acme","tags":["Soja","Café"],"price":12.5,"status":"ativo","metadata":{"registro":"123","dose":2},"files":[{"name":"bula.txt","text":"Aplicar na soja."}]}`

func TestReadCatalogJSONL(t *testing.T) {
	items, err := readCatalogJSONL(context.Background(), strings.NewReader(goodItem+"\n"), "c.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []storage.CatalogItem{{
		ID: "p1", Name: "Fungicida X", Description: "Controle de ferrugem.", Category: "Fungicida",
		Manufacturer: "Acme", Tags: []string{"Soja", "Café"}, Price: ptr(12.5), Status: storage.StatusActive,
		Metadata: map[string]string{"registro": "123", "dose": "2"},
		Files:    []storage.CatalogFile{{ItemID: "p1", Name: "bula.txt", Text: "Aplicar na soja."}},
	}}
	if diff := cmp.Diff(want, items); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

func TestReadCatalogJSONLLenientValues(t *testing.T) {
	tests := []struct {
		name string
		line string
		want storage.CatalogItem
	}{
		{"numeric id, tags as a string, price as pt-BR text",
			`{"id":42,"name":"A","tags":"Soja; Milho|Café","price":"1.234,56","status":"inativo"}`,
			storage.CatalogItem{ID: "42", Name: "A", Tags: []string{"Soja", "Milho", "Café"}, Price: ptr(1234.56), Status: storage.StatusInactive}},
		{"null price and status default to none and active",
			`{"id":"a","name":"A","price":null}`,
			storage.CatalogItem{ID: "a", Name: "A", Status: storage.StatusActive}},
		{"upper-case keys and spaces trimmed",
			`{"ID":" a ","Name":"  A  ","Status":"Active"}`,
			storage.CatalogItem{ID: "a", Name: "A", Status: storage.StatusActive}},
		{"NFD text becomes NFC",
			"{\"id\":\"a\",\"name\":\"Cafe\u0301\"}",
			storage.CatalogItem{ID: "a", Name: "Café", Status: storage.StatusActive}},
		{"NUL removed",
			`{"id":"a","name":"A\u0000B"}`,
			storage.CatalogItem{ID: "a", Name: "AB", Status: storage.StatusActive}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, err := readCatalogJSONL(context.Background(), strings.NewReader(tt.line), "c.jsonl", nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]storage.CatalogItem{tt.want}, items); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadCatalogJSONLBadRecords(t *testing.T) {
	tests := []struct {
		name   string
		line   string
		field  string
		target error
	}{
		{"not JSON", `{"id":"x", name}`, "", ErrSyntax},
		{"not an object", `["id","x"]`, "", ErrSyntax},
		{"null", `null`, "", ErrSyntax},
		{"missing id", `{"name":"A"}`, "id", storage.ErrInvalidRecord},
		{"blank id", `{"id":"  ","name":"A"}`, "id", storage.ErrInvalidRecord},
		{"id too long", `{"id":"` + strings.Repeat("x", 300) + `","name":"A"}`, "id", storage.ErrInvalidRecord},
		{"missing name", `{"id":"x"}`, "name", storage.ErrInvalidRecord},
		{"id is an object", `{"id":{},"name":"A"}`, "id", storage.ErrInvalidRecord},
		{"unknown status", `{"id":"x","name":"A","status":"talvez"}`, "status", storage.ErrInvalidRecord},
		{"negative price", `{"id":"x","name":"A","price":-1}`, "price", storage.ErrInvalidRecord},
		{"price not a number", `{"id":"x","name":"A","price":"caro"}`, "price", storage.ErrInvalidRecord},
		{"price is an array", `{"id":"x","name":"A","price":[1]}`, "price", storage.ErrInvalidRecord},
		{"tags hold an object", `{"id":"x","name":"A","tags":["a",{}]}`, "tags[1]", storage.ErrInvalidRecord},
		{"metadata value is an array", `{"id":"x","name":"A","metadata":{"k":[1]}}`, "metadata.k", storage.ErrInvalidRecord},
		{"metadata is a string", `{"id":"x","name":"A","metadata":"k"}`, "metadata", storage.ErrInvalidRecord},
		{"files is an object", `{"id":"x","name":"A","files":{"name":"a"}}`, "files", storage.ErrInvalidRecord},
		{"file text is a number array", `{"id":"x","name":"A","files":[{"name":"a","text":[1]}]}`, "files[0].text", storage.ErrInvalidRecord},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The bad record sits between two good ones on line 3.
			in := `{"id":"a","name":"A"}` + "\n\n" + tt.line + "\n" + `{"id":"b","name":"B"}` + "\n"
			items, err := readCatalogJSONL(context.Background(), strings.NewReader(in), "cat.jsonl", nil)
			e := wantRecordError(t, err, "cat.jsonl", 3, tt.target)
			if e.Field != tt.field {
				t.Errorf("field = %q, want %q (%v)", e.Field, tt.field, e)
			}
			if !strings.HasPrefix(e.Error(), "cat.jsonl:3:") {
				t.Errorf("message %q does not start with file:line", e.Error())
			}
			if len(items) != 2 || items[0].ID != "a" || items[1].ID != "b" {
				t.Errorf("good records not loaded: %+v", items)
			}
		})
	}
}

func TestReadCatalogJSONLReportsAllErrors(t *testing.T) {
	in := strings.Join([]string{
		`{"id":"a","name":"A"}`,
		`{bad`,
		`{"id":"b","name":"B"}`,
		`{"id":"c"}`,
		`{"id":"a","name":"A again"}`,
		`{"id":"d","name":"D","price":"x"}`,
	}, "\n")
	items, err := readCatalogJSONL(context.Background(), strings.NewReader(in), "cat.jsonl", nil)
	res := recordErrors(t, err)
	var lines []int
	for _, e := range res {
		lines = append(lines, e.Line)
	}
	if diff := cmp.Diff([]int{2, 4, 5, 6}, lines); diff != "" {
		t.Errorf("error lines (-want +got):\n%s\n%v", diff, err)
	}
	if !errors.Is(res[2], ErrDuplicateID) {
		t.Errorf("line 5: %v, want ErrDuplicateID", res[2])
	}
	if len(items) != 2 {
		t.Errorf("loaded %d items, want 2", len(items))
	}
	for _, want := range []string{"4 bad records", "cat.jsonl:2:", "cat.jsonl:6: id \"d\": price:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q:\n%v", want, err)
		}
	}

	t.Run("stop on error", func(t *testing.T) {
		items, err := readCatalogJSONL(context.Background(), strings.NewReader(in), "cat.jsonl", &Options{StopOnError: true})
		wantRecordError(t, err, "cat.jsonl", 2, ErrSyntax)
		if len(items) != 1 {
			t.Errorf("loaded %d items, want 1", len(items))
		}
	})
}

func TestReadCatalogJSONLLines(t *testing.T) {
	big := strings.Repeat("praga ", 40_000) // 240 KB, beyond bufio.Scanner's default
	long := `{"id":"big","name":"Big","files":[{"name":"f","text":"` + big + `"}]}`
	tests := []struct {
		name    string
		in      string
		opts    *Options
		wantIDs []string
		errLine int
		target  error
	}{
		{"BOM and CRLF", "\ufeff" + `{"id":"a","name":"A"}` + "\r\n" + `{"id":"b","name":"B"}` + "\r\n", nil, []string{"a", "b"}, 0, nil},
		{"no final newline", `{"id":"a","name":"A"}`, nil, []string{"a"}, 0, nil},
		{"blank lines skipped", "\n  \n" + `{"id":"a","name":"A"}` + "\n\n", nil, []string{"a"}, 0, nil},
		{"line longer than 64 KB", long + "\n" + `{"id":"a","name":"A"}`, nil, []string{"big", "a"}, 0, nil},
		{"line over MaxLineBytes", long + "\n" + `{"id":"a","name":"A"}`, &Options{MaxLineBytes: 1000}, []string{"a"}, 1, ErrLineTooLong},
		{"invalid UTF-8 read as Windows-1252", "{\"id\":\"a\",\"name\":\"Caf\xe9\"}", nil, []string{"a"}, 0, nil},
		{"invalid UTF-8 after a BOM replaced", "\ufeff{\"id\":\"a\",\"name\":\"Caf\xe9\"}", nil, []string{"a"}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, err := readCatalogJSONL(context.Background(), strings.NewReader(tt.in), "c.jsonl", tt.opts)
			if tt.target != nil {
				wantRecordError(t, err, "c.jsonl", tt.errLine, tt.target)
			} else if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, it := range items {
				ids = append(ids, it.ID)
				if strings.HasPrefix(it.ID, "\ufeff") {
					t.Errorf("BOM kept in id %q", it.ID)
				}
			}
			if tt.name == "invalid UTF-8 read as Windows-1252" && items[0].Name != "Café" {
				t.Errorf("name = %q, want %q", items[0].Name, "Café")
			}
			if tt.name == "invalid UTF-8 after a BOM replaced" && items[0].Name != "Caf\uFFFD" {
				t.Errorf("name = %q, want %q", items[0].Name, "Caf\uFFFD")
			}
			if diff := cmp.Diff(tt.wantIDs, ids); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("long file text kept whole", func(t *testing.T) {
		items, err := readCatalogJSONL(context.Background(), strings.NewReader(long), "c.jsonl", nil)
		if err != nil || len(items) != 1 || items[0].Files[0].Text != strings.TrimSpace(big) {
			t.Fatalf("err %v, %d items", err, len(items))
		}
	})
}

func TestReadCatalogJSONLCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := readCatalogJSONL(ctx, strings.NewReader(goodItem), "c.jsonl", nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestReadCatalogJSON(t *testing.T) {
	t.Run("array with a bad element", func(t *testing.T) {
		in := "[\n  " + `{"id":"a","name":"A"}` + ",\n  " + `{"id":"b"}` + ",\n  " + `{"id":"c","name":"C"}` + "\n]\n"
		items, err := readCatalogJSON(context.Background(), strings.NewReader(in), "c.json", nil)
		e := wantRecordError(t, err, "c.json", 3, storage.ErrInvalidRecord)
		if e.Index != 1 || e.Field != "name" {
			t.Errorf("index %d field %q, want 1 name", e.Index, e.Field)
		}
		if !strings.Contains(e.Error(), "c.json:3: element 1") {
			t.Errorf("message %q", e.Error())
		}
		if len(items) != 2 {
			t.Errorf("loaded %d, want 2", len(items))
		}
	})
	t.Run("syntax error stops at its line", func(t *testing.T) {
		in := "[\n" + `{"id":"a","name":"A"}` + ",\n" + `{"id": oops}` + "\n]"
		items, err := readCatalogJSON(context.Background(), strings.NewReader(in), "c.json", nil)
		e := wantRecordError(t, err, "c.json", 3, ErrSyntax)
		if e.Index != 1 {
			t.Errorf("index = %d, want 1", e.Index)
		}
		if len(items) != 1 {
			t.Errorf("loaded %d, want 1", len(items))
		}
	})
	t.Run("objects one a line", func(t *testing.T) {
		items, err := readCatalogJSON(context.Background(), strings.NewReader(`{"id":"a","name":"A"}`+"\n"+`{"id":"b","name":"B"}`), "c.json", nil)
		if err != nil || len(items) != 2 {
			t.Fatalf("%d items, err %v", len(items), err)
		}
	})
	t.Run("too large", func(t *testing.T) {
		_, err := readCatalogJSON(context.Background(), strings.NewReader("["+strings.Repeat(" ", 100)+"]"), "c.json", &Options{MaxFileBytes: 10})
		if !errors.Is(err, ErrFileTooLarge) {
			t.Errorf("err = %v, want ErrFileTooLarge", err)
		}
	})
}

func TestReadCatalogCSV(t *testing.T) {
	tests := []struct {
		name string
		opts *Options
		in   string
		want []storage.CatalogItem
	}{
		{
			"English headers, comma",
			nil,
			"id,name,description,category,manufacturer,tags,price,status\n" +
				"p1,Fungicida X,\"Controle, ferrugem\",Fungicida,Acme,Soja;Café,1234.56,active\n",
			[]storage.CatalogItem{{ID: "p1", Name: "Fungicida X", Description: "Controle, ferrugem", Category: "Fungicida",
				Manufacturer: "Acme", Tags: []string{"Soja", "Café"}, Price: ptr(1234.56), Status: storage.StatusActive}},
		},
		{
			"Portuguese headers with accents, semicolon, pt-BR price",
			nil,
			"\ufeffCódigo;Nome;Descrição;Categoria;Fabricante;Tags;Preço;Status\n" +
				"p1;Adubo;NPK 10-10-10;Fertilizante;Agro;Milho|Soja;\"1.234,56\";inativo\n",
			[]storage.CatalogItem{{ID: "p1", Name: "Adubo", Description: "NPK 10-10-10", Category: "Fertilizante",
				Manufacturer: "Agro", Tags: []string{"Milho", "Soja"}, Price: ptr(1234.56), Status: storage.StatusInactive}},
		},
		{
			"extra columns become metadata, file text column",
			nil,
			"id\tnome\tregistro\ttexto\n" + "p1\tA\t123\tBula completa\n",
			[]storage.CatalogItem{{ID: "p1", Name: "A", Status: storage.StatusActive, Metadata: map[string]string{"registro": "123"},
				Files: []storage.CatalogFile{{ItemID: "p1", Name: "texto", Text: "Bula completa"}}}},
		},
		{
			"named columns, extra columns kept",
			&Options{CSVColumns: map[string]string{"id": "Código Interno", "price": "valor_unit"}},
			"codigo,Código Interno,produto,valor_unit,outro\n" + "x9,p1,A,\"1,5\",x\n",
			[]storage.CatalogItem{{ID: "p1", Name: "A", Price: ptr(1.5), Status: storage.StatusActive, Metadata: map[string]string{"codigo": "x9", "outro": "x"}}},
		},
		{
			"blank rows skipped, empty price is none",
			nil,
			"id,name,price\n\np1,A,\n,,\n",
			[]storage.CatalogItem{{ID: "p1", Name: "A", Status: storage.StatusActive}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, err := readCatalogCSV(context.Background(), strings.NewReader(tt.in), "c.csv", tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, items); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestReadCatalogCSVBadRows(t *testing.T) {
	t.Run("wrong column count names the line", func(t *testing.T) {
		in := "id,name,price\np1,A,1\np2,B\np3,C,3,extra\np4,D,4\n"
		items, err := readCatalogCSV(context.Background(), strings.NewReader(in), "c.csv", nil)
		res := recordErrors(t, err)
		if len(res) != 2 || res[0].Line != 3 || res[1].Line != 4 || !errors.Is(res[0], ErrSyntax) {
			t.Fatalf("errors: %v", err)
		}
		if len(items) != 2 || items[1].ID != "p4" {
			t.Errorf("items: %+v", items)
		}
	})
	t.Run("bad quote, then good rows", func(t *testing.T) {
		in := "id,name\np1,A\np2,\"B\"x\np3,C\n"
		items, err := readCatalogCSV(context.Background(), strings.NewReader(in), "c.csv", nil)
		wantRecordError(t, err, "c.csv", 3, ErrSyntax)
		if len(items) != 2 {
			t.Errorf("items: %+v", items)
		}
	})
	t.Run("record line counts quoted newlines", func(t *testing.T) {
		in := "id,name,description\np1,A,\"linha 1\nlinha 2\"\np2,,x\n"
		_, err := readCatalogCSV(context.Background(), strings.NewReader(in), "c.csv", nil)
		e := wantRecordError(t, err, "c.csv", 4, storage.ErrInvalidRecord)
		if e.Field != "name" || e.ID != "p2" {
			t.Errorf("field %q id %q", e.Field, e.ID)
		}
	})
	t.Run("missing required column", func(t *testing.T) {
		_, err := readCatalogCSV(context.Background(), strings.NewReader("codigo,descricao\np1,x\n"), "c.csv", nil)
		e := wantRecordError(t, err, "c.csv", 1, ErrMissingColumn)
		if e.Field != "name" {
			t.Errorf("field = %q", e.Field)
		}
	})
	t.Run("mapped column absent", func(t *testing.T) {
		_, err := readCatalogCSV(context.Background(), strings.NewReader("id,name\np1,x\n"), "c.csv",
			&Options{CSVColumns: map[string]string{"price": "preco_venda"}})
		wantRecordError(t, err, "c.csv", 1, ErrMissingColumn)
	})
	t.Run("unknown field named", func(t *testing.T) {
		_, err := readCatalogCSV(context.Background(), strings.NewReader("id,name\np1,x\n"), "c.csv",
			&Options{CSVColumns: map[string]string{"nmae": "name"}})
		wantRecordError(t, err, "c.csv", 1, ErrMissingColumn)
	})
	t.Run("empty file", func(t *testing.T) {
		_, err := readCatalogCSV(context.Background(), strings.NewReader(""), "c.csv", nil)
		wantRecordError(t, err, "c.csv", 1, ErrMissingColumn)
	})
	t.Run("duplicate id and bad status", func(t *testing.T) {
		in := "id,name,status\np1,A,ativo\np1,B,ativo\np2,C,quem sabe\n"
		items, err := readCatalogCSV(context.Background(), strings.NewReader(in), "c.csv", nil)
		res := recordErrors(t, err)
		if len(res) != 2 || !errors.Is(res[0], ErrDuplicateID) || res[1].Field != "status" || len(items) != 1 {
			t.Errorf("items %d, errors %v", len(items), err)
		}
	})
}

func TestParsePrice(t *testing.T) {
	tests := []struct {
		in      string
		want    *float64
		wantErr bool
	}{
		{"", nil, false},
		{"  ", nil, false},
		{"1234.56", ptr(1234.56), false},
		{"1234,56", ptr(1234.56), false},
		{"1.234,56", ptr(1234.56), false},
		{"1,234.56", ptr(1234.56), false},
		{"1.234.567", ptr(1234567), false},
		{"1.234.567,8", ptr(1234567.8), false},
		{"R$ 1.234,56", ptr(1234.56), false},
		{"US$ 10", ptr(10), false},
		{"0", ptr(0), false},
		{"1,2,3", nil, true},
		{"-5", nil, true},
		{"abc", nil, true},
		{"NaN", nil, true},
		{"Inf", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ferr := parsePrice("price", tt.in)
			if (ferr != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", ferr, tt.wantErr)
			}
			if ferr != nil && !errors.Is(ferr.err, storage.ErrInvalidRecord) {
				t.Errorf("err %v does not wrap ErrInvalidRecord", ferr.err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadCatalogByExtension(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.jsonl": `{"id":"a","name":"A"}`,
		"b.json":  `[{"id":"b","name":"B"}]`,
		"c.csv":   "id,name\nc,C\n",
		"d.xml":   "<x/>",
	}
	for name, content := range files {
		writeFile(t, dir, name, content)
	}
	for _, name := range []string{"a.jsonl", "b.json", "c.csv"} {
		t.Run(name, func(t *testing.T) {
			items, err := LoadCatalog(context.Background(), dir+"/"+name, nil)
			if err != nil || len(items) != 1 || items[0].ID != name[:1] {
				t.Errorf("items %+v, err %v", items, err)
			}
		})
	}
	t.Run("unsupported", func(t *testing.T) {
		if _, err := LoadCatalog(context.Background(), dir+"/d.xml", nil); !errors.Is(err, ErrUnsupportedFormat) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		if _, err := LoadCatalog(context.Background(), dir+"/nope.jsonl", nil); err == nil {
			t.Error("no error")
		}
	})
}

func TestLoadCatalogAgrofit(t *testing.T) {
	path := sharedData(t, "agrofit/catalog.jsonl")
	items, err := LoadCatalog(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 4220 {
		t.Fatalf("loaded %d items, want 4220", len(items))
	}
	withFiles := 0
	for i := range items {
		if err := storage.ValidateBatch(&storage.Batch{Items: items[i : i+1]}, 0); err != nil {
			t.Fatalf("item %s: %v", items[i].ID, err)
		}
		if len(items[i].Files) > 0 && items[i].Files[0].Text != "" {
			withFiles++
		}
		if strings.ContainsRune(items[i].Description, '\u0301') {
			t.Fatalf("item %s still has a combining accent", items[i].ID)
		}
	}
	if withFiles < 4000 {
		t.Errorf("only %d items with file text", withFiles)
	}
}

func BenchmarkLoadCatalogAgrofit(b *testing.B) {
	path := sharedData(b, "agrofit/catalog.jsonl")
	b.ReportAllocs()
	for b.Loop() {
		items, err := LoadCatalog(context.Background(), path, nil)
		if err != nil || len(items) != 4220 {
			b.Fatal(len(items), err)
		}
	}
}

// TestReadByName checks that ReadCatalog and ReadFAQs pick the reader by
// the name's extension, as LoadCatalog and LoadFAQs do by the path's.
func TestReadByName(t *testing.T) {
	ctx := context.Background()
	items := map[string]string{
		"c.jsonl": `{"id":"a","name":"Adubo"}` + "\n",
		"c.JSON":  `[{"id":"a","name":"Adubo"}]`,
		"c.csv":   "id,name\na,Adubo\n",
	}
	for name, in := range items {
		got, err := ReadCatalog(ctx, strings.NewReader(in), name, nil)
		if err != nil || len(got) != 1 || got[0].ID != "a" || got[0].Name != "Adubo" {
			t.Errorf("ReadCatalog(%s) = %+v, %v; want item a", name, got, err)
		}
	}
	faqs := map[string]string{
		"f.ndjson": `{"id":"f","question":"Q?","answer":"A"}` + "\n",
		"f.json":   `[{"id":"f","question":"Q?","answer":"A"}]`,
		"f.tsv":    "id\tquestion\tanswer\nf\tQ?\tA\n",
	}
	for name, in := range faqs {
		got, err := ReadFAQs(ctx, strings.NewReader(in), name, nil)
		if err != nil || len(got) != 1 || got[0].ID != "f" || got[0].Answer != "A" {
			t.Errorf("ReadFAQs(%s) = %+v, %v; want FAQ f", name, got, err)
		}
	}
	if _, err := ReadCatalog(ctx, strings.NewReader("x"), "c.txt", nil); !errors.Is(err, ErrUnsupportedFormat) {
		t.Errorf("ReadCatalog(c.txt) = %v, want ErrUnsupportedFormat", err)
	}
	if _, err := ReadFAQs(ctx, strings.NewReader(""), "f", nil); !errors.Is(err, ErrUnsupportedFormat) {
		t.Errorf("ReadFAQs(f) = %v, want ErrUnsupportedFormat", err)
	}
}
