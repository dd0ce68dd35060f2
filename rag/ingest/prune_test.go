package ingest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
)

func pruneSources() ingest.Sources {
	return ingest.Sources{
		Items: []storage.CatalogItem{
			{ID: "a", Name: "Adubo", Files: []storage.CatalogFile{{Name: "bula.txt", Text: "Aplicar no plantio."}}},
			{ID: "b", Name: "Bomba costal"},
			{ID: "c", Name: "Calcário"},
		},
		FAQs: []storage.FAQ{
			{ID: "f1", Question: "Qual o prazo?", Answer: "Dez dias."},
			{ID: "f2", Question: "Entregam?", Answer: "Sim."},
		},
		Documents: []load.ParsedDocument{
			{Document: storage.Document{ID: "d1", Title: "Manual", Content: "Manual de uso."}},
			{Document: storage.Document{ID: "d2", Title: "Lei", Content: "Art. 1º Texto."}},
		},
	}
}

// ids lists the IDs of a kind the store holds and the owners of its
// chunks.
func ids(t *testing.T, s storage.Backend, kind storage.OwnerKind) (records, chunkOwners string) {
	t.Helper()
	ctx := context.Background()
	var got []string
	switch kind {
	case storage.KindItem:
		l, err := s.Items().List(ctx, storage.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range l {
			got = append(got, r.ID)
		}
	case storage.KindFAQ:
		l, _ := s.FAQs().List(ctx, storage.Page{Limit: 100})
		for _, r := range l {
			got = append(got, r.ID)
		}
	case storage.KindDocument:
		l, _ := s.Documents().List(ctx, storage.Page{Limit: 100})
		for _, r := range l {
			got = append(got, r.ID)
		}
	}
	refs, err := s.ChunkRefs(ctx, kind, nil)
	if err != nil {
		t.Fatal(err)
	}
	var owners []string
	for _, r := range refs {
		if len(owners) == 0 || owners[len(owners)-1] != r.Owner.ID {
			owners = append(owners, r.Owner.ID)
		}
	}
	return strings.Join(got, ","), strings.Join(owners, ",")
}

func TestReindexPrune(t *testing.T) {
	eachStore(t, func(t *testing.T, open func(t *testing.T) *recordingStore) {
		ctx := context.Background()
		type want struct{ items, faqs, docs string }
		tests := []struct {
			name   string
			prune  bool
			src    func(ingest.Sources) ingest.Sources
			pruned int
			want   want
		}{
			{
				name: "off by default",
				src: func(s ingest.Sources) ingest.Sources {
					s.Items, s.FAQs, s.Documents = s.Items[:1], s.FAQs[:1], s.Documents[:1]
					return s
				},
				want:  want{"a,b,c", "f1,f2", "d1,d2"},
				prune: false,
			},
			{
				name: "records absent from the source go with their chunks",
				src: func(s ingest.Sources) ingest.Sources {
					s.Items = []storage.CatalogItem{s.Items[0], s.Items[2]}
					s.FAQs, s.Documents = s.FAQs[1:], s.Documents[1:]
					return s
				},
				prune: true, pruned: 3,
				want: want{"a,c", "f2", "d2"},
			},
			{
				name:  "a kind without records is left alone",
				src:   func(s ingest.Sources) ingest.Sources { s.Items, s.FAQs = s.Items[1:2], nil; return s },
				prune: true, pruned: 2,
				want: want{"b", "f1,f2", "d1,d2"},
			},
			{
				name: "a stored document a source document duplicates is kept",
				src: func(s ingest.Sources) ingest.Sources {
					dup := s.Documents[0]
					dup.ID = "d9"
					s.Documents = []load.ParsedDocument{dup}
					return s
				},
				prune: true, pruned: 1,
				want: want{"a,b,c", "f1,f2", "d1"},
			},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				store := open(t)
				emb := ragtest.HashEmbedder(t)
				if _, err := ingest.NewIndexer(store, emb, ingest.IndexerOptions{}).Reindex(ctx, pruneSources()); err != nil {
					t.Fatal(err)
				}
				ix := ingest.NewIndexer(store, emb, ingest.IndexerOptions{Prune: tt.prune, WriteBatch: 1})
				st, err := ix.Reindex(ctx, tt.src(pruneSources()))
				if err != nil {
					t.Fatal(err)
				}
				if st.Pruned != tt.pruned {
					t.Errorf("Pruned = %d, want %d (%s)", st.Pruned, tt.pruned, st)
				}
				if tt.pruned > 0 && !strings.Contains(st.String(), "pruned=") {
					t.Errorf("String() = %q, want pruned=", st)
				}
				for _, k := range []struct {
					kind storage.OwnerKind
					want string
				}{{storage.KindItem, tt.want.items}, {storage.KindFAQ, tt.want.faqs}, {storage.KindDocument, tt.want.docs}} {
					recs, owners := ids(t, store, k.kind)
					if recs != k.want || owners != k.want {
						t.Errorf("%ss: records %q, chunk owners %q; want %q", k.kind, recs, owners, k.want)
					}
				}
			})
		}
	})
}
