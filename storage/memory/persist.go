package memory

import (
	"bufio"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hybridrag/hybridrag/storage"
)

// Snapshot errors. Load wraps one of these, or storage.ErrDimensionMismatch
// when the snapshot's dimensions differ from Options.Dimensions.
var (
	// ErrCorruptSnapshot: the input is not a snapshot, is truncated, fails
	// its checksum or holds invalid records.
	ErrCorruptSnapshot = errors.New("memory: corrupt snapshot")
	// ErrSnapshotVersion: the snapshot was written by a newer, incompatible
	// format version.
	ErrSnapshotVersion = errors.New("memory: unsupported snapshot version")
)

// Snapshot format, version 2: the 8-byte magic "HRAGMEM\x00", a
// little-endian uint32 version, then a gob stream of snapHeader, for each
// tenant a snapTenant followed by its owners (snapOwner, items then FAQs
// then documents, each sorted by ID), and a snapTrailer holding the
// CRC-32C of every byte before it. Embeddings are packed little-endian
// float32 bytes.
//
// Version 1, which Load still reads, differed in two ways: a FAQ had
// Inactive bool where it now has Status (snapFAQv1), and a chunk had no
// Start, HeadingPath and File: rag's indexer wrote them as the metadata
// keys "start", "heading_path" and "file", which Load moves into the typed
// fields (liftLegacyMetadata). Documents of either version without a
// Status are active.
const (
	snapMagic   = "HRAGMEM\x00"
	snapVersion = 2
)

type snapHeader struct {
	Dims    int
	Tenants int
}

type snapTenant struct {
	ID                     string
	Items, FAQs, Documents int
}

// snapOwner is one saved record, exactly one of Item, FAQ and Doc, with its
// chunks.
type snapOwner struct {
	Item   *storage.CatalogItem
	FAQ    *storage.FAQ
	Doc    *storage.Document
	Chunks []snapChunk
}

// snapOwnerV1 is a snapOwner as version 1 wrote it.
type snapOwnerV1 struct {
	Item   *storage.CatalogItem
	FAQ    *snapFAQv1
	Doc    *storage.Document
	Chunks []snapChunk
}

// snapFAQv1 is storage.FAQ as version 1 snapshots hold it. It is frozen:
// gob matches fields by name, and these are the names version 1 wrote.
type snapFAQv1 struct {
	ID                   string
	Question, Answer     string
	Category             string
	Keywords             []string
	Priority             int
	Inactive             bool
	CreatedAt, UpdatedAt time.Time
}

// upgrade returns the version 2 form of a version 1 owner.
func (so *snapOwnerV1) upgrade() snapOwner {
	out := snapOwner{Item: so.Item, Doc: so.Doc, Chunks: so.Chunks}
	if f := so.FAQ; f != nil {
		out.FAQ = &storage.FAQ{
			ID: f.ID, Question: f.Question, Answer: f.Answer, Category: f.Category,
			Keywords: f.Keywords, Priority: f.Priority, Status: storage.StatusActive,
			CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt,
		}
		if f.Inactive {
			out.FAQ.Status = storage.StatusInactive
		}
	}
	for i := range out.Chunks {
		liftLegacyMetadata(&out.Chunks[i])
	}
	return out
}

// Metadata keys under which rag's indexer stored what Chunk.Start,
// HeadingPath and File now hold, before those fields existed; the heading
// path was joined with legacyHeadingSeparator.
const (
	legacyStartKey         = "start"
	legacyHeadingPathKey   = "heading_path"
	legacyFileKey          = "file"
	legacyHeadingSeparator = " › "
)

// liftLegacyMetadata moves a version 1 chunk's legacy metadata keys into
// its typed fields, as storage/postgres's migration 0002 does for the rows
// of older databases: "start" when it is a decimal number (up to 18
// digits; otherwise it stays in Metadata), "heading_path" split at " › "
// (an empty one is dropped), "file" as it is.
func liftLegacyMetadata(c *snapChunk) {
	if v, ok := c.Metadata[legacyStartKey]; ok && isDecimal(v) {
		c.Start, _ = strconv.Atoi(v)
		delete(c.Metadata, legacyStartKey)
	}
	if v, ok := c.Metadata[legacyHeadingPathKey]; ok {
		if v != "" {
			c.HeadingPath = strings.Split(v, legacyHeadingSeparator)
		}
		delete(c.Metadata, legacyHeadingPathKey)
	}
	if v, ok := c.Metadata[legacyFileKey]; ok {
		c.File = v
		delete(c.Metadata, legacyFileKey)
	}
	if len(c.Metadata) == 0 {
		c.Metadata = nil
	}
}

// isDecimal reports whether s is 1 to 18 ASCII digits.
func isDecimal(s string) bool {
	if len(s) == 0 || len(s) > 18 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

type snapChunk struct {
	Source      storage.ChunkSource
	Seq         int
	Content     string
	ContentHash string
	Start       int
	HeadingPath []string
	File        string
	Metadata    map[string]string
	// Vec is the embedding as little-endian float32 bytes; empty for none.
	Vec []byte
}

type snapTrailer struct {
	CRC uint32
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Save writes a snapshot of every non-empty tenant to w. Each tenant is
// read under its read lock, so it is saved as of one point in time; writes
// to other tenants may proceed meanwhile. Save does not close w.
func (db *DB) Save(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := bw.WriteString(snapMagic); err != nil {
		return fmt.Errorf("memory: save: %w", err)
	}
	if err := binary.Write(bw, binary.LittleEndian, uint32(snapVersion)); err != nil {
		return fmt.Errorf("memory: save: %w", err)
	}
	crc := crc32.New(castagnoli)
	crc.Write([]byte(snapMagic))
	binary.Write(crc, binary.LittleEndian, uint32(snapVersion))
	enc := gob.NewEncoder(io.MultiWriter(bw, crc))

	ids := db.Tenants()
	db.mu.RLock()
	tenants := make([]*tenant, len(ids))
	for i, id := range ids {
		tenants[i] = db.tenants[id]
	}
	db.mu.RUnlock()

	if err := enc.Encode(snapHeader{Dims: db.dims, Tenants: len(ids)}); err != nil {
		return fmt.Errorf("memory: save: %w", err)
	}
	for i, t := range tenants {
		if err := t.save(enc, ids[i]); err != nil {
			return fmt.Errorf("memory: save tenant %q: %w", ids[i], err)
		}
	}
	if err := enc.Encode(snapTrailer{CRC: crc.Sum32()}); err != nil {
		return fmt.Errorf("memory: save: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("memory: save: %w", err)
	}
	return nil
}

func (t *tenant) save(enc *gob.Encoder, id string) error {
	t.mu.RLock()
	defer t.mu.RUnlock()
	hdr := snapTenant{ID: id, Items: len(t.kinds[0].owners), FAQs: len(t.kinds[1].owners), Documents: len(t.kinds[2].owners)}
	if err := enc.Encode(hdr); err != nil {
		return err
	}
	for _, kd := range t.kinds {
		owners := slices.Clone(kd.list)
		sortOwners(owners)
		for _, o := range owners {
			so := snapOwner{Chunks: make([]snapChunk, len(o.chunks))}
			switch rec := o.rec.(type) {
			case *storage.CatalogItem:
				so.Item = rec
			case *storage.FAQ:
				so.FAQ = rec
			case *storage.Document:
				so.Doc = rec
			}
			for i, c := range o.chunks {
				sc := snapChunk{
					Source: c.c.Source, Seq: c.c.Seq, Content: c.c.Content, ContentHash: c.c.ContentHash,
					Start: c.c.Start, HeadingPath: c.c.HeadingPath, File: c.c.File, Metadata: c.c.Metadata,
				}
				if c.row >= 0 {
					sc.Vec = packVec(kd.vec(c.row))
				}
				so.Chunks[i] = sc
			}
			if err := enc.Encode(&so); err != nil {
				return err
			}
		}
	}
	return nil
}

// SaveFile writes a snapshot to path atomically: to a temporary file in the
// same directory (mode 0600), synced, then renamed over path. On error path
// is left as it was.
func (db *DB) SaveFile(path string) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("memory: save: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := db.Save(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("memory: save: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("memory: save: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("memory: save: %w", err)
	}
	return nil
}

// LoadFile reads a snapshot written by SaveFile; see Load.
func LoadFile(path string, opts Options) (*DB, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("memory: load: %w", err)
	}
	defer f.Close()
	return Load(f, opts)
}

// crcReader hashes exactly the bytes its reader consumes. It implements
// io.ByteReader so that gob reads from it directly, without buffering
// ahead.
type crcReader struct {
	r   *bufio.Reader
	crc hash.Hash32
}

func (c *crcReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.crc.Write(p[:n])
	return n, err
}

func (c *crcReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.crc.Write([]byte{b})
	}
	return b, err
}

// Load returns a new DB holding the snapshot read from r. opts configure
// the DB as for New, except that Dimensions zero means the snapshot's;
// a non-zero Dimensions that differs from the snapshot's fails with
// storage.ErrDimensionMismatch. Records and timestamps are restored as
// saved. Malformed input, or bytes after the snapshot, fails with
// ErrCorruptSnapshot, a newer format
// with ErrSnapshotVersion. Snapshots of version 1 (written before records
// had a common Status and chunks their typed fields) are upgraded as they
// load; see the format notes in persist.go.
func Load(r io.Reader, opts Options) (*DB, error) {
	cr := &crcReader{r: bufio.NewReaderSize(r, 1<<20), crc: crc32.New(castagnoli)}
	var head [len(snapMagic) + 4]byte
	if _, err := io.ReadFull(cr, head[:]); err != nil {
		return nil, corrupt("header", err)
	}
	if string(head[:len(snapMagic)]) != snapMagic {
		return nil, corrupt("header", errors.New("not a hybridrag memory snapshot"))
	}
	version := binary.LittleEndian.Uint32(head[len(snapMagic):])
	if version < 1 || version > snapVersion {
		return nil, fmt.Errorf("%w: version %d, this build reads 1 to %d", ErrSnapshotVersion, version, snapVersion)
	}
	dec := gob.NewDecoder(cr)
	var hdr snapHeader
	if err := dec.Decode(&hdr); err != nil {
		return nil, corrupt("header", err)
	}
	if hdr.Dims <= 0 || hdr.Tenants < 0 {
		return nil, corrupt("header", fmt.Errorf("dimensions %d, tenants %d", hdr.Dims, hdr.Tenants))
	}
	if opts.Dimensions != 0 && opts.Dimensions != hdr.Dims {
		return nil, fmt.Errorf("memory: load: snapshot has %d dimensions, want %d: %w", hdr.Dims, opts.Dimensions, storage.ErrDimensionMismatch)
	}
	opts.Dimensions = hdr.Dims
	db := New(opts)
	for range hdr.Tenants {
		var th snapTenant
		if err := dec.Decode(&th); err != nil {
			return nil, corrupt("tenant header", err)
		}
		if err := storage.ValidateTenant(th.ID); err != nil {
			return nil, corrupt("tenant header", err)
		}
		if _, dup := db.tenants[th.ID]; dup {
			return nil, corrupt("tenant header", fmt.Errorf("tenant %s twice", storage.QuoteID(th.ID)))
		}
		if th.Items < 0 || th.FAQs < 0 || th.Documents < 0 {
			return nil, corrupt("tenant header", fmt.Errorf("negative counts for tenant %s", storage.QuoteID(th.ID)))
		}
		t := newTenant(db.dims)
		t.version.Store(1) // loaded: written once
		db.tenants[th.ID] = t
		for ki, n := range [3]int{th.Items, th.FAQs, th.Documents} {
			for range n {
				so, err := decodeOwner(dec, version)
				if err != nil {
					return nil, corrupt("tenant "+th.ID, err)
				}
				if err := t.load(db.dims, ki, &so); err != nil {
					return nil, corrupt("tenant "+th.ID, err)
				}
			}
		}
	}
	sum := cr.crc.Sum32()
	var tr snapTrailer
	if err := dec.Decode(&tr); err != nil {
		return nil, corrupt("trailer", err)
	}
	if tr.CRC != sum {
		return nil, corrupt("trailer", fmt.Errorf("checksum %08x, computed %08x", tr.CRC, sum))
	}
	// The snapshot ends at its trailer: trailing bytes (a second snapshot
	// appended, a torn copy) are corruption, not data to ignore.
	if _, err := cr.r.ReadByte(); !errors.Is(err, io.EOF) {
		if err == nil {
			err = errors.New("data after the snapshot's trailer")
		}
		return nil, corrupt("trailer", err)
	}
	return db, nil
}

func corrupt(where string, err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%w: %s: %w", ErrCorruptSnapshot, where, err)
}

// decodeOwner reads the next owner of a snapshot of the given version.
func decodeOwner(dec *gob.Decoder, version uint32) (snapOwner, error) {
	if version == 1 {
		var so snapOwnerV1
		err := dec.Decode(&so)
		return so.upgrade(), err
	}
	var so snapOwner
	err := dec.Decode(&so)
	return so, err
}

// load restores one saved owner of kind index ki into t.
func (t *tenant) load(dims, ki int, so *snapOwner) error {
	switch {
	case ki == 0 && so.Item != nil && so.FAQ == nil && so.Doc == nil:
		return loadOwner(t, dims, items, *so.Item, so.Chunks)
	case ki == 1 && so.FAQ != nil && so.Item == nil && so.Doc == nil:
		return loadOwner(t, dims, faqs, *so.FAQ, so.Chunks)
	case ki == 2 && so.Doc != nil && so.Item == nil && so.FAQ == nil:
		return loadOwner(t, dims, docs, *so.Doc, so.Chunks)
	}
	return errors.New("owner record of the wrong kind")
}

// loadOwner validates a saved record of kind k with its chunks, as Apply
// would, and stores it in t with its saved timestamps.
func loadOwner[T any](t *tenant, dims int, k kindOps[T], rec T, saved []snapChunk) error {
	o := k.prepare(rec)
	ref := storage.OwnerRef{Kind: k.kind, ID: o.id}
	chunks := make([]storage.Chunk, len(saved))
	for i, sc := range saved {
		c := storage.Chunk{
			Owner: ref, Source: sc.Source, Seq: sc.Seq, Content: sc.Content, ContentHash: sc.ContentHash,
			Start: sc.Start, HeadingPath: sc.HeadingPath, File: sc.File, Metadata: sc.Metadata,
		}
		ownChunk(&c)
		if len(sc.Vec) > 0 {
			if len(sc.Vec) != 4*dims {
				return fmt.Errorf("%s %s: embedding of %d bytes, want %d", ref.Kind, storage.QuoteID(ref.ID), len(sc.Vec), 4*dims)
			}
			c.Embedding = unpackVec(sc.Vec)
		}
		chunks[i] = c
	}
	b := storage.Batch{Chunks: []storage.OwnerChunks{{Owner: ref, Chunks: chunks}}}
	*k.records(&b) = []T{rec}
	if err := storage.ValidateBatch(&b, dims); err != nil {
		return err
	}
	kd := t.kind(k.kind)
	if _, dup := kd.owners[o.id]; dup {
		return fmt.Errorf("%s %s twice", ref.Kind, storage.QuoteID(ref.ID))
	}
	if o.created.IsZero() {
		return fmt.Errorf("%s %s: no CreatedAt", ref.Kind, storage.QuoteID(ref.ID))
	}
	t.indexHash(o)
	slices.SortStableFunc(chunks, func(a, b storage.Chunk) int { return compareChunkKey(&a, &b) })
	kd.replaceChunks(kd.put(o), chunks)
	return nil
}

func packVec(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func unpackVec(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}
