package memory

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/hybridrag/hybridrag/internal/storeutil"
	"github.com/hybridrag/hybridrag/storage"
)

// kindOps is what the code shared by the three kinds of record needs to
// know about one of them, T (storage.CatalogItem, storage.FAQ or
// storage.Document). Everything else about records is the same for every
// kind and written once, generically: recordStore (the reads), prepare and
// apply (the writes), searchLexical and the snapshot code.
type kindOps[T any] struct {
	kind storage.OwnerKind
	// records points at the kind's records in a batch.
	records func(*storage.Batch) *[]T
	// prepare deep-copies a validated record into a new owner, filling its
	// defaults and what searches need (see newOwner).
	prepare func(T) *owner
	// clone deep-copies a stored record for a caller.
	clone func(*T) T
}

var (
	items = kindOps[storage.CatalogItem]{kind: storage.KindItem, records: batchItems, prepare: prepareItem, clone: copyItem}
	faqs  = kindOps[storage.FAQ]{kind: storage.KindFAQ, records: batchFAQs, prepare: prepareFAQ, clone: copyFAQ}
	docs  = kindOps[storage.Document]{kind: storage.KindDocument, records: batchDocs, prepare: prepareDoc, clone: copyDoc}
)

func batchItems(b *storage.Batch) *[]storage.CatalogItem { return &b.Items }
func batchFAQs(b *storage.Batch) *[]storage.FAQ          { return &b.FAQs }
func batchDocs(b *storage.Batch) *[]storage.Document     { return &b.Documents }

// out returns a deep copy of o's record, which must be of kind k.
func (k kindOps[T]) out(o *owner) T { return k.clone(o.rec.(*T)) }

// Deep copies: the store never shares a slice, map or pointer with callers.

func copyItem(in *storage.CatalogItem) storage.CatalogItem {
	it := *in
	it.Tags = slices.Clone(it.Tags)
	if it.Price != nil {
		p := *it.Price
		it.Price = &p
	}
	it.Metadata = maps.Clone(it.Metadata)
	it.Files = slices.Clone(it.Files)
	return it
}

func copyFAQ(in *storage.FAQ) storage.FAQ {
	f := *in
	f.Keywords = slices.Clone(f.Keywords)
	return f
}

func copyDoc(in *storage.Document) storage.Document {
	d := *in
	d.Metadata = maps.Clone(d.Metadata)
	return d
}

// The prepare functions turn a validated record into an owner holding a
// copy of it, doing the normalization work outside the lock. Timestamps are
// settled under it, by apply.

func prepareItem(in storage.CatalogItem) *owner {
	it := copyItem(&in)
	for i := range it.Files {
		it.Files[i].ItemID = it.ID
	}
	o := newOwner(&it, it.ID, &it.Status, &it.CreatedAt, &it.UpdatedAt)
	o.search, o.fv = storage.ItemSearchText(&it), storeutil.ItemFilterValues(&it)
	return o
}

func prepareFAQ(in storage.FAQ) *owner {
	f := copyFAQ(&in)
	o := newOwner(&f, f.ID, &f.Status, &f.CreatedAt, &f.UpdatedAt)
	o.search, o.fv = storage.FAQSearchText(&f), storeutil.FAQFilterValues(&f)
	return o
}

func prepareDoc(in storage.Document) *owner {
	d := copyDoc(&in)
	if d.ContentHash == "" {
		d.ContentHash = storage.ContentHash(d.Content)
	}
	o := newOwner(&d, d.ID, &d.Status, &d.CreatedAt, &d.UpdatedAt)
	o.search, o.fv, o.hash = storage.DocumentSearchText(&d), storeutil.DocumentFilterValues(&d), d.ContentHash
	return o
}

// newOwner returns the owner of rec, a record the store owns, given its ID
// and pointers to its Status, CreatedAt and UpdatedAt fields. It stores an
// empty Status as active, and CreatedAt as stored times are (UTC,
// microseconds).
func newOwner(rec any, id string, status *storage.Status, createdAt, updatedAt *time.Time) *owner {
	if *status == "" {
		*status = storage.StatusActive
	}
	*createdAt = storedTime(*createdAt)
	return &owner{
		slot:      -1,
		id:        id,
		active:    status.Active(),
		created:   *createdAt,
		rec:       rec,
		createdAt: createdAt,
		updatedAt: updatedAt,
	}
}

// prepared is a validated batch ready to apply.
type prepared struct {
	owners  [3][]*owner           // indexed by kindIndex
	chunks  []storage.OwnerChunks // owner set, slices and maps copied, sorted by source and seq
	deletes []storage.OwnerRef
}

// addOwners prepares the records of kind k of batch b.
func addOwners[T any](p *prepared, k kindOps[T], b *storage.Batch) {
	ki := kindIndex(k.kind)
	for _, rec := range *k.records(b) {
		p.owners[ki] = append(p.owners[ki], k.prepare(rec))
	}
}

func (s *Store) prepare(b *storage.Batch) (*prepared, error) {
	if err := storage.ValidateBatch(b, s.db.dims); err != nil {
		return nil, wrap(err)
	}
	p := &prepared{deletes: slices.Clone(b.Deletes)}
	addOwners(p, items, b)
	addOwners(p, faqs, b)
	addOwners(p, docs, b)
	for _, oc := range b.Chunks {
		// The embeddings still alias the caller's slices; apply copies them
		// into the slab.
		cs := storeutil.PrepareChunks(oc.Owner, oc.Chunks)
		for i := range cs {
			ownChunk(&cs[i])
		}
		slices.SortStableFunc(cs, func(a, b storage.Chunk) int { return compareChunkKey(&a, &b) })
		p.chunks = append(p.chunks, storage.OwnerChunks{Owner: oc.Owner, Chunks: cs})
	}
	return p, nil
}

// ownChunk replaces c's metadata and heading path by copies the store owns
// (nil when empty). The embedding is left alone: replaceChunks copies it
// into the slab.
func ownChunk(c *storage.Chunk) {
	c.Metadata = maps.Clone(c.Metadata)
	if len(c.Metadata) == 0 {
		c.Metadata = nil
	}
	c.HeadingPath = slices.Clip(slices.Clone(c.HeadingPath))
	if len(c.HeadingPath) == 0 {
		c.HeadingPath = nil
	}
}

// apply writes p. The caller holds t.mu for writing and has checked that
// every chunk owner exists (checkOwners).
func (s *Store) apply(p *prepared) {
	t := s.t
	now := s.db.timestamp()
	for ki, owners := range p.owners {
		kd := t.kinds[ki]
		for _, o := range owners {
			old := kd.owners[o.id]
			if o.created.IsZero() {
				o.created = now
				if old != nil {
					o.created = old.created
				}
			}
			*o.createdAt, *o.updatedAt = o.created, now
			if old != nil {
				t.unindexHash(old)
			}
			t.indexHash(o)
			kd.put(o)
		}
	}
	for _, oc := range p.chunks {
		kd := t.kind(oc.Owner.Kind)
		kd.replaceChunks(kd.owners[oc.Owner.ID], oc.Chunks)
	}
	for _, ref := range p.deletes {
		t.remove(ref)
	}
}

// checkOwners returns ErrNotFound for the first chunk owner that neither
// exists nor is written by p. The caller holds t.mu.
func (s *Store) checkOwners(p *prepared) error {
	var written [3]map[string]bool // built on first need
	for _, oc := range p.chunks {
		ki := kindIndex(oc.Owner.Kind)
		if _, ok := s.t.kinds[ki].owners[oc.Owner.ID]; ok {
			continue
		}
		if written[ki] == nil {
			written[ki] = make(map[string]bool, len(p.owners[ki]))
			for _, o := range p.owners[ki] {
				written[ki][o.id] = true
			}
		}
		if !written[ki][oc.Owner.ID] {
			return notFound(oc.Owner)
		}
	}
	return nil
}

func (t *tenant) remove(ref storage.OwnerRef) bool {
	o, ok := t.kind(ref.Kind).remove(ref.ID)
	if ok {
		t.unindexHash(o)
	}
	return ok
}

// indexHash records a document's content hash in t.docHash; owners of
// other kinds have no hash.
func (t *tenant) indexHash(o *owner) {
	if o.hash == "" {
		return
	}
	ids := t.docHash[o.hash]
	if ids == nil {
		ids = make(map[string]struct{}, 1)
		t.docHash[o.hash] = ids
	}
	ids[o.id] = struct{}{}
}

func (t *tenant) unindexHash(o *owner) {
	ids := t.docHash[o.hash]
	delete(ids, o.id)
	if len(ids) == 0 {
		delete(t.docHash, o.hash)
	}
}

// Apply validates the whole batch and then writes it atomically: records
// first, then chunk replacements, then deletions. Chunks may name owners
// written by the same batch; any other missing owner fails the batch with
// storage.ErrNotFound. Deleting a missing owner is not an error.
func (s *Store) Apply(ctx context.Context, b storage.Batch) error {
	return s.write(ctx, &b)
}

func (s *Store) write(ctx context.Context, b *storage.Batch) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	p, err := s.prepare(b)
	if err != nil {
		return err
	}
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	if err := ctxErr(ctx); err != nil {
		return err
	}
	if err := s.checkOwners(p); err != nil {
		return err
	}
	s.apply(p)
	s.t.version.Add(1)
	return nil
}

// recordStore is the storage.RecordStore of the records of kind k of a
// tenant, the one implementation of the reads of every kind of record.
type recordStore[T any] struct {
	s *Store
	k kindOps[T]
}

// Get returns a copy of the record with the given ID, or
// storage.ErrNotFound.
func (r recordStore[T]) Get(ctx context.Context, id string) (T, error) {
	var zero T
	if err := ctxErr(ctx); err != nil {
		return zero, err
	}
	t := r.s.t
	t.mu.RLock()
	defer t.mu.RUnlock()
	o, ok := t.kind(r.k.kind).owners[id]
	if !ok {
		return zero, notFound(storage.OwnerRef{Kind: r.k.kind, ID: id})
	}
	return r.k.out(o), nil
}

// GetMany returns copies of the records among ids, in the order of ids.
func (r recordStore[T]) GetMany(ctx context.Context, ids []string) ([]T, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	t := r.s.t
	t.mu.RLock()
	defer t.mu.RUnlock()
	kd := t.kind(r.k.kind)
	out := make([]T, 0, len(ids))
	for _, id := range ids {
		if o, ok := kd.owners[id]; ok {
			out = append(out, r.k.out(o))
		}
	}
	return out, nil
}

// List returns a page of records ordered by ID (bytewise).
func (r recordStore[T]) List(ctx context.Context, page storage.Page) ([]T, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	limit := storeutil.ClampLimit(page.Limit)
	t := r.s.t
	t.mu.RLock()
	defer t.mu.RUnlock()
	h := newTopK(limit, func(a, b *owner) bool { return a.id < b.id })
	for _, o := range t.kind(r.k.kind).list {
		if o.id > page.After {
			h.push(o)
		}
	}
	owners := h.sorted()
	out := make([]T, len(owners))
	for i, o := range owners {
		out[i] = r.k.out(o)
	}
	return out, nil
}

// Delete removes the record with the given ID, its files and its chunks,
// or returns storage.ErrNotFound.
func (r recordStore[T]) Delete(ctx context.Context, id string) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	t := r.s.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := ctxErr(ctx); err != nil {
		return err
	}
	ref := storage.OwnerRef{Kind: r.k.kind, ID: id}
	if !t.remove(ref) {
		return notFound(ref)
	}
	t.version.Add(1)
	return nil
}

// Search returns lexical candidates among the active records; see
// searchLexical.
func (r recordStore[T]) Search(ctx context.Context, q storage.LexicalQuery) ([]storage.LexicalCandidate[T], error) {
	return searchLexical(ctx, r.s, r.k, q)
}

// docStore is the storage.DocumentStore of a tenant.
type docStore struct {
	recordStore[storage.Document]
}

// ByHash returns the document whose ContentHash is hash (the one with the
// smallest ID when several share it), or storage.ErrNotFound.
func (d docStore) ByHash(ctx context.Context, hash string) (storage.Document, error) {
	s := d.s
	if err := ctxErr(ctx); err != nil {
		return storage.Document{}, err
	}
	s.t.mu.RLock()
	defer s.t.mu.RUnlock()
	ids := s.t.docHash[hash]
	if len(ids) == 0 {
		return storage.Document{}, notFound(storage.OwnerRef{Kind: storage.KindDocument, ID: "sha256:" + hash})
	}
	best := ""
	for id := range ids {
		if best == "" || id < best {
			best = id
		}
	}
	return docs.out(s.t.kind(storage.KindDocument).owners[best]), nil
}

// Counts returns the number of records and chunks of the tenant.
func (s *Store) Counts(ctx context.Context) (storage.Counts, error) {
	if err := ctxErr(ctx); err != nil {
		return storage.Counts{}, err
	}
	s.t.mu.RLock()
	defer s.t.mu.RUnlock()
	var c storage.Counts
	c.Items = len(s.t.kind(storage.KindItem).owners)
	c.FAQs = len(s.t.kind(storage.KindFAQ).owners)
	c.Documents = len(s.t.kind(storage.KindDocument).owners)
	for _, kd := range s.t.kinds {
		c.Chunks += kd.chunks
		c.Embedded += kd.live
	}
	return c, nil
}
