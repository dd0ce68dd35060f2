package load

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/hybridrag/hybridrag/rag/chunk"
	"github.com/hybridrag/hybridrag/storage"
)

func TestReadDocumentsJSONL(t *testing.T) {
	in := strings.Join([]string{
		`{"id":"d1","title":"Soja","content":"Texto da soja.","source":"manual","metadata":{"ano":2024}}`,
		`{"id":"d2","content":"Outro texto.\r\nSegunda linha."}`,
		`{"id":"d3","title":"Vazio","content":"   "}`,
		`{"id":"d4","title":"Cópia","content":"Texto da soja."}`,
		`{"title":"Sem id","content":"x"}`,
	}, "\n")
	docs, err := ReadDocumentsJSONL(context.Background(), strings.NewReader(in), "docs.jsonl", nil)
	res := recordErrors(t, err)
	if len(res) != 3 {
		t.Fatalf("errors: %v", err)
	}
	if res[0].Line != 3 || res[0].Field != "content" || !errors.Is(res[0], storage.ErrInvalidRecord) {
		t.Errorf("first error: %v", res[0])
	}
	if res[1].Line != 5 || res[1].Field != "id" {
		t.Errorf("second error: %v", res[1])
	}
	var dup *DuplicateDocumentError
	if !errors.As(res[2], &dup) || res[2].Line != 4 || dup.ExistingID != "d1" || dup.NewID != "d4" || dup.Hash != storage.ContentHash("Texto da soja.") {
		t.Errorf("duplicate error: %v (%+v)", res[2], dup)
	}
	if !errors.Is(err, ErrDuplicateDocument) {
		t.Error("errors.Is(err, ErrDuplicateDocument) = false")
	}
	want := []ParsedDocument{
		{Document: storage.Document{ID: "d1", Title: "Soja", Content: "Texto da soja.", Source: "manual",
			Metadata: map[string]string{"ano": "2024"}, ContentHash: storage.ContentHash("Texto da soja."), Status: storage.StatusActive}, File: "docs.jsonl", Line: 1},
		{Document: storage.Document{ID: "d2", Title: "d2", Content: "Outro texto.\nSegunda linha.",
			ContentHash: storage.ContentHash("Outro texto.\nSegunda linha."), Status: storage.StatusActive}, File: "docs.jsonl", Line: 2},
	}
	if diff := cmp.Diff(want, docs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	t.Run("keep duplicates", func(t *testing.T) {
		docs, err := ReadDocumentsJSONL(context.Background(), strings.NewReader(in), "docs.jsonl", &Options{KeepDuplicateDocuments: true})
		if len(recordErrors(t, err)) != 2 || len(docs) != 3 {
			t.Errorf("%d docs, err %v", len(docs), err)
		}
	})
}

func TestParseDocumentMarkdown(t *testing.T) {
	src := "Texto antes.\n\n" +
		"# Manual *de* Pragas\n\nIntro.\n\n" +
		"## Soja\n\nFerrugem.\n\n" +
		"```\n# não é título\n```\n\n" +
		"### Doses `0,5 L`\n\nDose.\n\n" +
		"Milho\n-----\n\nCigarrinha.\n\n" +
		"> # citação não conta\n\n" +
		"#\n\n" +
		"   ## Indentado\n\nTexto.\n\n" +
		"# Anexo #\n\nFim.\n"
	d, err := ParseDocument("guia.md", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Content != src {
		t.Errorf("content changed:\n%q", d.Content)
	}
	if d.Title != "Manual de Pragas" || d.ID != "guia.md" || d.Metadata["format"] != formatMarkdown {
		t.Errorf("title %q id %q meta %v", d.Title, d.ID, d.Metadata)
	}
	type sec struct {
		Level int
		Path  []string
		Line  string
	}
	var got []sec
	for _, s := range d.Sections {
		line, _, _ := strings.Cut(d.Content[s.Start:s.End], "\n")
		got = append(got, sec{s.Level, s.HeadingPath, line})
	}
	want := []sec{
		{1, []string{"Manual de Pragas"}, "# Manual *de* Pragas"},
		{2, []string{"Manual de Pragas", "Soja"}, "## Soja"},
		{3, []string{"Manual de Pragas", "Soja", "Doses 0,5 L"}, "### Doses `0,5 L`"},
		{2, []string{"Manual de Pragas", "Milho"}, "Milho"},
		{2, []string{"Manual de Pragas", "Indentado"}, "   ## Indentado"},
		{1, []string{"Anexo"}, "# Anexo #"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sections (-want +got):\n%s", diff)
	}
	st, err := chunk.NewStructural(chunk.StructuralOptions{})
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := st.Split(d.Content, d.Sections)
	if err != nil {
		t.Fatal(err)
	}
	var heads []string
	for _, c := range chunks {
		heads = append(heads, strings.Join(c.HeadingPath, chunk.HeadingSeparator))
	}
	wantHeads := []string{"", "Manual de Pragas", "Manual de Pragas › Soja", "Manual de Pragas › Milho", "Manual de Pragas › Indentado", "Anexo"}
	if diff := cmp.Diff(wantHeads, heads); diff != "" {
		t.Errorf("chunk headings (-want +got):\n%s", diff)
	}
}

func TestParseDocumentMarkdownFrontMatter(t *testing.T) {
	tests := []struct {
		name, src                string
		wantID, wantTitle, first string
		wantMeta                 map[string]string
	}{
		{"front matter sets id, title and metadata",
			"---\nid: manual-soja\ntitle: \"Manual da Soja\"\nAutor: Embrapa\ntags:\n  - a\n---\n# Cabeçalho\n\nTexto.\n",
			"manual-soja", "Manual da Soja", "# Cabeçalho", map[string]string{"format": "markdown", "autor": "Embrapa"}},
		{"thematic break is not front matter",
			"---\n\nTexto.\n",
			"x.md", "x", "---", map[string]string{"format": "markdown"}},
		{"CRLF and BOM",
			"\ufeff# Título\r\n\r\nTexto.\r\n",
			"x.md", "Título", "# Título", map[string]string{"format": "markdown"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ParseDocument("x.md", []byte(tt.src), nil)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(d.Content, "\n")
			if d.ID != tt.wantID || d.Title != tt.wantTitle || first != tt.first {
				t.Errorf("id %q title %q first line %q", d.ID, d.Title, first)
			}
			if diff := cmp.Diff(tt.wantMeta, d.Metadata); diff != "" {
				t.Errorf("metadata (-want +got):\n%s", diff)
			}
			for _, s := range d.Sections {
				if !strings.HasPrefix(d.Content[s.Start:], "#") {
					t.Errorf("section at %d does not start at its heading: %q", s.Start, d.Content[s.Start:])
				}
			}
		})
	}
}

func TestParseDocumentText(t *testing.T) {
	tests := []struct {
		name, file, src string
		wantContent     string
		wantErr         error
	}{
		{"plain text", "notas/dicas de campo.txt", "Linha 1\r\nLinha 2\rLinha 3", "Linha 1\nLinha 2\nLinha 3", nil},
		{"invalid UTF-8 read as Windows-1252", "a.txt", "caf\xe9 \x93x\x94", "café “x”", nil},
		{"invalid UTF-8 after a BOM replaced", "a.txt", "\ufeffcaf\xe9", "caf\uFFFD", nil},
		{"whitespace only", "a.txt", " \n\t ", "", storage.ErrInvalidRecord},
		{"unsupported extension", "a.pdf", "%PDF", "", ErrUnsupportedFormat},
		{"too large", "a.txt", strings.Repeat("x", 2000), "", ErrFileTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ParseDocument(tt.file, []byte(tt.src), &Options{MaxFileBytes: 1000})
			if tt.wantErr != nil {
				var re *RecordError
				if !errors.Is(err, tt.wantErr) || !errors.As(err, &re) || re.File != tt.file {
					t.Errorf("err = %v, want %v naming %s", err, tt.wantErr, tt.file)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Content != tt.wantContent || d.Sections != nil {
				t.Errorf("content %q sections %v", d.Content, d.Sections)
			}
			if tt.file == "notas/dicas de campo.txt" && (d.Title != "dicas de campo" || d.ID != tt.file) {
				t.Errorf("title %q id %q", d.Title, d.ID)
			}
		})
	}
}

func TestLoadDocumentsFS(t *testing.T) {
	fsys := fstest.MapFS{
		"a.md":            {Data: []byte("# A\n\nTexto A.\n")},
		"sub/b.txt":       {Data: []byte("Texto B.")},
		"sub/c.docx":      {Data: []byte("not a zip")},
		"sub/copia.txt":   {Data: []byte("Texto B.")},
		"sub/more.jsonl":  {Data: []byte(`{"id":"j1","content":"Texto J."}` + "\n" + `{"id":"j2"}` + "\n")},
		"sub/~$lock.docx": {Data: []byte("lock")},
		".git/config":     {Data: []byte("x")},
		".hidden.md":      {Data: []byte("# H")},
		"image.png":       {Data: []byte("png")},
		"vazio.md":        {Data: []byte("\n\n")},
	}
	docs, err := LoadDocumentsFS(context.Background(), fsys, nil)
	var ids []string
	for _, d := range docs {
		ids = append(ids, d.ID)
	}
	if diff := cmp.Diff([]string{"a.md", "sub/b.txt", "j1"}, ids); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
	res := recordErrors(t, err)
	type bad struct {
		File string
		Line int
	}
	var got []bad
	for _, e := range res {
		got = append(got, bad{e.File, e.Line})
	}
	want := []bad{{"sub/c.docx", 0}, {"sub/more.jsonl", 2}, {"vazio.md", 0}, {"sub/copia.txt", 0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s\n%v", diff, err)
	}
	if !errors.Is(res[0], ErrInvalidDocx) || !errors.Is(res[3], ErrDuplicateDocument) {
		t.Errorf("error kinds: %v", err)
	}

	t.Run("stop on error", func(t *testing.T) {
		docs, err := LoadDocumentsFS(context.Background(), fsys, &Options{StopOnError: true})
		if len(recordErrors(t, err)) != 1 || len(docs) != 2 {
			t.Errorf("%d docs, err %v", len(docs), err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := LoadDocumentsFS(ctx, fsys, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v", err)
		}
	})
}

func TestLoadDocumentsDirectory(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "manuais/soja.md", "# Soja\n\nFerrugem.\n")
	writeFile(t, dir, "manuais/milho.docx", string(newDocx().para("Heading1", "Milho").para("", "Cigarrinha.").bytes(t)))
	writeFile(t, dir, "leia.txt", "Leia-me.")
	docs, err := LoadDocuments(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, d.ID+" | "+d.Title+" | "+d.File)
	}
	want := []string{"leia.txt | leia | leia.txt", "manuais/milho.docx | Milho | manuais/milho.docx", "manuais/soja.md | Soja | manuais/soja.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	t.Run("LoadDocuments on a directory, a file and a JSONL file", func(t *testing.T) {
		writeFile(t, dir, "x.jsonl", `{"id":"x","content":"X."}`)
		for path, n := range map[string]int{dir: 4, dir + "/manuais/soja.md": 1, dir + "/x.jsonl": 1} {
			docs, err := LoadDocuments(context.Background(), path, nil)
			if err != nil || len(docs) != n {
				t.Errorf("LoadDocuments(%s): %d docs, err %v", path, len(docs), err)
			}
		}
		docs, _ := LoadDocuments(context.Background(), dir+"/manuais/soja.md", nil)
		if docs[0].ID != "soja.md" {
			t.Errorf("single file id = %q, want soja.md", docs[0].ID)
		}
	})
	t.Run("missing path", func(t *testing.T) {
		if _, err := LoadDocuments(context.Background(), dir+"/nada", nil); err == nil {
			t.Error("no error")
		}
	})
}

func TestDedupe(t *testing.T) {
	docs := []ParsedDocument{
		{Document: storage.Document{ID: "a", Title: "A", Content: "x"}, File: "a.md"},
		{Document: storage.Document{ID: "b", Content: "y"}},
		{Document: storage.Document{ID: "c", Content: "x"}, File: "c.md"},
		{Document: storage.Document{ID: "d", Content: "x"}},
	}
	out, dups := dedupe(docs)
	if len(out) != 2 || out[0].ID != "a" || out[1].ID != "b" || out[0].ContentHash != storage.ContentHash("x") {
		t.Errorf("kept %+v", out)
	}
	if len(dups) != 2 || dups[0].ExistingID != "a" || dups[0].NewID != "c" || dups[0].Path != "c.md" || dups[1].NewID != "d" {
		t.Errorf("dups %+v", dups)
	}
	msg := dups[0].Error()
	for _, want := range []string{`"c"`, `"a"`, `"A"`, storage.ContentHash("x")[:12]} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if docs[0].ContentHash != "" {
		t.Error("dedupe modified its input")
	}
}

func TestLoadDocumentsFaQuAD(t *testing.T) {
	path := sharedData(t, "faquad/documents.jsonl")
	docs, err := LoadDocuments(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 249 {
		t.Fatalf("loaded %d documents, want 249", len(docs))
	}
	for _, d := range docs {
		if d.ContentHash != storage.ContentHash(d.Content) || d.Title == "" {
			t.Fatalf("document %s: hash or title missing", d.ID)
		}
	}
}
