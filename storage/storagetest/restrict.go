package storagetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/storage"
)

// restrictFixture stores documents whose chunks carry metadata, with exact
// inner products with unit(0):
//
//	near  seq 0 at -1    {"artigo": "4", "tipo": "caput"}
//	near  seq 1 at -0.75 {"artigo": "4", "tipo": "Inciso"}
//	mid   seq 0 at -0.5  {"artigo": "5", "tipo": "CAPUT"}
//	mid   seq 1 at -0.25 (no metadata)
//	far   seq 0 at +1    {"artigo": "5", "tipo": "inciso", "nota": "Atenção"}
//	off   seq 0 at -1    {"artigo": "5"} (inactive)
//	plain seq 0 at -1    (no metadata, no embedding on seq 1)
//
// Every document's text holds "multa"; "far" is the oldest, so that a
// search for it ranks it last.
func restrictFixture(t *testing.T, st storage.Backend) {
	t.Helper()
	upsertDocs(t, st,
		storage.Document{ID: "near", Title: "Multa near", CreatedAt: at(5)},
		storage.Document{ID: "mid", Title: "Multa mid", CreatedAt: at(4)},
		storage.Document{ID: "far", Title: "Multa far", CreatedAt: at(1)},
		storage.Document{ID: "off", Title: "Multa off", CreatedAt: at(6), Status: storage.StatusInactive},
		storage.Document{ID: "plain", Title: "Multa plain", CreatedAt: at(3)},
	)
	meta := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	ch := func(seq int, emb []float32, m map[string]string) storage.Chunk {
		return storage.Chunk{Source: storage.SourceDoc, Seq: seq, Content: fmt.Sprint("chunk ", seq), Embedding: emb, Metadata: m}
	}
	replace(t, st, docRef("near"), ch(0, unit(0), meta("artigo", "4", "tipo", "caput")), ch(1, vec(0.75, 0.5), meta("artigo", "4", "tipo", "Inciso")))
	replace(t, st, docRef("mid"), ch(0, vec(0.5, 0.75), meta("artigo", "5", "tipo", "CAPUT")), ch(1, vec(0.25, 1), nil))
	replace(t, st, docRef("far"), ch(0, vec(-1), meta("artigo", "5", "tipo", "inciso", "nota", "Atenção")))
	replace(t, st, docRef("off"), ch(0, unit(0), meta("artigo", "5")))
	replace(t, st, docRef("plain"), ch(0, unit(0), nil), ch(1, nil, meta("artigo", "9")))
}

func restrictTests() []testCase {
	doc := func(id string, seq int, d float64) hit { return hit{id, storage.SourceDoc, seq, d} }
	vecTests := []struct {
		name    string
		owners  []string
		filters []storage.ChunkFilter
		want    []hit
	}{
		{"none", nil, nil, []hit{doc("near", 0, -1), doc("plain", 0, -1), doc("near", 1, -0.75), doc("mid", 0, -0.5), doc("mid", 1, -0.25), doc("far", 0, 1)}},
		{"one key, farthest kept", nil, []storage.ChunkFilter{{Key: "artigo", Value: "5"}}, []hit{doc("mid", 0, -0.5), doc("far", 0, 1)}},
		{"values normalized", nil, []storage.ChunkFilter{{Key: "tipo", Value: " Caput "}}, []hit{doc("near", 0, -1), doc("mid", 0, -0.5)}},
		{"accents ignored", nil, []storage.ChunkFilter{{Key: "nota", Value: "ATENCAO"}}, []hit{doc("far", 0, 1)}},
		{"alternatives on one key", nil, []storage.ChunkFilter{{Key: "artigo", Value: "4"}, {Key: "artigo", Value: "5"}},
			[]hit{doc("near", 0, -1), doc("near", 1, -0.75), doc("mid", 0, -0.5), doc("far", 0, 1)}},
		{"keys ANDed on one chunk", nil, []storage.ChunkFilter{{Key: "artigo", Value: "5"}, {Key: "tipo", Value: "inciso"}}, []hit{doc("far", 0, 1)}},
		{"keys are exact", nil, []storage.ChunkFilter{{Key: "Artigo", Value: "5"}}, nil},
		{"missing key", nil, []storage.ChunkFilter{{Key: "paragrafo", Value: "1"}}, nil},
		{"chunk without embedding", nil, []storage.ChunkFilter{{Key: "artigo", Value: "9"}}, nil},
		{"owner IDs", []string{"far", "plain", "nope"}, nil, []hit{doc("plain", 0, -1), doc("far", 0, 1)}},
		{"owner IDs and filters", []string{"near", "far"}, []storage.ChunkFilter{{Key: "tipo", Value: "inciso"}}, []hit{doc("near", 1, -0.75), doc("far", 0, 1)}},
		{"inactive owner listed", []string{"off"}, nil, nil},
	}
	lexTests := []struct {
		name    string
		owners  []string
		filters []storage.ChunkFilter
		want    []string
	}{
		{"none", nil, nil, []string{"near", "mid", "plain", "far"}},
		{"owners with a matching chunk", nil, []storage.ChunkFilter{{Key: "artigo", Value: "5"}}, []string{"mid", "far"}},
		{"chunk without embedding counts", nil, []storage.ChunkFilter{{Key: "artigo", Value: "9"}}, []string{"plain"}},
		{"keys ANDed on one chunk", nil, []storage.ChunkFilter{{Key: "artigo", Value: "4"}, {Key: "tipo", Value: "CAPUT"}}, []string{"near"}},
		{"no chunk holds both", nil, []storage.ChunkFilter{{Key: "artigo", Value: "4"}, {Key: "nota", Value: "atencao"}}, nil},
		{"owner IDs", []string{"far", "near"}, nil, []string{"near", "far"}},
		{"owner IDs and filters", []string{"far", "near"}, []storage.ChunkFilter{{Key: "tipo", Value: "inciso"}}, []string{"near", "far"}},
		{"inactive owner", []string{"off"}, nil, nil},
	}
	return []testCase{
		{"Vector", func(t *testing.T, s *suite) {
			st := s.store(t)
			restrictFixture(t, st)
			for _, tc := range vecTests {
				t.Run(tc.name, func(t *testing.T) {
					q := storage.VectorQuery{Kind: storage.KindDocument, Vector: unit(0), MaxDistance: storage.NoThreshold, Limit: 100,
						OwnerIDs: tc.owners, ChunkFilters: tc.filters}
					diff(t, "hits", tc.want, searchHits(t, st, q))
				})
			}
			t.Run("limit 1 returns the nearest match", func(t *testing.T) {
				q := storage.VectorQuery{Kind: storage.KindDocument, Vector: unit(0), MaxDistance: storage.NoThreshold, Limit: 1,
					ChunkFilters: []storage.ChunkFilter{{Key: "nota", Value: "atenção"}}}
				diff(t, "hits", []hit{doc("far", 0, 1)}, searchHits(t, st, q))
			})
			t.Run("threshold still applies", func(t *testing.T) {
				q := storage.VectorQuery{Kind: storage.KindDocument, Vector: unit(0), MaxDistance: 0, Limit: 10,
					ChunkFilters: []storage.ChunkFilter{{Key: "artigo", Value: "5"}}}
				diff(t, "hits", []hit{doc("mid", 0, -0.5)}, searchHits(t, st, q))
			})
			t.Run("matches carry their metadata as stored", func(t *testing.T) {
				ms, err := st.SearchChunks(ctx(t), storage.VectorQuery{Kind: storage.KindDocument, Vector: unit(0), MaxDistance: storage.NoThreshold,
					Limit: 1, ChunkFilters: []storage.ChunkFilter{{Key: "nota", Value: "atencao"}}})
				must(t, err)
				if len(ms) != 1 || ms[0].Chunk.Metadata["nota"] != "Atenção" {
					t.Fatalf("matches = %+v, want far's chunk with nota=Atenção", ms)
				}
			})
		}},
		{"Lexical", func(t *testing.T, s *suite) {
			st := s.store(t)
			restrictFixture(t, st)
			for _, tc := range lexTests {
				t.Run(tc.name, func(t *testing.T) {
					got, err := st.Documents().Search(ctx(t), storage.LexicalQuery{Terms: []string{"multa"}, Limit: 100,
						OwnerIDs: tc.owners, ChunkFilters: tc.filters})
					must(t, err)
					diff(t, "candidates", tc.want, docIDs(got))
				})
			}
			t.Run("limit 1 returns the best match", func(t *testing.T) {
				got, err := st.Documents().Search(ctx(t), storage.LexicalQuery{Terms: []string{"multa", "far"}, Limit: 1,
					ChunkFilters: []storage.ChunkFilter{{Key: "artigo", Value: "5"}}})
				must(t, err)
				if len(got) != 1 || got[0].Record.ID != "far" || got[0].TermsMatched != 2 {
					t.Fatalf("candidates = %v, want far matching 2 terms", docIDs(got))
				}
			})
			t.Run("terms still rank", func(t *testing.T) {
				got, err := st.Documents().Search(ctx(t), storage.LexicalQuery{Terms: []string{"far", "mid", "multa"}, Limit: 10,
					OwnerIDs: []string{"far", "mid", "near"}})
				must(t, err)
				diff(t, "candidates", []string{"mid", "far", "near"}, docIDs(got))
			})
		}},
		{"Items", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st, storage.CatalogItem{ID: "x", Name: "Adubo x", CreatedAt: at(2)}, storage.CatalogItem{ID: "y", Name: "Adubo y", CreatedAt: at(1)})
			replace(t, st, itemRef("x"), storage.Chunk{Source: storage.SourceItem, Content: "x", Embedding: unit(0), Metadata: map[string]string{"lote": "A"}})
			replace(t, st, itemRef("y"), storage.Chunk{Source: storage.SourceFile, Content: "y", Embedding: vec(-1), Metadata: map[string]string{"lote": "b"}})
			f := []storage.ChunkFilter{{Key: "lote", Value: "B"}}
			diff(t, "items", []string{"y"}, searchItemIDs(t, st, storage.LexicalQuery{Terms: []string{"adubo"}, ChunkFilters: f}))
			diff(t, "hits", []hit{{"y", storage.SourceFile, 0, 1}}, searchHits(t, st, storage.VectorQuery{Kind: storage.KindItem, Vector: unit(0),
				MaxDistance: storage.NoThreshold, Limit: 1, ChunkFilters: f}))
			diff(t, "items", []string{"x"}, searchItemIDs(t, st, storage.LexicalQuery{Terms: []string{"adubo"}, OwnerIDs: []string{"x"}}))
		}},
		{"Invalid", func(t *testing.T, s *suite) {
			st := s.store(t)
			many := make([]string, storage.MaxOwnerIDs+1)
			for i := range many {
				many[i] = fmt.Sprint("d", i)
			}
			for _, tc := range []struct {
				name    string
				owners  []string
				filters []storage.ChunkFilter
			}{
				{"empty key", nil, []storage.ChunkFilter{{Key: " ", Value: "x"}}},
				{"long key", nil, []storage.ChunkFilter{{Key: strings.Repeat("k", storage.MaxChunkFilterKey+1), Value: "x"}}},
				{"long value", nil, []storage.ChunkFilter{{Key: "k", Value: strings.Repeat("v", storage.MaxChunkFilterValue+1)}}},
				{"NUL in value", nil, []storage.ChunkFilter{{Key: "k", Value: "a\x00b"}}},
				{"too many filters", nil, make([]storage.ChunkFilter, storage.MaxChunkFilters+1)},
				{"too many owners", many, nil},
				{"invalid owner ID", []string{""}, nil},
			} {
				t.Run(tc.name, func(t *testing.T) {
					_, err := st.Documents().Search(ctx(t), storage.LexicalQuery{Terms: []string{"multa"}, OwnerIDs: tc.owners, ChunkFilters: tc.filters})
					wantErr(t, err, storage.ErrInvalidFilter)
					_, err = st.SearchChunks(ctx(t), storage.VectorQuery{Kind: storage.KindDocument, Vector: unit(0), OwnerIDs: tc.owners, ChunkFilters: tc.filters})
					wantErr(t, err, storage.ErrInvalidFilter)
				})
			}
		}},
	}
}
