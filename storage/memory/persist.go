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

// Snapshot format, version 1: the 8-byte magic "HRAGMEM\x00", a
// little-endian uint32 version, then a gob stream of snapHeader, for each
// tenant a snapTenant followed by its owners (snapOwner, items then FAQs
// then documents, each sorted by ID), and a snapTrailer holding the
// CRC-32C of every byte before it. Embeddings are packed little-endian
// float32 bytes.
const (
	snapMagic   = "HRAGMEM\x00"
	snapVersion = 1
)

type snapHeader struct {
	Dims    int
	Tenants int
}

type snapTenant struct {
	ID                     string
	Items, FAQs, Documents int
}

type snapOwner struct {
	Item   *storage.CatalogItem
	FAQ    *storage.FAQ
	Doc    *storage.Document
	Chunks []snapChunk
}

type snapChunk struct {
	Source      storage.ChunkSource
	Seq         int
	Content     string
	ContentHash string
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
			so := snapOwner{Item: o.item, FAQ: o.faq, Doc: o.doc, Chunks: make([]snapChunk, len(o.chunks))}
			for i, c := range o.chunks {
				sc := snapChunk{Source: c.c.Source, Seq: c.c.Seq, Content: c.c.Content, ContentHash: c.c.ContentHash, Metadata: c.c.Metadata}
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
// with ErrSnapshotVersion.
func Load(r io.Reader, opts Options) (*DB, error) {
	cr := &crcReader{r: bufio.NewReaderSize(r, 1<<20), crc: crc32.New(castagnoli)}
	var head [len(snapMagic) + 4]byte
	if _, err := io.ReadFull(cr, head[:]); err != nil {
		return nil, corrupt("header", err)
	}
	if string(head[:len(snapMagic)]) != snapMagic {
		return nil, corrupt("header", errors.New("not a hybridrag memory snapshot"))
	}
	if v := binary.LittleEndian.Uint32(head[len(snapMagic):]); v != snapVersion {
		return nil, fmt.Errorf("%w: version %d, this build reads %d", ErrSnapshotVersion, v, snapVersion)
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
			return nil, corrupt("tenant header", fmt.Errorf("tenant %q twice", th.ID))
		}
		if th.Items < 0 || th.FAQs < 0 || th.Documents < 0 {
			return nil, corrupt("tenant header", fmt.Errorf("negative counts for tenant %q", th.ID))
		}
		t := newTenant(db.dims)
		db.tenants[th.ID] = t
		for ki, n := range [3]int{th.Items, th.FAQs, th.Documents} {
			for range n {
				var so snapOwner
				if err := dec.Decode(&so); err != nil {
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

// load restores one saved owner of kind index ki into t.
func (t *tenant) load(dims, ki int, so *snapOwner) error {
	var o *owner
	var ref storage.OwnerRef
	var b storage.Batch
	switch {
	case ki == 0 && so.Item != nil && so.FAQ == nil && so.Doc == nil:
		b.Items = []storage.CatalogItem{*so.Item}
		o, ref = prepareItem(*so.Item), storage.OwnerRef{Kind: storage.KindItem, ID: so.Item.ID}
	case ki == 1 && so.FAQ != nil && so.Item == nil && so.Doc == nil:
		b.FAQs = []storage.FAQ{*so.FAQ}
		o, ref = prepareFAQ(*so.FAQ), storage.OwnerRef{Kind: storage.KindFAQ, ID: so.FAQ.ID}
	case ki == 2 && so.Doc != nil && so.Item == nil && so.FAQ == nil:
		b.Documents = []storage.Document{*so.Doc}
		o, ref = prepareDoc(*so.Doc), storage.OwnerRef{Kind: storage.KindDocument, ID: so.Doc.ID}
	default:
		return errors.New("owner record of the wrong kind")
	}
	chunks := make([]storage.Chunk, len(so.Chunks))
	for i, sc := range so.Chunks {
		c := storage.Chunk{Owner: ref, Source: sc.Source, Seq: sc.Seq, Content: sc.Content, ContentHash: sc.ContentHash, Metadata: sc.Metadata}
		if len(sc.Vec) > 0 {
			if len(sc.Vec) != 4*dims {
				return fmt.Errorf("%s %q: embedding of %d bytes, want %d", ref.Kind, ref.ID, len(sc.Vec), 4*dims)
			}
			c.Embedding = unpackVec(sc.Vec)
		}
		chunks[i] = c
	}
	b.Chunks = []storage.OwnerChunks{{Owner: ref, Chunks: chunks}}
	if err := storage.ValidateBatch(&b, dims); err != nil {
		return err
	}
	kd := t.kinds[ki]
	if _, dup := kd.owners[o.id]; dup {
		return fmt.Errorf("%s %q twice", ref.Kind, ref.ID)
	}
	if o.created.IsZero() {
		return fmt.Errorf("%s %q: no CreatedAt", ref.Kind, ref.ID)
	}
	if o.doc != nil {
		t.indexDoc(o.doc)
	}
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
