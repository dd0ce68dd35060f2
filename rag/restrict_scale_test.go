package rag_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/storage/postgres"
	"github.com/hybridrag/hybridrag/vector"
)

// restrictDims is the vector size of TestRestrictionsAtScale: small, so
// that 100k chunks load in seconds; the geometry is hand-built.
const restrictDims = 16

// restrictCorpus is TestRestrictionsAtScale's data: docs documents of
// perDoc chunks each. Every document's text holds the query's words
// ("prazo de entrega do produto") and every chunk's vector is near the
// query's (unit 0), except the oldest document, "alvo", which shares one
// word with the query and whose chunks point away from it (distance
// about +1, the farthest of all). One chunk of "alvo" alone carries the
// metadata secao=anexo; every other chunk has secao=<its position>.
func restrictCorpus(docs, perDoc int) storage.Batch {
	var b storage.Batch
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for d := range docs {
		id, content := fmt.Sprintf("doc-%05d", d), fmt.Sprintf("Prazo de entrega do produto, documento %d.", d)
		sign := float32(1)
		if d == 0 {
			id, content, sign = "alvo", "Prazo de validade do selo.", -1
		}
		b.Documents = append(b.Documents, storage.Document{ID: id, Title: "Norma " + id, Content: content, CreatedAt: base.Add(time.Duration(d) * time.Minute)})
		chunks := make([]storage.Chunk, perDoc)
		for j := range chunks {
			v := make([]float32, restrictDims)
			v[0] = sign
			// A little spread, so that distances differ.
			v[1+(d+j)%(restrictDims-1)] = float32((d*7+j*13)%97) / 400
			meta := map[string]string{"secao": fmt.Sprint(j)}
			if d == 0 && j == perDoc/2 {
				meta["secao"] = "Anexo"
			}
			chunks[j] = storage.Chunk{Source: storage.SourceDoc, Seq: j, Content: fmt.Sprintf("%s, trecho %d.", content, j), Embedding: v, Metadata: meta}
		}
		b.Chunks = append(b.Chunks, storage.OwnerChunks{Owner: storage.OwnerRef{Kind: storage.KindDocument, ID: id}, Chunks: chunks})
	}
	return b
}

// TestRestrictionsAtScale: a document search restricted by chunk filters
// or document IDs finds the only matching chunk of 100k however far it is
// from the query vector and however few of the query's words its document
// shares, on both stores and in each leg. (The Searcher used to filter
// the store's best 1,000 candidates and nearest chunks, and missed it.)
// HYBRIDRAG_BENCH_LARGE=1 runs it at 500k chunks.
func TestRestrictionsAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 100k chunks")
	}
	docs, perDoc := 2000, 50
	if os.Getenv("HYBRIDRAG_BENCH_LARGE") != "" {
		docs = 10_000
	}
	batch := restrictCorpus(docs, perDoc)
	stores := []struct {
		name string
		open func(t *testing.T) storage.Store
	}{
		{"memory", func(t *testing.T) storage.Store {
			st, err := memory.New(memory.Options{Dimensions: restrictDims}).Tenant("t")
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Apply(t.Context(), batch); err != nil {
				t.Fatal(err)
			}
			return st
		}},
		{"postgres", func(t *testing.T) storage.Store {
			db := openPostgresDB(t, restrictDims, false)
			ctx := t.Context()
			st, err := db.Tenant("t")
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if err := db.BeginBulkLoad(ctx); err != nil {
				t.Fatal(err)
			}
			if err := st.Apply(ctx, batch); err != nil {
				t.Fatal(err)
			}
			if err := db.EndBulkLoad(ctx, postgres.BulkLoadOptions{}); err != nil {
				t.Fatal(err)
			}
			t.Logf("loaded %d chunks in %v", docs*perDoc, time.Since(start).Round(time.Millisecond))
			return st
		}},
	}
	query := make([]float32, restrictDims)
	query[0] = 1
	emb := vector.EmbedderFunc{Dims: restrictDims, Fn: func(_ context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i := range out {
			out[i] = query
		}
		return out, nil
	}}
	all := math.Inf(1)
	const text = "prazo de entrega do produto"
	for _, sc := range stores {
		t.Run(sc.name, func(t *testing.T) {
			s := rag.NewSearcher(sc.open(t), emb, rag.SearcherOptions{})
			ctx := t.Context()
			// Unrestricted, "alvo" is nowhere near the top.
			free, err := s.SearchDocuments(ctx, rag.Query{Text: text, Limit: 50, VectorThreshold: &all})
			if err != nil {
				t.Fatal(err)
			}
			if slices.ContainsFunc(free.Hits, func(h rag.Hit[storage.Document]) bool { return h.ID == "alvo" }) {
				t.Fatal("alvo is among the unrestricted hits: the test would prove nothing")
			}
			for _, tc := range []struct {
				name string
				q    rag.Query
			}{
				{"chunk filter", rag.Query{ChunkFilters: []storage.ChunkFilter{{Key: "secao", Value: "anexo"}}}},
				{"document IDs", rag.Query{DocumentIDs: []string{"alvo"}}},
			} {
				for _, legs := range []rag.Legs{rag.LegsLexical, rag.LegsVector, rag.LegsHybrid} {
					t.Run(tc.name+"/"+string(legs), func(t *testing.T) {
						q := tc.q
						q.Text, q.Limit, q.Legs, q.VectorThreshold = text, 10, legs, &all
						res, err := s.SearchDocuments(ctx, q)
						if err != nil {
							t.Fatal(err)
						}
						if len(res.Hits) != 1 || res.Hits[0].ID != "alvo" {
							t.Fatalf("hits %v, want alvo alone", docHitIDs(res.Hits))
						}
						h := res.Hits[0]
						if legs != rag.LegsLexical && h.Vector == nil {
							t.Errorf("the vector leg did not find alvo (fallback %q, %v)", res.FallbackReason, res.VectorError)
						}
						if legs != rag.LegsVector && h.Lexical == nil {
							t.Error("the lexical leg did not find alvo")
						}
						if len(tc.q.ChunkFilters) > 0 && h.Snippet != "Prazo de validade do selo., trecho 25." {
							t.Errorf("snippet %q, want the matching chunk's", h.Snippet)
						}
					})
				}
			}
		})
	}
}

func docHitIDs(hits []rag.Hit[storage.Document]) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}
