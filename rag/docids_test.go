package rag_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/vector"
)

// TestDocumentIDs: Query.DocumentIDs restricts both legs of a document
// search to the listed documents, on the memory store and on PostgreSQL.
func TestDocumentIDs(t *testing.T) {
	t.Run("memory", func(t *testing.T) {
		store, emb := ragtest.IndexedMemory(t)
		testDocumentIDs(t, store, emb)
	})
	t.Run("postgres", func(t *testing.T) {
		pg := openPostgres(t, ragtest.Dims, true)
		emb := ragtest.HashEmbedder(t)
		if _, err := ingest.NewIndexer(pg, emb, ingest.IndexerOptions{}).Reindex(context.Background(), ragtest.TestdataSources(t)); err != nil {
			t.Fatalf("index into postgres: %v", err)
		}
		testDocumentIDs(t, pg, emb)
	})
}

func testDocumentIDs(t *testing.T, store storage.Store, emb vector.Embedder) {
	ctx := context.Background()
	all := math.Inf(1)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	const text = "manejo de pragas"
	free, err := s.SearchDocuments(ctx, rag.Query{Text: text, Limit: 10, VectorThreshold: &all})
	if err != nil {
		t.Fatal(err)
	}
	if len(free.Hits) < 3 {
		t.Fatalf("unrestricted search: %d hits, want at least 3", len(free.Hits))
	}
	// The last hits, not the first: the restriction must bring them up.
	// want[0] is the last the lexical leg found, want[1] the last of all.
	want := []string{"", free.Hits[len(free.Hits)-1].ID}
	for _, h := range free.Hits {
		if h.Lexical != nil && h.Lexical.Rank > 0 && h.ID != want[1] {
			want[0] = h.ID
		}
	}
	if want[0] == "" {
		t.Fatalf("no lexical hit besides %s in %d hits", want[1], len(free.Hits))
	}
	for _, legs := range []rag.Legs{rag.LegsHybrid, rag.LegsLexical, rag.LegsVector} {
		t.Run(string(legs), func(t *testing.T) {
			res, err := s.SearchDocuments(ctx, rag.Query{Text: text, Limit: 10, Legs: legs, VectorThreshold: &all, DocumentIDs: append(want, "no-such-document")})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) == 0 {
				t.Fatal("no hits")
			}
			found := false
			for _, h := range res.Hits {
				if h.ID != want[0] && h.ID != want[1] {
					t.Errorf("hit %s is not in %v", h.ID, want)
				}
				found = found || h.ID == want[0]
			}
			if legs != rag.LegsVector && !found {
				t.Errorf("%s, found by the lexical leg unrestricted, is missing", want[0])
			}
			if legs != rag.LegsLexical && res.VectorCount == 0 {
				t.Errorf("vector leg found none of %v (fallback %q, %v)", want, res.FallbackReason, res.VectorError)
			}
			if legs != rag.LegsVector && res.LexicalCount > len(want) {
				t.Errorf("lexical count %d, want at most %d", res.LexicalCount, len(want))
			}
		})
	}
	res, err := s.SearchDocuments(ctx, rag.Query{Text: text, DocumentIDs: []string{"no-such-document"}})
	if err != nil || len(res.Hits) != 0 {
		t.Errorf("unknown document: %d hits, err %v; want none", len(res.Hits), err)
	}
}

func TestDocumentIDsInvalid(t *testing.T) {
	ctx := context.Background()
	store, emb := ragtest.IndexedMemory(t)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprintf("doc-%d", i)
	}
	tests := []struct {
		name, field, reason string
		kind                storage.OwnerKind
		ids                 []string
	}{
		{"empty", "document_ids[1]", "empty ID", storage.KindDocument, []string{"a", ""}},
		{"blank", "document_ids[0]", "empty ID", storage.KindDocument, []string{" \t"}},
		{"NUL", "document_ids[0]", "not a valid ID", storage.KindDocument, []string{"a\x00b"}},
		{"too long", "document_ids[0]", "not a valid ID", storage.KindDocument, []string{strings.Repeat("x", storage.MaxIDLength+1)}},
		{"too many", "document_ids", "101 IDs, at most 100", storage.KindDocument, many},
		{"catalog", "document_ids", "document searches only", storage.KindItem, []string{"a"}},
		{"faq", "document_ids", "document searches only", storage.KindFAQ, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := rag.Query{Text: "manejo", DocumentIDs: tt.ids}
			var err error
			switch tt.kind {
			case storage.KindItem:
				_, err = s.SearchCatalog(ctx, q)
			case storage.KindFAQ:
				_, err = s.SearchFAQs(ctx, q)
			default:
				_, err = s.SearchDocuments(ctx, q)
			}
			var ve *storage.ValidationError
			if !errors.Is(err, rag.ErrInvalidQuery) || !errors.As(err, &ve) {
				t.Fatalf("err = %v, want a *storage.ValidationError wrapping ErrInvalidQuery", err)
			}
			if ve.Field != tt.field || !strings.Contains(ve.Reason, tt.reason) {
				t.Errorf("field %q reason %q, want %q with %q", ve.Field, ve.Reason, tt.field, tt.reason)
			}
		})
	}
	// 100 IDs are accepted.
	if _, err := s.SearchDocuments(ctx, rag.Query{Text: "manejo", DocumentIDs: many[:100]}); err != nil {
		t.Errorf("100 IDs: %v", err)
	}
}
