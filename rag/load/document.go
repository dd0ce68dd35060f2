package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/hybridrag/hybridrag/internal/textutil"
	"github.com/hybridrag/hybridrag/rag/chunk"
	"github.com/hybridrag/hybridrag/storage"
)

// ParsedDocument is a storage.Document as a loader parsed it, with where it
// came from and the structure the structural splitter needs.
type ParsedDocument struct {
	storage.Document
	// Sections are the heading sections of Content, for
	// chunk.Structural.Split: one per Markdown heading or Word heading
	// paragraph, with its level and heading path. Nil for plain text, JSONL
	// records and documents without headings.
	Sections []chunk.Section
	// File is the file the document came from: the name given to the
	// loader, or the path relative to the walked directory.
	File string
	// Line is the JSONL line of the record, or 0 for one-document files.
	Line int
}

// Document formats recorded in Metadata["format"] for files.
const (
	formatMarkdown = "markdown"
	formatText     = "text"
	formatDocx     = "docx"
)

// documentExts maps the extensions of one-document files to their format.
var documentExts = map[string]string{
	".md": formatMarkdown, ".markdown": formatMarkdown,
	".txt": formatText, ".text": formatText,
	".docx": formatDocx,
}

// documentFormat reads document records.
var documentFormat = recordFormat[ParsedDocument]{
	what: "documents", id: func(d *ParsedDocument) string { return d.ID },
	decode: decodeDocument, at: func(d *ParsedDocument, file string, line int) { d.File, d.Line = file, line },
	batch: func(r *ParsedDocument) *storage.Batch {
		return &storage.Batch{Documents: []storage.Document{r.Document}}
	},
}

// ReadDocumentsJSONL reads documents in the interchange format, one JSON
// object a line:
//
//	{"id","title","content","source","metadata"?,"status"?}
//
// id and content are required; title defaults to the id; "status"
// (ativo/inativo, active/inactive) or "active" (a boolean) default to
// active. ContentHash is filled with storage.ContentHash(Content).
// Documents with the same content as an earlier one are dropped and
// reported as record errors wrapping a *DuplicateDocumentError, unless
// Options.KeepDuplicateDocuments is set.
func ReadDocumentsJSONL(ctx context.Context, r io.Reader, name string, opts *Options) ([]ParsedDocument, error) {
	o := opts.orDefault()
	c := &collector{file: name, stop: o.StopOnError}
	docs, err := jsonlRecords(ctx, r, o, c, documentFormat)
	if err == nil && !o.KeepDuplicateDocuments {
		docs = dedupeInto(docs, c)
	}
	return docs, c.result(err)
}

func decodeDocument(obj object, c cleaner) (ParsedDocument, *fieldError) {
	var pd ParsedDocument
	d := &pd.Document
	r := strReader{obj: obj}
	str := r.str
	d.ID = c.field(str("id"))
	d.Title = c.field(str("title"))
	d.Content = c.document([]byte(str("content")))
	d.Source = c.field(str("source"))
	ferr := r.err
	if ferr != nil {
		return pd, ferr
	}
	if ferr = checkID(d.ID); ferr != nil {
		return pd, ferr
	}
	if textutil.IsBlank(d.Content) {
		return pd, invalid("content", "empty (no text besides white space and control characters)")
	}
	if d.Title == "" {
		d.Title = d.ID
	}
	if d.Status, ferr = obj.status(); ferr != nil {
		return pd, ferr
	}
	if d.Metadata, ferr = obj.strMap("metadata", c); ferr != nil {
		return pd, ferr
	}
	d.ContentHash = storage.ContentHash(d.Content)
	return pd, nil
}

// ParseDocument parses one document file held in data. name is its path
// (slash-separated, relative to the collection); the extension selects the
// format (.md/.markdown, .txt/.text, .docx). The document's ID and Source
// are name, unless Markdown front matter sets "id" or "source"; its Title is
// the first heading (or front-matter "title"), else the file name without
// extension; Metadata["format"] records the format ("markdown", "text" or
// "docx"); its Status is active.
// Errors come as a
// *RecordError naming the file, wrapping ErrUnsupportedFormat,
// ErrInvalidDocx, ErrFileTooLarge or storage.ErrInvalidRecord (empty
// content).
func ParseDocument(name string, data []byte, opts *Options) (ParsedDocument, error) {
	o := opts.orDefault()
	cl := newCleaner(o)
	fail := func(field string, err error) (ParsedDocument, error) {
		return ParsedDocument{}, &RecordError{File: name, Index: -1, ID: name, Field: field, Err: err}
	}
	format, ok := documentExts[ext(name)]
	if !ok {
		return fail("", fmt.Errorf("%w: %q (want .md, .txt or .docx)", ErrUnsupportedFormat, path.Ext(name)))
	}
	if int64(len(data)) > o.MaxFileBytes {
		return fail("", fmt.Errorf("%w: %d bytes, limit %d", ErrFileTooLarge, len(data), o.MaxFileBytes))
	}
	d := ParsedDocument{File: name}
	d.ID, d.Source, d.Status = name, name, storage.StatusActive
	var meta map[string]string
	switch format {
	case formatMarkdown:
		var title string
		d.Content, d.Sections, title, meta = parseMarkdown(cl.document(data))
		d.Title = title
	case formatText:
		d.Content = cl.document(data)
	case formatDocx:
		content, sections, title, err := parseDocx(data, o.MaxFileBytes, cl)
		if err != nil {
			return fail("", err)
		}
		d.Content, d.Sections, d.Title = content, sections, title
	}
	if textutil.IsBlank(d.Content) {
		return fail("content", fmt.Errorf("%w: empty (no text besides white space and control characters)", storage.ErrInvalidRecord))
	}
	d.Metadata = map[string]string{"format": format}
	for k, v := range meta {
		switch k {
		case "id":
			d.ID = v
		case "title":
			d.Title = v
		case "source":
			d.Source = v
		default:
			d.Metadata[k] = v
		}
	}
	if d.Title == "" {
		base := path.Base(name)
		d.Title = strings.TrimSuffix(base, path.Ext(base))
	}
	if ferr := checkID(d.ID); ferr != nil {
		return fail(ferr.field, ferr.err)
	}
	d.ContentHash = storage.ContentHash(d.Content)
	return d, nil
}

// LoadDocuments loads documents from path: a directory, a .jsonl/.ndjson
// file of records (ReadDocumentsJSONL), or one document file
// (ParseDocument, with the file's base name as its ID).
//
// A directory is walked recursively, in lexical order: Markdown, text and
// .docx files become one document each, with their path relative to the
// directory (slash-separated) as ID; .jsonl and .ndjson files hold
// document records. Hidden files and directories (name starting with
// '.'), Office lock files ("~$...") and other extensions are skipped. A
// file that fails is a RecordError naming it; the other files still load.
// Duplicate contents are handled as in ReadDocumentsJSONL, across all
// files.
func LoadDocuments(ctx context.Context, p string, opts *Options) ([]ParsedDocument, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("load: documents: %w", err)
	}
	if st.IsDir() {
		return LoadDocumentsFS(ctx, os.DirFS(p), opts)
	}
	return LoadDocumentsFS(ctx, os.DirFS(filepath.Dir(p)), opts, filepath.Base(p))
}

// LoadDocumentsFS is LoadDocuments of a directory over any file system (testing/fstest,
// embed.FS, ...). With names, only those files (slash paths) are loaded;
// without, the whole tree from ".".
func LoadDocumentsFS(ctx context.Context, fsys fs.FS, opts *Options, names ...string) ([]ParsedDocument, error) {
	o := opts.orDefault()
	c := &collector{stop: o.StopOnError}
	if len(names) == 0 {
		err := fs.WalkDir(fsys, ".", func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				if p == "." {
					return err
				}
				if !c.add(&RecordError{File: p, Index: -1, Err: err}) {
					return fs.SkipAll
				}
				return nil
			}
			base := de.Name()
			if p != "." && (strings.HasPrefix(base, ".") || strings.HasPrefix(base, "~$")) {
				if de.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if de.IsDir() {
				return nil
			}
			e := ext(base)
			if _, ok := documentExts[e]; ok || e == ".jsonl" || e == ".ndjson" {
				names = append(names, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("load: documents: %w", err)
		}
	}
	var docs []ParsedDocument
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return docs, c.result(err)
		}
		if len(c.errs) > 0 && c.stop {
			break
		}
		more, err := loadDocumentFile(ctx, fsys, name, o, c)
		if err != nil {
			return docs, c.result(err)
		}
		docs = append(docs, more...)
	}
	if !o.KeepDuplicateDocuments && !(c.stop && len(c.errs) > 0) {
		docs = dedupeInto(docs, c)
	}
	return docs, c.result(nil)
}

// loadDocumentFile loads one file into documents, adding record errors to
// c; it returns only fatal errors (cancellation).
func loadDocumentFile(ctx context.Context, fsys fs.FS, name string, o *Options, c *collector) ([]ParsedDocument, error) {
	if e := ext(name); e == ".jsonl" || e == ".ndjson" {
		f, err := fsys.Open(name)
		if err != nil {
			c.add(&RecordError{File: name, Index: -1, Err: err})
			return nil, nil
		}
		defer f.Close()
		c.file = name
		docs, err := jsonlRecords(ctx, f, o, c, documentFormat)
		if err != nil && ctx.Err() == nil {
			// An I/O error ends this file, not the run.
			c.add(&RecordError{File: name, Index: -1, Err: err})
			err = nil
		}
		return docs, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		c.add(&RecordError{File: name, Index: -1, Err: err})
		return nil, nil
	}
	data, err := readAllLimit(f, o.MaxFileBytes)
	f.Close()
	if err != nil {
		c.add(&RecordError{File: name, Index: -1, Err: err})
		return nil, nil
	}
	d, err := ParseDocument(name, data, o)
	if err != nil {
		var re *RecordError
		if !errors.As(err, &re) {
			re = &RecordError{File: name, Index: -1, Err: err}
		}
		c.add(re)
		return nil, nil
	}
	return []ParsedDocument{d}, nil
}

// dedupe drops every document whose content hash (storage.ContentHash of
// Content) equals that of an earlier document, keeping the first, and
// returns one *DuplicateDocumentError per dropped document. Empty
// ContentHash fields are computed. docs is not modified.
func dedupe(docs []ParsedDocument) ([]ParsedDocument, []*DuplicateDocumentError) {
	out := make([]ParsedDocument, 0, len(docs))
	var dups []*DuplicateDocumentError
	first := make(map[string]int, len(docs)) // hash -> index in out
	for _, d := range docs {
		if d.ContentHash == "" {
			d.ContentHash = storage.ContentHash(d.Content)
		}
		if i, ok := first[d.ContentHash]; ok {
			dups = append(dups, &DuplicateDocumentError{
				ExistingID: out[i].ID, ExistingTitle: out[i].Title,
				NewID: d.ID, Path: d.File, Hash: d.ContentHash,
			})
			continue
		}
		first[d.ContentHash] = len(out)
		out = append(out, d)
	}
	return out, dups
}

// dedupeInto runs dedupe and records each duplicate in c.
func dedupeInto(docs []ParsedDocument, c *collector) []ParsedDocument {
	out, dups := dedupe(docs)
	if len(dups) == 0 {
		return out
	}
	// Line of each dropped document, to name it in the error.
	lines := map[string]int{}
	for _, d := range docs {
		if _, ok := lines[d.File+"\x00"+d.ID]; !ok {
			lines[d.File+"\x00"+d.ID] = d.Line
		}
	}
	for _, dup := range dups {
		c.add(&RecordError{File: dup.Path, Line: lines[dup.Path+"\x00"+dup.NewID], Index: -1, ID: dup.NewID, Err: dup})
	}
	return out
}
