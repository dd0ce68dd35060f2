package rag

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag/chunk"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/vector"
)

// Indexer defaults (seed 001 §2, seed 002 §5, DESIGN §6).
const (
	DefaultEmbedBatchSize   = 16
	DefaultEmbedBatchTokens = 200_000
	DefaultEmbedConcurrency = 2
	DefaultEmbedRetries     = 3
	DefaultRetryBackoff     = time.Second
	DefaultWriteBatchOwners = 64
)

// Metadata keys the Indexer sets on chunks.
const (
	MetaFile        = "file"         // the attached file a chunk was cut from
	MetaHeadingPath = "heading_path" // "Title › Section" of a document chunk
	MetaStart       = "start"        // byte offset of the chunk in its source text
)

// IndexStore is what the Indexer needs from a store. storage.Store
// satisfies it.
type IndexStore interface {
	storage.BatchWriter
	Dimensions() int
	ChunkRefs(ctx context.Context, kind storage.OwnerKind, ownerIDs []string) ([]storage.ChunkRef, error)
	Chunks(ctx context.Context, owner storage.OwnerRef) ([]storage.Chunk, error)
	GetItems(ctx context.Context, ids []string) ([]storage.CatalogItem, error)
	GetFAQs(ctx context.Context, ids []string) ([]storage.FAQ, error)
	GetDocuments(ctx context.Context, ids []string) ([]storage.Document, error)
	DocumentByHash(ctx context.Context, hash string) (storage.Document, error)
}

// Progress reports indexing progress to IndexerOptions.Progress.
type Progress struct {
	// Kind is the kind of owner being indexed.
	Kind storage.OwnerKind
	// Done and Total count owners of the current call.
	Done, Total int
	// Embedded and Skipped count chunks so far.
	Embedded, Skipped int
}

// IndexerOptions configures an Indexer. The zero value gives the seeds'
// defaults.
type IndexerOptions struct {
	// BatchSize is the most texts per embedding request (default 16).
	BatchSize int
	// BatchTokens is the most estimated tokens (runes/4) per request
	// (default 200 000).
	BatchTokens int
	// Concurrency is the number of embedding requests in flight (default 2).
	Concurrency int
	// Retries is how many times a retryable embedding error is retried
	// (default 3; negative means none), waiting RetryBackoff, then twice
	// that, and so on (default 1 s, 2 s, 4 s).
	Retries      int
	RetryBackoff time.Duration
	// WriteBatch is the number of owners written per transaction
	// (default 64).
	WriteBatch int
	// FileChunker splits attached files and FAQ answers; nil means the
	// recursive splitter with 1000 runes / 200 overlap.
	FileChunker *chunk.Recursive
	// DocumentChunker splits documents with sections; nil means the
	// structural splitter (500 tokens / 50 overlap / min 100). Documents
	// without sections use FileChunker.
	DocumentChunker *chunk.Structural
	// ReplaceDuplicates lets a document whose content equals another
	// document's replace it (the old one is deleted). Otherwise the new one
	// is rejected with a *load.DuplicateDocumentError.
	ReplaceDuplicates bool
	// Progress, when set, is called after each written batch. It must not
	// block for long.
	Progress func(Progress)
}

// Stats summarize an indexing run.
type Stats struct {
	Items, FAQs, Documents int
	// Chunks is the number of chunks of the owners seen.
	Chunks int
	// Embedded is the number of texts sent to the embedder.
	Embedded int
	// Skipped is the number of chunks whose text was unchanged and kept
	// (or reused) without embedding.
	Skipped int
	// Unchanged is the number of owners left untouched.
	Unchanged int
	// Written is the number of owners written.
	Written int
	// Failed is the number of owners not written because of errors.
	Failed int
	// Duplicates are documents rejected as duplicates.
	Duplicates []*load.DuplicateDocumentError
	Duration   time.Duration
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
	s.Duplicates = append(s.Duplicates, o.Duplicates...)
}

// String is the summary line of examples/ingest.
func (s Stats) String() string {
	return fmt.Sprintf("items=%d faqs=%d documents=%d chunks=%d embedded=%d skipped=%d failed=%d duration=%s",
		s.Items, s.FAQs, s.Documents, s.Chunks, s.Embedded, s.Skipped, s.Failed, s.Duration.Round(time.Millisecond))
}

// Indexer turns records into chunks, embeds what changed and writes owners
// with their chunks atomically. It is safe for concurrent use, but two
// concurrent runs over the same owners race like any two writers.
type Indexer struct {
	store    IndexStore
	embedder vector.Embedder
	opts     IndexerOptions
}

// NewIndexer returns an Indexer writing to store. embedder may be nil: the
// chunks are then stored without embeddings (lexical search only). It does
// no I/O.
func NewIndexer(store IndexStore, embedder vector.Embedder, opts IndexerOptions) *Indexer {
	o := opts
	o.BatchSize = cmp.Or(max(o.BatchSize, 0), DefaultEmbedBatchSize)
	o.BatchTokens = cmp.Or(max(o.BatchTokens, 0), DefaultEmbedBatchTokens)
	o.Concurrency = cmp.Or(max(o.Concurrency, 0), DefaultEmbedConcurrency)
	if o.Retries == 0 {
		o.Retries = DefaultEmbedRetries
	}
	o.Retries = max(o.Retries, 0)
	if o.RetryBackoff <= 0 {
		o.RetryBackoff = DefaultRetryBackoff
	}
	o.WriteBatch = cmp.Or(max(o.WriteBatch, 0), DefaultWriteBatchOwners)
	if o.FileChunker == nil {
		o.FileChunker, _ = chunk.NewRecursive(chunk.RecursiveOptions{})
	}
	if o.DocumentChunker == nil {
		o.DocumentChunker, _ = chunk.NewStructural(chunk.StructuralOptions{})
	}
	return &Indexer{store: store, embedder: embedder, opts: o}
}

// ItemText is the text of an item's own chunk: name, category,
// manufacturer, tags and description, one per line, empty ones left out.
func ItemText(it *storage.CatalogItem) string {
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

// ItemChunks returns the chunks of an item, without embeddings: one item
// chunk, then each file's text split by splitter.
func ItemChunks(it *storage.CatalogItem, splitter *chunk.Recursive) []storage.Chunk {
	owner := storage.OwnerRef{Kind: storage.KindItem, ID: it.ID}
	var out []storage.Chunk
	if t := ItemText(it); t != "" {
		out = append(out, storage.Chunk{Owner: owner, Source: storage.SourceItem, Content: t})
	}
	seq := 0
	for _, f := range it.Files {
		for _, c := range splitter.Split(f.Text) {
			md := map[string]string{MetaStart: fmt.Sprint(c.Start)}
			if f.Name != "" {
				md[MetaFile] = f.Name
			}
			out = append(out, storage.Chunk{Owner: owner, Source: storage.SourceFile, Seq: seq, Content: c.Text, Metadata: md})
			seq++
		}
	}
	return out
}

// FAQChunks returns the chunks of a FAQ: the question alone (paraphrased
// questions match it best), then question and answer split by splitter.
func FAQChunks(f *storage.FAQ, splitter *chunk.Recursive) []storage.Chunk {
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

// DocumentChunks returns the chunks of a document: the structural splitter
// when it has sections, the recursive one otherwise. Each chunk's metadata
// holds its heading path for citations.
func DocumentChunks(d *load.Document, structural *chunk.Structural, recursive *chunk.Recursive) ([]storage.Chunk, error) {
	owner := storage.OwnerRef{Kind: storage.KindDocument, ID: d.ID}
	var parts []chunk.Chunk
	if len(d.Sections) > 0 {
		var err error
		if parts, err = structural.Split(d.Content, d.Sections); err != nil {
			return nil, fmt.Errorf("rag: chunk document %q: %w", d.ID, err)
		}
	} else {
		parts = recursive.Split(d.Content)
	}
	out := make([]storage.Chunk, 0, len(parts))
	for i, c := range parts {
		md := map[string]string{MetaStart: fmt.Sprint(c.Start)}
		path := c.HeadingPath
		if len(path) == 0 && d.Title != "" {
			path = []string{d.Title}
		} else if len(path) > 0 && d.Title != "" && path[0] != d.Title {
			path = append([]string{d.Title}, path...)
		}
		if len(path) > 0 {
			md[MetaHeadingPath] = strings.Join(path, chunk.HeadingSeparator)
		}
		out = append(out, storage.Chunk{Owner: owner, Source: storage.SourceDoc, Seq: i, Content: c.Text, Metadata: md})
	}
	return out, nil
}

// pending is one owner on its way to the store.
type pending struct {
	owner   storage.OwnerRef
	chunks  []storage.Chunk
	changed bool // the record differs from the stored one
	rewrite bool // the chunks differ from the stored ones
}

// IndexItems indexes catalog items: unchanged items are skipped without
// embedding or writing; changed ones re-embed only the chunks whose text
// changed. Owners are written WriteBatch at a time, each batch in one
// transaction; on error the batches already written stay, the failing one
// leaves the store as it was, and Stats count what happened.
func (ix *Indexer) IndexItems(ctx context.Context, items []storage.CatalogItem) (Stats, error) {
	start := time.Now()
	st := Stats{Items: len(items)}
	err := runBatches(ctx, ix, storage.KindItem, items, &st,
		func(it *storage.CatalogItem) string { return it.ID },
		func(it *storage.CatalogItem) ([]storage.Chunk, error) { return ItemChunks(it, ix.opts.FileChunker), nil },
		ix.store.GetItems, canonicalItem,
		func(b *storage.Batch, recs []storage.CatalogItem) { b.Items = recs })
	st.Duration = time.Since(start)
	return st, err
}

// IndexFAQs indexes FAQs like IndexItems.
func (ix *Indexer) IndexFAQs(ctx context.Context, faqs []storage.FAQ) (Stats, error) {
	start := time.Now()
	st := Stats{FAQs: len(faqs)}
	err := runBatches(ctx, ix, storage.KindFAQ, faqs, &st,
		func(f *storage.FAQ) string { return f.ID },
		func(f *storage.FAQ) ([]storage.Chunk, error) { return FAQChunks(f, ix.opts.FileChunker), nil },
		ix.store.GetFAQs, canonicalFAQ,
		func(b *storage.Batch, recs []storage.FAQ) { b.FAQs = recs })
	st.Duration = time.Since(start)
	return st, err
}

// IndexDocuments indexes documents like IndexItems. A document whose
// content hash equals another stored document's is rejected with a
// *load.DuplicateDocumentError in Stats.Duplicates (or replaces it with
// ReplaceDuplicates).
func (ix *Indexer) IndexDocuments(ctx context.Context, docs []load.Document) (Stats, error) {
	start := time.Now()
	st := Stats{Documents: len(docs)}
	keep := make([]load.Document, 0, len(docs))
	var replaced []storage.OwnerRef
	for i := range docs {
		d := docs[i]
		if d.ContentHash == "" {
			d.ContentHash = storage.ContentHash(d.Content)
		}
		old, err := ix.store.DocumentByHash(ctx, d.ContentHash)
		switch {
		case errors.Is(err, storage.ErrNotFound) || (err == nil && old.ID == d.ID):
		case err != nil:
			return st, fmt.Errorf("rag: duplicate check for document %q: %w", d.ID, err)
		case ix.opts.ReplaceDuplicates:
			replaced = append(replaced, storage.OwnerRef{Kind: storage.KindDocument, ID: old.ID})
		default:
			st.Duplicates = append(st.Duplicates, &load.DuplicateDocumentError{ExistingID: old.ID, ExistingTitle: old.Title, NewID: d.ID, Path: d.File, Hash: d.ContentHash})
			continue
		}
		keep = append(keep, d)
	}
	if len(replaced) > 0 {
		if err := ix.store.Apply(ctx, storage.Batch{Deletes: replaced}); err != nil {
			return st, fmt.Errorf("rag: replace duplicate documents: %w", err)
		}
	}
	err := runBatches(ctx, ix, storage.KindDocument, keep, &st,
		func(d *load.Document) string { return d.ID },
		func(d *load.Document) ([]storage.Chunk, error) {
			return DocumentChunks(d, ix.opts.DocumentChunker, ix.opts.FileChunker)
		},
		func(ctx context.Context, ids []string) ([]load.Document, error) {
			got, err := ix.store.GetDocuments(ctx, ids)
			out := make([]load.Document, len(got))
			for i := range got {
				out[i] = load.Document{Document: got[i]}
			}
			return out, err
		},
		func(d *load.Document) any { return canonicalDocument(&d.Document) },
		func(b *storage.Batch, recs []load.Document) {
			for i := range recs {
				b.Documents = append(b.Documents, recs[i].Document)
			}
		})
	st.Duration = time.Since(start)
	return st, err
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
	Documents []load.Document
}

// Reindex indexes items, FAQs and documents in turn and returns the
// combined stats; it stops at the first error.
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
	total.Duration = time.Since(start)
	return total, err
}

func runBatches[T any](ctx context.Context, ix *Indexer, kind storage.OwnerKind, recs []T, st *Stats,
	id func(*T) string, chunksOf func(*T) ([]storage.Chunk, error),
	get func(context.Context, []string) ([]T, error), canon func(*T) any,
	put func(*storage.Batch, []T)) error {
	// Dedupe by ID, keeping the last record (a later line wins).
	last := make(map[string]int, len(recs))
	for i := range recs {
		last[id(&recs[i])] = i
	}
	uniq := make([]T, 0, len(last))
	for i := range recs {
		if last[id(&recs[i])] == i {
			uniq = append(uniq, recs[i])
		}
	}
	done := 0
	for lo := 0; lo < len(uniq); lo += ix.opts.WriteBatch {
		if err := ctx.Err(); err != nil {
			st.Failed += len(uniq) - lo
			return err
		}
		group := uniq[lo:min(lo+ix.opts.WriteBatch, len(uniq))]
		if err := indexGroup(ctx, ix, kind, group, st, id, chunksOf, get, canon, put); err != nil {
			st.Failed += len(uniq) - lo
			return err
		}
		done += len(group)
		if ix.opts.Progress != nil {
			ix.opts.Progress(Progress{Kind: kind, Done: done, Total: len(uniq), Embedded: st.Embedded, Skipped: st.Skipped})
		}
	}
	return nil
}

func indexGroup[T any](ctx context.Context, ix *Indexer, kind storage.OwnerKind, group []T, st *Stats,
	id func(*T) string, chunksOf func(*T) ([]storage.Chunk, error),
	get func(context.Context, []string) ([]T, error), canon func(*T) any,
	put func(*storage.Batch, []T)) error {
	ids := make([]string, len(group))
	for i := range group {
		ids[i] = id(&group[i])
	}
	stored, err := get(ctx, ids)
	if err != nil {
		return fmt.Errorf("rag: read stored %ss: %w", kind, err)
	}
	storedCanon := make(map[string][]byte, len(stored))
	for i := range stored {
		b, _ := json.Marshal(canon(&stored[i]))
		storedCanon[id(&stored[i])] = b
	}
	refs, err := ix.store.ChunkRefs(ctx, kind, ids)
	if err != nil {
		return fmt.Errorf("rag: read chunk hashes: %w", err)
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
		owner := storage.OwnerRef{Kind: kind, ID: id(rec)}
		chunks, err := chunksOf(rec)
		if err != nil {
			return err
		}
		for j := range chunks {
			chunks[j].Owner = owner
			chunks[j].ContentHash = storage.ContentHash(chunks[j].Content)
		}
		st.Chunks += len(chunks)
		b, _ := json.Marshal(canon(rec))
		p := &pending{owner: owner, chunks: chunks}
		p.changed = !bytes.Equal(b, storedCanon[owner.ID])
		p.rewrite = !sameChunks(chunks, refsByOwner[owner.ID], ix.embedder != nil)
		if !p.changed && !p.rewrite {
			st.Unchanged++
			st.Skipped += len(chunks)
			continue
		}
		if p.changed {
			changed = append(changed, *rec)
		}
		if p.rewrite {
			work = append(work, p)
		} else {
			st.Skipped += len(chunks)
		}
	}
	if len(changed) == 0 && len(work) == 0 {
		return nil
	}
	if err := ix.embedPending(ctx, work, st); err != nil {
		return err
	}
	put(&batch, changed)
	for _, p := range work {
		batch.Chunks = append(batch.Chunks, storage.OwnerChunks{Owner: p.owner, Chunks: p.chunks})
	}
	if err := ix.store.Apply(ctx, batch); err != nil {
		return fmt.Errorf("rag: write %ss: %w", kind, err)
	}
	st.Written += max(len(changed), len(work))
	return nil
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

// embedPending fills the embeddings of the pending chunks: reused from the
// stored chunks with the same hash, computed for the rest.
func (ix *Indexer) embedPending(ctx context.Context, work []*pending, st *Stats) error {
	if ix.embedder == nil {
		return nil
	}
	var todo []*storage.Chunk
	for _, p := range work {
		old, err := ix.store.Chunks(ctx, p.owner)
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("rag: read stored chunks of %s %q: %w", p.owner.Kind, p.owner.ID, err)
		}
		byHash := make(map[string][]float32, len(old))
		for _, c := range old {
			if c.Embedding != nil {
				byHash[c.ContentHash] = c.Embedding
			}
		}
		for i := range p.chunks {
			c := &p.chunks[i]
			if v, ok := byHash[c.ContentHash]; ok && len(v) == ix.embedder.Dimensions() {
				c.Embedding = v
				st.Skipped++
				continue
			}
			if strings.TrimSpace(c.Content) == "" {
				continue // never sent: stored without a vector
			}
			todo = append(todo, c)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	// Cut into requests of at most BatchSize texts and BatchTokens tokens.
	var batches [][]*storage.Chunk
	var cur []*storage.Chunk
	tokens := 0
	for _, c := range todo {
		t := chunk.EstimateTokens(c.Content)
		if len(cur) > 0 && (len(cur) == ix.opts.BatchSize || tokens+t > ix.opts.BatchTokens) {
			batches = append(batches, cur)
			cur, tokens = nil, 0
		}
		cur = append(cur, c)
		tokens += t
	}
	batches = append(batches, cur)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, ix.opts.Concurrency)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for _, b := range batches {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := ix.embedBatch(ctx, b); err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
					cancel()
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	st.Embedded += len(todo)
	return nil
}

func (ix *Indexer) embedBatch(ctx context.Context, b []*storage.Chunk) error {
	texts := make([]string, len(b))
	for i, c := range b {
		texts[i] = c.Content
	}
	backoff := ix.opts.RetryBackoff
	for attempt := 0; ; attempt++ {
		vecs, err := ix.embedder.Embed(ctx, texts)
		if err == nil && len(vecs) != len(texts) {
			err = fmt.Errorf("rag: embedder returned %d vectors for %d texts", len(vecs), len(texts))
		}
		if err == nil {
			for i, c := range b {
				c.Embedding = vecs[i]
			}
			return nil
		}
		if attempt >= ix.opts.Retries || !llm.IsRetryable(err) || ctx.Err() != nil {
			return fmt.Errorf("rag: embed %d texts (attempt %d): %w", len(texts), attempt+1, err)
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		backoff *= 2
	}
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
	c.Keywords = nilIfEmpty(c.Keywords)
	return c
}

func canonicalDocument(d *storage.Document) any {
	c := *d
	c.CreatedAt, c.UpdatedAt = time.Time{}, time.Time{}
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
