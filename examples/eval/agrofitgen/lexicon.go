package main

// The generator's word lists: how Brazilian growers and store clerks name
// crops, product classes and a few major pests. They are general
// agronomy knowledge, written once before any tuning and not changed to
// suit the search results.

// crop is a registry crop tag the generator asks about.
type crop struct {
	// tag is the AGROFIT crop tag ("Cana-de-açúcar").
	tag string
	// name is how a query names it ("cana-de-açúcar").
	name string
	// art is the definite article of name: "a", "o", "as" or "os".
	art string
	// lay are colloquial names with their articles.
	lay []layName
}

// layName is a colloquial name with its article.
type layName struct{ text, art string }

var crops = []crop{
	{"Soja", "soja", "a", []layName{{"lavoura de soja", "a"}, {"sojinha", "a"}}},
	{"Milho", "milho", "o", []layName{{"milharal", "o"}, {"roça de milho", "a"}}},
	{"Algodão", "algodão", "o", []layName{{"algodoeiro", "o"}, {"algodoal", "o"}}},
	{"Feijão", "feijão", "o", []layName{{"feijoeiro", "o"}, {"feijão carioca", "o"}}},
	{"Café", "café", "o", []layName{{"cafezal", "o"}, {"cafeeiro", "o"}, {"pé de café", "o"}}},
	{"Trigo", "trigo", "o", []layName{{"trigal", "o"}}},
	{"Cana-de-açúcar", "cana-de-açúcar", "a", []layName{{"canavial", "o"}, {"cana", "a"}}},
	{"Citros", "citros", "os", []layName{{"laranja", "a"}, {"laranjal", "o"}, {"pé de laranja", "o"}, {"limão", "o"}}},
	{"Batata", "batata", "a", []layName{{"batatinha", "a"}, {"batata inglesa", "a"}}},
	{"Tomate", "tomate", "o", []layName{{"tomateiro", "o"}, {"pé de tomate", "o"}}},
	{"Maçã", "maçã", "a", []layName{{"macieira", "a"}, {"pomar de maçã", "o"}}},
	{"Uva", "uva", "a", []layName{{"videira", "a"}, {"parreira", "a"}, {"vinhedo", "o"}, {"parreiral", "o"}}},
	{"Arroz", "arroz", "o", []layName{{"arrozal", "o"}}},
	{"Amendoim", "amendoim", "o", nil},
	{"Melão", "melão", "o", []layName{{"meloeiro", "o"}}},
	{"Melancia", "melancia", "a", nil},
	{"Eucalipto", "eucalipto", "o", []layName{{"eucaliptal", "o"}}},
	{"Cebola", "cebola", "a", nil},
	{"Pastagens", "pastagem", "a", []layName{{"pasto", "o"}, {"capineira", "a"}}},
	{"Banana", "banana", "a", []layName{{"bananeira", "a"}, {"bananal", "o"}}},
	{"Sorgo", "sorgo", "o", nil},
	{"Mamão", "mamão", "o", []layName{{"mamoeiro", "o"}}},
	{"Alho", "alho", "o", nil},
	{"Pimentão", "pimentão", "o", nil},
	{"Fumo", "fumo", "o", []layName{{"tabaco", "o"}}},
	{"Morango", "morango", "o", []layName{{"morangueiro", "o"}}},
	{"Alface", "alface", "a", nil},
	{"Cenoura", "cenoura", "a", nil},
	{"Repolho", "repolho", "o", nil},
	{"Mandioca", "mandioca", "a", []layName{{"aipim", "o"}, {"macaxeira", "a"}}},
	{"Manga", "manga", "a", []layName{{"mangueira", "a"}}},
	{"Abacaxi", "abacaxi", "o", nil},
	{"Cacau", "cacau", "o", []layName{{"cacaueiro", "o"}}},
	{"Girassol", "girassol", "o", nil},
}

// classes are the product classes asked about, with colloquial ways of
// asking for them.
var classes = []struct {
	name string
	lay  []string
}{
	{"fungicida", []string{"remédio pra fungo", "remédio contra fungo", "produto pra fungo", "remédio pra doença de fungo"}},
	{"herbicida", []string{"veneno pra matar mato", "mata-mato", "remédio pra mato", "produto pra matar o mato"}},
	{"inseticida", []string{"veneno pra inseto", "remédio pra inseto", "veneno pra matar inseto", "remédio contra inseto"}},
	{"acaricida", []string{"remédio pra ácaro", "veneno pra ácaro", "produto contra ácaro"}},
	{"nematicida", []string{"remédio pra nematoide", "produto contra nematoide"}},
	{"bactericida", []string{"remédio pra bactéria", "produto contra bacteriose"}},
	{"formicida", []string{"veneno pra formiga", "remédio pra formiga"}},
	{"cupinicida", []string{"veneno pra cupim", "remédio pra cupim"}},
}

// pestAliases are popular names of a few major pests that the registry
// lists under another common name (scientific name → popular name).
var pestAliases = map[string]string{
	"spodoptera frugiperda": "lagarta-do-cartucho",
	"phakopsora pachyrhizi": "ferrugem asiática",
	"leucoptera coffeella":  "bicho-mineiro",
	"hypothenemus hampei":   "broca-do-café",
	"digitaria insularis":   "capim-amargoso",
	"conyza bonariensis":    "buva",
	"euschistus heros":      "percevejo-marrom",
	"diabrotica speciosa":   "vaquinha",
	"cyperus rotundus":      "tiririca",
	"diatraea saccharalis":  "broca-da-cana",
}

// companies are short names people use for the largest registrants; a
// manufacturer matches when its normalized name contains the short name.
var companies = []string{
	"Syngenta", "Nortox", "UPL", "Adama", "Sumitomo", "Rainbow", "Basf", "FMC", "Bayer",
	"Cropchem", "Ouro Fino", "Albaugh", "CCAB", "Ihara", "Tecnomyl", "Sharda", "Koppert",
	"Oxon", "Ascenza", "Helm", "Sipcam", "Gowan", "Monsanto", "Nufarm", "Vittia",
}
