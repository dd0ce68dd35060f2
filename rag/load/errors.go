package load

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Sentinel errors. Record-level failures come as *RecordError values (inside
// a RecordErrors list) wrapping one of these or storage.ErrInvalidRecord.
var (
	// ErrSyntax: a record is not well-formed JSON or CSV.
	ErrSyntax = errors.New("load: malformed record")
	// ErrLineTooLong: a JSONL line exceeds Options.MaxLineBytes.
	ErrLineTooLong = errors.New("load: line too long")
	// ErrFileTooLarge: a file read whole (JSON array, Markdown, text, a
	// .docx part) exceeds Options.MaxFileBytes.
	ErrFileTooLarge = errors.New("load: file too large")
	// ErrUnsupportedFormat: the file extension names no known format.
	ErrUnsupportedFormat = errors.New("load: unsupported file format")
	// ErrInvalidDocx: a .docx file is not a readable OOXML package (not a
	// zip, no word/document.xml, malformed XML).
	ErrInvalidDocx = errors.New("load: invalid .docx file")
	// ErrMissingColumn: a CSV header lacks a required column or one
	// named by Options.CSVColumns, or CSVColumns names no field.
	ErrMissingColumn = errors.New("load: missing CSV column")
	// ErrDuplicateID: two records of one load share an ID; the first wins.
	ErrDuplicateID = errors.New("load: duplicate id")
	// ErrDuplicateDocument: a document has the same content as another
	// (see DuplicateDocumentError).
	ErrDuplicateDocument = errors.New("load: duplicate document")
)

// RecordError says which record of which file could not be loaded, and why.
type RecordError struct {
	// File is the name of the file (as given to the loader, or relative to
	// the walked directory).
	File string
	// Line is the 1-based line where the record starts (JSONL line, CSV
	// record line, line of a JSON array element); 0 when the error concerns
	// the whole file.
	Line int
	// Index is the 0-based position of the element in a JSON array, or -1.
	Index int
	// ID is the record's ID when it could be read.
	ID string
	// Field names the offending field ("price", "files[0].text"), if any.
	Field string
	// Err is the cause; it wraps ErrSyntax, ErrLineTooLong,
	// ErrDuplicateID, storage.ErrInvalidRecord, ... (test with errors.Is).
	Err error
}

// Error names the file, line and field of the bad record.
func (e *RecordError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	if e.Index >= 0 {
		b.WriteString(": element " + strconv.Itoa(e.Index))
	}
	if e.ID != "" {
		b.WriteString(": id " + quote(e.ID))
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	b.WriteString(": ")
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *RecordError) Unwrap() error { return e.Err }

// RecordErrors lists every record a loader run could not load, in the
// order found (duplicate documents, found once all are read, come last).
// Loaders return it (possibly joined with an I/O error) along with
// the records that did load.
type RecordErrors []*RecordError

// maxListed bounds how many record errors Error spells out.
const maxListed = 10

// Error lists the first record errors and counts the rest.
func (es RecordErrors) Error() string {
	switch len(es) {
	case 0:
		return "load: no record errors"
	case 1:
		return es[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "load: %d bad records:", len(es))
	for i, e := range es {
		if i == maxListed {
			fmt.Fprintf(&b, "\n\t... and %d more", len(es)-maxListed)
			break
		}
		b.WriteString("\n\t" + e.Error())
	}
	return b.String()
}

// Unwrap returns the record errors, so errors.Is and errors.As see each.
func (es RecordErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// DuplicateDocumentError reports a document whose content has the same
// SHA-256 as a document already loaded or stored, so the same text is not
// indexed (and cited) twice under two names. The Indexer skips such a document unless told to
// replace the existing one.
type DuplicateDocumentError struct {
	// ExistingID and ExistingTitle name the document already present.
	ExistingID    string
	ExistingTitle string
	// NewID is the ID of the rejected document; Path its file, if any.
	NewID string
	Path  string
	// Hash is the hex SHA-256 of the content (storage.ContentHash).
	Hash string
}

// Error names the existing document and the rejected one.
func (e *DuplicateDocumentError) Error() string {
	h := e.Hash
	if len(h) > 12 {
		h = h[:12] + "…"
	}
	s := ErrDuplicateDocument.Error() + ": " + quote(e.NewID)
	if e.Path != "" && e.Path != e.NewID {
		s += " (" + e.Path + ")"
	}
	s += " has the same content as " + quote(e.ExistingID)
	if e.ExistingTitle != "" {
		s += " (" + quote(e.ExistingTitle) + ")"
	}
	return s + ", sha256 " + h
}

// Unwrap returns ErrDuplicateDocument.
func (e *DuplicateDocumentError) Unwrap() error { return ErrDuplicateDocument }

func quote(s string) string {
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return strconv.Quote(s)
}

// collector gathers the record errors of one run.
type collector struct {
	file string
	stop bool // stop at the first error
	errs RecordErrors
}

// add records e (filling File) and reports whether loading may go on.
func (c *collector) add(e *RecordError) bool {
	if e.File == "" {
		e.File = c.file
	}
	c.errs = append(c.errs, e)
	return !c.stop
}

// result combines the record errors with a fatal error, if any.
func (c *collector) result(fatal error) error {
	switch {
	case fatal != nil && len(c.errs) > 0:
		return errors.Join(fatal, c.errs)
	case fatal != nil:
		return fatal
	case len(c.errs) > 0:
		return c.errs
	}
	return nil
}
