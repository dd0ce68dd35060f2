package ingest

import (
	"errors"
	"fmt"
)

// ErrEmbedderPanic is wrapped by the error of an Index call whose embedder
// panicked; the error is an *EmbedderPanicError.
var ErrEmbedderPanic = errors.New("ingest: embedder panicked")

// EmbedderPanicError reports an embedder that panicked while embedding a
// request of the Indexer. The Indexer recovers the panic in the goroutine
// that made the call and fails the group of owners the request was for,
// like an embedding error: nothing of that group is written.
type EmbedderPanicError struct {
	// Value is the value the embedder panicked with.
	Value any
	// Stack is the stack of the goroutine that panicked, as
	// runtime/debug.Stack formats it.
	Stack []byte
	// Texts is the number of texts of the request.
	Texts int
}

// Error gives the panic value (not the stack).
func (e *EmbedderPanicError) Error() string {
	return fmt.Sprintf("%v: %v", ErrEmbedderPanic, e.Value)
}

// Unwrap returns ErrEmbedderPanic and, when the embedder panicked with an
// error, that error.
func (e *EmbedderPanicError) Unwrap() []error {
	if err, ok := e.Value.(error); ok {
		return []error{ErrEmbedderPanic, err}
	}
	return []error{ErrEmbedderPanic}
}
