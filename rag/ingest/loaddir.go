package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hybridrag/hybridrag/rag/load"
)

// LoadDir reads the Sources in dir, laid out like the repository's
// testdata: catalog items from catalog.jsonl, FAQs from faqs.jsonl, and
// documents from documents.jsonl and from every document file under
// documents/ (Markdown, text, .docx; see load.LoadDocuments). Each is
// optional, but a dir holding none of them is an error wrapping
// fs.ErrNotExist. opts (nil for the defaults) is passed to every loader.
//
// Bad records do not stop the others: LoadDir returns every record that
// loaded with an error that joins each loader's (a load.RecordErrors
// listing the bad records, see errors.As). A canceled ctx stops it.
func LoadDir(ctx context.Context, dir string, opts *load.Options) (Sources, error) {
	var (
		src   Sources
		errs  []error
		found bool
	)
	// present reports whether name is in dir; an error other than its
	// absence is kept.
	present := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("ingest: load %s: %w", name, err))
		}
		found = found || err == nil
		return err == nil
	}
	keep := func(name string, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("ingest: load %s: %w", name, err))
		}
	}
	var err error
	if present("catalog.jsonl") {
		src.Items, err = load.LoadCatalog(ctx, filepath.Join(dir, "catalog.jsonl"), opts)
		keep("catalog.jsonl", err)
	}
	if present("faqs.jsonl") && ctx.Err() == nil {
		src.FAQs, err = load.LoadFAQs(ctx, filepath.Join(dir, "faqs.jsonl"), opts)
		keep("faqs.jsonl", err)
	}
	for _, name := range []string{"documents", "documents.jsonl"} {
		if present(name) && ctx.Err() == nil {
			docs, err := load.LoadDocuments(ctx, filepath.Join(dir, name), opts)
			src.Documents = append(src.Documents, docs...)
			keep(name, err)
		}
	}
	if !found && len(errs) == 0 {
		return src, fmt.Errorf("ingest: load %s: no catalog.jsonl, faqs.jsonl, documents.jsonl or documents/: %w", dir, fs.ErrNotExist)
	}
	return src, errors.Join(errs...)
}
