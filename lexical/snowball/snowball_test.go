package snowball

import (
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/lexical"
)

// pinned are stems computed by lexical.SnowballStem before the stemmer
// moved to this package. Retrieval figures depend on the exact stems, so
// any change here must be deliberate.
var pinned = []struct{ token, stem string }{
	{"fungicida", "fungic"}, {"herbicida", "herbic"}, {"inseticida", "insetic"}, {"acaricida", "acaric"},
	{"sistemico", "sistem"}, {"contato", "contat"}, {"seletivo", "selet"}, {"pos-emergente", "pos-emergente"},
	{"pre-emergente", "pre-emergente"}, {"controle", "control"}, {"mildio", "mildi"}, {"oidio", "oidi"},
	{"ferrugem", "ferrug"}, {"asiatica", "asiat"}, {"mancha", "manch"}, {"foliar", "foli"},
	{"lagartas", "lagart"}, {"pulgoes", "pulgo"}, {"percevejos", "percevej"}, {"mosca-branca", "mosca-branca"},
	{"acaros", "acar"}, {"plantas", "plant"}, {"daninhas", "daninh"}, {"frequencia", "frequenc"},
	{"frequencias", "frequenc"}, {"ciencia", "cienc"}, {"eficiencia", "eficienc"}, {"independencia", "independenc"},
	{"informacoes", "inform"}, {"analise", "analis"}, {"analises", "analis"}, {"situacoes", "situaco"},
	{"legislacao", "legisl"}, {"contribuinte", "contribuint"}, {"contribuintes", "contribuint"}, {"rendimentos", "rendiment"},
	{"tributaveis", "tributav"}, {"isentos", "isent"}, {"restituicao", "restituica"}, {"retificacao", "retific"},
	{"retificadora", "retific"}, {"pagamento", "pagament"}, {"parcelamento", "parcel"}, {"deducao", "deduca"},
	{"deducoes", "deduco"}, {"dependencia", "dependenc"}, {"alimenticia", "alimentic"}, {"declarar", "declar"},
	{"declaracao", "declar"}, {"declarada", "declar"}, {"declaracoes", "declar"}, {"obrigado", "obrig"},
	{"obrigatorio", "obrigatori"}, {"obrigacao", "obrig"}, {"entregar", "entreg"}, {"entrega", "entreg"},
	{"entreguei", "entregu"}, {"atrasada", "atras"}, {"atraso", "atras"}, {"dependentes", "dependent"},
	{"aposentado", "aposent"}, {"aposentados", "aposent"}, {"multas", "mult"}, {"registradores", "registr"},
	{"registra", "registr"}, {"corrigir", "corrig"}, {"correcao", "correca"}, {"imposto", "impost"},
	{"renda", "rend"}, {"pessoa", "pesso"}, {"fisica", "fisic"}, {"juridica", "jurid"},
	{"prazo", "praz"}, {"vencimento", "venciment"}, {"boleto", "bolet"},
	// Short Snowball stems fall back to lexical.Stem; short tokens and
	// tokens with other characters are returned unchanged.
	{"uvas", "uvas"}, {"soja", "soja"}, {"sojas", "soja"}, {"cafe", "cafe"}, {"milho", "milh"},
	{"ovos", "ovos"}, {"aves", "aves"}, {"paes", "pae"}, {"maos", "maos"}, {"leoes", "leoe"},
	{"acoes", "acoe"}, {"cao", "cao"}, {"sol", "sol"}, {"10kg", "10kg"}, {"2,4-d", "2,4-d"},
	{"fungicidas", "fungic"}, {"pulgao", "pulga"}, {"nacoes", "naco"},
}

func TestStemPinned(t *testing.T) {
	for _, p := range pinned {
		t.Run(p.token, func(t *testing.T) {
			if got := Stem(p.token); got != p.stem {
				t.Errorf("Stem(%q) = %q, want %q", p.token, got, p.stem)
			}
		})
	}
}

func TestStem(t *testing.T) {
	conflate := [][]string{
		{"declarar", "declaracao", "declarada", "declaracoes"},
		{"obrigado", "obrigacao", "obrigada"},
		{"entregar", "entrega"},
		{"atrasada", "atraso"},
		{"dependente", "dependentes"},
		{"aposentado", "aposentados"},
	}
	for _, group := range conflate {
		want := Stem(group[0])
		for _, w := range group[1:] {
			if got := Stem(w); got != want {
				t.Errorf("Stem(%q) = %q, Stem(%q) = %q, want equal", w, got, group[0], want)
			}
		}
	}
	for _, w := range []string{"a", "sol", "2,4-d", "cana-de-acucar", "фунгицид", "10kg"} {
		if got := Stem(w); got != w && !(len(w) >= minStem && isLowerASCII(w)) {
			t.Errorf("Stem(%q) = %q, want unchanged", w, got)
		}
	}
	if got := (Filter{}).Filter([]string{"declaracoes", "multas"}); got[0] != "declar" || got[1] != "mult" {
		t.Errorf("Filter = %q", got)
	}
}

// vocabulary is pt-BR agronomy text (lexical's benchmark vocabulary) and
// tax-FAQ text.
var vocabulary = strings.Fields(`fungicida herbicida inseticida acaricida sistêmico contato
	seletivo pós-emergente pré-emergente controle de míldio oídio ferrugem asiática mancha
	foliar lagartas pulgões percevejos mosca-branca ácaros plantas daninhas capim-amargoso buva
	tiririca para em da do das dos com aplicação terrestre aérea dose litros por hectare
	concentrado emulsionável suspensão concentrada granulado dispersível pó molhável registrado
	culturas soja milho café cana-de-açúcar algodão uva videira tomate batata feijão trigo
	citros laranja arroz pastagens eucalipto banana maçã cebola alho intervalo de segurança dias
	classe toxicológica produto pouco perigoso ao meio ambiente 2,4-D glifosato mancozebe
	frequência frequências ciência eficiência independência informações análise análises
	situações legislação contribuinte contribuintes rendimentos tributáveis isentos restituição
	retificação retificadora pagamento parcelamento dedução deduções dependência alimentícia`)

// TestStemIsPrefix checks the property prefix matching relies on over
// every token of a Portuguese vocabulary.
func TestStemIsPrefix(t *testing.T) {
	for _, w := range vocabulary {
		for _, tok := range lexical.Tokens(w) {
			st := Stem(tok)
			if !strings.HasPrefix(tok, st) {
				t.Errorf("Stem(%q) = %q, not a prefix", tok, st)
			}
			if isLowerASCII(tok) && len(tok) >= minStem && len(st) < 3 {
				t.Errorf("Stem(%q) = %q, too short", tok, st)
			}
		}
	}
}

func FuzzStem(f *testing.F) {
	for _, s := range []string{"declaracao", "frequencia", "obrigacoes", "a", "", "zzzz", "ção"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tok := lexical.Normalize(s)
		st := Stem(tok)
		if !strings.HasPrefix(tok, st) {
			t.Fatalf("Stem(%q) = %q, not a prefix", tok, st)
		}
	})
}
