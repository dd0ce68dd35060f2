package postgres

import "github.com/hybridrag/hybridrag/storage"

// LexicalSQLForTest exposes the lexical query builder to tests.
func (s *Store) LexicalSQLForTest(terms []string, filters []storage.Filter, limit int) (string, []any) {
	sql, a, _ := s.lexicalSQL(storage.KindItem, "i.id", terms, filters, limit)
	return sql, a
}
