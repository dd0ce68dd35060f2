package storage

import (
	"time"
)

// Status is the life-cycle state of a record: catalog items, FAQs and
// documents all have one. Inactive records are kept (Get, List and the
// chunk methods still see them) but never returned by searches. The zero
// value means active; stores store and return it as StatusActive.
type Status string

// Record states. The interchange format spells them in Portuguese ("ativo",
// "inativo"); ParseStatus accepts both spellings.
const (
	StatusActive   Status = "active"
	StatusInactive Status = "inactive"
)

// Active reports whether a record with status s is visible to searches:
// every status but StatusInactive, the zero value included.
func (s Status) Active() bool { return s != StatusInactive }

// valid reports whether s is StatusActive, StatusInactive or the zero
// value (active); stores reject records with any other status.
func (s Status) valid() bool { return s == "" || s == StatusActive || s == StatusInactive }

// ParseStatus maps "active"/"ativo" (and the empty string) to StatusActive and
// "inactive"/"inativo" to StatusInactive, ignoring case and surrounding space.
// Anything else is an error wrapping ErrInvalidRecord.
func ParseStatus(s string) (Status, error) {
	switch normalizeKey(s) {
	case "", "active", "ativo":
		return StatusActive, nil
	case "inactive", "inativo":
		return StatusInactive, nil
	}
	return "", &ValidationError{Field: "status", Reason: "want active|inactive (ativo|inativo), got " + quote(s), Err: ErrInvalidRecord}
}

// CatalogItem is one product or service of the catalog.
type CatalogItem struct {
	ID           string
	Name         string
	Description  string
	Category     string
	Manufacturer string
	Tags         []string
	// Price is nil when unknown.
	Price *float64
	// Status is StatusActive (or empty) or StatusInactive; see Active.
	Status   Status
	Metadata map[string]string
	// Files are the texts attached to the item (labels, leaflets, notes).
	// Their text is searchable like the item's own fields.
	Files []CatalogFile
	// CreatedAt and UpdatedAt are set by the store when zero.
	CreatedAt time.Time
	UpdatedAt time.Time
}

// CatalogFile is a text attached to a catalog item.
type CatalogFile struct {
	ItemID string
	Name   string
	Text   string
}

// FAQ is a question with its curated answer.
type FAQ struct {
	ID       string
	Question string
	Answer   string
	Category string
	Keywords []string
	// Priority is the FAQ's editorial priority (10 for a prominent one),
	// higher first. It is not a ranking signal: the stores and
	// rag.Searcher never read it (FAQ hits are ordered by fused score,
	// ties by ID), since no rule says how it should weigh against
	// relevance.
	// Only the rag chat Pipeline reads it, to order FAQ hits whose
	// evidence relevance is equal to two decimals in the context, where
	// the order is the one the answerer reads and the token budget drops
	// from the end. To favour an FAQ in search, give it Keywords (a
	// lexical field weighted 4, like catalog tags).
	Priority int
	// Status is StatusActive (or empty) or StatusInactive; see Active.
	Status    Status
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Document is a free-text document (manual, statute, article) split into
// chunks for retrieval.
type Document struct {
	ID     string
	Source string
	Title  string
	// Content is the full text of the document.
	Content string
	// ContentHash is the hex SHA-256 of Content; stores fill it when empty.
	ContentHash string
	// Status is StatusActive (or empty) or StatusInactive; see Active.
	Status    Status
	Metadata  map[string]string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// OwnerKind says which kind of record a chunk belongs to.
type OwnerKind string

// Owner kinds.
const (
	KindItem     OwnerKind = "item"
	KindFAQ      OwnerKind = "faq"
	KindDocument OwnerKind = "document"
)

// Valid reports whether k is one of the known owner kinds.
func (k OwnerKind) Valid() bool {
	return k == KindItem || k == KindFAQ || k == KindDocument
}

// ChunkSource says which part of its owner a chunk was cut from.
type ChunkSource string

// Chunk sources.
const (
	SourceItem     ChunkSource = "item"     // the catalog item's own fields
	SourceFile     ChunkSource = "file"     // a file attached to a catalog item
	SourceQuestion ChunkSource = "question" // a FAQ question
	SourceAnswer   ChunkSource = "answer"   // a FAQ answer (or question + answer)
	SourceDoc      ChunkSource = "doc"      // a part of a document
)

// OwnerRef names the record a chunk belongs to.
type OwnerRef struct {
	Kind OwnerKind
	ID   string
}

// Chunk is a piece of an owner's text with its embedding.
type Chunk struct {
	Owner  OwnerRef
	Source ChunkSource
	// Seq orders the chunks of one owner, from 0.
	Seq     int
	Content string
	// ContentHash is the hex SHA-256 of the text that was embedded; stores
	// fill it from Content when empty.
	ContentHash string
	// Embedding may be nil, in which case the chunk is kept but never
	// returned by vector search. Otherwise its length must equal the store's
	// dimensions and every element must be finite.
	Embedding []float32
	// Start is the byte offset of Content in the text it was cut from (the
	// document's Content, the attached file's Text, ...); it must not be
	// negative.
	Start int
	// HeadingPath is the path of headings above the chunk, outermost first
	// (for example the document's title, its chapter and its section);
	// nil when the chunk has none.
	HeadingPath []string
	// File is the name of the attached file the chunk was cut from, or
	// empty.
	File string
	// Metadata is free-form text the chunker or an extractor attaches;
	// stores keep it as given.
	Metadata map[string]string
}

// ChunkRef identifies a stored chunk without its text or embedding; it is
// what ingestion compares to skip unchanged content.
type ChunkRef struct {
	Owner       OwnerRef
	Source      ChunkSource
	Seq         int
	ContentHash string
	// HasEmbedding reports whether the stored chunk has a vector.
	HasEmbedding bool
}

// Counts are the number of rows a tenant holds.
type Counts struct {
	Items     int
	FAQs      int
	Documents int
	Chunks    int
	// Embedded counts chunks that have an embedding.
	Embedded int
}
