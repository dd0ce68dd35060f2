package ingest_test

import (
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
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
			d, err := store.GetDocument(ctx, "d1")
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
			if _, err := store.GetDocument(ctx, "d1"); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("document written despite the error: %v", err)
			}
		})
	})
}
