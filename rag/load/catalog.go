package load

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hybridrag/hybridrag/storage"
)

// tagSeparators split a tag list written as one string.
const tagSeparators = ";|"

// LoadCatalog reads catalog items from a file, choosing the format by
// extension: .jsonl or .ndjson (one item a line), .json (an array of items,
// or items one a line), .csv or .tsv (a header and one item a row, see
// CSVMapping). It returns the items that loaded and, if any record was bad,
// an error holding a RecordErrors list (see the package documentation).
func LoadCatalog(ctx context.Context, path string, opts *Options) ([]storage.CatalogItem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load: catalog: %w", err)
	}
	defer f.Close()
	name := filepath.Base(path)
	switch ext(path) {
	case ".jsonl", ".ndjson":
		return ReadCatalogJSONL(ctx, f, name, opts)
	case ".json":
		return ReadCatalogJSON(ctx, f, name, opts)
	case ".csv", ".tsv":
		return ReadCatalogCSV(ctx, f, name, opts)
	}
	return nil, fmt.Errorf("%w: catalog %s (want .jsonl, .json or .csv)", ErrUnsupportedFormat, name)
}

func ext(path string) string { return strings.ToLower(filepath.Ext(path)) }

// ReadCatalogJSONL reads catalog items in the interchange format, one JSON
// object a line:
//
//	{"id","name","description","category","manufacturer","tags":[],
//	 "price":null|number,"status":"ativo"|"inativo",
//	 "metadata":{string:string},"files":[{"name","text"}]}
//
// name identifies r in errors. Blank lines are skipped. Besides the
// interchange types, tags may be one string separated by ';' or '|', price a
// string such as "1.234,56", and IDs and metadata values numbers. Unknown
// keys are ignored. id and name are required; the first of two items with
// the same id wins.
func ReadCatalogJSONL(ctx context.Context, r io.Reader, name string, opts *Options) ([]storage.CatalogItem, error) {
	o := opts.orDefault()
	c := &collector{file: name, stop: o.StopOnError}
	d := newItemDecoder(cleaner{o.KeepUnicodeForm})
	err := readJSONL(ctx, r, o, c, func(obj object, line int) *RecordError {
		return d.add(obj, line, -1)
	})
	return d.items, c.result(err)
}

// ReadCatalogJSON reads catalog items from a JSON array of interchange
// objects (see ReadCatalogJSONL). A document that does not start with '['
// is read as JSONL. Errors name the element's index and the line where it
// starts. A syntax error ends the run, since the rest of the array cannot
// be found reliably.
func ReadCatalogJSON(ctx context.Context, r io.Reader, name string, opts *Options) ([]storage.CatalogItem, error) {
	o := opts.orDefault()
	data, err := readAllLimit(r, o.MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("load: %s: %w", name, err)
	}
	if !isJSONArray(data) {
		return ReadCatalogJSONL(ctx, bytes.NewReader(data), name, opts)
	}
	c := &collector{file: name, stop: o.StopOnError}
	d := newItemDecoder(cleaner{o.KeepUnicodeForm})
	err = readJSONArray(ctx, data, c, func(obj object, line, index int) *RecordError {
		return d.add(obj, line, index)
	})
	return d.items, c.result(err)
}

// itemDecoder turns JSON objects into catalog items, remembering IDs.
type itemDecoder struct {
	c     cleaner
	items []storage.CatalogItem
	seen  map[string]int // id -> line
}

func newItemDecoder(c cleaner) *itemDecoder {
	return &itemDecoder{c: c, seen: make(map[string]int)}
}

func (d *itemDecoder) add(obj object, line, index int) *RecordError {
	it, ferr := decodeItem(obj, d.c)
	if ferr != nil {
		return &RecordError{Line: line, Index: index, ID: it.ID, Field: ferr.field, Err: ferr.err}
	}
	if first, dup := d.seen[it.ID]; dup {
		return &RecordError{Line: line, Index: index, ID: it.ID, Field: "id", Err: fmt.Errorf("%w: first seen at line %d", ErrDuplicateID, first)}
	}
	d.seen[it.ID] = line
	d.items = append(d.items, it)
	return nil
}

func decodeItem(obj object, c cleaner) (storage.CatalogItem, *fieldError) {
	var it storage.CatalogItem
	r := strReader{obj: obj}
	str := r.str
	it.ID = c.field(str("id"))
	it.Name = c.field(str("name"))
	it.Description = strings.TrimSpace(c.text(str("description")))
	it.Category = c.field(str("category"))
	it.Manufacturer = c.field(str("manufacturer"))
	status := str("status")
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
	st, err := storage.ParseStatus(status)
	if err != nil {
		return it, &fieldError{"status", err}
	}
	it.Status = st
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
		files = append(files, storage.CatalogFile{ItemID: itemID, Name: c.field(name), Text: strings.TrimSpace(c.text(text))})
	}
	if len(files) == 0 {
		return nil, nil
	}
	return files, nil
}

// readJSONL calls add for each non-blank line of r decoded as a JSON object,
// collecting errors in c. It returns a fatal error (I/O, cancellation).
func readJSONL(ctx context.Context, r io.Reader, o *Options, c *collector, add func(obj object, line int) *RecordError) error {
	lr := newLineReader(r, o.MaxLineBytes)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, tooLong, err := lr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("load: %s:%d: %w", c.file, lr.line+1, err)
		}
		var rerr *RecordError
		switch {
		case tooLong:
			rerr = &RecordError{Line: lr.line, Index: -1, Err: fmt.Errorf("%w: more than %d bytes", ErrLineTooLong, o.MaxLineBytes)}
		case len(bytes.TrimSpace(line)) == 0:
			continue
		default:
			obj, perr := parseObject(line)
			if perr != nil {
				rerr = &RecordError{Line: lr.line, Index: -1, Err: perr}
			} else {
				rerr = add(obj, lr.line)
			}
		}
		if rerr != nil && !c.add(rerr) {
			return nil
		}
	}
}

func isJSONArray(data []byte) bool {
	data = bytes.TrimLeft(bytes.TrimPrefix(data, utf8BOM), " \t\r\n")
	return len(data) > 0 && data[0] == '['
}

// readJSONArray calls add for each element of the JSON array in data.
func readJSONArray(ctx context.Context, data []byte, c *collector, add func(obj object, line, index int) *RecordError) error {
	data = bytes.TrimPrefix(data, utf8BOM)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	lineAt := func(off int64) int { return 1 + bytes.Count(data[:min(int(off), len(data))], []byte{'\n'}) }
	syntax := func(err error, index int) {
		off := dec.InputOffset()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = se.Offset
		}
		c.add(&RecordError{Line: lineAt(off), Index: index, Err: fmt.Errorf("%w: %v", ErrSyntax, err)})
	}
	if _, err := dec.Token(); err != nil { // '['
		syntax(err, -1)
		return nil
	}
	for index := 0; dec.More(); index++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		// Skip the white space and comma before the element to find its line.
		off := dec.InputOffset()
		for off < int64(len(data)) && strings.IndexByte(" \t\r\n,", data[off]) >= 0 {
			off++
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			syntax(err, index)
			return nil
		}
		line := lineAt(off)
		obj, err := toObject(v)
		var rerr *RecordError
		if err != nil {
			rerr = &RecordError{Line: line, Index: index, Err: err}
		} else {
			rerr = add(obj, line, index)
		}
		if rerr != nil && !c.add(rerr) {
			return nil
		}
	}
	if _, err := dec.Token(); err != nil { // ']'
		syntax(err, -1)
	}
	return nil
}
