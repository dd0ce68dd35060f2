package ingest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag/chunk"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/rag/trace"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/vector"
)

// Indexer defaults. An embedding request carries at most 16 texts, so a
// failed request retries little work, and at most 200,000 estimated
// tokens, under OpenAI's 300,000 a request even when the estimate counts
// pt-BR 27% low; two requests in flight hide a provider's latency without
// tripping its rate limits. Writes go 64 owners to a transaction, one
// transaction at a time.
const (
	defaultEmbedBatchSize   = 16
	defaultEmbedBatchTokens = 200_000
	defaultEmbedConcurrency = 2
	defaultWriteBatchOwners = 64
	defaultWriteConcurrency = 1
)

// Progress reports indexing progress to IndexerOptions.Progress.
type Progress struct {
	// Kind is the kind of owner being indexed.
	Kind storage.OwnerKind
	// Done and Total count owners of the current call.
	Done, Total int
	// Embedded and Skipped count chunks so far.
	Embedded, Skipped int
}

// IndexerOptions configures an Indexer. The zero value gives the
// defaults.
type IndexerOptions struct {
	// BatchSize is the most texts per embedding request (default 16).
	BatchSize int
	// BatchTokens is the most estimated tokens (runes/4) per request
	// (default 200 000).
	BatchTokens int
	// Concurrency is the number of embedding requests in flight (default 2).
	Concurrency int
	// WriteBatch is the number of owners written per transaction
	// (default 64).
	WriteBatch int
	// WriteConcurrency is the number of write transactions in flight
	// (default 1). Even with one, the next group of owners is read and
	// embedded while the previous one is written. More writers help stores
	// whose writes are slow (pgvector's HNSW inserts), but groups may then
	// commit out of input order, so the CreatedAt of new records (which
	// breaks lexical ties) no longer follows the input order.
	WriteConcurrency int
	// FileChunker splits attached files and FAQ answers; nil means the
	// recursive splitter with 1000 runes / 200 overlap (smaller than the
	// common 500–800 tokens: chunk.RecursiveOptions says why).
	FileChunker *chunk.Recursive
	// DocumentChunker splits documents with sections; nil means the
	// structural splitter (500 tokens / 50 overlap / min 100). Documents
	// without sections use FileChunker.
	DocumentChunker *chunk.Structural
	// ReplaceDuplicates lets a document whose content equals a stored
	// document's replace it: the old one is deleted in the same transaction
	// as the new one is written. Otherwise the new one is skipped and
	// reported in Stats.Duplicates as a *load.DuplicateDocumentError.
	ReplaceDuplicates bool
	// AnalyzeAfter is the least number of owners an Index call must write
	// for the Indexer to call the store's Analyze (see Analyzer) once it
	// is done, so that searches right after a bulk load get plans made
	// with statistics (default 200; negative: never).
	AnalyzeAfter int
	// Progress, when set, is called after each group of WriteBatch owners
	// (written or found unchanged), from the goroutine running the Index
	// call, with Done growing to Total for each kind. It must not block for
	// long.
	Progress func(Progress)
	// Prune makes Reindex delete, once every kind is indexed, the records
	// of the tenant absent from its Sources, with their chunks, for each
	// kind the Sources hold at least one record of (a kind given no
	// records is left alone, so that a missing or empty file cannot empty
	// a catalog; remove such records with Delete). A stored document that
	// a source document duplicates (Stats.Duplicates) is kept. Off by
	// default; IndexItems, IndexFAQs and IndexDocuments never prune.
	Prune bool
	// Extractors derive document and chunk metadata from each document
	// indexed, in order (see Extractor; package rag/ingest/legal is one for
	// pt-BR statutes). Those that are also Sectioners give documents their
	// sections before chunking (legal: one per article of a statute). They do not run for items and FAQs. Metadata they
	// write is part of what is compared with the stored copy: a changed
	// extractor rewrites the records and chunks whose metadata changes,
	// without re-embedding unchanged text.
	Extractors []Extractor
	// Tracer, when set, traces each group of WriteBatch owners (package
	// rag/trace), and each embedding request when it also implements
	// trace.EmbedTracer. nil traces nothing.
	Tracer trace.BatchTracer
}

// Analyzer is implemented by stores whose query planner keeps statistics
// that bulk writes make stale (storage/postgres.Store runs ANALYZE). The
// Indexer calls Analyze for a kind after writing at least
// IndexerOptions.AnalyzeAfter of its owners in one call.
type Analyzer interface {
	Analyze(ctx context.Context, kind storage.OwnerKind) error
}

// defaultAnalyzeAfter is the default IndexerOptions.AnalyzeAfter: smaller
// runs leave statistics to the database's own maintenance (PostgreSQL's
// autovacuum analyzes a table after 10 % of its rows changed).
const defaultAnalyzeAfter = 200

// Stats summarize an indexing run.
type Stats struct {
	Items, FAQs, Documents int
	// Chunks is the number of chunks of the owners seen (blank chunks are
	// dropped and not counted).
	Chunks int
	// Embedded is the number of texts the embedder returned valid vectors
	// for (a request with a bad vector, an error or a panic counts none).
	// Equal texts among the chunks being written are embedded once.
	Embedded int
	// Skipped is the number of chunks not sent to the embedder: kept
	// unchanged, given the stored vector of a chunk with the same text, or
	// sharing the vector of an equal text embedded in the same batch. After
	// a successful run with an embedder, Embedded + Skipped == Chunks.
	Skipped int
	// Unchanged is the number of owners left untouched.
	Unchanged int
	// Written is the number of owners written (record, chunks or both).
	Written int
	// Failed is the number of owners not written because of errors.
	Failed int
	// Pruned is the number of records Reindex deleted, with their chunks,
	// because they were absent from its Sources (IndexerOptions.Prune).
	Pruned int
	// Duplicates are documents rejected as duplicates.
	Duplicates []*load.DuplicateDocumentError
	// Duration is the wall time of the call that returned the Stats.
	Duration time.Duration
}

func (s *Stats) add(o Stats) {
	s.Items += o.Items
	s.FAQs += o.FAQs
	s.Documents += o.Documents
	s.Chunks += o.Chunks
	s.Embedded += o.Embedded
	s.Skipped += o.Skipped
	s.Unchanged += o.Unchanged
	s.Written += o.Written
	s.Failed += o.Failed
	s.Pruned += o.Pruned
	s.Duplicates = append(s.Duplicates, o.Duplicates...)
}

// String is the summary line of examples/ingest; pruned=N is included
// when records were pruned.
func (s Stats) String() string {
	pruned := ""
	if s.Pruned > 0 {
		pruned = fmt.Sprintf(" pruned=%d", s.Pruned)
	}
	return fmt.Sprintf("items=%d faqs=%d documents=%d chunks=%d embedded=%d skipped=%d failed=%d%s duration=%s",
		s.Items, s.FAQs, s.Documents, s.Chunks, s.Embedded, s.Skipped, s.Failed, pruned, s.Duration.Round(time.Millisecond))
}

// Indexer turns records into chunks, embeds what changed and writes owners
// with their chunks atomically. It is safe for concurrent use, but two
// concurrent runs over the same owners race like any two writers.
type Indexer struct {
	store    storage.Backend
	embedder vector.Embedder
	opts     IndexerOptions
	// embedTracer is opts.Tracer as an EmbedTracer, or nil.
	embedTracer trace.EmbedTracer
}

// NewIndexer returns an Indexer writing to store. embedder may be nil: the
// chunks are then stored without embeddings (lexical search only). The
// Indexer checks what the embedder returns (vector.Checked: one finite,
// non-zero vector of the right size per text, normalized to unit length)
// and does not retry: the provider client owns retries (llm/openai's
// retries 429s and 5xx itself); wrap another embedder with
// vector.WithRetry to retry the errors it marks transient. It does no I/O.
func NewIndexer(store storage.Backend, embedder vector.Embedder, opts IndexerOptions) *Indexer {
	o := opts
	o.BatchSize = cmp.Or(max(o.BatchSize, 0), defaultEmbedBatchSize)
	o.BatchTokens = cmp.Or(max(o.BatchTokens, 0), defaultEmbedBatchTokens)
	o.Concurrency = cmp.Or(max(o.Concurrency, 0), defaultEmbedConcurrency)
	o.WriteBatch = cmp.Or(max(o.WriteBatch, 0), defaultWriteBatchOwners)
	o.WriteConcurrency = cmp.Or(max(o.WriteConcurrency, 0), defaultWriteConcurrency)
	if o.AnalyzeAfter == 0 {
		o.AnalyzeAfter = defaultAnalyzeAfter
	}
	o.Extractors = slices.Clone(o.Extractors)
	if o.FileChunker == nil {
		o.FileChunker, _ = chunk.NewRecursive(chunk.RecursiveOptions{})
	}
	if o.DocumentChunker == nil {
		o.DocumentChunker, _ = chunk.NewStructural(chunk.StructuralOptions{})
	}
	ix := &Indexer{store: store, opts: o}
	ix.embedTracer, _ = o.Tracer.(trace.EmbedTracer)
	if embedder != nil {
		ix.embedder = vector.Checked(embedder)
	}
	return ix
}

// itemText is the text of an item's own chunk: name, category,
// manufacturer, tags and description, one per line, empty ones left out.
func itemText(it *storage.CatalogItem) string {
	parts := []string{it.Name, it.Category, it.Manufacturer, strings.Join(it.Tags, ", "), it.Description}
	return joinNonEmpty(parts, "\n")
}

func joinNonEmpty(parts []string, sep string) string {
	out := parts[:0:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// defaultSplitter is the default recursive splitter (1000 runes, 200
// overlap), for callers that pass none.
var defaultSplitter = func() *chunk.Recursive {
	r, _ := chunk.NewRecursive(chunk.RecursiveOptions{})
	return r
}()

// itemChunks returns the chunks of an item, without embeddings: one item
// chunk, then each file's text split by splitter (nil: the default
// recursive splitter, 1000 runes with 200 of overlap).
func itemChunks(it *storage.CatalogItem, splitter *chunk.Recursive) []storage.Chunk {
	if splitter == nil {
		splitter = defaultSplitter
	}
	owner := storage.OwnerRef{Kind: storage.KindItem, ID: it.ID}
	var out []storage.Chunk
	if t := itemText(it); t != "" {
		out = append(out, storage.Chunk{Owner: owner, Source: storage.SourceItem, Content: t})
	}
	seq := 0
	for _, f := range it.Files {
		for _, c := range splitter.Split(f.Text) {
			out = append(out, storage.Chunk{Owner: owner, Source: storage.SourceFile, Seq: seq, Content: c.Text, Start: c.Start, File: f.Name})
			seq++
		}
	}
	return out
}

// faqChunks returns the chunks of a FAQ: the question alone (paraphrased
// questions match it best), then question and answer split by splitter
// (nil: the default recursive splitter).
func faqChunks(f *storage.FAQ, splitter *chunk.Recursive) []storage.Chunk {
	if splitter == nil {
		splitter = defaultSplitter
	}
	owner := storage.OwnerRef{Kind: storage.KindFAQ, ID: f.ID}
	var out []storage.Chunk
	if q := strings.TrimSpace(f.Question); q != "" {
		out = append(out, storage.Chunk{Owner: owner, Source: storage.SourceQuestion, Content: q})
	}
	for i, c := range splitter.Split(joinNonEmpty([]string{f.Question, f.Answer}, "\n")) {
		out = append(out, storage.Chunk{Owner: owner, Source: storage.SourceAnswer, Seq: i, Content: c.Text})
	}
	return out
}

// documentChunks returns the chunks of a document: the structural splitter
// when it has sections, the recursive one otherwise. Each chunk holds its
// heading path (the title first) for citations.
func documentChunks(d *load.ParsedDocument, structural *chunk.Structural, recursive *chunk.Recursive) ([]storage.Chunk, error) {
	owner := storage.OwnerRef{Kind: storage.KindDocument, ID: d.ID}
	var parts []chunk.Chunk
	if len(d.Sections) > 0 {
		var err error
		if parts, err = structural.Split(d.Content, d.Sections); err != nil {
			return nil, fmt.Errorf("rag: chunk document %s: %w", storage.QuoteID(d.ID), err)
		}
	} else {
		parts = recursive.Split(d.Content)
	}
	out := make([]storage.Chunk, 0, len(parts))
	for i, c := range parts {
		path := c.HeadingPath
		if len(path) == 0 && d.Title != "" {
			path = []string{d.Title}
		} else if len(path) > 0 && d.Title != "" && path[0] != d.Title {
			path = append([]string{d.Title}, path...)
		}
		out = append(out, storage.Chunk{Owner: owner, Source: storage.SourceDoc, Seq: i, Content: c.Text, Start: c.Start, HeadingPath: path})
	}
	return out, nil
}

// recordKind describes one kind of storage record to the Indexer: where
// the store keeps it, its ID, the form compared with the stored copy and
// its place in a batch. itemKind, faqKind and docKind are the three.
type recordKind[T any] struct {
	kind    storage.OwnerKind
	records func(storage.Store) storage.RecordStore[T]
	id      func(*T) string
	canon   func(*T) any
	put     func(*storage.Batch, []T)
}

var (
	itemKind = &recordKind[storage.CatalogItem]{
		kind:    storage.KindItem,
		records: func(s storage.Store) storage.RecordStore[storage.CatalogItem] { return s.Items() },
		id:      func(it *storage.CatalogItem) string { return it.ID },
		canon:   canonicalItem,
		put:     func(b *storage.Batch, recs []storage.CatalogItem) { b.Items = append(b.Items, recs...) },
	}
	faqKind = &recordKind[storage.FAQ]{
		kind:    storage.KindFAQ,
		records: func(s storage.Store) storage.RecordStore[storage.FAQ] { return s.FAQs() },
		id:      func(f *storage.FAQ) string { return f.ID },
		canon:   canonicalFAQ,
		put:     func(b *storage.Batch, recs []storage.FAQ) { b.FAQs = append(b.FAQs, recs...) },
	}
	docKind = &recordKind[storage.Document]{
		kind:    storage.KindDocument,
		records: func(s storage.Store) storage.RecordStore[storage.Document] { return s.Documents() },
		id:      func(d *storage.Document) string { return d.ID },
		canon:   canonicalDocument,
		put:     func(b *storage.Batch, recs []storage.Document) { b.Documents = append(b.Documents, recs...) },
	}
)

// opsFor returns the indexOps of records of kind k, cut into chunks by
// chunks.
func opsFor[T any](ix *Indexer, k *recordKind[T], chunks func(context.Context, *T) ([]storage.Chunk, error)) indexOps[T] {
	return indexOps[T]{kind: k.kind, id: k.id, chunks: chunks, get: k.records(ix.store).GetMany, canon: k.canon, put: k.put}
}

// listIDs pages through the IDs of every stored record of kind k.
func (k *recordKind[T]) listIDs(ctx context.Context, store storage.Store, page storage.Page) ([]string, error) {
	recs, err := k.records(store).List(ctx, page)
	if err != nil {
		return nil, err
	}
	return idsOf(recs, k.id), nil
}

// indexOps is what the generic indexing loop needs to know about one kind
// of record.
type indexOps[T any] struct {
	kind storage.OwnerKind
	id   func(*T) string
	// chunks cuts a record into chunks (without embeddings); it may also
	// fill the record's and the chunks' metadata (extractors).
	chunks func(context.Context, *T) ([]storage.Chunk, error)
	// get reads the stored records among ids.
	get func(context.Context, []string) ([]T, error)
	// canon is the form compared with the stored record.
	canon func(*T) any
	// put adds records to a batch.
	put func(*storage.Batch, []T)
	// replaces, when set, names owners deleted in the same transaction as
	// the record is written (duplicate documents it replaces).
	replaces func(*T) []storage.OwnerRef
}

// pending is one owner on its way to the store.
type pending struct {
	owner   storage.OwnerRef
	chunks  []storage.Chunk
	refs    []storage.ChunkRef // the stored chunks
	changed bool               // the record differs from the stored one
	rewrite bool               // the chunks differ from the stored ones
}

// IndexItems indexes catalog items: unchanged items are skipped without
// embedding or writing; changed ones re-embed only the chunks whose text
// changed. Owners are written WriteBatch at a time, each batch in one
// transaction; on error the batches already written stay, the failing one
// leaves the store as it was, and Stats count what happened.
func (ix *Indexer) IndexItems(ctx context.Context, items []storage.CatalogItem) (Stats, error) {
	start := time.Now()
	st := Stats{Items: len(items)}
	err := runBatches(ctx, ix, opsFor(ix, itemKind, func(_ context.Context, it *storage.CatalogItem) ([]storage.Chunk, error) {
		return itemChunks(it, ix.opts.FileChunker), nil
	}), items, &st)
	st.Duration = time.Since(start)
	return st, err
}

// IndexFAQs indexes FAQs like IndexItems.
func (ix *Indexer) IndexFAQs(ctx context.Context, faqs []storage.FAQ) (Stats, error) {
	start := time.Now()
	st := Stats{FAQs: len(faqs)}
	err := runBatches(ctx, ix, opsFor(ix, faqKind, func(_ context.Context, f *storage.FAQ) ([]storage.Chunk, error) {
		return faqChunks(f, ix.opts.FileChunker), nil
	}), faqs, &st)
	st.Duration = time.Since(start)
	return st, err
}

// IndexDocuments indexes documents like IndexItems. A document whose
// content hash equals that of another document (stored, or earlier in docs)
// is not indexed and is listed in Stats.Duplicates as a
// *load.DuplicateDocumentError naming the existing one. With
// ReplaceDuplicates, a stored duplicate is deleted instead, in the same
// transaction as the new document is written; duplicates within docs are
// always reported (the first one wins).
func (ix *Indexer) IndexDocuments(ctx context.Context, docs []load.ParsedDocument) (Stats, error) {
	start := time.Now()
	st := Stats{Documents: len(docs)}
	err := ix.indexDocuments(ctx, docs, &st)
	st.Duration = time.Since(start)
	return st, err
}

// indexDocuments is IndexDocuments without the timing; it fills st.
func (ix *Indexer) indexDocuments(ctx context.Context, docs []load.ParsedDocument, st *Stats) error {
	if err := ix.checkDims(); err != nil {
		return err
	}
	// The hash each incoming ID will have once written: a stored document
	// about to change is no duplicate of its old content.
	incoming := make(map[string]string, len(docs))
	keep := make([]load.ParsedDocument, 0, len(docs))
	for i := range docs {
		d := docs[i]
		if d.ContentHash == "" {
			d.ContentHash = storage.ContentHash(d.Content)
		}
		incoming[d.ID] = d.ContentHash
		keep = append(keep, d)
	}
	seen := make(map[string]*load.ParsedDocument, len(keep)) // first document of each hash in this call
	replaces := make(map[string][]storage.OwnerRef)
	out := keep[:0]
	for i := range keep {
		d := keep[i]
		if first, ok := seen[d.ContentHash]; ok && first.ID != d.ID {
			st.Duplicates = append(st.Duplicates, &load.DuplicateDocumentError{ExistingID: first.ID, ExistingTitle: first.Title, NewID: d.ID, Path: d.File, Hash: d.ContentHash})
			continue
		}
		old, err := ix.store.Documents().ByHash(ctx, d.ContentHash)
		switch {
		case errors.Is(err, storage.ErrNotFound):
		case err != nil:
			return fmt.Errorf("rag: duplicate check for document %s: %w", storage.QuoteID(d.ID), err)
		case old.ID == d.ID:
		case incoming[old.ID] != "" && incoming[old.ID] != d.ContentHash:
			// old is being rewritten with other content by this call.
		case ix.opts.ReplaceDuplicates:
			replaces[d.ID] = append(replaces[d.ID], storage.OwnerRef{Kind: storage.KindDocument, ID: old.ID})
		default:
			st.Duplicates = append(st.Duplicates, &load.DuplicateDocumentError{ExistingID: old.ID, ExistingTitle: old.Title, NewID: d.ID, Path: d.File, Hash: d.ContentHash})
			continue
		}
		out = append(out, d)
		seen[d.ContentHash] = &out[len(out)-1]
	}
	// Documents arrive parsed (with sections), as load.ParsedDocument:
	// the ops wrap docKind's.
	return runBatches(ctx, ix, indexOps[load.ParsedDocument]{
		kind: docKind.kind,
		id:   func(d *load.ParsedDocument) string { return d.ID },
		chunks: func(ctx context.Context, d *load.ParsedDocument) ([]storage.Chunk, error) {
			// Extractors that are Sectioners give sections first (the
			// articles of a statute), on this copy of the document.
			if err := sectionDocument(ctx, ix.opts.Extractors, d); err != nil {
				return nil, err
			}
			chunks, err := documentChunks(d, ix.opts.DocumentChunker, ix.opts.FileChunker)
			if err != nil {
				return nil, err
			}
			// Blank chunks are dropped before the extractors see them.
			chunks = slices.DeleteFunc(chunks, func(c storage.Chunk) bool { return strings.TrimSpace(c.Content) == "" })
			if err := extractDocument(ctx, ix.opts.Extractors, &d.Document, chunks); err != nil {
				return nil, err
			}
			return chunks, nil
		},
		get: func(ctx context.Context, ids []string) ([]load.ParsedDocument, error) {
			got, err := docKind.records(ix.store).GetMany(ctx, ids)
			out := make([]load.ParsedDocument, len(got))
			for i := range got {
				out[i] = load.ParsedDocument{Document: got[i]}
			}
			return out, err
		},
		canon: func(d *load.ParsedDocument) any { return docKind.canon(&d.Document) },
		put: func(b *storage.Batch, recs []load.ParsedDocument) {
			for i := range recs {
				docKind.put(b, []storage.Document{recs[i].Document})
			}
		},
		replaces: func(d *load.ParsedDocument) []storage.OwnerRef { return replaces[d.ID] },
	}, out, st)
}

// checkDims reports an embedder whose vectors the store cannot hold, before
// anything is embedded.
func (ix *Indexer) checkDims() error {
	if ix.embedder == nil {
		return nil
	}
	if e, s := ix.embedder.Dimensions(), ix.store.Dimensions(); e != s {
		return fmt.Errorf("rag: embedder makes %d-dimensional vectors, the store holds %d: %w", e, s, storage.ErrDimensionMismatch)
	}
	return nil
}

// Delete removes owners and their chunks in one transaction.
func (ix *Indexer) Delete(ctx context.Context, owners ...storage.OwnerRef) error {
	if len(owners) == 0 {
		return nil
	}
	return ix.store.Apply(ctx, storage.Batch{Deletes: owners})
}

// Sources are the records of a Reindex run.
type Sources struct {
	Items     []storage.CatalogItem
	FAQs      []storage.FAQ
	Documents []load.ParsedDocument
}

// Reindex indexes items, FAQs and documents in turn and returns the
// combined stats; it stops at the first error. With IndexerOptions.Prune,
// it then deletes the records absent from src (see Prune), only when every
// kind was indexed without error.
func (ix *Indexer) Reindex(ctx context.Context, src Sources) (Stats, error) {
	start := time.Now()
	var total Stats
	s, err := ix.IndexItems(ctx, src.Items)
	total.add(s)
	if err == nil {
		s, err = ix.IndexFAQs(ctx, src.FAQs)
		total.add(s)
	}
	if err == nil {
		s, err = ix.IndexDocuments(ctx, src.Documents)
		total.add(s)
	}
	if err == nil && ix.opts.Prune {
		err = ix.prune(ctx, src, &total)
	}
	total.Duration = time.Since(start)
	return total, err
}

// prune deletes, for each kind src has records of, the stored records
// absent from src, WriteBatch owners per transaction.
func (ix *Indexer) prune(ctx context.Context, src Sources, st *Stats) error {
	keepDocs := make([]string, 0, len(src.Documents)+len(st.Duplicates))
	for i := range src.Documents {
		keepDocs = append(keepDocs, src.Documents[i].ID)
	}
	for _, d := range st.Duplicates {
		keepDocs = append(keepDocs, d.ExistingID)
	}
	kinds := []struct {
		kind storage.OwnerKind
		keep []string
		list func(context.Context, storage.Store, storage.Page) ([]string, error)
	}{
		{itemKind.kind, idsOf(src.Items, itemKind.id), itemKind.listIDs},
		{faqKind.kind, idsOf(src.FAQs, faqKind.id), faqKind.listIDs},
		{docKind.kind, keepDocs, docKind.listIDs},
	}
	for _, k := range kinds {
		if len(k.keep) == 0 || (k.kind == storage.KindDocument && len(src.Documents) == 0) {
			continue
		}
		keep := make(map[string]bool, len(k.keep))
		for _, id := range k.keep {
			keep[id] = true
		}
		var gone []storage.OwnerRef
		page := storage.Page{Limit: storage.MaxResultLimit}
		for {
			ids, err := k.list(ctx, ix.store, page)
			if err != nil {
				return fmt.Errorf("ingest: list %ss to prune: %w", k.kind, err)
			}
			for _, id := range ids {
				if !keep[id] {
					gone = append(gone, storage.OwnerRef{Kind: k.kind, ID: id})
				}
			}
			if len(ids) < page.Limit {
				break
			}
			page.After = ids[len(ids)-1]
		}
		for lo := 0; lo < len(gone); lo += ix.opts.WriteBatch {
			group := gone[lo:min(lo+ix.opts.WriteBatch, len(gone))]
			if err := ix.store.Apply(ctx, storage.Batch{Deletes: group}); err != nil {
				return fmt.Errorf("ingest: prune %d %ss: %w", len(group), k.kind, err)
			}
			st.Pruned += len(group)
		}
	}
	return nil
}

func idsOf[T any](recs []T, id func(*T) string) []string {
	out := make([]string, len(recs))
	for i := range recs {
		out[i] = id(&recs[i])
	}
	return out
}

func runBatches[T any](ctx context.Context, ix *Indexer, ops indexOps[T], recs []T, st *Stats) error {
	if err := ix.checkDims(); err != nil {
		st.Failed += len(recs)
		return err
	}
	// Dedupe by ID, keeping the last record (a later line wins).
	last := make(map[string]int, len(recs))
	for i := range recs {
		last[ops.id(&recs[i])] = i
	}
	uniq := make([]T, 0, len(last))
	for i := range recs {
		if last[ops.id(&recs[i])] == i {
			uniq = append(uniq, recs[i])
		}
	}
	// Groups are prepared (read, compared, embedded) one after the other
	// while up to WriteConcurrency earlier groups are being written.
	type written struct {
		owners, written int
		err             error
	}
	var (
		results  = make(chan written, ix.opts.WriteConcurrency)
		inflight int
		done     int
		wrote    int // owners written by this call
		firstErr error
	)
	finish := func(w written) {
		if w.err != nil {
			if firstErr == nil {
				firstErr = w.err
			}
			return
		}
		done += w.owners
		wrote += w.written
		st.Written += w.written
		if ix.opts.Progress != nil {
			ix.opts.Progress(Progress{Kind: ops.kind, Done: done, Total: len(uniq), Embedded: st.Embedded, Skipped: st.Skipped})
		}
	}
	for lo := 0; lo < len(uniq) && firstErr == nil; lo += ix.opts.WriteBatch {
		if err := ctx.Err(); err != nil {
			firstErr = err
			break
		}
		group := uniq[lo:min(lo+ix.opts.WriteBatch, len(uniq))]
		gt := ix.startGroup(ctx, ops.kind, len(group), st)
		batch, n, err := prepareGroup(gt.ctx, ix, ops, group, st)
		gt.prepared(st)
		if err != nil {
			gt.end(0, err)
			firstErr = err
			break
		}
		if batch.Empty() {
			gt.end(0, nil)
			finish(written{owners: len(group)})
			continue
		}
		for inflight >= ix.opts.WriteConcurrency {
			finish(<-results)
			inflight--
		}
		if firstErr != nil {
			gt.end(0, fmt.Errorf("rag: %d %ss not written: an earlier group failed: %w", n, ops.kind, firstErr))
			break
		}
		inflight++
		go func() {
			err := ix.store.Apply(gt.ctx, batch)
			if err != nil {
				err = fmt.Errorf("rag: write %ss: %w", ops.kind, err)
				n = 0
			}
			gt.end(n, err)
			results <- written{owners: len(group), written: n, err: err}
		}()
	}
	for ; inflight > 0; inflight-- {
		finish(<-results)
	}
	st.Failed += len(uniq) - done
	if firstErr != nil {
		return firstErr
	}
	if a, ok := ix.store.(Analyzer); ok && ix.opts.AnalyzeAfter > 0 && wrote >= ix.opts.AnalyzeAfter {
		if err := a.Analyze(ctx, ops.kind); err != nil {
			return fmt.Errorf("rag: %d %ss written, then analyze failed: %w", wrote, ops.kind, err)
		}
	}
	return nil
}

// prepareGroup prepares the write of one group of owners: it compares each
// record and its chunks with the stored ones and embeds the chunk texts that
// have no stored vector. It returns the batch to apply (empty when nothing
// changed) and the number of owners it writes.
func prepareGroup[T any](ctx context.Context, ix *Indexer, ops indexOps[T], group []T, st *Stats) (storage.Batch, int, error) {
	kind := ops.kind
	ids := make([]string, len(group))
	for i := range group {
		ids[i] = ops.id(&group[i])
	}
	stored, err := ops.get(ctx, ids)
	if err != nil {
		return storage.Batch{}, 0, fmt.Errorf("rag: read stored %ss: %w", kind, err)
	}
	storedCanon := make(map[string][]byte, len(stored))
	for i := range stored {
		b, err := json.Marshal(ops.canon(&stored[i]))
		if err != nil {
			return storage.Batch{}, 0, fmt.Errorf("rag: compare %s %s: %w", kind, storage.QuoteID(ops.id(&stored[i])), err)
		}
		storedCanon[ops.id(&stored[i])] = b
	}
	refs, err := ix.store.ChunkRefs(ctx, kind, ids)
	if err != nil {
		return storage.Batch{}, 0, fmt.Errorf("rag: read chunk hashes: %w", err)
	}
	refsByOwner := make(map[string][]storage.ChunkRef, len(ids))
	for _, r := range refs {
		refsByOwner[r.Owner.ID] = append(refsByOwner[r.Owner.ID], r)
	}

	var (
		batch   storage.Batch
		changed []T
		work    []*pending
	)
	for i := range group {
		rec := &group[i]
		owner := storage.OwnerRef{Kind: kind, ID: ops.id(rec)}
		chunks, err := ops.chunks(ctx, rec)
		if err != nil {
			return storage.Batch{}, 0, err
		}
		// Blank chunks are never embedded nor stored.
		chunks = slices.DeleteFunc(chunks, func(c storage.Chunk) bool { return strings.TrimSpace(c.Content) == "" })
		for j := range chunks {
			chunks[j].Owner = owner
			chunks[j].ContentHash = storage.ContentHash(chunks[j].Content)
		}
		st.Chunks += len(chunks)
		b, err := json.Marshal(ops.canon(rec))
		if err != nil {
			return storage.Batch{}, 0, fmt.Errorf("rag: compare %s %s: %w", kind, storage.QuoteID(owner.ID), err)
		}
		var replaced []storage.OwnerRef
		if ops.replaces != nil {
			replaced = ops.replaces(rec)
		}
		p := &pending{owner: owner, chunks: chunks, refs: refsByOwner[owner.ID]}
		p.changed = !bytes.Equal(b, storedCanon[owner.ID]) || len(replaced) > 0
		p.rewrite = !sameChunks(chunks, p.refs, ix.embedder != nil)
		if !p.changed && !p.rewrite {
			st.Unchanged++
			st.Skipped += len(chunks)
			continue
		}
		if p.changed {
			changed = append(changed, *rec)
			batch.Deletes = append(batch.Deletes, replaced...)
		}
		work = append(work, p)
	}
	if len(work) == 0 {
		return batch, 0, nil
	}
	if err := ix.prepareChunks(ctx, work, st); err != nil {
		return batch, 0, err
	}
	ops.put(&batch, changed)
	for _, p := range work {
		if p.rewrite {
			batch.Chunks = append(batch.Chunks, storage.OwnerChunks{Owner: p.owner, Chunks: p.chunks})
		}
	}
	return batch, len(work), nil
}

// sameChunks reports whether the stored chunks are exactly the wanted
// ones (same sources, sequence numbers and hashes, embedded when an
// embedder is configured).
func sameChunks(want []storage.Chunk, have []storage.ChunkRef, needEmbedding bool) bool {
	if len(want) != len(have) {
		return false
	}
	type key struct {
		src  storage.ChunkSource
		seq  int
		hash string
	}
	set := make(map[key]bool, len(have))
	for _, r := range have {
		if needEmbedding && !r.HasEmbedding {
			return false
		}
		set[key{r.Source, r.Seq, r.ContentHash}] = true
	}
	for _, c := range want {
		if !set[key{c.Source, c.Seq, c.ContentHash}] {
			return false
		}
	}
	return true
}

// sameMetadata reports whether every wanted chunk has the metadata (free
// and typed: start, file, heading path) of the stored chunk with its
// source and Seq.
func sameMetadata(want, have []storage.Chunk) bool {
	if len(want) != len(have) {
		return false
	}
	type key struct {
		src storage.ChunkSource
		seq int
	}
	byKey := make(map[key]*storage.Chunk, len(have))
	for i := range have {
		byKey[key{have[i].Source, have[i].Seq}] = &have[i]
	}
	for _, c := range want {
		h, ok := byKey[key{c.Source, c.Seq}]
		if !ok || !maps.Equal(h.Metadata, c.Metadata) || h.Start != c.Start || h.File != c.File || !slices.Equal(h.HeadingPath, c.HeadingPath) {
			return false
		}
	}
	return true
}

// reusable reports whether some wanted chunk's text has a stored vector.
func reusable(want []storage.Chunk, have []storage.ChunkRef) bool {
	hashes := make(map[string]bool, len(have))
	for _, r := range have {
		if r.HasEmbedding {
			hashes[r.ContentHash] = true
		}
	}
	for _, c := range want {
		if hashes[c.ContentHash] {
			return true
		}
	}
	return false
}

// prepareChunks decides which owners need their chunks rewritten and fills
// the embeddings of those chunks: reused from the owner's stored chunks
// with the same hash, shared between chunks of equal text, embedded for
// the rest. Stored chunks are read only for owners that can reuse a vector
// or whose record changed with identical chunk texts (their metadata, such
// as a heading path or file name, may still differ).
func (ix *Indexer) prepareChunks(ctx context.Context, work []*pending, st *Stats) error {
	type ref struct {
		p *pending
		i int
	}
	var (
		todo   []string       // distinct texts to embed
		users  [][]ref        // chunks taking each todo vector
		todoIx map[string]int // content hash -> index in todo
	)
	for _, p := range work {
		var old []storage.Chunk
		needOld := (p.changed && !p.rewrite) || (p.rewrite && ix.embedder != nil && reusable(p.chunks, p.refs))
		if needOld {
			var err error
			old, err = ix.store.Chunks(ctx, p.owner)
			if err != nil && !errors.Is(err, storage.ErrNotFound) {
				return fmt.Errorf("rag: read stored chunks of %s %s: %w", p.owner.Kind, storage.QuoteID(p.owner.ID), err)
			}
		}
		if !p.rewrite {
			p.rewrite = !sameMetadata(p.chunks, old)
			if !p.rewrite {
				st.Skipped += len(p.chunks)
				continue
			}
		}
		if ix.embedder == nil {
			continue
		}
		byHash := make(map[string][]float32, len(old))
		for _, c := range old {
			if len(c.Embedding) == ix.embedder.Dimensions() {
				byHash[c.ContentHash] = c.Embedding
			}
		}
		for i := range p.chunks {
			c := &p.chunks[i]
			if v, ok := byHash[c.ContentHash]; ok {
				c.Embedding = v
				st.Skipped++
				continue
			}
			if todoIx == nil {
				todoIx = make(map[string]int)
			}
			if k, ok := todoIx[c.ContentHash]; ok {
				users[k] = append(users[k], ref{p, i})
				st.Skipped++
				continue
			}
			todoIx[c.ContentHash] = len(todo)
			todo = append(todo, c.Content)
			users = append(users, []ref{{p, i}})
		}
	}
	if len(todo) == 0 {
		return nil
	}
	vecs, err := ix.embedAll(ctx, work[0].owner.Kind, todo, st)
	if err != nil {
		return err
	}
	for k, us := range users {
		for _, u := range us {
			u.p.chunks[u.i].Embedding = vecs[k]
		}
	}
	return nil
}

// embedAll embeds texts in requests of at most BatchSize texts and
// BatchTokens estimated tokens, Concurrency at a time, and returns the
// vectors in order. The first failure cancels the other requests.
func (ix *Indexer) embedAll(ctx context.Context, kind storage.OwnerKind, texts []string, st *Stats) ([][]float32, error) {
	type span struct{ lo, hi int }
	var spans []span
	lo, tokens := 0, 0
	for i, t := range texts {
		n := llm.EstimateTokens(t)
		if i > lo && (i-lo == ix.opts.BatchSize || tokens+n > ix.opts.BatchTokens) {
			spans = append(spans, span{lo, i})
			lo, tokens = i, 0
		}
		tokens += n
	}
	spans = append(spans, span{lo, len(texts)})

	vecs := make([][]float32, len(texts))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, ix.opts.Concurrency)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		embedded int
	)
	for _, s := range spans {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			err := ix.embedBatch(ctx, kind, texts[s.lo:s.hi], vecs[s.lo:s.hi])
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
					cancel()
				}
				return
			}
			embedded += s.hi - s.lo
		})
	}
	wg.Wait()
	st.Embedded += embedded
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return vecs, nil
}

// embedBatch embeds one request into out. The embedder is checked
// (vector.Checked): a wrong number of vectors, an empty, zero, non-finite
// or wrongly sized vector fails the batch with a typed error naming the
// text, and every vector is stored at unit length.
//
// The call runs in a goroutine of its own, so that neither a panic (an
// *EmbedderPanicError) nor an embedder ignoring its context can take the
// Indexer with it: embedBatch returns when ctx is done whether or not the
// call has. An abandoned call finishes in the background when the
// embedder returns (its result is dropped; it never touches out), and its
// goroutine then exits; one that never returns keeps its goroutine.
func (ix *Indexer) embedBatch(ctx context.Context, kind storage.OwnerKind, texts []string, out [][]float32) (err error) {
	if et := ix.embedTracer; et != nil {
		ctx = ix.startEmbed(ctx, et, kind, texts)
		defer func() {
			d := trace.EmbedEndData{Err: err}
			if err == nil {
				d.Vectors = len(texts)
			}
			et.TraceEmbedEnd(ctx, d)
		}()
	}
	type result struct {
		vecs [][]float32
		err  error
	}
	// Buffered: the goroutine can always deliver and exit, even when
	// nobody is waiting any more.
	ch := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- result{err: &EmbedderPanicError{Value: r, Stack: debug.Stack(), Texts: len(texts)}}
			}
		}()
		vecs, err := ix.embedder.Embed(ctx, texts)
		ch <- result{vecs, err}
	}()
	var r result
	select {
	case r = <-ch:
	case <-ctx.Done():
		select {
		case r = <-ch: // finished meanwhile: keep its answer
		default:
			return fmt.Errorf("ingest: embed %d texts: %w", len(texts), ctx.Err())
		}
	}
	if r.err != nil {
		return fmt.Errorf("ingest: embed %d texts: %w", len(texts), r.err)
	}
	copy(out, r.vecs)
	return nil
}

// canonical forms compare a record with its stored copy, ignoring the
// timestamps the store sets and nil-versus-empty differences.
func canonicalItem(it *storage.CatalogItem) any {
	c := *it
	c.CreatedAt, c.UpdatedAt = time.Time{}, time.Time{}
	if c.Status == "" {
		c.Status = storage.StatusActive
	}
	c.Tags = nilIfEmpty(c.Tags)
	if len(c.Metadata) == 0 {
		c.Metadata = nil
	}
	files := make([]storage.CatalogFile, len(c.Files))
	for i, f := range c.Files {
		f.ItemID = ""
		files[i] = f
	}
	c.Files = nilIfEmpty(files)
	return c
}

func canonicalFAQ(f *storage.FAQ) any {
	c := *f
	c.CreatedAt, c.UpdatedAt = time.Time{}, time.Time{}
	if c.Status == "" {
		c.Status = storage.StatusActive
	}
	c.Keywords = nilIfEmpty(c.Keywords)
	return c
}

func canonicalDocument(d *storage.Document) any {
	c := *d
	c.CreatedAt, c.UpdatedAt = time.Time{}, time.Time{}
	if c.Status == "" {
		c.Status = storage.StatusActive
	}
	if c.ContentHash == "" {
		c.ContentHash = storage.ContentHash(c.Content)
	}
	if len(c.Metadata) == 0 {
		c.Metadata = nil
	}
	return c
}

func nilIfEmpty[S ~[]E, E any](s S) S {
	if len(s) == 0 {
		return nil
	}
	return slices.Clip(s)
}
