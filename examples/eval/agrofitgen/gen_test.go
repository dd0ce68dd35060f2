package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/examples/internal/eval"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
)

func testItem(id, category string, tags []string, manufacturer, ingredients, targets string) storage.CatalogItem {
	return storage.CatalogItem{
		ID: id, Name: "P " + id, Category: category, Manufacturer: manufacturer, Tags: tags, Status: storage.StatusActive,
		Metadata: map[string]string{"ingredientes": ingredients},
		Files:    []storage.CatalogFile{{Name: "indicacoes.txt", Text: "Culturas registradas: x.\nAlvos biológicos (pragas, doenças e plantas daninhas): " + targets + ".\nClasse toxicológica: 4."}},
	}
}

func TestParseItem(t *testing.T) {
	it := testItem("a", "Acaricida/Fungicida microbiológico", []string{"Uva", "Arroz irrigado"}, "Syngenta Proteção de Cultivos Ltda.",
		"azoxistrobina (estrobilurina) (250 g/L) + glifosato-sal de amônio (x)", "Lagarta-militar (Spodoptera frugiperda); Ácaro-rajado (Tetranychus urticae); buva")
	x := parseItem(&it)
	if !x.classes["acaricida"] || !x.classes["fungicida"] || len(x.classes) != 2 {
		t.Errorf("classes %v", x.classes)
	}
	if !x.hasCrop("Uva") || !x.hasCrop("Arroz") || x.hasCrop("Soja") || x.hasCrop("Arr") {
		t.Errorf("crops %v", x.crops)
	}
	want := []pest{
		{common: "lagarta-militar", sci: "spodoptera frugiperda", display: "lagarta-militar"},
		{common: "acaro-rajado", sci: "tetranychus urticae", display: "ácaro-rajado"},
		{common: "buva", display: "buva"},
	}
	if !slices.Equal(x.pests, want) {
		t.Errorf("pests %+v, want %+v", x.pests, want)
	}
	if !x.targets("lagarta-do-cartucho", "spodoptera frugiperda") || x.targets("percevejo", "euschistus heros") {
		t.Error("targets by scientific name")
	}
	if got := ingredientBase("glifosato-sal de amônio (x)"); got != "glifosato" {
		t.Errorf("ingredientBase = %q", got)
	}
	if !containsWordPrefix(x.ingredients, "glifosato") || containsWordPrefix(x.ingredients, "fosato") {
		t.Error("containsWordPrefix")
	}
}

func TestJudgeClassCrop(t *testing.T) {
	items := []item{
		parseItem(ptr(testItem("exact", "Fungicida", []string{"Uva"}, "", "", ""))),
		parseItem(ptr(testItem("compound", "Acaricida/Fungicida", []string{"Uva", "Soja"}, "", "", ""))),
		parseItem(ptr(testItem("all", "Fungicida", []string{"Todas as culturas"}, "", "", ""))),
		parseItem(ptr(testItem("other-crop", "Fungicida", []string{"Soja"}, "", "", ""))),
		parseItem(ptr(testItem("other-class", "Herbicida", []string{"Uva"}, "", "", ""))),
	}
	got := judgeClassCrop(items, "fungicida", crop{tag: "Uva"})
	want := map[string]int{"exact": 2, "compound": 2, "all": 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("judgements %v, want %v", got, want)
	}
}

func ptr[T any](v T) *T { return &v }

// synthetic returns a catalog with enough items for every query type.
func synthetic() []storage.CatalogItem {
	var out []storage.CatalogItem
	classes := []string{"Fungicida", "Herbicida", "Inseticida", "Acaricida/Inseticida"}
	cropsTags := [][]string{{"Uva", "Soja"}, {"Milho", "Algodão"}, {"Café", "Cana-de-açúcar"}, {"Todas as culturas"}, {"Pastagens", "Tomate"}}
	makers := []string{"Syngenta Proteção de Cultivos Ltda.", "Basf S.A.", "Bayer S.A."}
	ings := []string{"azoxistrobina (estrobilurina) (250 g/L)", "glifosato-sal de amônio (x)", "tebuconazol (triazol) (200 g/L)"}
	targets := []string{"Lagarta-militar (Spodoptera frugiperda); Ferrugem (Phakopsora pachyrhizi)", "Buva (Conyza bonariensis); Ácaro-rajado (Tetranychus urticae)"}
	for i := range 120 {
		out = append(out, testItem(fmt.Sprintf("i%03d", i), classes[i%len(classes)], cropsTags[i%len(cropsTags)],
			makers[i%len(makers)], ings[i%len(ings)], targets[i%len(targets)]))
	}
	return out
}

func TestGeneratorDeterministic(t *testing.T) {
	gen := func(seed uint64) *generator {
		g := newGenerator(synthetic(), seed)
		g.run()
		return g
	}
	a, b := gen(7), gen(7)
	if !slices.Equal(a.queries, b.queries) || !slices.Equal(a.qrels, b.qrels) {
		t.Fatal("same seed, different output")
	}
	if c := gen(8); slices.Equal(a.queries, c.queries) {
		t.Error("another seed gave the same queries")
	}
	seen := map[string]bool{}
	judged := map[string]int{}
	for _, j := range a.qrels {
		if j.Grade == gradeExact {
			judged[j.QueryID]++
		}
	}
	for _, q := range a.queries {
		key := lexical.Normalize(q.Text)
		if seen[key] {
			t.Errorf("duplicate query %q", q.Text)
		}
		seen[key] = true
		if judged[q.ID] < minRelevant {
			t.Errorf("query %s %q has %d grade-2 items", q.ID, q.Text, judged[q.ID])
		}
		if q.Split != eval.SplitOf(q.ID) {
			t.Errorf("query %s split %q", q.ID, q.Split)
		}
		if q.Type == typeNoAccent && lexical.Normalize(q.Text) != q.Text {
			t.Errorf("no_accent query %q has accents", q.Text)
		}
	}
	if a.perType[typeClassCrop] == 0 || a.perType[typeTypo] == 0 || a.perType[typeColloquial] == 0 {
		t.Errorf("types generated: %v", a.perType)
	}
}

func TestTypo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, w := range []string{"fungicida", "inseticida", "herbicida", "algodão", "milho"} {
		for range 20 {
			got := typo(rng, w)
			if got == w {
				continue // a swap of equal letters is skipped by the caller
			}
			a, b := lexical.Normalize(w), lexical.Normalize(got)
			if d := editDistance(a, b); d < 1 || d > 2 {
				t.Errorf("typo(%q) = %q: %d edits", w, got, d)
			}
			if strings.Count(got, " ") != 0 {
				t.Errorf("typo(%q) = %q has a space", w, got)
			}
		}
	}
}

// editDistance is a plain Levenshtein distance with adjacent
// transpositions, for the test.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range rb {
		d[0][j+1] = j + 1
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
