package lexical

import "errors"

// ErrInvalidSynonyms is wrapped by every error that reports a malformed
// synonym table: bad JSON, an unknown category, an empty term, or a variant
// claimed by two canonical terms of the same category.
var ErrInvalidSynonyms = errors.New("lexical: invalid synonym table")

// ErrInvalidOptions is wrapped by the errors of [ScorerOptions.Validate].
var ErrInvalidOptions = errors.New("lexical: invalid scorer options")
