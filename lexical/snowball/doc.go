// Package snowball is the Snowball Portuguese stemmer of Lucene and bleve
// (github.com/blevesearch/snowballstem) fitted to the project's lexical
// search: [Stem] takes a token in lexical.Normalize form and returns a
// prefix of it, and [Filter] is the [lexical.TokenFilter] that applies it
// to query tokens.
//
// It conflates verbs with their nouns and adjectives ("declarar",
// "declaração" → "declar"), which questions phrased in other words need;
// package rag's FAQ and document scorers use it. Catalog search keeps the
// light lexical.Stem.
//
// The package is a leaf so that the computing core (lexical, vector)
// imports only the standard library and golang.org/x/text: it is the one
// place github.com/blevesearch/snowballstem (which has no dependencies of
// its own) is imported.
//
// # Errors
//
// Nothing in the package returns an error or panics: tokens it cannot stem
// (non-ASCII, digits, fewer than 4 letters) are returned unchanged.
//
// # Concurrency
//
// [Stem] and [Filter] are safe for concurrent use.
package snowball
