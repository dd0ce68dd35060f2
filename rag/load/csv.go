package load

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
)

// Header names recognized by default for each field of a CSV file,
// compared ignoring case, accents, and ' ', '-' or '.' versus '_' (the
// first column matching one of them is the field's). Options.CSVColumns
// names other headers.
var (
	catalogColumns = []column{
		{"id", []string{"id", "codigo", "cod", "code", "sku"}, true},
		{"name", []string{"name", "nome", "produto", "product", "titulo", "title"}, true},
		{"description", []string{"description", "descricao", "desc"}, false},
		{"category", []string{"category", "categoria"}, false},
		{"manufacturer", []string{"manufacturer", "fabricante", "marca", "brand", "empresa"}, false},
		{"tags", []string{"tags", "tag", "etiquetas"}, false},
		{"price", []string{"price", "preco", "valor", "value"}, false},
		{"status", []string{"status", "situacao"}, false},
		// file_name and file_text, when present, become one attached file.
		{"file_name", []string{"file_name", "filename", "arquivo", "nome_arquivo"}, false},
		{"file_text", []string{"file_text", "arquivo_texto", "texto", "text", "conteudo", "content"}, false},
	}
	faqColumns = []column{
		{"id", []string{"id", "codigo", "cod", "code"}, false},
		{"question", []string{"question", "pergunta"}, true},
		{"answer", []string{"answer", "resposta"}, true},
		{"category", []string{"category", "categoria"}, false},
		{"keywords", []string{"keywords", "palavras_chave", "palavraschave", "tags"}, false},
		{"priority", []string{"priority", "prioridade"}, false},
		{"active", []string{"active", "ativo", "ativa", "status"}, false},
	}
)

// column is one mapped field of a CSV file.
type column struct {
	field    string // our field name, the key of Options.CSVColumns
	defaults []string
	required bool
}

// csvFile is an open CSV file with its header resolved.
type csvFile struct {
	r      *csv.Reader
	header []string
	idx    map[string]int // field -> column index
	used   []bool         // column is mapped
	// bom is set when the header began with a UTF-8 byte order mark,
	// which declares the whole file UTF-8.
	bom bool
}

// decodeRow makes the cells of rec valid UTF-8 in place. Each row (and the
// header) is judged as a whole: when any cell is not valid UTF-8, every
// cell of the row is read as Windows-1252, unless a BOM declared the file
// UTF-8 (see decodeText).
func decodeRow(rec []string, bom bool) {
	for _, cell := range rec {
		if !utf8.ValidString(cell) {
			for i := range rec {
				rec[i] = decodeText(rec[i], bom)
			}
			return
		}
	}
}

func headerKey(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '.':
			return '_'
		}
		return r
	}, lexical.Normalize(s))
}

// openCSV reads the header of r and resolves cols, explicit naming the
// header of a field (Options.CSVColumns). A header error is a RecordError
// on line 1.
func openCSV(r io.Reader, cols []column, explicit map[string]string, c cleaner) (*csvFile, *RecordError, error) {
	br := bufio.NewReader(r)
	first, err := br.ReadString('\n')
	if err != nil && err != io.EOF {
		return nil, nil, err
	}
	bom := strings.HasPrefix(first, "\ufeff")
	first = strings.TrimPrefix(first, "\ufeff")
	if strings.TrimSpace(first) == "" {
		return nil, &RecordError{Line: 1, Index: -1, Err: fmt.Errorf("%w: no header line", ErrMissingColumn)}, nil
	}
	cr := csv.NewReader(io.MultiReader(strings.NewReader(first), br))
	cr.Comma = detectComma(first)
	header, err := cr.Read()
	if err != nil {
		return nil, &RecordError{Line: 1, Index: -1, Err: fmt.Errorf("%w: header: %v", ErrSyntax, err)}, nil
	}
	decodeRow(header, bom)
	for i := range header {
		header[i] = c.field(header[i])
	}
	for field := range explicit {
		if !knownCSVField(field) {
			return nil, &RecordError{Line: 1, Index: -1, Field: field, Err: fmt.Errorf("%w: Options.CSVColumns names %q, not a field of catalog items or FAQs", ErrMissingColumn, field)}, nil
		}
	}
	f := &csvFile{r: cr, header: header, idx: make(map[string]int), used: make([]bool, len(header)), bom: bom}
	keys := make([]string, len(header))
	for i, h := range header {
		keys[i] = headerKey(h)
	}
	find := func(name string) int {
		k := headerKey(name)
		for i, hk := range keys {
			if hk == k && !f.used[i] {
				return i
			}
		}
		return -1
	}
	for _, col := range cols {
		i := -1
		if name := explicit[col.field]; name != "" {
			if i = find(name); i < 0 {
				return nil, &RecordError{Line: 1, Index: -1, Field: col.field, Err: fmt.Errorf("%w: no column %q for %s in header %q", ErrMissingColumn, name, col.field, header)}, nil
			}
		} else {
			for _, d := range col.defaults {
				if i = find(d); i >= 0 {
					break
				}
			}
		}
		if i < 0 {
			if col.required {
				return nil, &RecordError{Line: 1, Index: -1, Field: col.field, Err: fmt.Errorf("%w: no column for %s (one of %q) in header %q", ErrMissingColumn, col.field, col.defaults, header)}, nil
			}
			continue
		}
		f.idx[col.field] = i
		f.used[i] = true
	}
	return f, nil, nil
}

// knownCSVField reports whether field is a column of catalog items or
// FAQs.
func knownCSVField(field string) bool {
	for _, cols := range [][]column{catalogColumns, faqColumns} {
		for _, c := range cols {
			if c.field == field {
				return true
			}
		}
	}
	return false
}

// detectComma picks the most frequent of ',', ';' and tab outside quotes.
func detectComma(line string) rune {
	counts := map[rune]int{}
	inQuote := false
	for _, r := range line {
		switch {
		case r == '"':
			inQuote = !inQuote
		case !inQuote && (r == ',' || r == ';' || r == '\t'):
			counts[r]++
		}
	}
	best := ','
	for _, r := range []rune{';', '\t'} {
		if counts[r] > counts[best] {
			best = r
		}
	}
	return best
}

// each calls fn for every record after the header, with the record's line.
// Malformed rows become record errors; it returns a fatal error.
func (f *csvFile) each(ctx context.Context, c *collector, fn func(rec []string, line int) *RecordError) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := f.r.Read()
		if err == io.EOF {
			return nil
		}
		var rerr *RecordError
		if err != nil {
			var pe *csv.ParseError
			if !errors.As(err, &pe) {
				return fmt.Errorf("load: %s: %w", c.file, err)
			}
			if errors.Is(pe.Err, csv.ErrFieldCount) {
				rerr = &RecordError{Line: pe.StartLine, Index: -1, Err: fmt.Errorf("%w: %d fields, want %d as in the header", ErrSyntax, len(rec), len(f.header))}
			} else {
				rerr = &RecordError{Line: pe.StartLine, Index: -1, Err: fmt.Errorf("%w: %v", ErrSyntax, pe.Err)}
			}
		} else {
			line, _ := f.r.FieldPos(0)
			decodeRow(rec, f.bom)
			if blank(rec) {
				continue
			}
			rerr = fn(rec, line)
		}
		if rerr != nil && !c.add(rerr) {
			return nil
		}
	}
}

func blank(rec []string) bool {
	for _, s := range rec {
		if strings.TrimSpace(s) != "" {
			return false
		}
	}
	return true
}

// get returns the cleaned cell of field, or "" when unmapped.
func (f *csvFile) get(rec []string, field string, c cleaner) string {
	i, ok := f.idx[field]
	if !ok {
		return ""
	}
	return c.field(rec[i])
}

func defaultString(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// readCatalogCSV reads catalog items from CSV (see ReadCatalog).
func readCatalogCSV(ctx context.Context, r io.Reader, name string, opts *Options) ([]storage.CatalogItem, error) {
	return readRecordsCSV(ctx, r, name, opts, catalogFormat)
}

// catalogCSV is the CSV form of catalog items.
var catalogCSV = csvFormat[storage.CatalogItem]{
	cols: catalogColumns,
	row: func(f *csvFile, rec []string, cl cleaner) (storage.CatalogItem, *fieldError) {
		return f.item(rec, cl)
	},
}

func (f *csvFile) item(rec []string, c cleaner) (storage.CatalogItem, *fieldError) {
	it := storage.CatalogItem{
		ID:           f.get(rec, "id", c),
		Name:         f.get(rec, "name", c),
		Description:  f.get(rec, "description", c),
		Category:     f.get(rec, "category", c),
		Manufacturer: f.get(rec, "manufacturer", c),
		Tags:         cleanList(splitList(f.get(rec, "tags", c), tagSeparators), c),
	}
	if ferr := checkID(it.ID); ferr != nil {
		return it, ferr
	}
	if it.Name == "" {
		return it, invalid("name", "empty")
	}
	var ferr *fieldError
	if it.Status, ferr = statusValue("status", f.get(rec, "status", c)); ferr != nil {
		return it, ferr
	}
	if it.Price, ferr = parsePrice("price", f.get(rec, "price", c)); ferr != nil {
		return it, ferr
	}
	if text := f.get(rec, "file_text", c); text != "" {
		fname := f.get(rec, "file_name", c)
		if fname == "" {
			fname = f.header[f.idx["file_text"]]
		}
		it.Files = []storage.CatalogFile{{ItemID: it.ID, Name: fname, Text: text}}
	}
	for i, h := range f.header {
		if f.used[i] || h == "" {
			continue
		}
		if v := c.field(rec[i]); v != "" {
			if it.Metadata == nil {
				it.Metadata = map[string]string{}
			}
			it.Metadata[h] = v
		}
	}
	return it, nil
}
