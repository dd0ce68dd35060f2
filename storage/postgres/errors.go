package postgres

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/hybridrag/hybridrag/storage"
)

// PostgreSQL error codes the stores translate into storage sentinels.
const (
	codeForeignKeyViolation      = "23503"
	codeCharacterNotInRepertoire = "22021" // NUL byte or invalid UTF-8 in text
	codeUndefinedTable           = "42P01"
	codeUndefinedObject          = "42704"
)

// wrapErr wraps a driver error with the operation that failed. Driver errors
// never contain the DSN's password (pgconn masks it), and the stores never
// put a DSN in their own messages.
func wrapErr(op string, err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case codeCharacterNotInRepertoire:
			return fmt.Errorf("postgres: %s: %w: %w", op, storage.ErrInvalidRecord, err)
		case codeUndefinedTable, codeUndefinedObject:
			return fmt.Errorf("postgres: %s (run Migrate): %w: %w", op, storage.ErrSchemaMismatch, err)
		}
	}
	return fmt.Errorf("postgres: %s: %w", op, err)
}

// wrapCtx is wrapErr that, when ctx is done, makes the result match
// ctx.Err() with errors.Is (pgx reports a cancelled query as a server
// error, "canceling statement due to user request").
func wrapCtx(ctx context.Context, op string, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("postgres: %s: %w (%v)", op, cerr, err)
	}
	return wrapErr(op, err)
}

func notFound(ref storage.OwnerRef) error {
	return fmt.Errorf("postgres: %s %s: %w", ref.Kind, storage.QuoteID(ref.ID), storage.ErrNotFound)
}

// checkText rejects text PostgreSQL cannot store: invalid UTF-8 and NUL
// bytes. Callers repair user text beforehand (lexical.Normalize and the
// ingestion loaders do); the store refuses rather than silently altering it.
func checkText(owner storage.OwnerRef, field, s string) error {
	if !utf8.ValidString(s) {
		return &storage.ValidationError{Owner: owner, Field: field, Reason: "not valid UTF-8 (PostgreSQL cannot store it)", Err: storage.ErrInvalidRecord}
	}
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return &storage.ValidationError{Owner: owner, Field: field, Reason: "contains a NUL byte (PostgreSQL cannot store it)", Err: storage.ErrInvalidRecord}
		}
	}
	return nil
}

func checkTexts(owner storage.OwnerRef, field string, ss []string) error {
	for i, s := range ss {
		if err := checkText(owner, fmt.Sprintf("%s[%d]", field, i), s); err != nil {
			return err
		}
	}
	return nil
}

func checkMap(owner storage.OwnerRef, field string, m map[string]string) error {
	for k, v := range m {
		if err := checkText(owner, field+" key", k); err != nil {
			return err
		}
		if err := checkText(owner, field+"["+k+"]", v); err != nil {
			return err
		}
	}
	return nil
}

// checkBatchText runs checkText over every text of b.
func checkBatchText(b *storage.Batch) error {
	for i := range b.Items {
		it := &b.Items[i]
		o := storage.OwnerRef{Kind: storage.KindItem, ID: it.ID}
		for _, f := range []struct{ name, v string }{
			{"name", it.Name}, {"description", it.Description}, {"category", it.Category}, {"manufacturer", it.Manufacturer},
		} {
			if err := checkText(o, f.name, f.v); err != nil {
				return err
			}
		}
		if err := checkTexts(o, "tags", it.Tags); err != nil {
			return err
		}
		if err := checkMap(o, "metadata", it.Metadata); err != nil {
			return err
		}
		for j, f := range it.Files {
			if err := checkText(o, fmt.Sprintf("files[%d].name", j), f.Name); err != nil {
				return err
			}
			if err := checkText(o, fmt.Sprintf("files[%d].text", j), f.Text); err != nil {
				return err
			}
		}
	}
	for i := range b.FAQs {
		f := &b.FAQs[i]
		o := storage.OwnerRef{Kind: storage.KindFAQ, ID: f.ID}
		for _, x := range []struct{ name, v string }{{"question", f.Question}, {"answer", f.Answer}, {"category", f.Category}} {
			if err := checkText(o, x.name, x.v); err != nil {
				return err
			}
		}
		if err := checkTexts(o, "keywords", f.Keywords); err != nil {
			return err
		}
	}
	for i := range b.Documents {
		d := &b.Documents[i]
		o := storage.OwnerRef{Kind: storage.KindDocument, ID: d.ID}
		for _, x := range []struct{ name, v string }{{"source", d.Source}, {"title", d.Title}, {"content", d.Content}, {"content_hash", d.ContentHash}} {
			if err := checkText(o, x.name, x.v); err != nil {
				return err
			}
		}
		if err := checkMap(o, "metadata", d.Metadata); err != nil {
			return err
		}
	}
	for _, oc := range b.Chunks {
		for j, c := range oc.Chunks {
			if err := checkText(oc.Owner, fmt.Sprintf("chunks[%d].content", j), c.Content); err != nil {
				return err
			}
			if err := checkText(oc.Owner, fmt.Sprintf("chunks[%d].source", j), string(c.Source)); err != nil {
				return err
			}
			if err := checkText(oc.Owner, fmt.Sprintf("chunks[%d].content_hash", j), c.ContentHash); err != nil {
				return err
			}
			if err := checkMap(oc.Owner, fmt.Sprintf("chunks[%d].metadata", j), c.Metadata); err != nil {
				return err
			}
		}
	}
	return nil
}
