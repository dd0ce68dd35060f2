package ingest

import (
	"testing"

	"github.com/hybridrag/hybridrag/storage"
)

// A nil splitter means the default one, not a panic (issue 16).
func TestChunksWithNilSplitter(t *testing.T) {
	it := storage.CatalogItem{ID: "a", Name: "Fungiprot", Files: []storage.CatalogFile{{Name: "bula.txt", Text: "Dose: 400 mL/ha."}}}
	if got := itemChunks(&it, nil); len(got) != 2 {
		t.Errorf("itemChunks(nil splitter) = %d chunks, want 2", len(got))
	}
	f := storage.FAQ{ID: "f", Question: "Prazo?", Answer: "5 dias."}
	if got := faqChunks(&f, nil); len(got) != 2 {
		t.Errorf("faqChunks(nil splitter) = %d chunks, want 2", len(got))
	}
}
