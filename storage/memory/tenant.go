package memory

import (
	"cmp"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hybridrag/hybridrag/internal/q8"
	"github.com/hybridrag/hybridrag/internal/storeutil"
	"github.com/hybridrag/hybridrag/storage"
)

// tenant holds one tenant's records. mu guards everything below it.
type tenant struct {
	// version counts the writes applied (Store.Version).
	version atomic.Uint64

	mu    sync.RWMutex
	kinds [3]*kindData // indexed by kindIndex
	// docHash maps a document content hash to the IDs holding it.
	docHash map[string]map[string]struct{}
}

func newTenant(dims int) *tenant {
	t := &tenant{docHash: make(map[string]map[string]struct{})}
	for i, k := range []storage.OwnerKind{storage.KindItem, storage.KindFAQ, storage.KindDocument} {
		t.kinds[i] = &kindData{kind: k, dims: dims, owners: make(map[string]*owner), words: newWordIndex(), useQ8: useQ8(dims)}
	}
	return t
}

func kindIndex(k storage.OwnerKind) int {
	switch k {
	case storage.KindItem:
		return 0
	case storage.KindFAQ:
		return 1
	default:
		return 2
	}
}

func (t *tenant) kind(k storage.OwnerKind) *kindData { return t.kinds[kindIndex(k)] }

func (t *tenant) empty() bool {
	for _, kd := range t.kinds {
		if len(kd.owners) > 0 {
			return false
		}
	}
	return true
}

// owner is a stored record (item, FAQ or document) with what searches need
// precomputed, and its chunks.
type owner struct {
	id  string
	pos int // index in kindData.list

	active  bool
	created time.Time
	search  string // normalized search text (storage.*SearchText)
	slot    int32  // in kindData.words; -1 when not indexed
	fv      storeutil.FilterValues
	hash    string // a document's ContentHash; empty for other kinds

	// rec is the record: a *storage.CatalogItem, *storage.FAQ or
	// *storage.Document (see kindOps). createdAt and updatedAt point at its
	// CreatedAt and UpdatedAt fields.
	rec                  any
	createdAt, updatedAt *time.Time

	// chunks are sorted by source then seq.
	chunks []chunkRec
}

// chunkRec is a stored chunk. The embedding lives in the kind's slab at row
// (-1: no embedding); c.Embedding is always nil.
type chunkRec struct {
	c   storage.Chunk
	row int32
	// norm is c.Metadata with its values normalized, what chunk filters
	// compare with (storeutil.NormalizeChunkMetadata).
	norm map[string]string
}

// rowMeta says which chunk occupies a slab row; o is nil for a free row.
// active mirrors o.active so that scans skip inactive owners without
// dereferencing o.
type rowMeta struct {
	o      *owner
	idx    int32 // index in o.chunks
	active bool
}

// kindData holds the owners of one kind and the embeddings of their chunks.
//
// Embeddings live in one contiguous slab: row r is slab[r*dims:(r+1)*dims].
// Replacing or deleting chunks frees their rows onto a free list, which
// later insertions reuse; when free rows outnumber live ones (and there are
// at least minCompact of them), the slab is compacted so that scans and
// memory stay proportional to the live rows.
type kindData struct {
	kind   storage.OwnerKind
	dims   int
	owners map[string]*owner
	list   []*owner // dense; owner.pos indexes it
	words  *wordIndex

	slab []float32
	rows []rowMeta
	// q8 holds each row's embedding quantized to 8 bits (q8.Quantize),
	// row-major like slab, and q8st their scales and error bounds; both are
	// nil unless useQ8 (see quantizedSearch).
	q8     []int8
	q8st   []q8.Stats
	useQ8  bool
	free   []int32
	chunks int // stored chunks, with or without embedding
	live   int // rows in use
}

const minCompact = 1024

// put inserts or replaces an owner's record. o carries the new record; if
// an owner with the same ID exists its chunks are kept and its identity
// (pointer) is preserved so slab rows stay valid.
func (kd *kindData) put(o *owner) *owner {
	if old, ok := kd.owners[o.id]; ok {
		if old.active != o.active {
			for _, c := range old.chunks {
				if c.row >= 0 {
					kd.rows[c.row].active = o.active
				}
			}
		}
		reindex := old.search != o.search
		if reindex {
			kd.words.drop(old)
		}
		old.active, old.created, old.search, old.fv, old.hash = o.active, o.created, o.search, o.fv, o.hash
		old.rec, old.createdAt, old.updatedAt = o.rec, o.createdAt, o.updatedAt
		if reindex {
			kd.words.add(old)
			kd.maybeReindex()
		}
		return old
	}
	o.pos = len(kd.list)
	kd.list = append(kd.list, o)
	kd.owners[o.id] = o
	kd.words.add(o)
	return o
}

// remove deletes an owner and frees its chunks. It reports whether the
// owner existed.
func (kd *kindData) remove(id string) (*owner, bool) {
	o, ok := kd.owners[id]
	if !ok {
		return nil, false
	}
	kd.dropChunks(o)
	kd.words.drop(o)
	delete(kd.owners, id)
	last := kd.list[len(kd.list)-1]
	kd.list[o.pos] = last
	last.pos = o.pos
	kd.list[len(kd.list)-1] = nil
	kd.list = kd.list[:len(kd.list)-1]
	kd.maybeCompact()
	kd.maybeReindex()
	return o, true
}

// maybeReindex rebuilds the word index once dropped slots outnumber live
// ones, so that its size stays proportional to the live owners.
func (kd *kindData) maybeReindex() {
	if kd.words.stale() {
		kd.words = rebuildWordIndex(kd.list)
	}
}

// dropChunks frees the slab rows of o's chunks and forgets them.
func (kd *kindData) dropChunks(o *owner) {
	for _, c := range o.chunks {
		if c.row >= 0 {
			kd.rows[c.row] = rowMeta{}
			kd.free = append(kd.free, c.row)
			kd.live--
		}
	}
	kd.chunks -= len(o.chunks)
	o.chunks = nil
}

// replaceChunks swaps o's chunks for chunks (validated, prepared, sorted,
// with metadata the store owns), copying each embedding into the slab: the
// chunks' Embedding slices are not retained.
func (kd *kindData) replaceChunks(o *owner, chunks []storage.Chunk) {
	kd.dropChunks(o)
	recs := make([]chunkRec, len(chunks))
	for i := range chunks {
		c := chunks[i]
		emb := c.Embedding
		c.Embedding = nil
		recs[i] = chunkRec{c: c, row: -1, norm: storeutil.NormalizeChunkMetadata(c.Metadata)}
		if emb != nil {
			r := kd.allocRow()
			copy(kd.slab[int(r)*kd.dims:(int(r)+1)*kd.dims], emb)
			if kd.useQ8 {
				// Embeddings are validated (length, finite) before they
				// reach the slab, so QuantizeQ8 cannot fail here.
				kd.q8st[r], _ = q8.Quantize(kd.q8[int(r)*kd.dims:(int(r)+1)*kd.dims], emb)
			}
			kd.rows[r] = rowMeta{o: o, idx: int32(i), active: o.active}
			recs[i].row = r
			kd.live++
		}
	}
	o.chunks = recs
	kd.chunks += len(recs)
	kd.maybeCompact()
}

// restriction is a query's OwnerIDs and ChunkFilters as the store
// evaluates them; the zero value restricts nothing.
type restriction struct {
	owners map[string]bool // nil: every owner
	groups []storeutil.ChunkFilterGroup
}

func newRestriction(ownerIDs []string, filters []storage.ChunkFilter) restriction {
	var r restriction
	if len(ownerIDs) > 0 {
		r.owners = make(map[string]bool, len(ownerIDs))
		for _, id := range ownerIDs {
			r.owners[id] = true
		}
	}
	r.groups = storeutil.GroupChunkFilters(filters)
	return r
}

// none reports whether r restricts nothing.
func (r *restriction) none() bool { return r.owners == nil && len(r.groups) == 0 }

// owner reports whether o may hold results: it is listed (or no owner is)
// and, with chunk filters, holds a chunk passing them.
func (r *restriction) owner(o *owner) bool {
	if r.owners != nil && !r.owners[o.id] {
		return false
	}
	if len(r.groups) == 0 {
		return true
	}
	for i := range o.chunks {
		if storeutil.MatchChunkGroups(o.chunks[i].norm, r.groups) {
			return true
		}
	}
	return false
}

// chunk reports whether chunk i of o passes r.
func (r *restriction) chunk(o *owner, i int) bool {
	return (r.owners == nil || r.owners[o.id]) && storeutil.MatchChunkGroups(o.chunks[i].norm, r.groups)
}

func (kd *kindData) allocRow() int32 {
	if n := len(kd.free); n > 0 {
		r := kd.free[n-1]
		kd.free = kd.free[:n-1]
		return r
	}
	r := int32(len(kd.rows))
	kd.rows = append(kd.rows, rowMeta{})
	kd.slab = slices.Grow(kd.slab, kd.dims)[:len(kd.slab)+kd.dims]
	if kd.useQ8 {
		kd.q8 = slices.Grow(kd.q8, kd.dims)[:len(kd.q8)+kd.dims]
		kd.q8st = append(kd.q8st, q8.Stats{})
	}
	return r
}

func (kd *kindData) maybeCompact() {
	if len(kd.free) >= minCompact && len(kd.free) > kd.live {
		kd.compact()
	}
}

// compact moves live rows down over free ones, preserving their order,
// and releases the tail of the slab.
func (kd *kindData) compact() {
	w := 0
	for r, m := range kd.rows {
		if m.o == nil {
			continue
		}
		if w != r {
			copy(kd.slab[w*kd.dims:(w+1)*kd.dims], kd.slab[r*kd.dims:(r+1)*kd.dims])
			if kd.useQ8 {
				copy(kd.q8[w*kd.dims:(w+1)*kd.dims], kd.q8[r*kd.dims:(r+1)*kd.dims])
				kd.q8st[w] = kd.q8st[r]
			}
			kd.rows[w] = m
			m.o.chunks[m.idx].row = int32(w)
		}
		w++
	}
	clear(kd.rows[w:])
	kd.rows = kd.rows[:w]
	kd.slab = kd.slab[:w*kd.dims]
	if kd.useQ8 {
		kd.q8 = kd.q8[:w*kd.dims]
		kd.q8st = kd.q8st[:w]
	}
	if cap(kd.slab) > 2*len(kd.slab)+kd.dims*minCompact {
		kd.slab = slices.Clip(slices.Clone(kd.slab))
		kd.rows = slices.Clip(slices.Clone(kd.rows))
		if kd.useQ8 {
			kd.q8 = slices.Clip(slices.Clone(kd.q8))
			kd.q8st = slices.Clip(slices.Clone(kd.q8st))
		}
	}
	kd.free = kd.free[:0]
}

// vec returns the embedding stored at row r (aliasing the slab).
func (kd *kindData) vec(r int32) []float32 {
	return kd.slab[int(r)*kd.dims : (int(r)+1)*kd.dims : (int(r)+1)*kd.dims]
}

// chunkCopy returns a deep copy of o.chunks[i], with its embedding when
// withEmbedding is set.
func (kd *kindData) chunkCopy(o *owner, i int, withEmbedding bool) storage.Chunk {
	cr := o.chunks[i]
	c := cr.c
	c.Metadata = maps.Clone(c.Metadata)
	c.HeadingPath = slices.Clone(c.HeadingPath)
	if withEmbedding && cr.row >= 0 {
		c.Embedding = slices.Clone(kd.vec(cr.row))
	}
	return c
}

func compareChunkKey(a, b *storage.Chunk) int {
	if c := cmp.Compare(a.Source, b.Source); c != 0 {
		return c
	}
	return cmp.Compare(a.Seq, b.Seq)
}

func sortOwners(owners []*owner) {
	slices.SortFunc(owners, func(a, b *owner) int { return cmp.Compare(a.id, b.id) })
}
