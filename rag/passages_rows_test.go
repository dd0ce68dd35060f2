package rag

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
)

// doseValue is a dose as the testdata leaflets write it: "500 mL/ha",
// "2,0 a 3,0 kg/ha", "14 mL/100 L".
var doseValue = regexp.MustCompile(`\d+(?:,\d+)?(?: a \d+(?:,\d+)?)? ?(?:mL|L|kg|g)(?:/(?:ha|100 L|100 kg))?`)

// cropLine is a crop line of a testdata leaflet (a table row, a "Na
// cultura da …" line or a list item naming a crop and a dose) and its item.
type cropLine struct {
	item       *storage.CatalogItem
	crop, dose string
}

// cropLines returns the crop lines of testdata's leaflets, generated from
// the data (no case written by hand); lines of items whose name holds the
// crop are left out.
func cropLines(t *testing.T) []cropLine {
	t.Helper()
	items, err := load.LoadCatalog(context.Background(), "../testdata/catalog.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []cropLine
	for i := range items {
		it := &items[i]
		for _, f := range it.Files {
			for _, line := range strings.Split(f.Text, "\n") {
				crop := ""
				for _, m := range defaultQuoter.syn.Detect(line) {
					if m.Category == lexical.CategorySubject {
						crop = m.Text
						break
					}
				}
				dose := doseValue.FindString(line)
				n := strings.TrimLeft(lexical.Normalize(line), "•- ")
				if crop == "" || dose == "" || strings.Contains(lexical.Normalize(it.Name), crop) ||
					!(strings.HasPrefix(n, crop) || strings.Contains(n[:min(len(n), 40)], "cultura d")) {
					continue
				}
				out = append(out, cropLine{it, crop, dose})
			}
		}
	}
	if len(out) < 200 {
		t.Fatalf("%d crop lines found, want the testdata leaflets' ~250", len(out))
	}
	return out
}

// TestPassagesPickTheCropRow asks, for every crop line of every leaflet
// of testdata's catalog (cropLines), "qual a dose do <item> na <crop>?",
// and wants the context's first passage to be a line naming that crop
// with that dose.
func TestPassagesPickTheCropRow(t *testing.T) {
	lines := cropLines(t)
	first := 0
	var misses []string
	for _, l := range lines {
		q := fmt.Sprintf("qual a dose do %s na %s?", l.item.Name, l.crop)
		ps := defaultQuoter.prepare(q).itemPassages(l.item)
		if len(ps) > 0 && strings.Contains(ps[0], l.dose) && strings.Contains(lexical.Normalize(ps[0]), l.crop) {
			first++
		} else {
			misses = append(misses, fmt.Sprintf("%s: %q → %q", l.item.ID, q, ps))
		}
	}
	total := len(lines)
	if share := float64(first) / float64(total); share < 0.97 {
		t.Errorf("the crop's line comes first for %d of %d questions (%.3f), want ≥ 0.97; misses:\n%s", first, total, share, strings.Join(misses, "\n"))
	}
}

// TestPassagesClassQuestionPicksTheCropRow asks, for the same crop lines,
// what a customer asks of the item's class ("tem fungicida pra uva?"), and
// wants the first passage to name the crop: the item's category, like its
// name, says what every unit of it is about, so the description ("Fungicida
// cúprico de contato…") does not win on the class word.
func TestPassagesClassQuestionPicksTheCropRow(t *testing.T) {
	lines := cropLines(t)
	first := 0
	var misses []string
	for _, l := range lines {
		class := strings.ToLower(strings.TrimSpace(strings.Split(l.item.Category, "/")[0]))
		q := fmt.Sprintf("tem %s pra %s?", class, l.crop)
		ps := defaultQuoter.prepare(q).itemPassages(l.item)
		if len(ps) > 0 && strings.Contains(lexical.Normalize(ps[0]), l.crop) {
			first++
		} else {
			misses = append(misses, fmt.Sprintf("%s: %q → %q", l.item.ID, q, ps))
		}
	}
	total := len(lines)
	t.Logf("the crop's line comes first for %d of %d class questions", first, total)
	if share := float64(first) / float64(total); share < 0.95 {
		t.Errorf("the crop's line comes first for %d of %d questions (%.3f), want ≥ 0.95; misses:\n%s", first, total, share, strings.Join(misses, "\n"))
	}
}

// TestPassagesOneCropItem: an item registered for one crop is about it in
// every unit, so the crop named in a question about something else does
// not pull the crop's dose row ahead of the line that answers. Pastonet
// Max (testdata, pasture only): "posso plantar feijão depois?" is answered
// by "Não plantar culturas de folha larga na área por 2 anos."; a question
// on the crop alone still quotes the crop's row.
func TestPassagesOneCropItem(t *testing.T) {
	items, err := load.LoadCatalog(context.Background(), "../testdata/catalog.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	var it *storage.CatalogItem
	for i := range items {
		if items[i].ID == "prd-024" {
			it = &items[i]
		}
	}
	if it == nil || len(it.Tags) != 1 {
		t.Fatalf("testdata's prd-024 (Pastonet Max, one crop) not found: %v", it)
	}
	for _, q := range []string{
		"passei pastonet max no pasto, quanto tempo depois posso plantar feijao ali?",
		"usei o pastonet max no pasto. depois de quanto tempo posso plantar soja nessa área?",
	} {
		ps := defaultQuoter.prepare(q).itemPassages(it)
		if len(ps) == 0 || !strings.Contains(ps[0], "2 anos") {
			t.Errorf("%q → %q, want the planting line (2 anos) first", q, ps)
		}
	}
	// Without a kind of value asked, "plantar" also matches "plantas
	// daninhas" (wordKeys conflates a verb with its noun): the planting line
	// ties with two others, but the pasture's row no longer leads.
	if ps := defaultQuoter.prepare("passei pastonet max no pasto, depois posso plantar feijao ali?").itemPassages(it); len(ps) == 0 || strings.HasPrefix(ps[0], "Culturas, alvos e doses") {
		t.Errorf("the planting question → %q, want no dose row first", ps)
	}
	if ps := defaultQuoter.prepare("qual a dose do pastonet max no pasto?").itemPassages(it); len(ps) == 0 || !strings.Contains(ps[0], "L/ha") {
		t.Errorf("the dose question → %q, want the pasture's dose row first", ps)
	}
}
