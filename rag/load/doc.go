// Package load reads catalog items, FAQs and documents from files into
// hybridrag's storage types, ready for the Indexer.
//
// Formats:
//
//   - Catalog items: JSONL in the interchange format of shared/data (see
//     ReadCatalog), a JSON array of the same objects, or CSV with a
//     header (English and Portuguese header names, others named by
//     Options.CSVColumns; prices as "1.234,56" or "1234.56").
//   - FAQs: JSONL ({"id","question","answer","category","keywords",
//     "priority","active"}), a JSON array of the same objects, or CSV
//     (the same header rules).
//   - Documents: JSONL records ({"id","title","content","source",
//     "metadata","status"}), or one document per file: Markdown (headings
//     found with goldmark), plain text, and Word .docx (the OOXML zip read
//     with archive/zip and encoding/xml, heading styles kept). Documents come
//     as ParsedDocument values: the storage.Document with the file and line
//     it came from and, for Markdown and .docx, its Sections (heading level
//     and path, byte offsets into Content) for chunk.Structural.
//     LoadDocuments walks a directory, choosing the loader by extension.
//
// Every record gets a storage.Status, active unless the record says
// otherwise: a "status" (ativo/inativo, active/inactive) or an "active"
// boolean (true/false, sim/não, ativo/inativo) in JSON, of any kind; the
// status column of catalog CSV and the active column of FAQ CSV. The three
// kinds share one reader per format (JSONL, JSON array, CSV), the checks
// for repeated IDs and the choice of reader by extension.
//
// Text is repaired on the way in: a UTF-8 BOM is dropped, NUL bytes are
// removed, line ends become "\n" in documents, and text is put in Unicode
// NFC unless Options.KeepUnicodeForm is set.
//
// # Encodings
//
// Input is expected in UTF-8, and valid UTF-8 is taken as it is. Input
// that is not valid UTF-8 is decoded as Windows-1252, the superset of
// Latin-1 (ISO-8859-1) that Excel, Notepad and older systems write when
// they save "ANSI" text on a Brazilian Windows, so that "café, açúcar"
// keeps its accents instead of turning into U+FFFD. The five bytes
// Windows-1252 leaves undefined become the C1 controls of the same value,
// as the WHATWG Encoding Standard decodes them. Input that begins with a
// UTF-8 BOM has declared itself UTF-8: its invalid bytes become U+FFFD.
// The decision is made per unit read: per file for Markdown and text
// documents and JSON arrays, per line for JSONL, and per row (the header
// included) for CSV, whose files are read as a stream; a BOM on the first
// line counts for the whole file. .docx parts are XML, which is UTF-8 by
// definition.
//
// Text that is valid UTF-8 but reads like UTF-8 once decoded as
// Windows-1252 ("cafÃ©", "aÃ§Ãºcar", "â€“" for "café", "açúcar", "–":
// mojibake, common in Brazilian exports that passed through Latin-1 tools)
// is repaired, line by line, unless Options.KeepMojibake is set, so that
// such text matches a query typed with accents. The repair is
// conservative: a line is repaired only when the whole line round-trips
// (every character is ASCII or Windows-1252, their Windows-1252 bytes are
// valid UTF-8, and every character those bytes spell is itself a printable
// Windows-1252 character), so proper Portuguese ("NÃO É SÓ AÇÃO"), a line
// mixing "café" with "cafÃ©", or one holding a character outside
// Windows-1252 is left alone. Text mangled twice is repaired twice, so
// loading the loader's own output changes nothing. The unit is a line of a
// document or of a field such as a description or an answer; tag and
// keyword lists are split before.
// JSONL lines may be up to Options.MaxLineBytes long (64 MiB by default),
// far beyond bufio.Scanner's 64 KiB.
//
// # Errors
//
// A loader run does not stop at a bad record: it returns the records that
// loaded together with an error that holds a RecordErrors list, one
// *RecordError per bad record naming its file, its line (JSONL line, CSV
// record line, line where a JSON array element starts, plus its index) and,
// when known, the record ID and field. Get the list with
//
//	var bad load.RecordErrors
//	if errors.As(err, &bad) { for _, e := range bad { ... } }
//
// Each RecordError wraps a sentinel: ErrSyntax (not JSON/CSV),
// ErrLineTooLong, ErrDuplicateID, ErrMissingColumn, ErrInvalidDocx,
// ErrUnsupportedFormat, ErrFileTooLarge, storage.ErrInvalidRecord (a missing
// or invalid field, or one the stores would refuse: an ID that is not
// storage.ValidID, a record over a storage limit, which is
// storage.ErrLimitExceeded), or a *DuplicateDocumentError (ErrDuplicateDocument)
// when a document's content has the same SHA-256 as an earlier one's.
// Options.StopOnError stops at the first bad record instead. I/O failures
// and context cancellation end the run; they are returned joined with the
// record errors so far.
//
// # Concurrency
//
// Loaders keep no state between calls and may run concurrently; Options is
// only read.
package load
