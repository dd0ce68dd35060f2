package lexical

import (
	"strings"
	"testing"
)

func TestStem(t *testing.T) {
	tests := []struct{ in, want string }{
		// pesticide classes stay whole (-ida is never reduced)
		{"fungicidas", "fungicida"},
		{"fungicida", "fungicida"},
		{"herbicidas", "herbicida"},
		{"inseticidas", "inseticida"},
		{"acaricidas", "acaricida"},
		{"nematicidas", "nematicida"},
		// plain -s plurals
		{"lagartas", "lagarta"},
		{"culturas", "cultura"},
		{"uvas", "uva"},
		{"sementes", "semente"},
		{"percevejos", "percevejo"},
		{"nematoides", "nematoide"},
		{"acaros", "acaro"},
		{"doses", "dose"},
		{"analises", "analise"},
		{"controles", "controle"},
		// -res / -zes
		{"flores", "flor"},
		{"foliares", "foliar"},
		{"produtores", "produtor"},
		{"raizes", "raiz"},
		{"cores", "cor"},
		// -ão family: singular and plurals share the stem
		{"pulgoes", "pulg"},
		{"pulgao", "pulg"},
		{"feijoes", "feij"},
		{"feijao", "feij"},
		{"aplicacoes", "aplicac"},
		{"aplicacao", "aplicac"},
		{"algodao", "algod"},
		// -al/-el/-ol/-il and their plurals
		{"animal", "anima"},
		{"animais", "anima"},
		{"canavial", "canavia"},
		{"canaviais", "canavia"},
		{"papel", "pape"},
		{"papeis", "pape"},
		{"girassol", "girasso"},
		{"girassois", "girasso"},
		{"funil", "funi"},
		{"funis", "funi"},
		{"emulsionavel", "emulsionave"},
		{"emulsionaveis", "emulsionave"},
		// -m / -ns
		{"pastagem", "pastage"},
		{"pastagens", "pastage"},
		{"ferrugem", "ferruge"},
		{"ferrugens", "ferruge"},
		// gender of adjectives and agent nouns
		{"sistemico", "sistemic"},
		{"sistemica", "sistemic"},
		{"sistemicos", "sistemic"},
		{"seletivo", "seletiv"},
		{"seletivas", "seletiv"},
		{"concentrado", "concentrad"},
		{"concentrada", "concentrad"},
		{"cafeeiro", "cafeeir"},
		{"cafeeiros", "cafeeir"},
		{"videira", "videir"},
		{"daninha", "daninh"},
		{"daninhas", "daninh"},
		{"viscoso", "visco"},
		{"viscosa", "visco"},
		// words left alone
		{"soja", "soja"},
		{"milho", "milho"},
		{"trigo", "trigo"},
		{"cafe", "cafe"},
		{"mato", "mato"},
		{"capim", "capim"},
		{"cupins", "cupins"},
		{"batata", "batata"},
		{"arroz", "arroz"},
		{"acucar", "acucar"},
		{"foliar", "foliar"},
		// short words are never reduced
		{"uva", "uva"},
		{"mel", "mel"},
		{"sal", "sal"},
		{"mao", "mao"},
		{"pao", "pao"},
		{"gado", "gado"},
		{"rosa", "rosa"},
		{"dado", "dado"},
		{"ativo", "ativ"},
		{"nuvem", "nuvem"},
		{"total", "tota"},
		// not plain a-z: unchanged
		{"2,4-d", "2,4-d"},
		{"cana-de-acucar", "cana-de-acucar"},
		{"10", "10"},
		{"Lagartas", "Lagartas"},
		{"lagartás", "lagartás"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := Stem(tt.in)
			if got != tt.want {
				t.Errorf("Stem(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := Stem(got); again != got {
				t.Errorf("Stem(Stem(%q)) = %q, want %q", tt.in, again, got)
			}
			if !strings.HasPrefix(tt.in, got) {
				t.Errorf("Stem(%q) = %q is not a prefix", tt.in, got)
			}
		})
	}
}

// TestStemConflates checks the property the Scorer relies on: for
// inflections a and b of one word, Stem(a) occurs in b, so a stemmed query
// finds the other form by substring.
func TestStemConflates(t *testing.T) {
	pairs := [][2]string{
		{"fungicida", "fungicidas"}, {"lagarta", "lagartas"}, {"pulgao", "pulgoes"},
		{"acaro", "acaros"}, {"flor", "flores"}, {"raiz", "raizes"}, {"animal", "animais"},
		{"papel", "papeis"}, {"pastagem", "pastagens"}, {"sistemico", "sistemica"},
		{"sistemico", "sistemicas"}, {"seletivo", "seletiva"}, {"daninha", "daninhas"},
		{"aplicacao", "aplicacoes"}, {"feijao", "feijoes"}, {"canavial", "canaviais"},
		{"girassol", "girassois"}, {"funil", "funis"}, {"doenca", "doencas"},
		{"fungica", "fungico"}, {"concentrado", "concentrada"}, {"granulado", "granulados"},
		{"viscoso", "viscosas"}, {"emulsionavel", "emulsionaveis"}, {"cafeeiro", "cafeeiros"},
		{"analise", "analises"}, {"dose", "doses"}, {"produtor", "produtores"},
	}
	for _, p := range pairs {
		a, b := p[0], p[1]
		t.Run(a+"/"+b, func(t *testing.T) {
			if !strings.Contains(b, Stem(a)) {
				t.Errorf("Stem(%q) = %q not found in %q", a, Stem(a), b)
			}
			if !strings.Contains(a, Stem(b)) {
				t.Errorf("Stem(%q) = %q not found in %q", b, Stem(b), a)
			}
		})
	}
}

// TestStemIdempotentOnCatalogWords runs real words of agronomy labels
// through Stem twice.
func TestStemIdempotentOnCatalogWords(t *testing.T) {
	text := `Agente biológico de controle formulação nematóides vivos ingrediente ativo
	culturas registradas alvos biológicos pragas doenças plantas daninhas bicudo da cana-de-açúcar
	lagarta-militar percevejo-castanho classe toxicológica produto pouco perigoso ao meio ambiente
	concentrado emulsionável suspensão concentrada granulado dispersível pó molhável
	ferrugem asiática mancha-alvo oídio míldio antracnose mofo-branco podridão-parda
	capim-amargoso buva tiririca trapoeraba corda-de-viola picão-preto caruru guanxuma
	pulgões cochonilhas ácaros tripes mosca-branca broca-do-café bicho-mineiro cigarrinhas
	aplicações terrestres aéreas pulverizações sequenciais intervalos de segurança dias
	fertilizantes foliares nutrientes micronutrientes sistêmicos seletivos não seletivos
	herbicidas pré-emergentes pós-emergentes dessecação manejo integrado resistência
	algodoeiro cafeeiro videira bananeira macieira pessegueiro laranjeira limoeiro
	pastagens canaviais cafezais milharais feijões melões pimentões limões mamões`
	for _, w := range (Tokenizer{MinLength: -1, Stopwords: NewStopwordSet(), MaxTokens: -1}).Tokens(text) {
		s := Stem(w)
		if Stem(s) != s {
			t.Errorf("Stem not idempotent on %q: %q then %q", w, s, Stem(s))
		}
		if !strings.HasPrefix(w, s) {
			t.Errorf("Stem(%q) = %q is not a prefix", w, s)
		}
		if len(w) >= 4 && len(s) < 3 {
			t.Errorf("Stem(%q) = %q over-reduced", w, s)
		}
	}
}

func TestStemDoesNotAllocate(t *testing.T) {
	words := []string{"pulgoes", "sistemicas", "pastagens", "fungicidas", "canaviais"}
	allocs := testing.AllocsPerRun(100, func() {
		for _, w := range words {
			_ = Stem(w)
		}
	})
	if allocs != 0 {
		t.Errorf("Stem allocated %.0f times", allocs)
	}
}
