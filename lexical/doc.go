// Package lexical is the model-free half of hybrid search: accent-insensitive
// normalization, Portuguese-aware tokenization, synonym tables and the
// field-weighted lexicalScore of the reference agronomy store.
//
// It imports the standard library and golang.org/x/text only.
package lexical
