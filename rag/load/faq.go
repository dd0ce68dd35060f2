package load

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
)

// LoadFAQs reads FAQs from a .jsonl/.ndjson file (see ReadFAQsJSONL), a
// .json file (an array, or objects one a line) or a .csv/.tsv file (see
// ReadFAQsCSV).
func LoadFAQs(ctx context.Context, path string, opts *Options) ([]storage.FAQ, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("load: faqs: %w", err)
	}
	defer f.Close()
	name := filepath.Base(path)
	switch ext(path) {
	case ".jsonl", ".ndjson":
		return ReadFAQsJSONL(ctx, f, name, opts)
	case ".json":
		return readFAQsJSON(ctx, f, name, opts)
	case ".csv", ".tsv":
		return ReadFAQsCSV(ctx, f, name, opts)
	}
	return nil, fmt.Errorf("%w: faqs %s (want .jsonl, .json or .csv)", ErrUnsupportedFormat, name)
}

// FAQID derives the ID of a FAQ that has none from its question: "faq-"
// and the first 16 hex digits of the SHA-256 of the normalized question
// (lexical.Normalize), so it survives re-loads and edits of the answer.
func FAQID(question string) string {
	return "faq-" + storage.ContentHash(lexical.Normalize(question))[:16]
}

// ReadFAQsJSONL reads FAQs in the interchange format, one JSON object a
// line:
//
//	{"id","question","answer","category","keywords":[],"priority":int,"active":bool}
//
// question and answer are required; a missing id is derived with FAQID;
// keywords may also be one string separated by ';' or '|'; "active"
// (optional, default true; also sim/não, ativo/inativo) sets
// storage.FAQ.Inactive. The first of two FAQs with the same id wins.
func ReadFAQsJSONL(ctx context.Context, r io.Reader, name string, opts *Options) ([]storage.FAQ, error) {
	o := opts.orDefault()
	c := &collector{file: name, stop: o.StopOnError}
	d := &faqDecoder{c: cleaner{o.KeepUnicodeForm}, seen: map[string]int{}}
	err := readJSONL(ctx, r, o, c, func(obj object, line int) *RecordError {
		return d.add(obj, line, -1)
	})
	return d.faqs, c.result(err)
}

func readFAQsJSON(ctx context.Context, r io.Reader, name string, opts *Options) ([]storage.FAQ, error) {
	o := opts.orDefault()
	data, err := readAllLimit(r, o.MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("load: %s: %w", name, err)
	}
	if !isJSONArray(data) {
		return ReadFAQsJSONL(ctx, bytes.NewReader(data), name, opts)
	}
	c := &collector{file: name, stop: o.StopOnError}
	d := &faqDecoder{c: cleaner{o.KeepUnicodeForm}, seen: map[string]int{}}
	err = readJSONArray(ctx, data, c, func(obj object, line, index int) *RecordError {
		return d.add(obj, line, index)
	})
	return d.faqs, c.result(err)
}

type faqDecoder struct {
	c    cleaner
	faqs []storage.FAQ
	seen map[string]int
}

func (d *faqDecoder) add(obj object, line, index int) *RecordError {
	f, ferr := decodeFAQ(obj, d.c)
	if ferr != nil {
		return &RecordError{Line: line, Index: index, ID: f.ID, Field: ferr.field, Err: ferr.err}
	}
	return d.keep(f, line, index)
}

func (d *faqDecoder) keep(f storage.FAQ, line, index int) *RecordError {
	if first, dup := d.seen[f.ID]; dup {
		return &RecordError{Line: line, Index: index, ID: f.ID, Field: "id", Err: fmt.Errorf("%w: first seen at line %d", ErrDuplicateID, first)}
	}
	d.seen[f.ID] = line
	d.faqs = append(d.faqs, f)
	return nil
}

func decodeFAQ(obj object, c cleaner) (storage.FAQ, *fieldError) {
	var f storage.FAQ
	r := strReader{obj: obj}
	str := r.str
	f.ID = c.field(str("id"))
	f.Question = c.field(str("question"))
	f.Answer = strings.TrimSpace(c.text(str("answer")))
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
	active, present, ferr := obj.boolean("active")
	if ferr != nil {
		return f, ferr
	}
	f.Inactive = present && !active
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
		f.ID = FAQID(f.Question)
	}
	return checkID(f.ID)
}

// ReadFAQsCSV reads FAQs from CSV with a header row, mapped to fields by
// opts.FAQCSV (see FAQCSVMapping), with the same rules as ReadFAQsJSONL.
func ReadFAQsCSV(ctx context.Context, r io.Reader, name string, opts *Options) ([]storage.FAQ, error) {
	o := opts.orDefault()
	cl := cleaner{o.KeepUnicodeForm}
	c := &collector{file: name, stop: o.StopOnError}
	m := o.FAQCSV
	cols := []column{
		{"id", m.ID, []string{"id", "codigo", "cod", "code"}, false},
		{"question", m.Question, []string{"question", "pergunta"}, true},
		{"answer", m.Answer, []string{"answer", "resposta"}, true},
		{"category", m.Category, []string{"category", "categoria"}, false},
		{"keywords", m.Keywords, []string{"keywords", "palavras_chave", "palavraschave", "tags"}, false},
		{"priority", m.Priority, []string{"priority", "prioridade"}, false},
		{"active", m.Active, []string{"active", "ativo", "ativa", "status"}, false},
	}
	f, rerr, err := openCSV(r, m.Comma, cols, cl)
	if err != nil {
		return nil, fmt.Errorf("load: %s: %w", name, err)
	}
	if rerr != nil {
		c.add(rerr)
		return nil, c.result(nil)
	}
	seps := defaultString(m.KeywordSeparators, tagSeparators)
	d := &faqDecoder{c: cl, seen: map[string]int{}}
	err = f.each(ctx, c, func(rec []string, line int) *RecordError {
		q := storage.FAQ{
			ID:       f.get(rec, "id", cl),
			Question: f.get(rec, "question", cl),
			Answer:   f.get(rec, "answer", cl),
			Category: f.get(rec, "category", cl),
			Keywords: splitList(f.get(rec, "keywords", cl), seps),
		}
		ferr := finishFAQ(&q)
		if ferr == nil {
			q.Priority, ferr = parseInt("priority", f.get(rec, "priority", cl))
		}
		if ferr == nil {
			if s := f.get(rec, "active", cl); s != "" {
				var active bool
				active, ferr = parseBool("active", s)
				q.Inactive = !active
			}
		}
		if ferr != nil {
			return &RecordError{Line: line, Index: -1, ID: q.ID, Field: ferr.field, Err: ferr.err}
		}
		return d.keep(q, line, -1)
	})
	return d.faqs, c.result(err)
}
