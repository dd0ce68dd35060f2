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
	"strings"

	"github.com/hybridrag/hybridrag/storage"
)

// recordFormat is what the readers shared by the record kinds need to know
// about one kind, T (storage.CatalogItem, storage.FAQ or ParsedDocument).
// The JSONL, JSON-array and CSV readers, the checks for repeated IDs and
// the choice of reader by file extension are written once, below, for
// every kind.
type recordFormat[T any] struct {
	// what names the kind in errors: "catalog", "faqs", "documents".
	what string
	id   func(*T) string
	// decode reads a record from a JSON object.
	decode func(obj object, c cleaner) (T, *fieldError)
	// at, when set, records the file and line a record was read from.
	at func(rec *T, file string, line int)
	// csv, when its row is set, says how to read the kind from CSV.
	csv csvFormat[T]
	// batch, when set, is the one-record storage.Batch a decoded record
	// is checked with (storage.ValidateBatch: the record limits), so that
	// a loaded record never fails the write.
	batch func(*T) *storage.Batch
}

// csvFormat is how a kind is read from CSV: the delimiter (0: detect), the
// columns, and the record of one row.
type csvFormat[T any] struct {
	cols []column
	row  func(f *csvFile, rec []string, c cleaner) (T, *fieldError)
}

// recordSet collects the records of one run, rejecting a second record
// with an ID already seen (the first wins).
type recordSet[T any] struct {
	id    func(*T) string
	batch func(*T) *storage.Batch
	recs  []T
	seen  map[string]int // ID -> line
}

func newRecordSet[T any](k recordFormat[T]) *recordSet[T] {
	return &recordSet[T]{id: k.id, batch: k.batch, seen: make(map[string]int)}
}

// add keeps rec, read at line (and index, in a JSON array, or -1), unless
// ferr says it is bad or its ID was seen; it returns the record error
// otherwise.
func (s *recordSet[T]) add(rec T, ferr *fieldError, line, index int) *RecordError {
	id := s.id(&rec)
	if ferr == nil && s.batch != nil {
		ferr = storeCheck(storage.ValidateBatch(s.batch(&rec), 0))
	}
	if ferr != nil {
		return &RecordError{Line: line, Index: index, ID: id, Field: ferr.field, Err: ferr.err}
	}
	if first, dup := s.seen[id]; dup {
		return &RecordError{Line: line, Index: index, ID: id, Field: "id", Err: fmt.Errorf("%w: first seen at line %d", ErrDuplicateID, first)}
	}
	s.seen[id] = line
	s.recs = append(s.recs, rec)
	return nil
}

// loadRecords reads records of kind k from a file, choosing the format by
// extension: .jsonl or .ndjson, .json, and .csv or .tsv when the kind has
// a CSV form.
func loadRecords[T any](ctx context.Context, path string, opts *Options, k recordFormat[T]) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load: %s: %w", k.what, err)
	}
	defer f.Close()
	return readRecords(ctx, f, filepath.Base(path), opts, k)
}

// readRecords reads records of kind k from r, choosing the reader by the
// extension of name.
func readRecords[T any](ctx context.Context, f io.Reader, name string, opts *Options, k recordFormat[T]) ([]T, error) {
	switch ext(name) {
	case ".jsonl", ".ndjson":
		return readRecordsJSONL(ctx, f, name, opts, k)
	case ".json":
		return readRecordsJSON(ctx, f, name, opts, k)
	case ".csv", ".tsv":
		if k.csv.row != nil {
			return readRecordsCSV(ctx, f, name, opts, k)
		}
	}
	return nil, fmt.Errorf("%w: %s %s (want .jsonl, .json or .csv)", ErrUnsupportedFormat, k.what, name)
}

func ext(path string) string { return strings.ToLower(filepath.Ext(path)) }

// readRecordsJSONL reads records of kind k, one JSON object a line, from
// r, named name in errors.
func readRecordsJSONL[T any](ctx context.Context, r io.Reader, name string, opts *Options, k recordFormat[T]) ([]T, error) {
	o := opts.orDefault()
	c := &collector{file: name, stop: o.StopOnError}
	recs, err := jsonlRecords(ctx, r, o, c, k)
	return recs, c.result(err)
}

// jsonlRecords reads the records of one JSONL file named c.file, adding
// record errors to c; it returns fatal errors only.
func jsonlRecords[T any](ctx context.Context, r io.Reader, o *Options, c *collector, k recordFormat[T]) ([]T, error) {
	cl := newCleaner(o)
	set := newRecordSet(k)
	err := readJSONL(ctx, r, o, c, func(obj object, line int) *RecordError {
		rec, ferr := k.decode(obj, cl)
		if k.at != nil {
			k.at(&rec, c.file, line)
		}
		return set.add(rec, ferr, line, -1)
	})
	return set.recs, err
}

// readRecordsJSON reads records of kind k from a JSON array; a document
// that does not start with '[' is read as JSONL.
func readRecordsJSON[T any](ctx context.Context, r io.Reader, name string, opts *Options, k recordFormat[T]) ([]T, error) {
	o := opts.orDefault()
	data, err := readAllLimit(r, o.MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("load: %s: %w", name, err)
	}
	raw := data
	data = decodeBytes(data, bytes.HasPrefix(data, utf8BOM))
	if !isJSONArray(data) {
		// The raw bytes: the JSONL reader decides the encoding line by
		// line, as it does for a .jsonl file (decoding the whole file
		// first would decode a UTF-8 line of a file with a Latin-1 one
		// twice).
		return readRecordsJSONL(ctx, bytes.NewReader(raw), name, opts, k)
	}
	cl := newCleaner(o)
	c := &collector{file: name, stop: o.StopOnError}
	set := newRecordSet(k)
	err = readJSONArray(ctx, data, c, func(obj object, line, index int) *RecordError {
		rec, ferr := k.decode(obj, cl)
		if k.at != nil {
			k.at(&rec, name, line)
		}
		return set.add(rec, ferr, line, index)
	})
	return set.recs, c.result(err)
}

// readRecordsCSV reads records of kind k from CSV with a header row.
func readRecordsCSV[T any](ctx context.Context, r io.Reader, name string, opts *Options, k recordFormat[T]) ([]T, error) {
	o := opts.orDefault()
	cl := newCleaner(o)
	c := &collector{file: name, stop: o.StopOnError}
	form := k.csv
	f, rerr, err := openCSV(r, form.cols, o.CSVColumns, cl)
	if err != nil {
		return nil, fmt.Errorf("load: %s: %w", name, err)
	}
	if rerr != nil {
		c.add(rerr)
		return nil, c.result(nil)
	}
	set := newRecordSet(k)
	err = f.each(ctx, c, func(rec []string, line int) *RecordError {
		v, ferr := form.row(f, rec, cl)
		return set.add(v, ferr, line, -1)
	})
	return set.recs, c.result(err)
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
			// Each line is a record: a line that is not UTF-8 is read as
			// Windows-1252, unless a BOM declared the file UTF-8.
			obj, perr := parseObject(decodeBytes(line, lr.bom))
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

// status reads a record's status from "status" (active/inactive or
// ativo/inativo, see statusValue) and "active" (a boolean, see
// activeValue). Neither, or empty values, mean active; when both are given
// they must agree.
func (o object) status() (storage.Status, *fieldError) {
	out, from := storage.StatusActive, ""
	for _, f := range []struct {
		key   string
		parse func(field, s string) (storage.Status, *fieldError)
	}{{"status", statusValue}, {"active", activeValue}} {
		s, ok := scalar(o[f.key])
		if !ok {
			return "", invalid(f.key, "want a string or boolean, got %s", kindOf(o[f.key]))
		}
		if strings.TrimSpace(s) == "" {
			continue
		}
		st, ferr := f.parse(f.key, s)
		if ferr != nil {
			return "", ferr
		}
		if from != "" && st != out {
			return "", invalid(f.key, "%q contradicts %s", s, from)
		}
		out, from = st, f.key
	}
	return out, nil
}

// statusValue reads a status: active/ativo (or empty) or inactive/inativo,
// as storage.ParseStatus.
func statusValue(field, s string) (storage.Status, *fieldError) {
	st, err := storage.ParseStatus(s)
	if err != nil {
		return "", &fieldError{field, err}
	}
	return st, nil
}

// activeValue reads an active flag as a status: empty is active, otherwise
// any spelling of a boolean parseBool accepts (true/false, sim/não,
// ativo/inativo, ...).
func activeValue(field, s string) (storage.Status, *fieldError) {
	if strings.TrimSpace(s) == "" {
		return storage.StatusActive, nil
	}
	active, ferr := parseBool(field, s)
	if ferr != nil {
		return "", ferr
	}
	if !active {
		return storage.StatusInactive, nil
	}
	return storage.StatusActive, nil
}

// storeCheck is the field error of a record the stores would refuse
// (storage.ValidateBatch), nil for nil.
func storeCheck(err error) *fieldError {
	if err == nil {
		return nil
	}
	var ve *storage.ValidationError
	if errors.As(err, &ve) {
		return &fieldError{ve.Field, fmt.Errorf("%w: %s", ve.Err, ve.Reason)}
	}
	return &fieldError{"", err}
}
