package load

import (
	"context"
	"io"
	"strconv"

	"github.com/hybridrag/hybridrag/storage"
)

// tagSeparators split a tag list written as one string.
const tagSeparators = ";|"

// catalogFormat reads catalog items.
var catalogFormat = recordFormat[storage.CatalogItem]{
	what: "catalog", id: func(it *storage.CatalogItem) string { return it.ID },
	decode: decodeItem, csv: catalogCSV,
	batch: func(r *storage.CatalogItem) *storage.Batch { return &storage.Batch{Items: []storage.CatalogItem{*r}} },
}

// LoadCatalog reads catalog items from a file, choosing the format by
// extension as [ReadCatalog] does. It returns the items that loaded and, if
// any record was bad, an error holding a RecordErrors list (see the package
// documentation).
func LoadCatalog(ctx context.Context, path string, opts *Options) ([]storage.CatalogItem, error) {
	return loadRecords(ctx, path, opts, catalogFormat)
}

// ReadCatalog reads catalog items from r, choosing the format by the
// extension of name, which also identifies r in errors: .jsonl or .ndjson
// (one item a line), .json (an array of items, or items one a line), .csv
// or .tsv (a header and one item a row). Any other extension is an error
// wrapping ErrUnsupportedFormat.
//
// JSONL is the interchange format, one JSON object a line:
//
//	{"id","name","description","category","manufacturer","tags":[],
//	 "price":null|number,"status":"ativo"|"inativo",
//	 "metadata":{string:string},"files":[{"name","text"}]}
//
// Blank lines are skipped. Besides the interchange types, tags may be one
// string separated by ';' or '|', price a string such as "1.234,56", and
// IDs and metadata values numbers; an "active" boolean may stand for (or
// agree with) "status". Unknown keys are ignored. id and name are required;
// the first of two items with the same id wins.
//
// A .json document is an array of the same objects; one that does not
// start with '[' is read as JSONL. Errors name the element's index and the
// line where it starts. A syntax error ends the run, since the rest of the
// array cannot be found reliably.
//
// CSV has a header row; a field's column is the one Options.CSVColumns
// names, else the first whose header is one of the field's English and
// Portuguese names, compared ignoring case, accents, and ' ', '-' or '.'
// versus '_': id (codigo, cod, code, sku) and name (nome, produto,
// product, titulo, title), both required; description (descricao, desc),
// category (categoria), manufacturer (fabricante, marca, brand, empresa),
// tags (tag, etiquetas), price (preco, valor, value), status (situacao),
// and file_name (filename, arquivo, nome_arquivo) with file_text
// (arquivo_texto, texto, text, conteudo, content), which become one
// attached file. Other columns go into Metadata under their header. The
// delimiter (',', ';' or tab) is detected from the header. Tags
// are one cell separated by ';' or '|'; status accepts ativo/inativo and
// active/inactive (empty is active). Prices may be written "1.234,56"
// (pt-BR) or "1234.56" / "1,234.56" (en), with an optional "R$" or "$":
// when both '.' and ',' occur the last one is the decimal separator, a lone
// ',' is decimal, several '.' alone are thousands separators, and an empty
// cell is no price. Rows with a wrong number of cells are record errors
// naming their line; the other rows still load.
func ReadCatalog(ctx context.Context, r io.Reader, name string, opts *Options) ([]storage.CatalogItem, error) {
	return readRecords(ctx, r, name, opts, catalogFormat)
}

// readCatalogJSONL reads catalog items one JSON object a line (see
// ReadCatalog).
func readCatalogJSONL(ctx context.Context, r io.Reader, name string, opts *Options) ([]storage.CatalogItem, error) {
	return readRecordsJSONL(ctx, r, name, opts, catalogFormat)
}

// readCatalogJSON reads catalog items from a JSON array (see ReadCatalog).
func readCatalogJSON(ctx context.Context, r io.Reader, name string, opts *Options) ([]storage.CatalogItem, error) {
	return readRecordsJSON(ctx, r, name, opts, catalogFormat)
}

func decodeItem(obj object, c cleaner) (storage.CatalogItem, *fieldError) {
	var it storage.CatalogItem
	r := strReader{obj: obj}
	str := r.str
	it.ID = c.field(str("id"))
	it.Name = c.field(str("name"))
	it.Description = c.field(str("description"))
	it.Category = c.field(str("category"))
	it.Manufacturer = c.field(str("manufacturer"))
	ferr := r.err
	if ferr != nil {
		return it, ferr
	}
	if ferr = checkID(it.ID); ferr != nil {
		return it, ferr
	}
	if it.Name == "" {
		return it, invalid("name", "empty")
	}
	if it.Status, ferr = obj.status(); ferr != nil {
		return it, ferr
	}
	tags, ferr := obj.list("tags", tagSeparators)
	if ferr != nil {
		return it, ferr
	}
	it.Tags = cleanList(tags, c)
	if it.Price, ferr = obj.price("price"); ferr != nil {
		return it, ferr
	}
	if it.Metadata, ferr = obj.strMap("metadata", c); ferr != nil {
		return it, ferr
	}
	it.Files, ferr = decodeFiles(obj["files"], it.ID, c)
	return it, ferr
}

func decodeFiles(v any, itemID string, c cleaner) ([]storage.CatalogFile, *fieldError) {
	if v == nil {
		return nil, nil
	}
	raw, ok := v.([]any)
	if !ok {
		return nil, invalid("files", "want an array of {name, text}, got %s", kindOf(v))
	}
	files := make([]storage.CatalogFile, 0, len(raw))
	for i, e := range raw {
		field := "files[" + strconv.Itoa(i) + "]"
		fo, err := toObject(e)
		if err != nil {
			return nil, invalid(field, "want an object {name, text}, got %s", kindOf(e))
		}
		name, ferr := fo.str("name")
		if ferr != nil {
			return nil, &fieldError{field + "." + ferr.field, ferr.err}
		}
		text, ferr := fo.str("text")
		if ferr != nil {
			return nil, &fieldError{field + "." + ferr.field, ferr.err}
		}
		files = append(files, storage.CatalogFile{ItemID: itemID, Name: c.field(name), Text: c.field(text)})
	}
	if len(files) == 0 {
		return nil, nil
	}
	return files, nil
}
