// Package fieldname holds the names of the lexical fields of FAQs,
// documents and catalog items' attached files that the rag Searcher
// builds from records and package fields weighs (the catalog item's own
// fields are package lexical's).
package fieldname

// Field names beyond the product fields of package lexical.
const (
	Files    = "files"
	Question = "question"
	Answer   = "answer"
	Keywords = "keywords"
	Title    = "title"
	Content  = "content"
	Source   = "source"
)
