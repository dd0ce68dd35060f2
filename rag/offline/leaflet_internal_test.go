package offline

import (
	"context"
	"github.com/hybridrag/hybridrag/rag/internal/passage"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage"
)

// internalRecords are the testdata items and documents by ID.
type internalRecords struct {
	items map[string]storage.CatalogItem
	docs  map[string]storage.Document
}

func loadInternalRecords(t testing.TB) internalRecords {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(filepath.Dir(file)))
	ctx := context.Background()
	items, err := load.LoadCatalog(ctx, filepath.Join(root, "testdata", "catalog.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := load.LoadDocuments(ctx, filepath.Join(root, "testdata", "documents"), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := internalRecords{items: map[string]storage.CatalogItem{}, docs: map[string]storage.Document{}}
	for _, it := range items {
		r.items[it.ID] = it
	}
	for _, d := range docs {
		r.docs[d.ID] = d.Document
	}
	return r
}

// fileText is the text of an item's attached file.
func (r internalRecords) fileText(t testing.TB, id, name string) string {
	t.Helper()
	for _, f := range r.items[id].Files {
		if f.Name == name {
			return f.Text
		}
	}
	t.Fatalf("%s has no file %s", id, name)
	return ""
}

func TestExtractLeafletTable(t *testing.T) {
	recs := loadInternalRecords(t)
	rows := parseLeaflet(recs.fileText(t, "prd-001", "bula.txt"), nil)
	if len(rows) != 5 {
		t.Fatalf("Fungiprot bula: %d rows, want 5: %+v", len(rows), rows)
	}
	want := leafletRow{
		Crop: "Café", Targets: "ferrugem (Hemileia vastatrix), cercosporiose (Cercospora coffeicola)",
		Dose: "400 mL/ha", Interval: "30 dias",
		Text: "Café | ferrugem (Hemileia vastatrix), cercosporiose (Cercospora coffeicola) | 400 mL/ha | 30 dias",
	}
	if !reflect.DeepEqual(rows[2], want) {
		t.Errorf("row 3 = %+v\nwant %+v", rows[2], want)
	}
}

func TestExtractLeafletFormats(t *testing.T) {
	tests := []struct {
		name, text string
		want       []leafletRow
	}{
		{name: "columns found by their header words, in any order",
			text: "Dosagem | Cultura | Carência (dias)\n1,0 L/ha | Soja | 30",
			want: []leafletRow{{Crop: "Soja", Dose: "1,0 L/ha", Interval: "30", Text: "1,0 L/ha | Soja | 30"}}},
		{name: "Markdown table",
			text: "| Cultura | Alvos | Dose |\n|---|---|---|\n| Milho | lagarta-do-cartucho | 100 mL/ha |",
			want: []leafletRow{{Crop: "Milho", Targets: "lagarta-do-cartucho", Dose: "100 mL/ha", Text: "Milho | lagarta-do-cartucho | 100 mL/ha"}}},
		{name: "table without dose or crop columns is no leaflet",
			text: "| Região | Prazo estimado |\n|---|---|\n| Norte e Nordeste | 6 a 12 dias úteis |"},
		{name: "bullet with labels (Tebucor)",
			text: "• Trigo: ferrugem-da-folha (Puccinia triticina), giberela (Fusarium graminearum). Dose: 750 mL/ha. Intervalo de segurança: 35 dias.",
			want: []leafletRow{{Crop: "Trigo", Targets: "ferrugem-da-folha (Puccinia triticina), giberela (Fusarium graminearum)", Dose: "750 mL/ha", Interval: "35 dias",
				Text: "Trigo: ferrugem-da-folha (Puccinia triticina), giberela (Fusarium graminearum). Dose: 750 mL/ha. Intervalo de segurança: 35 dias."}}},
		{name: "Na cultura sentence (Mancozan)",
			text: "Na cultura do tomate, controla requeima (Phytophthora infestans) e pinta-preta (Alternaria solani). Dose: 3,0 kg/ha; intervalo de segurança: 7 dias.",
			want: []leafletRow{{Crop: "tomate", Targets: "requeima (Phytophthora infestans) e pinta-preta (Alternaria solani)", Dose: "3,0 kg/ha", Interval: "7 dias",
				Text: "Na cultura do tomate, controla requeima (Phytophthora infestans) e pinta-preta (Alternaria solani). Dose: 3,0 kg/ha; intervalo de segurança: 7 dias."}}},
		{name: "fertilizer bullet: the use is the dose",
			text: "Doses:\n• Soja e milho: 0,5 L/ha em V3 a V5, ou logo após um período de estresse.",
			want: []leafletRow{{Crop: "Soja e milho", Dose: "0,5 L/ha em V3 a V5, ou logo após um período de estresse", Text: "Soja e milho: 0,5 L/ha em V3 a V5, ou logo após um período de estresse."}}},
		{name: "general Dose line (Fixa_Max)",
			text: "Dose: 30 a 50 mL para cada 100 L de calda. Em aplicações de baixo volume, 50 mL/ha.",
			want: []leafletRow{{Dose: "30 a 50 mL para cada 100 L de calda. Em aplicações de baixo volume, 50 mL/ha", Text: "Dose: 30 a 50 mL para cada 100 L de calda. Em aplicações de baixo volume, 50 mL/ha."}}},
		{name: "labels that are not crops",
			text: "Semeadura: 5 a 8 kg/ha de semente com VC 80%.\nComposição: azoxistrobina 250 g/L."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseLeaflet(tt.text, nil); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseLeaflet =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

// TestExtractLeafletEveryItem checks that every leaflet of the testdata
// catalog with a crop table or crop lines yields rows with a dose.
func TestExtractLeafletEveryItem(t *testing.T) {
	recs := loadInternalRecords(t)
	for id, it := range recs.items {
		for _, f := range it.Files {
			for _, r := range parseLeaflet(f.Text, nil) {
				if r.Dose == "" {
					t.Errorf("%s %s: row without dose: %+v", id, f.Name, r)
				}
			}
		}
	}
	for _, tc := range []struct {
		id   string
		rows int
	}{{"prd-001", 5}, {"prd-002", 6}, {"prd-003", 5}, {"prd-017", 5}, {"prd-057", 5}, {"prd-074", 1}} {
		n := 0
		for _, f := range recs.items[tc.id].Files {
			n += len(parseLeaflet(f.Text, nil))
		}
		if n != tc.rows {
			t.Errorf("%s: %d rows, want %d", tc.id, n, tc.rows)
		}
	}
}

func TestExtractSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Pedidos confirmados até as 14h de dias úteis são despachados no mesmo dia. Nas capitais, a entrega leva de 2 a 5 dias úteis.",
			[]string{"Pedidos confirmados até as 14h de dias úteis são despachados no mesmo dia.", "Nas capitais, a entrega leva de 2 a 5 dias úteis."}},
		{"Grupo de maturação: 7.4. Ciclo: 125 a 132 dias.", []string{"Grupo de maturação: 7.4.", "Ciclo: 125 a 132 dias."}},
		{"Controla Xanthomonas spp. e requeima. Buva (C. sumatrensis) resiste.", []string{"Controla Xanthomonas spp. e requeima.", "Buva (C. sumatrensis) resiste."}},
		{"Espécie: Urochloa brizantha cv. Marandu. Valor cultural: 80%.", []string{"Espécie: Urochloa brizantha cv. Marandu.", "Valor cultural: 80%."}},
		{"Sim! Entregamos.\nPosso pagar? Pode.", []string{"Sim!", "Entregamos.", "Posso pagar?", "Pode."}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := passage.SplitSentences(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitSentences(%q) =\n%q\nwant\n%q", tt.in, got, tt.want)
		}
	}
}

func TestMarkdownSections(t *testing.T) {
	recs := loadInternalRecords(t)
	secs := passage.MarkdownSections(recs.docs["politica-de-trocas-e-entregas.md"].Content)
	var prazos *passage.Section
	for i := range secs {
		if secs[i].Heading() == "Política de trocas, devoluções e entregas › Entregas › Prazos" {
			prazos = &secs[i]
		}
	}
	if prazos == nil {
		t.Fatalf("no Prazos section in %d sections", len(secs))
	}
	if !strings.HasPrefix(prazos.Text, "Pedidos com pagamento aprovado até as 14h") || strings.Contains(prazos.Text, "### Frete") {
		t.Errorf("Prazos text = %q", prazos.Text)
	}
	got := passage.MarkdownSections("intro\n# A\none\n## B\ntwo\n```\n# not a heading\n```\n# C\n")
	want := []passage.Section{
		{Path: nil, Text: "intro"},
		{Path: []string{"A"}, Text: "one"},
		{Path: []string{"A", "B"}, Text: "two\n```\n# not a heading\n```"},
		{Path: []string{"C"}, Text: ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MarkdownSections =\n%q\nwant\n%q", got, want)
	}
	if got := passage.MarkdownSections("plain text"); len(got) != 1 || len(got[0].Path) != 0 || got[0].Text != "plain text" {
		t.Errorf("plain text: %q", got)
	}
}
