package lexical

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenRecords are hand-written catalog items in the shape of AGROFIT
// entries (not copied from it).
var goldenRecords = []struct {
	ID  string
	Rec productRecord
}{
	{"fungicida-uva", productRecord{
		Name: "Vinhedo Protect 250 SC", Description: "Fungicida sistêmico para controle de míldio e oídio da videira.",
		Category: "Fungicida", Manufacturer: "Agro Exemplo Ltda.", Tags: []string{"Uva", "Tomate"},
	}},
	{"herbicida-cana", productRecord{
		Name: "Capinex 2,4-D", Description: "Herbicida seletivo pós-emergente para plantas daninhas de folha larga em canaviais e pastagens.",
		Category: "Herbicida", Manufacturer: "Química Modelo S.A.", Tags: []string{"Cana-de-açúcar", "Pastagens", "Soja"},
	}},
	{"inseticida-tomate", productRecord{
		Name: "Pulgafim", Description: "Inseticida de contato para pulgões, mosca-branca e lagartas do tomateiro.",
		Category: "Acaricida/Inseticida", Manufacturer: "Defesa Vegetal SA", Tags: []string{"Tomate", "Batata", "Pimentão"},
	}},
	{"fertilizante-cafe", productRecord{
		Name: "Nutrifoliar Café", Description: "Fertilizante foliar com boro e zinco para cafeeiros em produção.",
		Category: "Fertilizante", Manufacturer: "Nutri Campo", Tags: []string{"Café"},
	}},
	{"fungicida-soja", productRecord{
		Name: "Ferrugex", Description: "Fungicida para ferrugem asiática da soja; não indicado em dias de chuva forte.",
		Category: "Fungicida", Manufacturer: "Agro Exemplo Ltda.", Tags: []string{"Soja", "Feijão", "Trigo"},
	}},
}

var goldenQueries = []string{
	"fungicida para videira",
	"remédio pra fungo na uva",
	"Qual o melhor produto contra mato no canavial?",
	"2,4-D pastagem",
	"pulgões no tomateiro",
	"adubo foliar para café",
	"ferrugem da soja",
	"o que é isso?",
}

type goldenHit struct {
	Record  string  `json:"record"`
	Signals Signals `json:"signals"`
}

type goldenCase struct {
	Config     string      `json:"config"`
	Query      string      `json:"query"`
	Terms      []string    `json:"terms"`
	Mentions   []Mention   `json:"mentions"`
	Hits       []goldenHit `json:"hits"`
	ZeroScored []string    `json:"zero_scored,omitempty"`
}

func TestSignalsGolden(t *testing.T) {
	configs := []struct {
		name string
		opts ScorerOptions
	}{
		{"default", ScorerOptions{}},
		{"stem+word-prefix", ScorerOptions{Tokenizer: Tokenizer{Filters: []TokenFilter{StemFilter{}}}, Match: MatchWordPrefix}},
	}
	var got []goldenCase
	for _, c := range configs {
		s := NewScorer(c.opts)
		for _, query := range goldenQueries {
			q := s.Prepare(query)
			gc := goldenCase{Config: c.name, Query: query, Terms: q.Terms(), Mentions: q.Mentions()}
			for _, r := range goldenRecords {
				score, sig := q.Score(&r.Rec)
				if score == 0 {
					gc.ZeroScored = append(gc.ZeroScored, r.ID)
					continue
				}
				gc.Hits = append(gc.Hits, goldenHit{Record: r.ID, Signals: sig})
			}
			got = append(got, gc)
		}
	}
	checkGolden(t, "signals.golden.json", got)
}

func checkGolden(t *testing.T, name string, v any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./lexical -run Golden -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s differs from the golden file; run go test ./lexical -run Golden -update and review the diff\ngot:\n%s", path, buf.Bytes())
	}
}
