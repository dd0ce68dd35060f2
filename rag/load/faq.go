package load

import (
	"context"
	"io"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
)

// faqFormat reads FAQs.
var faqFormat = recordFormat[storage.FAQ]{
	what: "faqs", id: func(f *storage.FAQ) string { return f.ID },
	decode: decodeFAQ, csv: faqCSV,
	batch: func(r *storage.FAQ) *storage.Batch { return &storage.Batch{FAQs: []storage.FAQ{*r}} },
}

// LoadFAQs reads FAQs from a file, choosing the format by extension as
// [ReadFAQs] does.
func LoadFAQs(ctx context.Context, path string, opts *Options) ([]storage.FAQ, error) {
	return loadRecords(ctx, path, opts, faqFormat)
}

// faqID derives the ID of a FAQ that has none from its question: "faq-"
// and the first 16 hex digits of the SHA-256 of the normalized question
// (lexical.Normalize), so it survives re-loads and edits of the answer.
func faqID(question string) string {
	return "faq-" + storage.ContentHash(lexical.Normalize(question))[:16]
}

// ReadFAQs reads FAQs from r, choosing the format by the extension of name,
// which also identifies r in errors, as [ReadCatalog] does: .jsonl or
// .ndjson, .json, .csv or .tsv. JSONL is the interchange format, one JSON
// object a line:
//
//	{"id","question","answer","category","keywords":[],"priority":int,"active":bool}
//
// question and answer are required; a missing id is derived from the
// question ("faq-" and 16 hex digits of the SHA-256 of the normalized
// question, so it survives re-loads and edits of the answer);
// keywords may also be one string separated by ';' or '|'; "active"
// (optional, default true; also sim/não, ativo/inativo) sets
// storage.FAQ.Status to StatusActive or StatusInactive, and a "status"
// (ativo/inativo, active/inactive) may stand for or agree with it. The
// first of two FAQs with the same id wins. A .json document is an array of
// the same objects; CSV has a header row whose columns are found as for
// catalogs (ReadCatalog): by the field's name in Options.CSVColumns, else
// by English and Portuguese header names (id, codigo, cod, code;
// question, pergunta; answer, resposta; category, categoria; keywords,
// palavras_chave, tags; priority, prioridade; active, ativo, ativa,
// status).
func ReadFAQs(ctx context.Context, r io.Reader, name string, opts *Options) ([]storage.FAQ, error) {
	return readRecords(ctx, r, name, opts, faqFormat)
}

// readFAQsJSONL reads FAQs one JSON object a line (see ReadFAQs).
func readFAQsJSONL(ctx context.Context, r io.Reader, name string, opts *Options) ([]storage.FAQ, error) {
	return readRecordsJSONL(ctx, r, name, opts, faqFormat)
}

// readFAQsJSON reads FAQs from a JSON array (see ReadFAQs).
func readFAQsJSON(ctx context.Context, r io.Reader, name string, opts *Options) ([]storage.FAQ, error) {
	return readRecordsJSON(ctx, r, name, opts, faqFormat)
}

// readFAQsCSV reads FAQs from CSV (see ReadFAQs).
func readFAQsCSV(ctx context.Context, r io.Reader, name string, opts *Options) ([]storage.FAQ, error) {
	return readRecordsCSV(ctx, r, name, opts, faqFormat)
}

func decodeFAQ(obj object, c cleaner) (storage.FAQ, *fieldError) {
	var f storage.FAQ
	r := strReader{obj: obj}
	str := r.str
	f.ID = c.field(str("id"))
	f.Question = c.field(str("question"))
	f.Answer = c.field(str("answer"))
	f.Category = c.field(str("category"))
	ferr := r.err
	if ferr != nil {
		return f, ferr
	}
	var kw []string
	if kw, ferr = obj.list("keywords", tagSeparators); ferr != nil {
		return f, ferr
	}
	f.Keywords = cleanList(kw, c)
	if f.Priority, ferr = obj.integer("priority"); ferr != nil {
		return f, ferr
	}
	if f.Status, ferr = obj.status(); ferr != nil {
		return f, ferr
	}
	return f, finishFAQ(&f)
}

// finishFAQ checks the required fields and derives a missing ID.
func finishFAQ(f *storage.FAQ) *fieldError {
	if f.Question == "" {
		return invalid("question", "empty")
	}
	if f.Answer == "" {
		return invalid("answer", "empty")
	}
	if f.ID == "" {
		f.ID = faqID(f.Question)
	}
	return checkID(f.ID)
}

// faqCSV is the CSV form of FAQs.
var faqCSV = csvFormat[storage.FAQ]{
	cols: faqColumns,
	row: func(f *csvFile, rec []string, cl cleaner) (storage.FAQ, *fieldError) {
		q := storage.FAQ{
			ID:       f.get(rec, "id", cl),
			Question: f.get(rec, "question", cl),
			Answer:   f.get(rec, "answer", cl),
			Category: f.get(rec, "category", cl),
			Keywords: cleanList(splitList(f.get(rec, "keywords", cl), tagSeparators), cl),
		}
		ferr := finishFAQ(&q)
		if ferr == nil {
			q.Priority, ferr = parseInt("priority", f.get(rec, "priority", cl))
		}
		if ferr == nil {
			q.Status, ferr = activeValue("active", f.get(rec, "active", cl))
		}
		return q, ferr
	},
}
