package memory

import (
	"context"
	"maps"
	"slices"

	"github.com/hybridrag/hybridrag/storage"
)

// Deep copies: the store never shares a slice, map or pointer with callers.

func copyItem(it storage.CatalogItem) storage.CatalogItem {
	it.Tags = slices.Clone(it.Tags)
	if it.Price != nil {
		p := *it.Price
		it.Price = &p
	}
	it.Metadata = maps.Clone(it.Metadata)
	it.Files = slices.Clone(it.Files)
	return it
}

func copyFAQ(f storage.FAQ) storage.FAQ {
	f.Keywords = slices.Clone(f.Keywords)
	return f
}

func copyDoc(d storage.Document) storage.Document {
	d.Metadata = maps.Clone(d.Metadata)
	return d
}

// The prepare functions turn validated input into owners, doing the
// normalization work outside the lock. Timestamps are settled under it.

func prepareItem(in storage.CatalogItem) *owner {
	it := copyItem(in)
	if it.Status == "" {
		it.Status = storage.StatusActive
	}
	for i := range it.Files {
		it.Files[i].ItemID = it.ID
	}
	it.CreatedAt = storedTime(it.CreatedAt)
	o := &owner{
		slot:    -1,
		id:      it.ID,
		active:  it.Active(),
		created: it.CreatedAt,
		search:  storage.ItemSearchText(&it),
		fv:      storage.ItemFilterValues(&it),
		item:    &it,
	}
	return o
}

func prepareFAQ(in storage.FAQ) *owner {
	f := copyFAQ(in)
	f.CreatedAt = storedTime(f.CreatedAt)
	o := &owner{
		slot:    -1,
		id:      f.ID,
		active:  f.Active(),
		created: f.CreatedAt,
		search:  storage.FAQSearchText(&f),
		fv:      storage.FAQFilterValues(&f),
		faq:     &f,
	}
	return o
}

func prepareDoc(in storage.Document) *owner {
	d := copyDoc(in)
	if d.ContentHash == "" {
		d.ContentHash = storage.ContentHash(d.Content)
	}
	d.CreatedAt = storedTime(d.CreatedAt)
	o := &owner{
		slot:    -1,
		id:      d.ID,
		active:  true,
		created: d.CreatedAt,
		search:  storage.DocumentSearchText(&d),
		fv:      storage.DocumentFilterValues(&d),
		doc:     &d,
	}
	return o
}

// prepared is a validated batch ready to apply.
type prepared struct {
	owners  [3][]*owner
	chunks  []storage.OwnerChunks // owner set, metadata copied, sorted by source and seq
	deletes []storage.OwnerRef
}

func (s *Store) prepare(b *storage.Batch) (*prepared, error) {
	if err := storage.ValidateBatch(b, s.db.dims); err != nil {
		return nil, wrap(err)
	}
	p := &prepared{deletes: slices.Clone(b.Deletes)}
	for _, it := range b.Items {
		p.owners[0] = append(p.owners[0], prepareItem(it))
	}
	for _, f := range b.FAQs {
		p.owners[1] = append(p.owners[1], prepareFAQ(f))
	}
	for _, d := range b.Documents {
		p.owners[2] = append(p.owners[2], prepareDoc(d))
	}
	for _, oc := range b.Chunks {
		// The embeddings still alias the caller's slices; apply copies them
		// into the slab.
		cs := storage.PrepareChunks(oc.Owner, oc.Chunks)
		for i := range cs {
			cs[i].Metadata = maps.Clone(cs[i].Metadata)
		}
		slices.SortStableFunc(cs, func(a, b storage.Chunk) int { return compareChunkKey(&a, &b) })
		p.chunks = append(p.chunks, storage.OwnerChunks{Owner: oc.Owner, Chunks: cs})
	}
	return p, nil
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
				switch {
				case old != nil:
					o.created = old.created
				default:
					o.created = now
				}
			}
			switch {
			case o.item != nil:
				o.item.CreatedAt, o.item.UpdatedAt = o.created, now
			case o.faq != nil:
				o.faq.CreatedAt, o.faq.UpdatedAt = o.created, now
			case o.doc != nil:
				o.doc.CreatedAt, o.doc.UpdatedAt = o.created, now
				if old != nil {
					t.unindexDoc(old.doc)
				}
				t.indexDoc(o.doc)
			}
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
	if ok && o.doc != nil {
		t.unindexDoc(o.doc)
	}
	return ok
}

func (t *tenant) indexDoc(d *storage.Document) {
	ids := t.docHash[d.ContentHash]
	if ids == nil {
		ids = make(map[string]struct{}, 1)
		t.docHash[d.ContentHash] = ids
	}
	ids[d.ID] = struct{}{}
}

func (t *tenant) unindexDoc(d *storage.Document) {
	ids := t.docHash[d.ContentHash]
	delete(ids, d.ID)
	if len(ids) == 0 {
		delete(t.docHash, d.ContentHash)
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
	return nil
}

// UpsertItems inserts or replaces items with their files, atomically.
// CreatedAt is kept from the stored item when the input's is zero;
// UpdatedAt is always set to now. An empty Status is stored as active.
func (s *Store) UpsertItems(ctx context.Context, items []storage.CatalogItem) error {
	return s.write(ctx, &storage.Batch{Items: items})
}

// UpsertFAQs inserts or replaces FAQs atomically.
func (s *Store) UpsertFAQs(ctx context.Context, faqs []storage.FAQ) error {
	return s.write(ctx, &storage.Batch{FAQs: faqs})
}

// UpsertDocuments inserts or replaces documents atomically, filling an
// empty ContentHash from Content.
func (s *Store) UpsertDocuments(ctx context.Context, docs []storage.Document) error {
	return s.write(ctx, &storage.Batch{Documents: docs})
}

// ReplaceChunks atomically replaces all chunks of owner. The owner must
// exist (storage.ErrNotFound); every chunk is validated first.
func (s *Store) ReplaceChunks(ctx context.Context, owner storage.OwnerRef, chunks []storage.Chunk) error {
	return s.write(ctx, &storage.Batch{Chunks: []storage.OwnerChunks{{Owner: owner, Chunks: chunks}}})
}

func (s *Store) delete(ctx context.Context, ref storage.OwnerRef) error {
	if err := ctxErr(ctx); err != nil {
		return err
	}
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	if err := ctxErr(ctx); err != nil {
		return err
	}
	if !s.t.remove(ref) {
		return notFound(ref)
	}
	return nil
}

// DeleteItem removes the item, its files and its chunks.
func (s *Store) DeleteItem(ctx context.Context, id string) error {
	return s.delete(ctx, storage.OwnerRef{Kind: storage.KindItem, ID: id})
}

// DeleteFAQ removes the FAQ and its chunks.
func (s *Store) DeleteFAQ(ctx context.Context, id string) error {
	return s.delete(ctx, storage.OwnerRef{Kind: storage.KindFAQ, ID: id})
}

// DeleteDocument removes the document and its chunks.
func (s *Store) DeleteDocument(ctx context.Context, id string) error {
	return s.delete(ctx, storage.OwnerRef{Kind: storage.KindDocument, ID: id})
}

// get runs fn on the owner under the read lock.
func get[T any](ctx context.Context, s *Store, ref storage.OwnerRef, fn func(*owner) T) (T, error) {
	var zero T
	if err := ctxErr(ctx); err != nil {
		return zero, err
	}
	s.t.mu.RLock()
	defer s.t.mu.RUnlock()
	o, ok := s.t.kind(ref.Kind).owners[ref.ID]
	if !ok {
		return zero, notFound(ref)
	}
	return fn(o), nil
}

func getMany[T any](ctx context.Context, s *Store, kind storage.OwnerKind, ids []string, fn func(*owner) T) ([]T, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	s.t.mu.RLock()
	defer s.t.mu.RUnlock()
	kd := s.t.kind(kind)
	out := make([]T, 0, len(ids))
	for _, id := range ids {
		if o, ok := kd.owners[id]; ok {
			out = append(out, fn(o))
		}
	}
	return out, nil
}

// list returns a page of owners ordered by ID (bytewise).
func list[T any](ctx context.Context, s *Store, kind storage.OwnerKind, page storage.Page, fn func(*owner) T) ([]T, error) {
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	limit := storage.ClampLimit(page.Limit)
	s.t.mu.RLock()
	defer s.t.mu.RUnlock()
	h := newTopK(limit, func(a, b *owner) bool { return a.id < b.id })
	for _, o := range s.t.kind(kind).list {
		if o.id > page.After {
			h.push(o)
		}
	}
	owners := h.sorted()
	out := make([]T, len(owners))
	for i, o := range owners {
		out[i] = fn(o)
	}
	return out, nil
}

func itemOut(o *owner) storage.CatalogItem { return copyItem(*o.item) }
func faqOut(o *owner) storage.FAQ          { return copyFAQ(*o.faq) }
func docOut(o *owner) storage.Document     { return copyDoc(*o.doc) }

// GetItem returns the item with its files, or storage.ErrNotFound.
func (s *Store) GetItem(ctx context.Context, id string) (storage.CatalogItem, error) {
	return get(ctx, s, storage.OwnerRef{Kind: storage.KindItem, ID: id}, itemOut)
}

// GetItems returns the existing items among ids, in the order of ids.
func (s *Store) GetItems(ctx context.Context, ids []string) ([]storage.CatalogItem, error) {
	return getMany(ctx, s, storage.KindItem, ids, itemOut)
}

// ListItems returns a page of items (active or not) ordered by ID.
func (s *Store) ListItems(ctx context.Context, page storage.Page) ([]storage.CatalogItem, error) {
	return list(ctx, s, storage.KindItem, page, itemOut)
}

// GetFAQ returns the FAQ or storage.ErrNotFound.
func (s *Store) GetFAQ(ctx context.Context, id string) (storage.FAQ, error) {
	return get(ctx, s, storage.OwnerRef{Kind: storage.KindFAQ, ID: id}, faqOut)
}

// GetFAQs returns the existing FAQs among ids, in the order of ids.
func (s *Store) GetFAQs(ctx context.Context, ids []string) ([]storage.FAQ, error) {
	return getMany(ctx, s, storage.KindFAQ, ids, faqOut)
}

// ListFAQs returns a page of FAQs ordered by ID.
func (s *Store) ListFAQs(ctx context.Context, page storage.Page) ([]storage.FAQ, error) {
	return list(ctx, s, storage.KindFAQ, page, faqOut)
}

// GetDocument returns the document or storage.ErrNotFound.
func (s *Store) GetDocument(ctx context.Context, id string) (storage.Document, error) {
	return get(ctx, s, storage.OwnerRef{Kind: storage.KindDocument, ID: id}, docOut)
}

// GetDocuments returns the existing documents among ids, in the order of
// ids.
func (s *Store) GetDocuments(ctx context.Context, ids []string) ([]storage.Document, error) {
	return getMany(ctx, s, storage.KindDocument, ids, docOut)
}

// ListDocuments returns a page of documents ordered by ID.
func (s *Store) ListDocuments(ctx context.Context, page storage.Page) ([]storage.Document, error) {
	return list(ctx, s, storage.KindDocument, page, docOut)
}

// DocumentByHash returns the document whose ContentHash is hash (the one
// with the smallest ID when several share it), or storage.ErrNotFound.
func (s *Store) DocumentByHash(ctx context.Context, hash string) (storage.Document, error) {
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
	return docOut(s.t.kind(storage.KindDocument).owners[best]), nil
}

// Counts returns the number of records and chunks of the tenant.
func (s *Store) Counts(ctx context.Context) (storage.Counts, error) {
	if err := ctxErr(ctx); err != nil {
		return storage.Counts{}, err
	}
	s.t.mu.RLock()
	defer s.t.mu.RUnlock()
	var c storage.Counts
	c.Items = len(s.t.kinds[0].owners)
	c.FAQs = len(s.t.kinds[1].owners)
	c.Documents = len(s.t.kinds[2].owners)
	for _, kd := range s.t.kinds {
		c.Chunks += kd.chunks
		c.Embedded += kd.live
	}
	return c, nil
}
