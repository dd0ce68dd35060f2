package passage

import (
	"reflect"
	"strings"
	"testing"
)

func TestDefinitions(t *testing.T) {
	terms := []struct {
		q    string
		want []string
	}{
		{"o que é vazio sanitário?", []string{"vazio sanitario"}},
		{"O que é resistência de planta daninha a herbicida?", []string{"resistencia de planta daninha a herbicida", "resistencia", "resistencia de planta daninha"}},
		{"o que é resistência a herbicida?", []string{"resistencia a herbicida", "resistencia"}},
		{"o que quer dizer PRNT no calcário?", []string{"prnt no calcario", "prnt"}},
		{"What does PRNT mean?", []string{"prnt"}},
		{"qual a dose do Fungiprot?", nil},
		{"o que quer dizer esse VC 80% na semente?", []string{"vc 80 na semente", "vc 80"}},
	}
	for _, tt := range terms {
		if got := DefinedTerms(tt.q); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("DefinedTerms(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
	defines := []struct {
		text  string
		terms []string
		want  bool
	}{
		{"O vazio sanitário é o período de pelo menos 60 dias sem plantas vivas de soja no campo.", []string{"vazio sanitario"}, true},
		{"Inicie as aplicações de forma preventiva, respeite o vazio sanitário e evite repetir o mesmo grupo.", []string{"vazio sanitario"}, false},
		{"Resistência é a capacidade herdável de uma população de plantas.", []string{"resistencia de planta daninha", "resistencia"}, true},
		{"Garantias: poder relativo de neutralização total (PRNT) 90%.", []string{"prnt"}, true},
		{"Valor cultural (VC): 80% (pureza × germinação).", []string{"vc 80 na semente", "vc 80"}, true},
		{"Semeadura: 5 a 8 kg/ha de semente com VC 80% (vc).", []string{"vc 80"}, false},
	}
	for _, tt := range defines {
		if got := DefinesTerm(tt.text, tt.terms); got != tt.want {
			t.Errorf("DefinesTerm(%q, %q) = %v", tt.text, tt.terms, got)
		}
	}
}

func TestItemUnitSpans(t *testing.T) {
	text := "Culturas, alvos e doses:\n• Soja: ferrugem. Dose: 500 mL/ha.\n• Trigo: giberela. Dose: 750 mL/ha.\nAplicar com o solo úmido."
	var got []string
	for _, sp := range ItemUnitSpans(text, 320) {
		got = append(got, sp.Text)
		if sp.Text != "Aplicar com o solo úmido." && !strings.HasPrefix(text[sp.Start:sp.End], "• ") {
			t.Errorf("span of %q is %q, want its item's line", sp.Text, text[sp.Start:sp.End])
		}
	}
	want := []string{"Culturas, alvos e doses: Soja: ferrugem. Dose: 500 mL/ha.", "Culturas, alvos e doses: Trigo: giberela. Dose: 750 mL/ha.", "Aplicar com o solo úmido."}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ItemUnitSpans = %q, want %q", got, want)
	}
	// LineUnitSpans keeps a short list whole with its opening.
	if spans := LineUnitSpans(text, 320); len(spans) != 2 || !strings.HasPrefix(spans[0].Text, "Culturas, alvos e doses: • Soja") {
		t.Errorf("LineUnitSpans = %+v", spans)
	}
}
