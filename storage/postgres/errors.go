package postgres

import (
	"context"
	"errors"
	"fmt"

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
