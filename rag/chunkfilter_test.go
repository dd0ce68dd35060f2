package rag_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/storage"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
)

func TestChunkFilters(t *testing.T) {
	ctx := context.Background()
	store, emb := ragtest.IndexedMemory(t)
	all := math.Inf(1)
	tests := []struct {
		name    string
		store   storage.Store
		q       rag.Query
		wantErr error
		errText string
	}{
		{name: "empty key", store: store, q: rag.Query{ChunkFilters: []storage.ChunkFilter{{Key: "", Value: "x"}}}, wantErr: rag.ErrInvalidQuery, errText: "empty key"},
		{name: "long key", store: store, q: rag.Query{ChunkFilters: []storage.ChunkFilter{{Key: strings.Repeat("k", 65), Value: "x"}}}, wantErr: rag.ErrInvalidQuery, errText: "key longer"},
		{name: "long value", store: store, q: rag.Query{ChunkFilters: []storage.ChunkFilter{{Key: "k", Value: strings.Repeat("v", 257)}}}, wantErr: rag.ErrInvalidQuery, errText: "value longer"},
		{name: "no chunk has the key", store: store, q: rag.Query{ChunkFilters: []storage.ChunkFilter{{Key: "k", Value: "v"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := rag.NewSearcher(tt.store, emb, rag.SearcherOptions{})
			q := tt.q
			q.Text, q.VectorThreshold = "fungicida", &all
			res, err := s.SearchCatalog(ctx, q)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("err = %v, want %v with %q", err, tt.wantErr, tt.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) != 0 {
				t.Errorf("%d hits, want none: no chunk carries the key", len(res.Hits))
			}
		})
	}
	// Without chunk filters the same query finds items: the filters, not
	// the query, emptied the results above.
	res, err := rag.NewSearcher(store, emb, rag.SearcherOptions{}).SearchCatalog(ctx, rag.Query{Text: "fungicida", VectorThreshold: &all})
	if err != nil || len(res.Hits) == 0 {
		t.Fatalf("unfiltered: %v hits, err %v", len(res.Hits), err)
	}
}
