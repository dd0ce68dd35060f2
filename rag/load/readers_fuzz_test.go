package load

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/hybridrag/hybridrag/rag/chunk"
	"github.com/hybridrag/hybridrag/storage"
)

// Fuzz targets for the record readers (CSV, JSON array, JSONL) and the
// .docx parser. Every target checks the loader's contract on whatever it
// returns: records pass storage.ValidateBatch, hold clean text (valid
// UTF-8, no NUL, NFC), have unique IDs; errors are RecordErrors whose
// entries name the file and a line and wrap one of the package's
// sentinels. The JSON readers must also be deterministic and read their
// own output back unchanged.
//
//	go test -run '^$' -fuzz '^FuzzReadCatalogCSV$' -fuzztime 60s ./rag/load

// seedLines returns the first n lines of a file under the repository's
// testdata, or "" when it is absent (seeds are a bonus, not a
// requirement).
func seedLines(name string, n int) string {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", name))
	if err != nil {
		return ""
	}
	lines := strings.SplitAfterN(string(data), "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "")
}

// checkClean fails when s is not text as the cleaner leaves it.
func checkClean(t *testing.T, what, s string) {
	t.Helper()
	switch {
	case !utf8.ValidString(s):
		t.Fatalf("%s %q is not valid UTF-8", what, s)
	case strings.IndexByte(s, 0) >= 0:
		t.Fatalf("%s %q holds a NUL byte", what, s)
	case !norm.NFC.IsNormalString(s):
		t.Fatalf("%s %q is not in NFC", what, s)
	}
}

// checkField fails when s is not a cleaned, trimmed field.
func checkField(t *testing.T, what, s string) {
	t.Helper()
	checkClean(t, what, s)
	if strings.TrimSpace(s) != s {
		t.Fatalf("%s %q is not trimmed", what, s)
	}
}

func checkStatus(t *testing.T, id string, st storage.Status) {
	t.Helper()
	if st != storage.StatusActive && st != storage.StatusInactive {
		t.Fatalf("record %q: status %q, want active or inactive", id, st)
	}
}

// checkRecordErrors checks that err is nil or holds a non-empty
// RecordErrors list, each naming file and a line within the input
// (1..lines, or 0 when allowed) and wrapping one of sentinels.
func checkRecordErrors(t *testing.T, err error, file string, lines int, lineZeroOK bool, sentinels ...error) RecordErrors {
	t.Helper()
	if err == nil {
		return nil
	}
	var res RecordErrors
	if !errors.As(err, &res) || len(res) == 0 {
		t.Fatalf("error %v (%T) holds no RecordErrors", err, err)
	}
	for _, e := range res {
		if e.File != file {
			t.Fatalf("record error names file %q, want %q: %v", e.File, file, e)
		}
		if e.Line < 0 || e.Line > lines || e.Line == 0 && !lineZeroOK {
			t.Fatalf("record error at line %d of a %d-line input: %v", e.Line, lines, e)
		}
		if e.Index < -1 {
			t.Fatalf("record error with index %d: %v", e.Index, e)
		}
		known := false
		for _, s := range sentinels {
			if errors.Is(e, s) {
				known = true
				break
			}
		}
		if !known {
			t.Fatalf("record error wraps none of %v: %v", sentinels, e)
		}
		if errors.Is(e, storage.ErrInvalidRecord) && e.Field == "" {
			t.Fatalf("invalid-record error names no field: %v", e)
		}
		_ = e.Error()
	}
	_ = err.Error()
	return res
}

// lineCount is the number of the last line of in, counting a final line
// without "\n".
func lineCount(in string) int { return strings.Count(in, "\n") + 1 }

func checkItems(t *testing.T, items []storage.CatalogItem) {
	t.Helper()
	if err := storage.ValidateBatch(&storage.Batch{Items: items}, 1); err != nil {
		t.Fatalf("loaded items fail storage validation: %v", err)
	}
	seen := map[string]bool{}
	for _, it := range items {
		if seen[it.ID] {
			t.Fatalf("item %q returned twice", it.ID)
		}
		seen[it.ID] = true
		if it.ID == "" || it.Name == "" {
			t.Fatalf("item without id or name: %+v", it)
		}
		checkStatus(t, it.ID, it.Status)
		for what, s := range map[string]string{"id": it.ID, "name": it.Name, "description": it.Description, "category": it.Category, "manufacturer": it.Manufacturer} {
			checkField(t, "item "+what, s)
		}
		for _, tag := range it.Tags {
			if tag == "" {
				t.Fatalf("item %q has an empty tag", it.ID)
			}
			checkField(t, "tag", tag)
		}
		for k, v := range it.Metadata {
			checkField(t, "metadata key", k)
			checkField(t, "metadata value", v)
		}
		for _, f := range it.Files {
			if f.ItemID != it.ID {
				t.Fatalf("item %q holds a file of %q", it.ID, f.ItemID)
			}
			checkField(t, "file name", f.Name)
			checkField(t, "file text", f.Text)
		}
	}
}

func checkFAQs(t *testing.T, faqs []storage.FAQ) {
	t.Helper()
	if err := storage.ValidateBatch(&storage.Batch{FAQs: faqs}, 1); err != nil {
		t.Fatalf("loaded FAQs fail storage validation: %v", err)
	}
	seen := map[string]bool{}
	for _, f := range faqs {
		if seen[f.ID] {
			t.Fatalf("FAQ %q returned twice", f.ID)
		}
		seen[f.ID] = true
		if f.ID == "" || f.Question == "" || f.Answer == "" {
			t.Fatalf("FAQ without id, question or answer: %+v", f)
		}
		checkStatus(t, f.ID, f.Status)
		for what, s := range map[string]string{"id": f.ID, "question": f.Question, "answer": f.Answer, "category": f.Category} {
			checkField(t, "FAQ "+what, s)
		}
		for _, k := range f.Keywords {
			if k == "" {
				t.Fatalf("FAQ %q has an empty keyword", f.ID)
			}
			checkField(t, "keyword", k)
		}
	}
}

// checkDocuments checks documents read from file; dedup says whether
// duplicate contents must have been dropped.
func checkDocuments(t *testing.T, docs []ParsedDocument, file string, lines int, dedup bool) {
	t.Helper()
	b := storage.Batch{}
	ids, hashes := map[string]bool{}, map[string]bool{}
	for _, d := range docs {
		b.Documents = append(b.Documents, d.Document)
		if ids[d.ID] {
			t.Fatalf("document %q returned twice", d.ID)
		}
		ids[d.ID] = true
		if dedup && hashes[d.ContentHash] {
			t.Fatalf("document %q repeats the content of an earlier one", d.ID)
		}
		hashes[d.ContentHash] = true
		if d.ContentHash != storage.ContentHash(d.Content) {
			t.Fatalf("document %q: ContentHash is not the hash of Content", d.ID)
		}
		if strings.TrimSpace(d.Content) == "" || d.Title == "" {
			t.Fatalf("document %q with empty content or title", d.ID)
		}
		if strings.ContainsRune(d.Content, '\r') {
			t.Fatalf("document %q: content holds a CR", d.ID)
		}
		if d.File != file || d.Line < 1 || d.Line > lines {
			t.Fatalf("document %q from %s:%d, want %s:1..%d", d.ID, d.File, d.Line, file, lines)
		}
		checkStatus(t, d.ID, d.Status)
		checkClean(t, "content", d.Content)
		for what, s := range map[string]string{"id": d.ID, "title": d.Title, "source": d.Source} {
			checkField(t, "document "+what, s)
		}
		for k, v := range d.Metadata {
			checkField(t, "metadata key", k)
			checkField(t, "metadata value", v)
		}
	}
	if err := storage.ValidateBatch(&b, 1); err != nil {
		t.Fatalf("loaded documents fail storage validation: %v", err)
	}
}

// errorTexts returns the record errors' messages, to compare two runs.
func errorTexts(err error) []string {
	var res RecordErrors
	if !errors.As(err, &res) {
		return nil
	}
	out := make([]string, len(res))
	for i, e := range res {
		out[i] = e.Error()
	}
	return out
}

// checkStopOnError runs read again with StopOnError: it must return at
// most one record error and a prefix of the full run's records.
func checkStopOnError[T any](t *testing.T, full []T, read func(*Options) ([]T, error)) {
	t.Helper()
	got, err := read(&Options{StopOnError: true})
	if n := len(errorTexts(err)); n > 1 {
		t.Fatalf("StopOnError returned %d record errors", n)
	}
	if len(got) > len(full) || len(got) > 0 && !reflect.DeepEqual(got, full[:len(got)]) {
		t.Fatalf("StopOnError records are not a prefix of the full run's:\n%+v\n%+v", got, full)
	}
}

// catalogJSONL writes items in the interchange format, one a line.
func catalogJSONL(t *testing.T, items []storage.CatalogItem) string {
	t.Helper()
	type file struct {
		Name string `json:"name"`
		Text string `json:"text"`
	}
	var b strings.Builder
	for _, it := range items {
		files := make([]file, len(it.Files))
		for i, f := range it.Files {
			files[i] = file{f.Name, f.Text}
		}
		line, err := json.Marshal(map[string]any{
			"id": it.ID, "name": it.Name, "description": it.Description, "category": it.Category,
			"manufacturer": it.Manufacturer, "tags": it.Tags, "price": it.Price, "status": it.Status,
			"metadata": it.Metadata, "files": files,
		})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// checkItemsRoundTrip writes items as JSONL and reads them back: the
// loader must accept its own output and return it unchanged.
func checkItemsRoundTrip(t *testing.T, items []storage.CatalogItem) {
	t.Helper()
	out := catalogJSONL(t, items)
	again, err := readCatalogJSONL(context.Background(), strings.NewReader(out), "again.jsonl", nil)
	if err != nil {
		t.Fatalf("reading the items back: %v\n%s", err, out)
	}
	if len(again) == 0 && len(items) == 0 {
		return
	}
	if !reflect.DeepEqual(items, again) {
		t.Fatalf("items change when written and read back:\n%+v\n%+v", items, again)
	}
}

// catalogCSVSeeds are CSV inputs shared by the catalog CSV seeds.
var catalogCSVSeeds = []string{
	"id,name,description,category,manufacturer,tags,price,status\n" +
		"p1,Fungicida X,\"Controle, ferrugem\",Fungicida,Acme,Soja;Café,1234.56,active\n",
	"\ufeffCódigo;Nome;Descrição;Categoria;Fabricante;Tags;Preço;Status\n" +
		"p1;Adubo;NPK 10-10-10;Fertilizante;Agro;Milho|Soja;\"1.234,56\";inativo\n",
	"id\tnome\tregistro\ttexto\n" + "p1\tA\t123\tBula completa\n",
	"id,name,price\n\np1,A,\n,,\n",
	"id,name,price\np1,A,1\np2,B\np3,C,3,extra\np4,D,4\n",
	"id,name\np1,A\np2,\"B\"x\np3,C\n",
	"id,name,description\np1,A,\"linha 1\nlinha 2\"\np2,,x\n",
	"sku,produto,valor,situacao,arquivo,conteudo,extra\r\nS-1,Cafe\u0301,\"R$ 1.234.567\",ATIVO,bula.pdf,\"texto \x00 da bula\",x\r\nS-1,dup,1,inativo,,,\r\n",
	"name\nA\n",
	"",
	"id,id,name,name\n1,2,a,b\n",
}

func FuzzReadCatalogCSV(f *testing.F) {
	for _, s := range catalogCSVSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		read := func(o *Options) ([]storage.CatalogItem, error) {
			return readCatalogCSV(context.Background(), strings.NewReader(in), "c.csv", o)
		}
		items, err := read(nil)
		checkRecordErrors(t, err, "c.csv", lineCount(in), false,
			ErrSyntax, ErrMissingColumn, ErrDuplicateID, storage.ErrInvalidRecord)
		checkItems(t, items)
		checkStopOnError(t, items, read)
		checkItemsRoundTrip(t, items)
	})
}

func FuzzReadFAQsCSV(f *testing.F) {
	for _, s := range []string{
		"id,question,answer,category,keywords,priority,active\n" +
			"f1,Qual o prazo?,5 dias,entrega,prazo;entrega,2,sim\n" +
			"f2,Aceita Pix?,Sim,pagamento,pix|pagamento,,não\n",
		"pergunta;resposta;palavras-chave;prioridade;status\n\"Qual o \"\"prazo\"\"?\";\"5\n dias\";a|b;1e3;inativo\n",
		"question\nQ\n",
		"question,answer\nQ,A\nQ,B\n,A\nQ2,\nQ3,A3,extra\n",
		"id,question,answer,priority\nx,Q,A,1.5\ny,Q,A,99999999999\n",
		"\ufeffQuestion\tAnswer\tActive\r\nCafe\u0301?\tSim\tmaybe\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		read := func(o *Options) ([]storage.FAQ, error) {
			return readFAQsCSV(context.Background(), strings.NewReader(in), "f.csv", o)
		}
		faqs, err := read(nil)
		checkRecordErrors(t, err, "f.csv", lineCount(in), false,
			ErrSyntax, ErrMissingColumn, ErrDuplicateID, storage.ErrInvalidRecord)
		checkFAQs(t, faqs)
		checkStopOnError(t, faqs, read)
		checkFAQsRoundTrip(t, faqs)
	})
}

func FuzzReadCatalogJSON(f *testing.F) {
	f.Add(goodItem)
	f.Add("[" + goodItem + "]")
	f.Add("\ufeff[\n  " + `{"id":"a","name":"A"}` + ",\n  " + `{"id":"b"}` + ",\n  " + `{"id":"c","name":"C"}` + "\n]\n")
	f.Add("[\n" + `{"id":"a","name":"A"}` + ",\n" + `{"id": oops}` + "\n]")
	f.Add(`[{"id":42,"name":"A","tags":"Soja; Milho|Café","price":"1.234,56","status":"inativo"},{"ID":" a ","Name":"  A  ","Status":"Active","active":true},["x"],null,{"id":"a","name":"again"}]`)
	f.Add(`[{"id":"x","name":"A","price":-1},{"id":"y","name":"A","files":[{"name":"a","text":[1]}]},{"id":"z","name":"Z","metadata":{"k":1,"b":true,"n":null}}]`)
	f.Add("[]")
	f.Add("[1,")
	f.Add(`{"id":"a","name":"A"}` + "\n" + `{"id":"b","name":"B"}`)
	if s := seedLines("catalog.jsonl", 3); s != "" {
		f.Add(s)
		f.Add("[" + strings.ReplaceAll(strings.TrimSpace(s), "\n", ",\n") + "]")
	}
	f.Fuzz(func(t *testing.T, in string) {
		read := func(o *Options) ([]storage.CatalogItem, error) {
			return readCatalogJSON(context.Background(), strings.NewReader(in), "c.json", o)
		}
		items, err := read(nil)
		checkRecordErrors(t, err, "c.json", lineCount(in), false,
			ErrSyntax, ErrLineTooLong, ErrDuplicateID, storage.ErrInvalidRecord)
		checkItems(t, items)

		// Deterministic: a second run returns the same.
		items2, err2 := read(nil)
		if !reflect.DeepEqual(items, items2) || !reflect.DeepEqual(errorTexts(err), errorTexts(err2)) {
			t.Fatalf("two runs differ:\n%+v %v\n%+v %v", items, err, items2, err2)
		}
		// A document that is not an array reads as JSONL.
		if !isJSONArray([]byte(in)) {
			l, lerr := readCatalogJSONL(context.Background(), strings.NewReader(in), "c.json", nil)
			if !reflect.DeepEqual(items, l) || !reflect.DeepEqual(errorTexts(err), errorTexts(lerr)) {
				t.Fatalf("JSON and JSONL readers differ on a non-array:\n%+v %v\n%+v %v", items, err, l, lerr)
			}
		}
		checkStopOnError(t, items, read)
		checkItemsRoundTrip(t, items)
	})
}

// checkFAQsRoundTrip writes faqs as JSONL and reads them back unchanged.
func checkFAQsRoundTrip(t *testing.T, faqs []storage.FAQ) {
	t.Helper()
	var b strings.Builder
	for _, f := range faqs {
		line, err := json.Marshal(map[string]any{
			"id": f.ID, "question": f.Question, "answer": f.Answer, "category": f.Category,
			"keywords": f.Keywords, "priority": f.Priority, "status": f.Status,
		})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	again, err := readFAQsJSONL(context.Background(), strings.NewReader(b.String()), "again.jsonl", nil)
	if err != nil {
		t.Fatalf("reading the FAQs back: %v\n%s", err, b.String())
	}
	if len(again) == 0 && len(faqs) == 0 {
		return
	}
	if !reflect.DeepEqual(faqs, again) {
		t.Fatalf("FAQs change when written and read back:\n%+v\n%+v", faqs, again)
	}
}

func FuzzReadFAQsJSONL(f *testing.F) {
	f.Add(`{"id":"f1","question":"Prazo?","answer":"5 dias","category":"entrega","keywords":["prazo","entrega"],"priority":2,"active":true}`)
	f.Add(`{"question":"Sem id?","answer":"Derivado.","keywords":"a;b|c","priority":"3","active":"não"}` + "\r\n" +
		`{"question":"sem ID?","answer":"mesmo id","status":"inativo","active":"sim"}` + "\n\n" + `{"id":1,"question":"Q","answer":"A","priority":1.5}`)
	f.Add("\ufeff" + `{"id":"a","question":"Q","answer":"A"}` + "\n{bad\n[1]\nnull\n" + `{"id":"a","question":"Q2","answer":"A2"}`)
	f.Add(`{"id":"x","question":"Q","answer":"A","priority":1e300,"keywords":[{}]}`)
	if s := seedLines("faqs.jsonl", 3); s != "" {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		read := func(o *Options) ([]storage.FAQ, error) {
			return readFAQsJSONL(context.Background(), strings.NewReader(in), "f.jsonl", o)
		}
		faqs, err := read(nil)
		checkRecordErrors(t, err, "f.jsonl", lineCount(in), false,
			ErrSyntax, ErrLineTooLong, ErrDuplicateID, storage.ErrInvalidRecord)
		checkFAQs(t, faqs)
		faqs2, err2 := read(nil)
		if !reflect.DeepEqual(faqs, faqs2) || !reflect.DeepEqual(errorTexts(err), errorTexts(err2)) {
			t.Fatalf("two runs differ:\n%+v %v\n%+v %v", faqs, err, faqs2, err2)
		}
		// The JSON reader reads a non-array as JSONL, an array of the
		// same objects alike.
		if !isJSONArray([]byte(in)) {
			j, jerr := readFAQsJSON(context.Background(), strings.NewReader(in), "f.jsonl", nil)
			if !reflect.DeepEqual(faqs, j) || !reflect.DeepEqual(errorTexts(err), errorTexts(jerr)) {
				t.Fatalf("JSON and JSONL readers differ on a non-array:\n%+v %v\n%+v %v", faqs, err, j, jerr)
			}
		}
		checkStopOnError(t, faqs, read)
		checkFAQsRoundTrip(t, faqs)
	})
}

func FuzzReadDocumentsJSONL(f *testing.F) {
	f.Add(`{"id":"d1","title":"Manual","content":"# Soja\r\n\r\nFerrugem.","source":"manual.md","metadata":{"lang":"pt"},"status":"ativo"}`, false)
	f.Add(`{"id":"d1","content":"mesmo texto"}`+"\n"+`{"id":"d2","content":"mesmo texto","active":false}`+"\n"+`{"id":"d1","content":"outro"}`, false)
	f.Add(`{"id":"d1","content":"mesmo texto"}`+"\n"+`{"id":"d2","content":"mesmo texto"}`, true)
	f.Add("\ufeff"+`{"id":"a","content":"\ufeffBOM e NUL\u0000 e Cafe\u0301"}`+"\n{\n"+`{"id":"b","content":"   "}`+"\n"+`{"id":"c","content":"x","status":"talvez"}`, false)
	if s := seedLines("documents.jsonl", 2); s != "" {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, in string, keepDups bool) {
		read := func(o *Options) ([]ParsedDocument, error) {
			if o == nil {
				o = &Options{}
			}
			o.KeepDuplicateDocuments = keepDups
			return ReadDocumentsJSONL(context.Background(), strings.NewReader(in), "d.jsonl", o)
		}
		docs, err := read(nil)
		res := checkRecordErrors(t, err, "d.jsonl", lineCount(in), false,
			ErrSyntax, ErrLineTooLong, ErrDuplicateID, storage.ErrInvalidRecord, ErrDuplicateDocument)
		for _, e := range res {
			var dup *DuplicateDocumentError
			if errors.Is(e, ErrDuplicateDocument) && (keepDups || !errors.As(e, &dup)) {
				t.Fatalf("duplicate error %v with KeepDuplicateDocuments %v", e, keepDups)
			}
		}
		checkDocuments(t, docs, "d.jsonl", lineCount(in), !keepDups)
		docs2, err2 := read(nil)
		if !reflect.DeepEqual(docs, docs2) || !reflect.DeepEqual(errorTexts(err), errorTexts(err2)) {
			t.Fatalf("two runs differ:\n%+v %v\n%+v %v", docs, err, docs2, err2)
		}
		checkDocumentsRoundTrip(t, docs, keepDups)
	})
}

// checkDocumentsRoundTrip writes docs as JSONL and reads them back: the
// same documents, each now on line i+1.
func checkDocumentsRoundTrip(t *testing.T, docs []ParsedDocument, keepDups bool) {
	t.Helper()
	var b strings.Builder
	want := make([]ParsedDocument, len(docs))
	for i, d := range docs {
		line, err := json.Marshal(map[string]any{
			"id": d.ID, "title": d.Title, "content": d.Content, "source": d.Source,
			"metadata": d.Metadata, "status": d.Status,
		})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
		want[i] = d
		want[i].File, want[i].Line = "again.jsonl", i+1
	}
	again, err := ReadDocumentsJSONL(context.Background(), strings.NewReader(b.String()), "again.jsonl", &Options{KeepDuplicateDocuments: keepDups})
	if err != nil {
		t.Fatalf("reading the documents back: %v\n%s", err, b.String())
	}
	if len(again) == 0 && len(docs) == 0 {
		return
	}
	if !reflect.DeepEqual(want, again) {
		t.Fatalf("documents change when written and read back:\n%+v\n%+v", want, again)
	}
}

// docxZip packs document.xml (and styles.xml, when not empty) into a
// .docx, stored or deflated.
func docxZip(t *testing.T, document, styles []byte, deflate bool) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	method := zip.Store
	if deflate {
		method = zip.Deflate
	}
	add := func(name string, data []byte) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	add("[Content_Types].xml", []byte(`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`))
	add("word/document.xml", document)
	if len(styles) > 0 {
		add("word/styles.xml", styles)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// docxBody wraps paragraphs in a WordprocessingML document.
func docxBody(body string) string {
	return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
		`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + body + `</w:body></w:document>`
}

// FuzzParseDocx fuzzes the .docx reader: document is word/document.xml and
// styles word/styles.xml of a generated package, or, with raw set,
// document is the whole file. The unzipped-part limit is the file's size
// plus extra, so that the zip-bomb guard is exercised too.
func FuzzParseDocx(f *testing.F) {
	const styles = `<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">` +
		`<w:style w:type="paragraph" w:styleId="Ttulo1"><w:name w:val="heading 1"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Meu"><w:name w:val="Meu"/><w:basedOn w:val="Ttulo1"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Loop"><w:name w:val="Loop"/><w:basedOn w:val="Loop"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Out"><w:name w:val="x"/><w:pPr><w:outlineLvl w:val="2"/></w:pPr></w:style></w:styles>`
	p := func(style, text string) string {
		s := "<w:p>"
		if style != "" {
			s += `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
		}
		return s + `<w:r><w:t xml:space="preserve">` + text + `</w:t></w:r></w:p>`
	}
	doc := docxBody(p("Title", "Manual de Pragas") + p("", "Introdução &amp; &lt;resumo&gt;.") +
		p("Heading1", "Soja") + `<w:p><w:r><w:t>Ferrugem:</w:t><w:tab/><w:t>fungicida</w:t><w:br/><w:noBreakHyphen/></w:r></w:p>` +
		`<w:tbl><w:tr><w:tc>` + p("", "Praga") + `</w:tc><w:tc>` + p("", "Dose") + `</w:tc></w:tr>` +
		`<w:tr><w:tc><w:tbl><w:tr><w:tc>` + p("", "aninhada") + `</w:tc></w:tr></w:tbl></w:tc><w:tc></w:tc></w:tr></w:tbl>` +
		p("Meu", "Milho") + p("Loop", "Laço") + p("Out", "Nível 3") + p("Ttulo2", "Cigarrinha") +
		`<w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:r><w:t>Esboço</w:t></w:r></w:p>` +
		`<w:p><w:r><mc:AlternateContent><mc:Choice><w:t>escolha</w:t></mc:Choice><mc:Fallback><w:t>repetido</w:t></mc:Fallback></mc:AlternateContent></w:r></w:p>` +
		p("", "   "))
	f.Add([]byte(doc), []byte(styles), false, true, uint16(1<<15))
	f.Add([]byte(doc), []byte(nil), false, false, uint16(0))
	f.Add([]byte(docxBody(p("", "só texto"))), []byte(nil), false, true, uint16(10))
	f.Add([]byte(docxBody(`<w:p><w:p>`+p("Heading2", "caixa")+`</w:p></w:p>`+p("", "\x00"))), []byte("<bad"), false, true, uint16(100))
	f.Add([]byte(docxBody("")), []byte(nil), false, false, uint16(0))
	f.Add([]byte("<w:document><w:body><w:p><w:r><w:t>unclosed"), []byte(nil), false, false, uint16(0))
	f.Add([]byte("PK\x03\x04not a zip"), []byte(nil), true, false, uint16(0))
	f.Fuzz(func(t *testing.T, document, styles []byte, raw, deflate bool, extra uint16) {
		data := document
		if !raw {
			data = docxZip(t, document, styles, deflate)
		}
		limit := int64(len(data)) + int64(extra)
		d, err := ParseDocument("f.docx", data, &Options{MaxFileBytes: limit})
		if err != nil {
			var re *RecordError
			if !errors.As(err, &re) || re.File != "f.docx" {
				t.Fatalf("error %v (%T) is not a RecordError naming the file", err, err)
			}
			if !errors.Is(err, ErrInvalidDocx) && !errors.Is(err, ErrFileTooLarge) && !errors.Is(err, storage.ErrInvalidRecord) {
				t.Fatalf("error %v wraps none of the documented sentinels", err)
			}
			if !raw && errors.Is(err, ErrFileTooLarge) && int64(len(document)) <= limit {
				t.Fatalf("ErrFileTooLarge for a %d-byte document.xml under the %d-byte limit: %v", len(document), limit, err)
			}
			return
		}
		if !raw && int64(len(document)) > limit {
			t.Fatalf("a %d-byte document.xml loaded past the %d-byte limit", len(document), limit)
		}
		if d.ID != "f.docx" || d.Source != "f.docx" || d.File != "f.docx" || d.Metadata["format"] != formatDocx || d.Status != storage.StatusActive {
			t.Fatalf("document %+v", d)
		}
		if strings.TrimSpace(d.Content) == "" || d.ContentHash != storage.ContentHash(d.Content) {
			t.Fatalf("empty content or wrong hash: %+v", d)
		}
		checkClean(t, "content", d.Content)
		checkClean(t, "title", d.Title)
		if d.Title == "" {
			t.Fatal("empty title")
		}
		if err := storage.ValidateBatch(&storage.Batch{Documents: []storage.Document{d.Document}}, 1); err != nil {
			t.Fatalf("document fails storage validation: %v", err)
		}
		end := 0
		for i, s := range d.Sections {
			if s.Start < end || s.End < s.Start || s.End > len(d.Content) {
				t.Fatalf("section %d [%d, %d) out of order or bounds (content %d bytes)", i, s.Start, s.End, len(d.Content))
			}
			end = s.End
			if s.Level < 0 || s.Level > 9 || len(s.HeadingPath) == 0 {
				t.Fatalf("section %d: level %d, path %q", i, s.Level, s.HeadingPath)
			}
			heading := s.HeadingPath[len(s.HeadingPath)-1]
			if text := strings.Join(strings.Fields(d.Content[s.Start:s.End]), " "); !strings.HasPrefix(text, heading) {
				t.Fatalf("section %d starts with %q, not its heading %q", i, text, heading)
			}
		}
		if len(d.Sections) > 0 {
			if last := d.Sections[len(d.Sections)-1]; last.End != len(d.Content) {
				t.Fatalf("last section ends at %d, content at %d", last.End, len(d.Content))
			}
			if d.Title != d.Sections[0].HeadingPath[len(d.Sections[0].HeadingPath)-1] {
				t.Fatalf("title %q is not the first heading %q", d.Title, d.Sections[0].HeadingPath)
			}
		} else if d.Title != "f" {
			t.Fatalf("title %q without headings, want the file name", d.Title)
		}
		st, err := chunk.NewStructural(chunk.StructuralOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Split(d.Content, d.Sections); err != nil {
			t.Fatalf("sections rejected by the splitter: %v", err)
		}
	})
}
