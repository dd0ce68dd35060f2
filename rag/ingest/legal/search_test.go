package legal_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/ingest/legal"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
)

// indexLaw indexes the law and a manual that also speaks of fines but has
// no articles.
func indexLaw(t *testing.T, store storage.Backend) *rag.Searcher {
	t.Helper()
	emb := ragtest.HashEmbedder(t)
	ix := ingest.NewIndexer(store, emb, ingest.IndexerOptions{
		DocumentChunker: smallSections(t),
		Extractors:      []ingest.Extractor{legal.New(legal.Options{})},
	})
	manual := load.ParsedDocument{Document: storage.Document{ID: "manual", Title: "Manual do guardião",
		Content: "A multa ambiental é paga no fundo municipal. O guardião cuida do pomar urbano."}}
	if _, err := ix.IndexDocuments(context.Background(), []load.ParsedDocument{lei(t), manual}); err != nil {
		t.Fatal(err)
	}
	return rag.NewSearcher(store, emb, rag.SearcherOptions{})
}

// TestChunkFilteredSearch searches the law with artigo=5: every leg
// returns only the law, with its evidence and snippet from Art. 5º.
func TestChunkFilteredSearch(t *testing.T) {
	stores := map[string]func(t *testing.T) storage.Backend{
		"memory": func(t *testing.T) storage.Backend {
			s, err := memory.New(memory.Options{Dimensions: ragtest.Dims}).Tenant("t")
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		"postgres": func(t *testing.T) storage.Backend {
			s, err := ragtest.PostgresDB(t).Tenant(ragtest.TenantName(t))
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := indexLaw(t, open(t))
			all := math.Inf(1)
			art5 := []storage.ChunkFilter{{Key: legal.KeyArtigo, Value: "5"}}
			for _, legs := range []rag.Legs{rag.LegsLexical, rag.LegsVector, rag.LegsHybrid} {
				t.Run(string(legs), func(t *testing.T) {
					unfiltered, err := s.SearchDocuments(ctx, rag.Query{Text: "multa pomar urbano", Legs: legs, VectorThreshold: &all})
					if err != nil {
						t.Fatal(err)
					}
					if len(unfiltered.Hits) != 2 {
						t.Fatalf("unfiltered: %d hits, want the law and the manual", len(unfiltered.Hits))
					}
					res, err := s.SearchDocuments(ctx, rag.Query{Text: "multa pomar urbano", Legs: legs, VectorThreshold: &all, ChunkFilters: art5})
					if err != nil {
						t.Fatal(err)
					}
					if len(res.Hits) != 1 || res.Hits[0].ID != "lei_1234.txt" {
						t.Fatalf("hits = %v, want the law alone", hitIDs(res.Hits))
					}
					h := res.Hits[0]
					if h.Vector != nil && h.Vector.Metadata[legal.KeyArtigo] != "5" {
						t.Errorf("vector evidence from chunk %v", h.Vector.Metadata)
					}
					for _, other := range []string{"Art. 4º", "Art. 6º", "Dispõe"} {
						if strings.Contains(h.Snippet, other) {
							t.Errorf("snippet has %q, outside Art. 5º: %q", other, h.Snippet)
						}
					}
					if !strings.Contains(h.Snippet, "multa") {
						t.Errorf("snippet %q, want Art. 5º's text on fines", h.Snippet)
					}
				})
			}
			t.Run("several filters and normalized values", func(t *testing.T) {
				res, err := s.SearchDocuments(ctx, rag.Query{Text: "infração", VectorThreshold: &all, ChunkFilters: []storage.ChunkFilter{
					{Key: legal.KeyArtigo, Value: "5"}, {Key: legal.KeyParagrafo, Value: "3"}, {Key: legal.MarcaSTF, Value: "TRUE"},
				}})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Hits) != 1 || !strings.Contains(res.Hits[0].Snippet, "STF") {
					t.Fatalf("hits = %v", res.Hits)
				}
			})
			t.Run("seed query_by_tipo", func(t *testing.T) {
				for _, tt := range []struct {
					consulta string
					want     string // in the snippet
					hits     int
				}{
					{legal.ConsultaJurisprudencia, "STF", 1},
					{legal.ConsultaQuestao, "CEBRASPE", 1},
					{legal.ConsultaArtigo, "multa", 1},
					{legal.ConsultaTodos, "multa", 2},
				} {
					cf, err := legal.ConsultaFilters(tt.consulta)
					if err != nil {
						t.Fatal(err)
					}
					res, err := s.SearchDocuments(ctx, rag.Query{Text: "multa", VectorThreshold: &all, ChunkFilters: cf})
					if err != nil {
						t.Fatal(err)
					}
					if len(res.Hits) != tt.hits || !strings.Contains(res.Hits[0].Snippet, tt.want) {
						t.Errorf("%s: hits %v, first snippet %q; want %d, with %q", tt.consulta, hitIDs(res.Hits), res.Hits[0].Snippet, tt.hits, tt.want)
					}
				}
			})
			t.Run("no chunk matches", func(t *testing.T) {
				res, err := s.SearchDocuments(ctx, rag.Query{Text: "multa", VectorThreshold: &all, ChunkFilters: []storage.ChunkFilter{{Key: legal.KeyArtigo, Value: "99"}}})
				if err != nil || len(res.Hits) != 0 {
					t.Fatalf("hits = %v, err %v; want none", hitIDs(res.Hits), err)
				}
			})
			t.Run("invalid filter", func(t *testing.T) {
				_, err := s.SearchDocuments(ctx, rag.Query{Text: "multa", ChunkFilters: []storage.ChunkFilter{{Key: " ", Value: "5"}}})
				if !errors.Is(err, rag.ErrInvalidQuery) || !strings.Contains(err.Error(), "empty key") {
					t.Fatalf("err = %v", err)
				}
			})
		})
	}
}

// TestDocumentTypeFilter filters documents on the extracted act type, a
// document-level key, with a storage filter.
func TestDocumentTypeFilter(t *testing.T) {
	store, err := memory.New(memory.Options{Dimensions: ragtest.Dims, AllowedMetadataKeys: []string{legal.KeyDocumentType}}).Tenant("t")
	if err != nil {
		t.Fatal(err)
	}
	s := indexLaw(t, store)
	res, err := s.SearchDocuments(context.Background(), rag.Query{Text: "multa guardião", Filters: []storage.Filter{
		{Field: storage.FieldMetadata, Key: legal.KeyDocumentType, Value: legal.Lei},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if ids := hitIDs(res.Hits); len(ids) != 1 || ids[0] != "lei_1234.txt" {
		t.Fatalf("hits = %v, want the law alone", ids)
	}
}

func hitIDs[T any](hits []rag.Hit[T]) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}
