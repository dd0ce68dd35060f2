package lexical

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestDefaultSynonymsLoads(t *testing.T) {
	s, err := parseSynonyms(defaultSynonymsJSON)
	if err != nil {
		t.Fatalf("embedded table: %v", err)
	}
	if n := len(s.canonicals(CategorySubject)); n < 25 {
		t.Errorf("default table has %d subjects, want at least 25", n)
	}
	for _, c := range []Category{CategoryClass, CategoryGeneric} {
		if len(s.canonicals(c)) == 0 {
			t.Errorf("default table has no %s", c)
		}
	}
	if DefaultSynonyms() != DefaultSynonyms() {
		t.Error("DefaultSynonyms must return the shared table")
	}
}

func TestDefaultSynonymsLookup(t *testing.T) {
	tests := []struct {
		cat  Category
		in   string
		want string
	}{
		{CategorySubject, "videira", "uva"},
		{CategorySubject, "Videiras", "uva"},
		{CategorySubject, "cafeeiro", "café"},
		{CategorySubject, "cafezal", "café"},
		{CategorySubject, "cafezais", "café"},
		{CategorySubject, "CAFÉ", "café"},
		{CategorySubject, "milharal", "milho"},
		{CategorySubject, "canavial", "cana-de-açúcar"},
		{CategorySubject, "cana", "cana-de-açúcar"},
		{CategorySubject, "cana de açúcar", "cana-de-açúcar"},
		{CategorySubject, "laranja", "citros"},
		{CategorySubject, "limão", "citros"},
		{CategorySubject, "algodoeiro", "algodão"},
		{CategorySubject, "tomateiro", "tomate"},
		{CategorySubject, "pasto", "pastagem"},
		{CategorySubject, "Pastagens", "pastagem"},
		{CategorySubject, "soja", "soja"},
		{CategorySubject, "feijoeiro", "feijão"},
		{CategorySubject, "arroz", "arroz"},
		{CategorySubject, "trigo", "trigo"},
		{CategorySubject, "batata", "batata"},
		{CategorySubject, "eucalipto", "eucalipto"},
		{CategorySubject, "bananeira", "banana"},
		{CategorySubject, "macieira", "maçã"},
		{CategorySubject, "Pessego", "pêssego"},
		{CategoryClass, "fungo", "fungicida"},
		{CategoryClass, "doença fúngica", "fungicida"},
		{CategoryClass, "doenças fúngicas", "fungicida"},
		{CategoryClass, "míldio", "fungicida"},
		{CategoryClass, "oídio", "fungicida"},
		{CategoryClass, "ferrugem", "fungicida"},
		{CategoryClass, "mato", "herbicida"},
		{CategoryClass, "erva daninha", "herbicida"},
		{CategoryClass, "plantas daninhas", "herbicida"},
		{CategoryClass, "capim", "herbicida"},
		{CategoryClass, "inseto", "inseticida"},
		{CategoryClass, "lagartas", "inseticida"},
		{CategoryClass, "percevejo", "inseticida"},
		{CategoryClass, "pulgões", "inseticida"},
		{CategoryClass, "ácaro", "acaricida"},
		{CategoryClass, "nematoide", "nematicida"},
		{CategoryClass, "cupim", "cupinicida"},
		{CategoryClass, "formiga", "formicida"},
		{CategoryClass, "lesma", "moluscicida"},
		{CategoryGeneric, "adubo", "fertilizante"},
		{CategoryGeneric, "nutrição foliar", "fertilizante"},
		{CategoryGeneric, "fertilizantes", "fertilizante"},
	}
	s := DefaultSynonyms()
	for _, tt := range tests {
		t.Run(string(tt.cat)+"/"+tt.in, func(t *testing.T) {
			got, ok := s.lookup(tt.cat, tt.in)
			if !ok || got != tt.want {
				t.Errorf("Lookup(%s, %q) = %q, %v; want %q", tt.cat, tt.in, got, ok, tt.want)
			}
		})
	}
	if got, ok := s.lookup(CategorySubject, "fungicida"); ok {
		t.Errorf("Lookup(subject, fungicida) = %q, want none", got)
	}
	if got, ok := s.lookup(CategoryClass, "   "); ok {
		t.Errorf("Lookup of blank = %q, want none", got)
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // category/canonical/text
	}{
		{"lay words", "fungo na videira", []string{"class/fungicida/fungo", "subject/uva/videira"}},
		{"multi-word variant", "como acabar com erva daninha no cafezal", []string{"class/herbicida/erva daninha", "subject/café/cafezal"}},
		{"plural multi-word", "Doenças fúngicas em canaviais", []string{"class/fungicida/doencas fungicas", "subject/cana-de-açúcar/canaviais"}},
		{"hyphen or space", "herbicida para cana-de-açúcar", []string{"class/herbicida/herbicida", "subject/cana-de-açúcar/cana-de-acucar"}},
		{"longest match wins", "batata doce e batata", []string{"subject/batata-doce/batata doce", "subject/batata/batata"}},
		{"longest across categories", "ervas daninhas", []string{"class/herbicida/ervas daninhas"}},
		{"each canonical once", "uva, videira e parreira", []string{"subject/uva/uva"}},
		{"generic", "adubo foliar para soja", []string{"generic/fertilizante/adubo foliar", "subject/soja/soja"}},
		// An English pest name is its class and, as an alias, the
		// Portuguese name leaflets use; the Portuguese name itself
		// mentions no alias.
		{"alias", "stink bugs on soybean", []string{"class/inseticida/stink bugs", "alias/percevejo/stink bugs", "subject/soja/soybean"}},
		{"alias canonical mentions nothing", "percevejo na soja", []string{"class/inseticida/percevejo", "subject/soja/soja"}},
		// The Portuguese stemmer leaves English plurals alone, so the
		// table lists them.
		{"alias English plural", "do you deliver to farms?", []string{"alias/entrega/deliver", "alias/fazenda/farms"}},
		{"whole words only", "chuva no tomate", []string{"subject/tomate/tomate"}},
		{"nothing", "qual o preço?", nil},
		{"empty", "", nil},
	}
	s := DefaultSynonyms()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, m := range s.Detect(tt.in) {
				got = append(got, string(m.Category)+"/"+m.Canonical+"/"+m.Text)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Detect(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestExpand(t *testing.T) {
	s := DefaultSynonyms()
	tokens := []string{"fungo", "videira"}
	terms, used := s.Expand("fungo na videira", tokens)
	if want := []string{"fungo", "videira", "fungicida", "uva"}; !slices.Equal(terms, want) {
		t.Errorf("terms = %q, want %q", terms, want)
	}
	if len(used) != 2 || used[0].Canonical != "fungicida" || used[1].Canonical != "uva" {
		t.Errorf("used = %+v", used)
	}
	if !slices.Equal(tokens, []string{"fungo", "videira"}) {
		t.Error("Expand modified its input")
	}
	terms, used = s.Expand("fungicida para uva", []string{"fungicida", "uva"})
	if len(used) != 0 || len(terms) != 2 {
		t.Errorf("canonical terms already present must not expand: %q %+v", terms, used)
	}
}

func TestParseSynonyms(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		wantErr string
	}{
		{"valid", `{"subject":{"Uva":["videira"]},"class":{"fungicida":["fungo"]},"generic":{}}`, ""},
		{"empty object", `{}`, ""},
		{"same spelling twice merges", `{"subject":{"café":["cafezal"],"cafe":["cafeeiro"]}}`, ""},
		{"variant in two categories", `{"subject":{"pastagem":["capim"]},"class":{"herbicida":["capim"]}}`, ""},
		{"bad json", `{"subject":`, "unexpected EOF"},
		{"unknown key", `{"subjects":{"uva":[]}}`, "unknown field"},
		{"trailing data", `{} {}`, "trailing data"},
		{"empty canonical", `{"subject":{" - ":["x"]}}`, "has no word"},
		{"empty variant", `{"subject":{"uva":["!!"]}}`, "has no word"},
		{"conflicting variant", `{"subject":{"uva":["parreira"],"maçã":["parreiras"]}}`, "already a variant"},
		{"canonical is another's variant", `{"subject":{"uva":["vinha"],"vinha":[]}}`, "already a variant"},
		{"wrong type", `{"subject":{"uva":"videira"}}`, "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseSynonyms([]byte(tt.json))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("want error containing %q", tt.wantErr)
			}
			if !errors.Is(err, ErrInvalidSynonyms) {
				t.Errorf("error %v does not wrap ErrInvalidSynonyms", err)
			}
			if !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error %q does not contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestNewSynonymsUnknownCategory(t *testing.T) {
	_, err := NewSynonyms([]SynonymEntry{{Category: "pest", Canonical: "x"}})
	if !errors.Is(err, ErrInvalidSynonyms) {
		t.Fatalf("err = %v, want ErrInvalidSynonyms", err)
	}
}

func TestLoadSynonymsReadError(t *testing.T) {
	_, err := LoadSynonyms(errReader{})
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v", err)
	}
	s, err := LoadSynonyms(strings.NewReader(`{"subject":{"uva":["videira"]}}`))
	if err != nil || s.size() != 1 {
		t.Fatalf("LoadSynonyms = %v, %v", s, err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("boom") }

func TestSynonymsJSONRoundTrip(t *testing.T) {
	s := DefaultSynonyms()
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	back, err := parseSynonyms(data)
	if err != nil {
		t.Fatalf("re-parse: %v", err)
	}
	if got, want := back.Entries(), s.Entries(); !slices.EqualFunc(got, want, entryEqual) {
		t.Errorf("round trip changed the table")
	}
	data, err = json.Marshal(&Synonyms{})
	if err != nil || string(data) != "{}" {
		t.Errorf("empty table marshals to %s, %v", data, err)
	}
}

// TestSynonymAlias: an alias entry matches its variants only, and keeps
// its category through JSON.
func TestSynonymAlias(t *testing.T) {
	s := mustParse(t, `{"alias":{"entrega":["delivery","shipping"]},"generic":{"prazo":["deadline"]}}`)
	var got []string
	for _, m := range s.Detect("entrega e delivery, prazo e deadline") {
		got = append(got, string(m.Category)+"/"+m.Term+"/"+m.Text)
	}
	if want := []string{"alias/entrega/delivery", "generic/prazo/prazo"}; !slices.Equal(got, want) {
		t.Errorf("Detect = %q, want %q", got, want)
	}
	data, err := json.Marshal(s)
	if err != nil || !strings.Contains(string(data), `"alias":{"entrega":["delivery","shipping"]}`) {
		t.Errorf("MarshalJSON = %s, %v; want the alias key", data, err)
	}
}

func entryEqual(a, b SynonymEntry) bool {
	return a.Category == b.Category && a.Canonical == b.Canonical && slices.Equal(a.Variants, b.Variants) && slices.Equal(a.Within, b.Within)
}

func TestSynonymGroups(t *testing.T) {
	s := mustParse(t, `{"subject":{"repolho":["couve-repolho"],"uva":["videira"]},"class":{"inseticida":["lagarta"]},
		"groups":{"Hortaliças":["repolho"],"todas as culturas":["*"]}}`)
	if got, want := s.Within("repolho"), []string{"hortalicas", "todas as culturas"}; !slices.Equal(got, want) {
		t.Errorf("Within(repolho) = %q, want %q", got, want)
	}
	if got, want := s.Within("uva"), []string{"todas as culturas"}; !slices.Equal(got, want) {
		t.Errorf("Within(uva) = %q, want %q", got, want)
	}
	if got := s.Within("inseticida"); got != nil {
		t.Errorf("a class no group names has groups: %q", got)
	}
	// A group may name classes too ("defensivo" for "fungicida").
	cls := mustParse(t, `{"class":{"fungicida":["ferrugem"]},"generic":{"defensivo":["agrotóxico"]},"groups":{"Defensivo":["fungicida"]}}`)
	if got, want := cls.Within("fungicida"), []string{"defensivo"}; !slices.Equal(got, want) {
		t.Errorf("Within(fungicida) = %q, want %q", got, want)
	}
	if got := s.Within("kiwi"); got != nil {
		t.Errorf("an unknown term has groups: %q", got)
	}
	var zero *Synonyms
	if zero.Within("uva") != nil {
		t.Error("nil table has groups")
	}
	// Merge keeps and unites the groups.
	m := s.Merge(mustParse(t, `{"subject":{"uva":["parreira"]},"groups":{"frutíferas":["uva"]}}`))
	if got, want := m.Within("uva"), []string{"todas as culturas", "frutiferas"}; !slices.Equal(got, want) {
		t.Errorf("merged Within(uva) = %q, want %q", got, want)
	}
	// The groups survive a JSON round trip.
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	back := mustParse(t, string(data))
	if got, want := back.Within("repolho"), m.Within("repolho"); !slices.Equal(got, want) {
		t.Errorf("round trip Within(repolho) = %q, want %q", got, want)
	}
	for _, bad := range []string{
		`{"subject":{"uva":[]},"groups":{"frutíferas":["kiwi"]}}`,
		`{"generic":{"adubo":[]},"groups":{"insumos":["adubo"]}}`,
		`{"subject":{"uva":[]},"groups":{"--":["uva"]}}`,
	} {
		if _, err := parseSynonyms([]byte(bad)); !errors.Is(err, ErrInvalidSynonyms) {
			t.Errorf("parseSynonyms(%s) = %v, want ErrInvalidSynonyms", bad, err)
		}
	}
	if _, err := NewSynonyms([]SynonymEntry{{Category: CategoryGeneric, Canonical: "adubo", Within: []string{"x"}}}); !errors.Is(err, ErrInvalidSynonyms) {
		t.Errorf("a generic term with groups: %v, want ErrInvalidSynonyms", err)
	}
	// The preset's groups: a vegetable crop is within "hortaliças", every
	// crop within "todas as culturas".
	def := DefaultSynonyms()
	if got := def.Within("repolho"); !slices.Contains(got, "hortalicas") || !slices.Contains(got, "todas as culturas") {
		t.Errorf("preset Within(repolho) = %q", got)
	}
	if got := def.Within("soja"); !slices.Equal(got, []string{"todas as culturas"}) {
		t.Errorf("preset Within(soja) = %q", got)
	}
	// The result is a copy: changing it leaves the shared table alone.
	def.Within("soja")[0] = "x"
	if got := def.Within("soja"); !slices.Equal(got, []string{"todas as culturas"}) {
		t.Errorf("Within(soja) after changing a result = %q, want the table unchanged", got)
	}
}

func TestMerge(t *testing.T) {
	base := mustParse(t, `{"subject":{"uva":["videira","parreira"],"citros":["laranja","limão"]},"class":{"fungicida":["fungo"]}}`)
	over := mustParse(t, `{"subject":{"Uva":["vinhedo"],"laranja":["laranjeira"],"kiwi":["kiwizeiro"]},"class":{"herbicida":["fungo"]}}`)
	m := base.Merge(over, nil)

	tests := []struct {
		cat     Category
		in      string
		want    string
		wantHit bool
	}{
		{CategorySubject, "videira", "Uva", true},     // kept, display form overridden
		{CategorySubject, "vinhedo", "Uva", true},     // extended
		{CategorySubject, "laranja", "laranja", true}, // moved to the later canonical
		{CategorySubject, "laranjeira", "laranja", true},
		{CategorySubject, "limão", "citros", true},
		{CategorySubject, "kiwizeiro", "kiwi", true}, // added
		{CategoryClass, "fungo", "herbicida", true},  // overridden
		{CategoryClass, "fungicida", "fungicida", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := m.lookup(tt.cat, tt.in)
			if ok != tt.wantHit || got != tt.want {
				t.Errorf("Lookup(%s, %q) = %q, %v; want %q, %v", tt.cat, tt.in, got, ok, tt.want, tt.wantHit)
			}
		})
	}
	// The inputs are untouched.
	if got, _ := base.lookup(CategorySubject, "laranja"); got != "citros" {
		t.Errorf("Merge modified its receiver: laranja → %q", got)
	}
	if got, _ := base.lookup(CategoryClass, "fungo"); got != "fungicida" {
		t.Errorf("Merge modified its receiver: fungo → %q", got)
	}
}

func TestMergeFoldsCanonicalListedAsVariant(t *testing.T) {
	base := mustParse(t, `{"subject":{"laranja":["laranjeira"],"citros":["limão"]}}`)
	over := mustParse(t, `{"subject":{"citros":["laranja"]}}`)
	m := base.Merge(over)
	if m.size() != 1 {
		t.Fatalf("want laranja folded into citros, got %+v", m.Entries())
	}
	for _, w := range []string{"laranja", "laranjeira", "limão", "citros"} {
		if got, _ := m.lookup(CategorySubject, w); got != "citros" {
			t.Errorf("Lookup(%q) = %q, want citros", w, got)
		}
	}
}

func TestZeroAndNilSynonyms(t *testing.T) {
	var nilTable *Synonyms
	zero := &Synonyms{}
	for name, s := range map[string]*Synonyms{"nil": nilTable, "zero": zero} {
		t.Run(name, func(t *testing.T) {
			if s.size() != 0 || s.Detect("uva") != nil || s.Entries() != nil || s.canonicals(CategorySubject) != nil {
				t.Error("empty table must find nothing")
			}
			if _, ok := s.lookup(CategorySubject, "uva"); ok {
				t.Error("Lookup on empty table")
			}
			terms, used := s.Expand("uva", []string{"uva"})
			if !slices.Equal(terms, []string{"uva"}) || used != nil {
				t.Errorf("Expand = %q, %v", terms, used)
			}
			if m := s.Merge(DefaultSynonyms()); m.size() != DefaultSynonyms().size() {
				t.Errorf("Merge onto empty table: %d entries", m.size())
			}
		})
	}
}

func TestEntriesIsACopy(t *testing.T) {
	s := mustParse(t, `{"subject":{"uva":["videira"]}}`)
	e := s.Entries()
	e[0].Variants[0] = "x"
	if got, ok := s.lookup(CategorySubject, "videira"); !ok || got != "uva" {
		t.Error("modifying Entries changed the table")
	}
}

func TestSynonymsConcurrentUse(t *testing.T) {
	s := DefaultSynonyms()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range 50 {
				if len(s.Detect("fungo na videira e mato no cafezal")) != 4 {
					t.Error("Detect result changed under concurrency")
					return
				}
				if i == 0 {
					_ = s.Merge(s)
				}
			}
		})
	}
	wg.Wait()
}

func mustParse(t *testing.T, js string) *Synonyms {
	t.Helper()
	s, err := parseSynonyms([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAliasPhraseMatchesHyphenated: a translation's canonical phrase is
// written with spaces, records often hyphenate it; the scorer searches
// both forms, so "asian soybean rust" finds "ferrugem-asiática".
func TestAliasPhraseMatchesHyphenated(t *testing.T) {
	syn := mustParse(t, `{"alias":{"ferrugem asiática":["asian soybean rust"]}}`)
	s := NewScorer(ScorerOptions{Synonyms: syn})
	for _, text := range []string{"Soja: ferrugem-asiática (Phakopsora pachyrhizi)", "controle da ferrugem asiática"} {
		if score, _ := s.Prepare("asian soybean rust").Score(productRecord{Description: text}); score <= 0 {
			t.Errorf("%q: score %v, want a match", text, score)
		}
	}
}

// TestDetectDiminutive: a diminutive the table knows only in its base form
// is detected as the base, and the scorer searches the base; a word that
// only looks like a diminutive ("vizinho") is left alone.
func TestDetectDiminutive(t *testing.T) {
	syn := mustParse(t, `{"class":{"inseticida":["lagarta","mosca branca"]}}`)
	for _, q := range []string{"as lagartinhas da couve", "mosquinha branca no feijão"} {
		if m := syn.Detect(q); len(m) != 1 || m[0].Term != "inseticida" {
			t.Errorf("Detect(%q) = %v, want the inseticida class", q, m)
		}
	}
	if m := syn.Detect("o caminho do vizinho"); len(m) != 0 {
		t.Errorf("Detect(vizinho) = %v, want nothing", m)
	}
	s := NewScorer(ScorerOptions{Synonyms: syn})
	if score, _ := s.Prepare("tem algo pras lagartinhas?").Score(productRecord{Description: "Controla a lagarta-do-cartucho."}); score <= 0 {
		t.Errorf("lagartinhas: score %v, want a match on lagarta", score)
	}
}

// detectedTerms are the terms syn detects in text.
func detectedTerms(syn *Synonyms, text string) []string {
	var out []string
	for _, m := range syn.Detect(text) {
		out = append(out, m.Term)
	}
	return out
}

// The preset's everyday names stand for the store's terms.
func TestPresetEverydayNames(t *testing.T) {
	def := DefaultSynonyms()
	for text, want := range map[string]string{
		"preciso de uma bomba de costas nova": "pulverizador costal",
		"qual bomba costal é melhor?":         "pulverizador costal",
		"onde acho roupa de proteção?":        "epi",
	} {
		if got := detectedTerms(def, text); !slices.Contains(got, want) {
			t.Errorf("Detect(%q) terms = %v, want %q", text, got, want)
		}
	}
}

// The preset names pests and diseases by what customers see: a symptom
// in their words stands for the pest and reaches its class; words that
// only look alike name nothing.
func TestPresetSymptoms(t *testing.T) {
	def := DefaultSynonyms()
	for text, want := range map[string][]string{
		"as folhas soltam um pózinho laranja":            {"ferrugem", "fungicida"},
		"my tomatoes have white flies":                   {"mosca-branca", "inseticida"},
		"o cafe ta com po laranja embaixo da folha":      {"ferrugem", "fungicida"},
		"a parreira ta com um po branco nas folha":       {"oidio", "fungicida"},
		"apareceu uns mosquitinho branco no feijao":      {"mosca-branca", "inseticida"},
		"as folha tao com mancha tipo alvo":              {"mancha-alvo", "fungicida"},
		"cheio de fede-fede na soja, oq passo?":          {"percevejo", "inseticida"},
		"a folha do cafe ta toda minada, folhas minadas": {"bicho-mineiro", "inseticida"},
		"tem esclerodios pretos no caule do feijao":      {"mofo branco", "fungicida"},
	} {
		got := detectedTerms(def, text)
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("Detect(%q) = %v, want %q among them", text, got, w)
			}
		}
	}
	for _, text := range []string{
		"cortei um galho seco", "a calda fez espuma no tanque", "qual o alvo desse produto?", "farinha de trigo",
		// Single words and stains name no pest (the review's probes).
		"meu filho ta com uma pústula no braço", "tem teia de aranha no galpão", "a calda fez espuma tipo cuspe no tanque",
		"o trator deixou uma mancha de óleo no milho", "o vaqueiro cuspiu no cocho",
		"meu cachorro ta com bolinha laranja na pele",
	} {
		for _, m := range def.Detect(text) {
			if m.Category == CategoryClass || m.Category == CategoryAlias {
				t.Errorf("Detect(%q) = %+v: a symptom where there is none", text, m)
			}
		}
	}
}

// The preset names a leaflet's sections in the customers' words ("em caso
// de intoxicação" asks the first aid); words as common as "guardar" or
// "passar mal" are left out: "como estocar água?" and "meu filho passou mal
// na escola" are no leaflet's (the review's probes).
func TestPresetLeafletSections(t *testing.T) {
	def := DefaultSynonyms()
	for text, want := range map[string]string{
		"em caso de intoxicação com o metomax, oq faz?": "primeiros socorros",
		"qual o antídoto do fungiprot?":                 "primeiros socorros",
		"esse metomil é muito perigoso?":                "classe toxicologica",
		"qual o grupo químico do fungiprot?":            "mecanismo de acao",
		"qual o modo de ação do tebucor?":               "mecanismo de acao",
	} {
		if got := detectedTerms(def, text); !slices.Contains(got, want) {
			t.Errorf("Detect(%q) terms = %v, want %q", text, got, want)
		}
	}
	for _, text := range []string{"como estocar água para emergência em casa?", "meu filho passou mal na escola", "como guardar roupas de inverno?"} {
		if m := def.Detect(text); len(m) != 0 {
			t.Errorf("Detect(%q) = %+v, want nothing", text, m)
		}
	}
}

// A place named with a word of the preset is the place: "Mato Grosso" is
// no weed ("mato"), so a delivery question naming the state is not a
// herbicide question (the third review).
func TestPresetPlaceNames(t *testing.T) {
	def := DefaultSynonyms()
	for _, text := range []string{"qual o prazo de entrega pro Mato Grosso?", "vcs entregam no mato grosso do sul?", "moro em Capim Grosso, na Bahia"} {
		for _, m := range def.Detect(text) {
			if m.Category == CategoryClass {
				t.Errorf("Detect(%q) = %+v: a class in a place name", text, m)
			}
		}
	}
	if got := detectedTerms(def, "tem algo pra mato na soja?"); !slices.Contains(got, "herbicida") {
		t.Errorf("Detect(mato na soja) terms = %v, want the herbicide class", got)
	}
}

// The preset files the jugs products come in under "embalagem", the word
// the store's FAQs and leaflets use, a dirt road under "zona rural" and the
// two neighbouring countries farmers ask about under "exportação". The
// reviews took out what other trades and topics share: containers
// ("saco", "balde", "tambor", "frasco", "container"), "estrada de terra"
// and "dirt road" (paving, tyres), "argentina", "uruguai" (football,
// wine), "outro país" (it broke "vcs vendem pra outro país?").
func TestPresetStoryWords(t *testing.T) {
	def := DefaultSynonyms()
	for text, want := range map[string]string{
		"o galão chegou vazando":          "embalagem",
		"abri o galao do herbicida":       "embalagem",
		"a bombona veio amassada":         "embalagem",
		"the jug arrived leaking":         "embalagem",
		"moro num sítio, estrada de chão": "zona rural",
		"our farm is on an unpaved road":  "zona rural",
		"vcs mandam pro paraguai?":        "exportacao",
		"do you export to Bolivia?":       "exportacao",
	} {
		if got := detectedTerms(def, text); !slices.Contains(got, want) {
			t.Errorf("Detect(%q) terms = %v, want %s", text, got, want)
		}
	}
	for _, text := range []string{"o saco de lixo rasgou", "tem container pra alugar?", "um balde de água fria", "o frasco de perfume quebrou", "o tambor da máquina",
		"quanto custa asfaltar uma estrada de terra?", "best tires for dirt road driving?", "quem ganhou o jogo brasil x argentina?", "morei em outros países"} {
		got := detectedTerms(def, text)
		for _, term := range []string{"embalagem", "zona rural", "exportacao"} {
			if slices.Contains(got, term) {
				t.Errorf("Detect(%q) terms = %v, want no %s", text, got, term)
			}
		}
	}
}

// The preset's English names for a conventional seed and for the
// spittlebugs; "conventional" alone (an oven, a loan) and "protective
// gear" (a motorcycle's, hockey's) are only their words' translations, as
// a Portuguese question would say them ("forno convencional"), not the
// store's seed or PPE.
func TestPresetEnglishSeedAndPest(t *testing.T) {
	def := DefaultSynonyms()
	for text, want := range map[string]string{
		"do you sell non-GMO soybean seed?": "convencional",
		"root spittlebug in sugarcane":      "cigarrinha",
	} {
		if got := detectedTerms(def, text); !slices.Contains(got, want) {
			t.Errorf("Detect(%q) terms = %v, want %s", text, got, want)
		}
	}
	if got, want := detectedTerms(def, "what's the best conventional oven?"), []string{"convencional", "forno"}; !slices.Equal(got, want) {
		t.Errorf("Detect(conventional oven) terms = %v, want %v", got, want)
	}
	for _, text := range []string{"protective gear for hockey?", "what protective gear do I need for hockey?"} {
		if got := detectedTerms(def, text); slices.Contains(got, "epi") {
			t.Errorf("Detect(%q) terms = %v, want no epi", text, got)
		}
	}
}

// The preset reads the common words of an English question as their
// Portuguese translations (synonyms_en.tsv.gz), so an English question
// meets a Portuguese store's words: "money" is "dinheiro", "gloves"
// "luva". The store's own English names keep their entries ("delivery" is
// "entrega", "stink bug" "percevejo").
func TestPresetEnglishWords(t *testing.T) {
	def := DefaultSynonyms()
	for text, want := range map[string][]string{
		"how long until I get my money back?": {"dinheiro"},
		"do you sell gloves and boots?":       {"luva", "bota"},
		"the bottle arrived wet and leaking":  {"chegar", "molhado", "frasco"},
		"what are your delivery times?":       {"prazo de entrega"},
		"stink bugs on my soybeans":           {"percevejo", "inseticida", "soja"},
	} {
		got := detectedTerms(def, text)
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("Detect(%q) terms = %v, want %q among them", text, got, w)
			}
		}
	}
}

// The English table never reads a Portuguese word: a word any Portuguese
// form spells ("resolve", "mate", "time", "real", "come") or whose stem a
// frequent Portuguese word shares ("cartão" and "cart") is not in it, so
// Portuguese text gives the same mentions with and without it.
func TestPresetEnglishWordsSilentOnPortuguese(t *testing.T) {
	own, err := parseSynonyms(defaultSynonymsJSON)
	if err != nil {
		t.Fatal(err)
	}
	def := DefaultSynonyms()
	for _, text := range []string{
		"esse produto resolve a ferrugem? mate o capim antes de plantar",
		"o time do meu filho joga no sábado, vocês abrem?",
		"qual a cor do cartão? paguei com pix e o valor real veio diferente",
		"a vaca come o pasto e o boi pare no verão",
		"mandei um e-mail pedindo a nota fiscal, o site tava fora do ar",
		"a pressão do pulverizador caiu, o bico pinga e a barra balança",
		"comprei um galão de herbicida, abri e não gostei. posso devolver?",
	} {
		if got, want := detectedTerms(def, text), detectedTerms(own, text); !slices.Equal(got, want) {
			t.Errorf("Detect(%q) = %v, want the Portuguese table's %v", text, got, want)
		}
	}
}

// englishAliases reads each English word as a whole word with its first
// translation ("advance" and "advances" are two words); of two lines for
// one word the first counts; lines it cannot read are skipped.
func TestEnglishAliases(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte("advance\tavançar,avanço\nadvances\tavanço\nAdvance\toutro\nno tab here\n\tempty\nbroken\t\n"))
	zw.Close()
	tab, err := englishAliases(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]translation{"advance": {"avançar", "avancar"}, "advances": {"avanço", "avanco"}}
	if !maps.Equal(tab.words, want) {
		t.Errorf("table = %v, want %v", tab.words, want)
	}
	if _, err := englishAliases([]byte("not gzip")); !errors.Is(err, ErrInvalidSynonyms) {
		t.Errorf("englishAliases(not gzip) err = %v, want ErrInvalidSynonyms", err)
	}
}

// Every line of the embedded English table is read: in an English
// sentence each word stands for its first translation (a line the table
// could not match would be dead weight).
func TestPresetEnglishTableLinesMatch(t *testing.T) {
	def := DefaultSynonyms()
	zr, err := gzip.NewReader(bytes.NewReader(englishSynonymsData))
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) < 5000 {
		t.Fatalf("%d lines, want the whole table", len(lines))
	}
	dead := 0
	for _, line := range lines {
		en, tr, _ := strings.Cut(line, "\t")
		pt, _, _ := strings.Cut(tr, ",")
		ms := def.Detect("what about the " + en + " you have?")
		if !slices.ContainsFunc(ms, func(m Mention) bool { return m.Text == en && m.Term == Normalize(pt) && m.Translation }) {
			if dead++; dead <= 10 {
				t.Errorf("%q: Detect = %+v, want %q", en, ms, pt)
			}
		}
	}
	if dead > 0 {
		t.Errorf("%d of %d lines never match", dead, len(lines))
	}
}

// The English table reads English text only: as many English function
// words as Portuguese ones and some, or, with none of either, mostly its
// own words ("power tools"). A Portuguese question naming a product in English
// words, or an English word alone, is read as before; a merged table
// keeps the English table, which is no entry of it.
func TestPresetEnglishWordsOnlyInEnglish(t *testing.T) {
	def := DefaultSynonyms()
	for _, text := range []string{"do you sell power tools?", "power tools"} {
		if got := detectedTerms(def, text); !slices.Contains(got, "ferramenta") {
			t.Errorf("Detect(%q) = %v, want ferramenta", text, got)
		}
	}
	// A mixed message whose Portuguese function words outnumber the
	// English ones is read as Portuguese.
	for _, text := range []string{"qual a dose do Power Max na soja?", "tools", "preciso de um vet for my horse, ta mancando", "tô precisando de gloves", "Green Leaf fungicida"} {
		if ms := def.Detect(text); slices.ContainsFunc(ms, func(m Mention) bool { return m.Category == CategoryAlias }) {
			t.Errorf("Detect(%q) = %+v, want no translation", text, ms)
		}
	}
	own, err := parseSynonyms(defaultSynonymsJSON)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(def.Entries()), len(own.Entries()); got != want {
		t.Errorf("DefaultSynonyms has %d entries, want the Portuguese table's %d", got, want)
	}
	extra, err := NewSynonyms([]SynonymEntry{{Category: CategoryGeneric, Canonical: "saco", Variants: []string{"sacaria"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := detectedTerms(def.Merge(extra), "how much money do I get back?"); !slices.Contains(got, "dinheiro") {
		t.Errorf("merged table: Detect = %v, want dinheiro", got)
	}
	if got := detectedTerms(extra.Merge(def), "how much money do I get back?"); !slices.Contains(got, "dinheiro") {
		t.Errorf("table merged over: Detect = %v, want dinheiro", got)
	}
}

// A translation is marked as one (Mention.Translation), and a term the
// Portuguese table found already is not reported again through it:
// "non-GMO" (the table's alias) and "conventional" (the English table's)
// are one "convencional".
func TestPresetEnglishTranslationMentions(t *testing.T) {
	ms := DefaultSynonyms().Detect("do you sell non-GMO conventional soybean seed?")
	n := 0
	for _, m := range ms {
		if m.Term == "convencional" {
			n++
			if m.Translation {
				t.Errorf("%+v: the table's own alias reported as a translation", m)
			}
		}
	}
	if n != 1 {
		t.Errorf("Detect = %+v, want one convencional", ms)
	}
	ms = DefaultSynonyms().Detect("how much money do you need?")
	if !slices.ContainsFunc(ms, func(m Mention) bool { return m.Term == "dinheiro" && m.Translation && m.Category == CategoryAlias }) {
		t.Errorf("Detect = %+v, want dinheiro as a translation", ms)
	}
}

// The English table reads a plural it lists only in the singular ("bees",
// "bushes", "flies"); the preset rebuilt from its entries has no English
// table.
func TestPresetEnglishPluralsAndWithout(t *testing.T) {
	def := DefaultSynonyms()
	for text, want := range map[string]string{
		"is it toxic to bees?":        "abelha",
		"any bushes on the farm?":     "arbusto",
		"what do you have for flies?": "mosca",
	} {
		if got := detectedTerms(def, text); !slices.Contains(got, want) {
			t.Errorf("Detect(%q) = %v, want %q", text, got, want)
		}
	}
	plain, err := NewSynonyms(def.Entries())
	if err != nil {
		t.Fatal(err)
	}
	if ms := plain.Detect("how much money do I get back?"); slices.ContainsFunc(ms, func(m Mention) bool { return m.Translation }) {
		t.Errorf("NewSynonyms(DefaultSynonyms().Entries()).Detect = %+v, want no translation", ms)
	}
}
