package load

// Limits applied when Options leaves them zero.
const (
	// defaultMaxLineBytes bounds one JSONL line (a catalog item with its
	// attached file texts can be far longer than bufio.Scanner's 64 KiB).
	defaultMaxLineBytes = 64 << 20
	// defaultMaxFileBytes bounds a file read whole: a JSON array, a
	// Markdown or text document, and each part of a .docx once unzipped.
	defaultMaxFileBytes = 256 << 20
)

// Options tunes the loaders. A nil *Options means the defaults.
type Options struct {
	// StopOnError stops a run at the first bad record instead of
	// collecting every one.
	StopOnError bool
	// MaxLineBytes bounds one JSONL line; 0 means 64 MiB. A
	// longer line is a RecordError wrapping ErrLineTooLong; the next lines
	// still load.
	MaxLineBytes int
	// MaxFileBytes bounds a file read whole; 0 means 256 MiB.
	MaxFileBytes int64
	// CSVColumns names the CSV header of a field whose column a header
	// of another name holds, by the field's name: for catalogs id, name,
	// description, category, manufacturer, tags, price, status, file_name
	// and file_text; for FAQs id, question, answer, category, keywords,
	// priority and active ({"name": "Descrição do Produto"}). A field
	// left out is found by its English and Portuguese header names (see
	// ReadCatalog and ReadFAQs); a named header missing from the file, or
	// a key that is no such field, is a RecordError wrapping
	// ErrMissingColumn.
	CSVColumns map[string]string
	// KeepDuplicateDocuments keeps documents whose content equals an
	// earlier document's instead of reporting them as
	// DuplicateDocumentError record errors.
	KeepDuplicateDocuments bool
	// KeepUnicodeForm keeps text in its Unicode normalization form. By
	// default text is converted to NFC, so "café" written with a combining
	// accent (as in the AGROFIT data) is stored like "café" typed on a
	// keyboard.
	KeepUnicodeForm bool
	// KeepMojibake keeps text that reads like UTF-8 decoded as
	// Windows-1252 ("cafÃ©" for "café") as it is. By default each such
	// line is repaired when the whole line round-trips (see the package
	// documentation).
	KeepMojibake bool
}

func (o *Options) orDefault() *Options {
	var out Options
	if o != nil {
		out = *o
	}
	if out.MaxLineBytes <= 0 {
		out.MaxLineBytes = defaultMaxLineBytes
	}
	if out.MaxFileBytes <= 0 {
		out.MaxFileBytes = defaultMaxFileBytes
	}
	return &out
}
