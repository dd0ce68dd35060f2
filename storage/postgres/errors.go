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

// textCheck runs checkText over the texts of one owner's records and keeps
// the first failure in err.
type textCheck struct {
	owner storage.OwnerRef
	err   error
}

// text checks fieldsAndValues, pairs of a field name and its text.
func (c *textCheck) text(fieldsAndValues ...string) {
	for i := 0; i+1 < len(fieldsAndValues) && c.err == nil; i += 2 {
		c.err = checkText(c.owner, fieldsAndValues[i], fieldsAndValues[i+1])
	}
}

// list checks every element of a list field.
func (c *textCheck) list(field string, ss []string) {
	for i, s := range ss {
		c.text(fmt.Sprintf("%s[%d]", field, i), s)
	}
}

// dict checks the keys and values of a map field.
func (c *textCheck) dict(field string, m map[string]string) {
	for k, v := range m {
		c.text(field+" key", k, field+"["+k+"]", v)
	}
}

// checkChunkText checks the texts of the chunks replacing owner's.
func checkChunkText(owner storage.OwnerRef, chunks []storage.Chunk) error {
	c := textCheck{owner: owner}
	for j, ch := range chunks {
		at := fmt.Sprintf("chunks[%d].", j)
		c.text(at+"content", ch.Content, at+"source", string(ch.Source), at+"content_hash", ch.ContentHash, at+"file", ch.File)
		c.list(at+"heading_path", ch.HeadingPath)
		c.dict(at+"metadata", ch.Metadata)
	}
	return c.err
}

// checkBatchText runs checkText over every text of b.
func checkBatchText(b *storage.Batch) error {
	err := checkRecordsText(items, b.Items)
	if err == nil {
		err = checkRecordsText(faqs, b.FAQs)
	}
	if err == nil {
		err = checkRecordsText(docs, b.Documents)
	}
	for i := 0; i < len(b.Chunks) && err == nil; i++ {
		err = checkChunkText(b.Chunks[i].Owner, b.Chunks[i].Chunks)
	}
	return err
}

// checkRecordsText checks the text of records of kind k.
func checkRecordsText[T any](k pgKind[T], recs []T) error {
	for i := range recs {
		if err := k.checkText(&recs[i]); err != nil {
			return err
		}
	}
	return nil
}
