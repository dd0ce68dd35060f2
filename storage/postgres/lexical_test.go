package postgres_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/postgres"
)

type lexHit struct {
	ID string
	M  int
}

func lexHits(t *testing.T, s storage.Store, q storage.LexicalQuery) []lexHit {
	t.Helper()
	res, err := s.SearchItems(testCtx(t), q)
	if err != nil {
		t.Fatalf("SearchItems(%q): %v", q.Terms, err)
	}
	out := make([]lexHit, len(res))
	for i, r := range res {
		out[i] = lexHit{r.Record.ID, r.TermsMatched}
	}
	return out
}

// TestLexicalWindow checks the bounded (windowed) lexical query against the
// exhaustive ranking on data where common words match far more rows than
// the window: identical for one and two terms (the documented guarantee),
// and for more terms every returned count is exact and the order is the
// ranking order.
func TestLexicalWindow(t *testing.T) {
	db, pool := openDB(t, postgres.Options{Dimensions: 4})
	schema := db.Options().Schema
	const limit = 10
	windowed := postgres.New(pool, postgres.Options{Dimensions: 4, Schema: schema, LexicalWindow: 2 * limit})
	exhaustive := postgres.New(pool, postgres.Options{Dimensions: 4, Schema: schema, LexicalWindow: -1})
	ws, _ := windowed.Tenant("w")
	es, _ := exhaustive.Tenant("w")

	// Word i of the vocabulary appears in about 1/(i+1) of the items, so the
	// first words match hundreds of rows and the last ones a few. Creation
	// times repeat, so ties on created_at are broken by ID.
	vocab := []string{"soja", "milho", "cafe", "lagarta", "ferrugem", "percevejo", "trigo", "algodao", "uva", "mosca", "broca", "acaro"}
	rng := rand.New(rand.NewPCG(5, 6))
	var items []storage.CatalogItem
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 1500 {
		var ws []string
		for j, w := range vocab {
			if rng.IntN(j+2) == 0 {
				ws = append(ws, w)
			}
		}
		it := storage.CatalogItem{
			ID:          fmt.Sprintf("it-%04d", rng.IntN(100000)*10000+i),
			Name:        "Produto " + strings.Join(ws, " "),
			Description: "texto",
			CreatedAt:   base.Add(time.Duration(rng.IntN(300)) * time.Hour),
		}
		if rng.IntN(15) == 0 {
			it.Status = storage.StatusInactive
		}
		items = append(items, it)
	}
	if err := ws.UpsertItems(testCtx(t), items); err != nil {
		t.Fatal(err)
	}

	queries := [][]string{{"soja"}, {"so"}, {"acaro"}, {"soja", "milho"}, {"soja", "acaro"}, {"broca", "acaro"},
		{"cafe", "uva"}, {"nada", "soja"}, {"produto", "texto"}}
	for range 30 {
		k := 1 + rng.IntN(2)
		var q []string
		for range k {
			q = append(q, vocab[rng.IntN(len(vocab))])
		}
		queries = append(queries, q)
	}
	for _, terms := range queries {
		t.Run(strings.Join(terms, "+"), func(t *testing.T) {
			q := storage.LexicalQuery{Terms: terms, Limit: limit}
			want := lexHits(t, es, q)
			got := lexHits(t, ws, q)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("windowed vs exhaustive (-want +got):\n%s", d)
			}
		})
	}

	// Adversarial data: "alfa" and "bravo" each in 200 new items, together
	// only in 5 old ones (only the all-terms window finds them); "delta" in
	// 15 middle-aged items that all also hold the very common "charlie", so
	// their count needs strpos for "charlie" (its window is cut short).
	adv, _ := windowed.Tenant("adv")
	advExact, _ := exhaustive.Tenant("adv")
	var advItems []storage.CatalogItem
	add := func(id string, hoursAgo int, words ...string) {
		advItems = append(advItems, storage.CatalogItem{ID: id, Name: strings.Join(words, " "),
			CreatedAt: base.Add(time.Duration(10000-hoursAgo) * time.Hour)})
	}
	for i := range 200 {
		add(fmt.Sprintf("a%03d", i), i, "alfa")
		add(fmt.Sprintf("b%03d", i), i, "bravo")
		add(fmt.Sprintf("c%03d", i), i, "charlie")
	}
	for i := range 5 {
		add(fmt.Sprintf("ab%d", i), 5000+i, "alfa bravo")
	}
	for i := range 15 {
		add(fmt.Sprintf("cd%02d", i), 1000+i, "charlie delta")
	}
	if err := adv.UpsertItems(testCtx(t), advItems); err != nil {
		t.Fatal(err)
	}
	for _, terms := range [][]string{{"alfa", "bravo"}, {"delta", "charlie", "echo"}, {"charlie", "delta"}} {
		t.Run("adversarial/"+strings.Join(terms, "+"), func(t *testing.T) {
			q := storage.LexicalQuery{Terms: terms, Limit: limit}
			want := lexHits(t, advExact, q)
			if len(want) == 0 || want[0].M < 2 {
				t.Fatalf("bad fixture: exhaustive ranking %v", want)
			}
			if d := cmp.Diff(want, lexHits(t, adv, q)); d != "" {
				t.Errorf("windowed vs exhaustive (-want +got):\n%s", d)
			}
		})
	}

	// Three to five terms: no equality guarantee, but every count is exact
	// and the order is the ranking order.
	exact := map[string]storage.CatalogItem{}
	for _, it := range items {
		exact[it.ID] = it
	}
	for i := range 20 {
		k := 3 + rng.IntN(3)
		var terms []string
		for range k {
			terms = append(terms, vocab[rng.IntN(len(vocab))])
		}
		t.Run(fmt.Sprintf("many/%d", i), func(t *testing.T) {
			got := lexHits(t, ws, storage.LexicalQuery{Terms: terms, Limit: limit})
			want := lexHits(t, es, storage.LexicalQuery{Terms: terms, Limit: limit})
			if len(got) != len(want) {
				t.Errorf("got %d hits, want %d", len(got), len(want))
			}
			norm := storage.NormalizeTerms(terms)
			for _, h := range got {
				it := exact[h.ID]
				m := 0
				for _, term := range norm {
					if strings.Contains(storage.ItemSearchText(&it), term) {
						m++
					}
				}
				if m != h.M {
					t.Errorf("%s: TermsMatched = %d, want %d", h.ID, h.M, m)
				}
			}
			if !slices.IsSortedFunc(got, func(a, b lexHit) int {
				if a.M != b.M {
					return b.M - a.M
				}
				ca, cb := exact[a.ID].CreatedAt, exact[b.ID].CreatedAt
				if c := cb.Compare(ca); c != 0 {
					return c
				}
				return strings.Compare(a.ID, b.ID)
			}) {
				t.Errorf("hits not in ranking order: %v", got)
			}
		})
	}
}
