package rag_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hybridrag/hybridrag/merge"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// goldenQueries are pt-BR questions a store's customers ask, with the
// catalog's vocabulary, colloquial words, missing accents and typos.
var goldenQueries = []string{
	"fungicida para videira",
	"herbicida para cana",
	"lagarta no milho",
	"percevejo na soja",
	"remédio pra matar mato no pasto",
	"acaro no algodao",
	"ferrugem asiática da soja",
	"adubo foliar com boro",
}

type goldenRanking struct {
	Query  string              `json:"query"`
	Method string              `json:"method"`
	Hits   []goldenRankingItem `json:"hits"`
}

type goldenRankingItem struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Source string `json:"source"`
}

// TestGoldenRankings pins the top-5 of each fusion method over testdata;
// run with -update after an intended ranking change and review the diff.
func TestGoldenRankings(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
	var got []goldenRanking
	for _, method := range []merge.Method{merge.MethodWeighted, merge.MethodRRF, merge.MethodSimple} {
		for _, q := range goldenQueries {
			query := rag.Query{Text: q, Limit: 5, Fusion: method}
			if method == merge.MethodSimple {
				query.Fusion = merge.MethodSimple
			}
			res, err := s.SearchCatalog(context.Background(), query)
			if err != nil {
				t.Fatal(err)
			}
			g := goldenRanking{Query: q, Method: string(method)}
			for _, h := range res.Hits {
				g.Hits = append(g.Hits, goldenRankingItem{ID: h.ID, Name: h.Record.Name, Source: string(h.Source)})
			}
			got = append(got, g)
		}
	}
	path := filepath.Join("testdata", "golden_rankings.json")
	if *update {
		b, _ := json.MarshalIndent(got, "", "  ")
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./rag -run TestGoldenRankings -update)", err)
	}
	var want []goldenRanking
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rankings changed (-want +got):\n%s", diff)
	}
}
