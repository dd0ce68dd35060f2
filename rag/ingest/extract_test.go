package ingest_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/rag/chunk"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
)

// seqExtractor writes each chunk's Seq and the document's chunk count.
var seqExtractor = ingest.ExtractorFunc(func(_ context.Context, doc *storage.Document, chunks []storage.Chunk) error {
	if doc.Metadata == nil {
		doc.Metadata = map[string]string{}
	}
	doc.Metadata["chunks"] = strconv.Itoa(len(chunks))
	for i := range chunks {
		if chunks[i].Metadata == nil {
			chunks[i].Metadata = map[string]string{}
		}
		chunks[i].Metadata["n"] = strconv.Itoa(chunks[i].Seq)
	}
	return nil
})

func TestExtractors(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(t *testing.T) *recordingStore) {
		ctx := context.Background()
		t.Run("writes document and chunk metadata", func(t *testing.T) {
			store := open(t)
			ix := ingest.NewIndexer(store, ragtest.HashEmbedder(t), ingest.IndexerOptions{Extractors: []ingest.Extractor{seqExtractor}})
			meta := map[string]string{"lang": "pt"}
			docs := []load.ParsedDocument{{Document: storage.Document{ID: "d1", Title: "T", Content: "Texto curto.", Metadata: meta}}}
			items := []storage.CatalogItem{{ID: "i1", Name: "Produto"}}
			if _, err := ix.Reindex(ctx, ingest.Sources{Items: items, Documents: docs}); err != nil {
				t.Fatal(err)
			}
			if len(meta) != 1 {
				t.Errorf("caller's map modified: %v", meta)
			}
			d, err := store.Documents().Get(ctx, "d1")
			if err != nil {
				t.Fatal(err)
			}
			if d.Metadata["chunks"] != "1" || d.Metadata["lang"] != "pt" {
				t.Errorf("document metadata = %v", d.Metadata)
			}
			cs, err := store.Chunks(ctx, storage.OwnerRef{Kind: storage.KindDocument, ID: "d1"})
			if err != nil || len(cs) != 1 || cs[0].Metadata["n"] != "0" {
				t.Fatalf("chunks = %+v, %v", cs, err)
			}
			is, _ := store.Chunks(ctx, storage.OwnerRef{Kind: storage.KindItem, ID: "i1"})
			if len(is) != 1 || is[0].Metadata != nil {
				t.Errorf("extractors ran for an item: %+v", is)
			}
			// Same input: nothing rewritten.
			st, err := ix.IndexDocuments(ctx, docs)
			if err != nil || st.Unchanged != 1 {
				t.Errorf("second run: %+v, %v", st, err)
			}
		})
		t.Run("error fails the group", func(t *testing.T) {
			store := open(t)
			boom := errors.New("boom")
			ix := ingest.NewIndexer(store, nil, ingest.IndexerOptions{Extractors: []ingest.Extractor{
				ingest.ExtractorFunc(func(context.Context, *storage.Document, []storage.Chunk) error { return boom }),
			}})
			st, err := ix.IndexDocuments(ctx, []load.ParsedDocument{{Document: storage.Document{ID: "d1", Content: "x"}}})
			if !errors.Is(err, boom) || st.Failed != 1 {
				t.Fatalf("err = %v, stats %+v", err, st)
			}
			if _, err := store.Documents().Get(ctx, "d1"); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("document written despite the error: %v", err)
			}
		})
	})
}

// sectioner cuts each document at every line starting "§", as a
// Sectioner; bad gives sections out of range.
type sectioner struct {
	ingest.ExtractorFunc
	bad bool
}

func (s sectioner) DocumentSections(_ context.Context, d *load.ParsedDocument) ([]chunk.Section, error) {
	if s.bad {
		return []chunk.Section{{Start: 0, End: len(d.Content) + 1, Level: 1}}, nil
	}
	var out []chunk.Section
	for off := 0; off < len(d.Content); {
		if strings.HasPrefix(d.Content[off:], "§") {
			if n := len(out); n > 0 {
				out[n-1].End = off
			}
			out = append(out, chunk.Section{Start: off, End: len(d.Content), Level: 1, HeadingPath: []string{d.Content[off : off+3]}})
		}
		n := strings.IndexByte(d.Content[off:], '\n')
		if n < 0 {
			break
		}
		off += n + 1
	}
	return out, nil
}

func newMemStore(t *testing.T) storage.Backend {
	t.Helper()
	s, err := memory.New(memory.Options{Dimensions: ragtest.Dims}).Tenant("t")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSectioner: an extractor that is a Sectioner gives the sections the
// structural splitter cuts the document by, before the extractors run;
// the caller's document is unchanged; invalid sections fail the document.
func TestSectioner(t *testing.T) {
	ctx := context.Background()
	store := newMemStore(t)
	noop := ingest.ExtractorFunc(func(context.Context, *storage.Document, []storage.Chunk) error { return nil })
	ix := ingest.NewIndexer(store, ragtest.HashEmbedder(t), ingest.IndexerOptions{Extractors: []ingest.Extractor{sectioner{ExtractorFunc: noop}}})
	docs := []load.ParsedDocument{{Document: storage.Document{ID: "d", Title: "T", Content: "Início.\n§1 Um.\n§2 Dois.\n§3 Três."}}}
	if _, err := ix.IndexDocuments(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if docs[0].Sections != nil {
		t.Errorf("caller's sections changed: %v", docs[0].Sections)
	}
	cs, err := store.Chunks(ctx, storage.OwnerRef{Kind: storage.KindDocument, ID: "d"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		got = append(got, c.Content+" @"+strings.Join(c.HeadingPath, "/"))
	}
	want := []string{"Início. @T", "§1 Um. @T/§1", "§2 Dois. @T/§2", "§3 Três. @T/§3"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("chunks %q, want %q", got, want)
	}
	bad := ingest.NewIndexer(newMemStore(t), ragtest.HashEmbedder(t), ingest.IndexerOptions{Extractors: []ingest.Extractor{sectioner{ExtractorFunc: noop, bad: true}}})
	if _, err := bad.IndexDocuments(ctx, docs); !errors.Is(err, chunk.ErrInvalidSections) {
		t.Errorf("invalid sections: err %v, want ErrInvalidSections", err)
	}
}
