package storage

import (
	"errors"
	"fmt"
	"strconv"
)

// Sentinel errors. Errors returned by stores wrap one of these (test with
// errors.Is); validation failures come as *ValidationError.
var (
	// ErrNotFound: the record does not exist in the tenant.
	ErrNotFound = errors.New("storage: not found")
	// ErrDimensionMismatch: an embedding's length differs from the store's
	// dimensions.
	ErrDimensionMismatch = errors.New("storage: embedding dimension mismatch")
	// ErrInvalidVector: an embedding holds NaN or ±Inf.
	ErrInvalidVector = errors.New("storage: embedding holds NaN or Inf")
	// ErrInvalidRecord: a record is malformed (empty ID, unknown status, a
	// NUL byte or invalid UTF-8 in its text, ...).
	ErrInvalidRecord = errors.New("storage: invalid record")
	// ErrLimitExceeded: a record exceeds one of the record limits (MaxTags,
	// MaxMetadataKeys, MaxNameLength, ...). It wraps ErrInvalidRecord, so
	// errors.Is(err, ErrInvalidRecord) holds too; the *ValidationError
	// names the field, the limit and the record's value.
	ErrLimitExceeded = fmt.Errorf("%w: over a limit", ErrInvalidRecord)
	// ErrInvalidFilter: a filter names an unknown field or a metadata key
	// outside the allowlist.
	ErrInvalidFilter = errors.New("storage: invalid filter")
	// ErrInvalidTenant: the tenant ID is empty or malformed.
	ErrInvalidTenant = errors.New("storage: invalid tenant")
	// ErrSchemaMismatch: the database schema does not match the store's
	// configuration (for example vector(N) with another N), or Migrate has
	// not been run.
	ErrSchemaMismatch = errors.New("storage: schema mismatch")
)

// ValidationError describes why a write or query was rejected before
// anything was done.
type ValidationError struct {
	// Owner is the record concerned, when there is one.
	Owner OwnerRef
	// Field names the offending field ("id", "embedding", "filters[0]", ...).
	Field string
	// Reason says what is wrong, for humans.
	Reason string
	// Err is the sentinel this error wraps.
	Err error
}

// Error describes the sentinel, the owner, the field and the reason.
func (e *ValidationError) Error() string {
	s := e.Err.Error()
	if e.Owner.ID != "" || e.Owner.Kind != "" {
		s += ": " + string(e.Owner.Kind) + " " + quote(e.Owner.ID)
	}
	if e.Field != "" {
		s += ": " + e.Field
	}
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

// Unwrap returns the sentinel error.
func (e *ValidationError) Unwrap() error { return e.Err }

func quote(s string) string { return QuoteID(s) }

// QuoteID quotes an ID for an error message, cut to its first 80 bytes
// and "...": a 1 MiB ID must not make a 1 MB error.
func QuoteID(id string) string {
	if len(id) > 80 {
		id = id[:80] + "..."
	}
	return strconv.Quote(id)
}

func itoa(i int) string { return strconv.Itoa(i) }
