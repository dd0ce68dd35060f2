package lexical_test

import (
	"fmt"
	"strings"

	"github.com/hybridrag/hybridrag/lexical"
)

func ExampleNormalize() {
	fmt.Println(lexical.Normalize("Café"))
	fmt.Println(lexical.Normalize("Cafe\u0301")) // NFD, as AGROFIT ships it
	fmt.Println(lexical.Normalize("  Herbicida 2,4-D para CANA-DE-AÇÚCAR "))
	// Output:
	// cafe
	// cafe
	// herbicida 2,4-d para cana-de-acucar
}

func ExampleTokens() {
	fmt.Printf("%q\n", lexical.Tokens("Qual o melhor fungicida para videira?"))
	fmt.Printf("%q\n", lexical.Tokens("Herbicida 2,4-D em cana-de-açúcar"))
	fmt.Printf("%q\n", lexical.Tokens("o que é isso?")) // only stopwords: fallback
	// Output:
	// ["melhor" "fungicida" "videira"]
	// ["herbicida" "2,4-d" "cana-de-acucar" "cana" "acucar"]
	// ["o que e isso?"]
}

func ExampleTokenizer() {
	tok := lexical.Tokenizer{
		Compounds: lexical.PartsOnly,
		Stopwords: lexical.DefaultStopwords().With("produto"),
		Filters:   []lexical.TokenFilter{lexical.StemFilter{}},
	}
	fmt.Printf("%q\n", tok.Tokens("Produto para pulgões e lagartas na cana-de-açúcar"))
	// Output:
	// ["pulg" "lagarta" "cana" "acucar"]
}

func ExampleStem() {
	for _, w := range []string{"fungicidas", "lagartas", "culturas", "pulgões", "pulgão", "pastagens"} {
		fmt.Println(w, "→", lexical.Stem(lexical.Normalize(w)))
	}
	// Output:
	// fungicidas → fungicida
	// lagartas → lagarta
	// culturas → cultura
	// pulgões → pulg
	// pulgão → pulg
	// pastagens → pastage
}

func ExampleSynonyms_Detect() {
	for _, m := range lexical.DefaultSynonyms().Detect("Como tirar erva daninha do cafezal?") {
		fmt.Printf("%s: %q → %s\n", m.Category, m.Text, m.Canonical)
	}
	// Output:
	// class: "erva daninha" → herbicida
	// subject: "cafezal" → café
}

// An English question is read through the preset's English table: each
// common word stands for its Portuguese translation (Mention.Translation);
// the table's own aliases ("stink bug") are no translation.
func ExampleSynonyms_Detect_english() {
	for _, m := range lexical.DefaultSynonyms().Detect("do you sell gloves? stink bugs are eating my beans") {
		fmt.Println(m.Text, "→", m.Term, m.Translation)
	}
	// Output:
	// sell → vender true
	// gloves → luva true
	// stink bugs → inseticida false
	// stink bugs → percevejo false
	// eating → comer true
	// beans → feijao false
}

func ExampleSynonyms_Expand() {
	query := "fungo na videira"
	terms, used := lexical.DefaultSynonyms().Expand(query, lexical.Tokens(query))
	fmt.Printf("%q\n", terms)
	for _, m := range used {
		fmt.Printf("%s → %s\n", m.Text, m.Term)
	}
	// Output:
	// ["fungo" "videira" "fungicida" "uva"]
	// fungo → fungicida
	// videira → uva
}

func ExampleSynonyms_Merge() {
	// A store that sells garden products adds its own words on top of the
	// default table: "praga de jardim" becomes an insecticide query and
	// "gramado" a crop.
	own, err := lexical.LoadSynonyms(strings.NewReader(`{
		"subject":   {"grama": ["gramado", "jardim"]},
		"class": {"inseticida": ["praga de jardim"]}
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	table := lexical.DefaultSynonyms().Merge(own)
	for _, m := range table.Detect("veneno para praga de jardim no gramado") {
		fmt.Printf("%s: %q → %s\n", m.Category, m.Text, m.Canonical)
	}
	// Output:
	// generic: "veneno" → defensivo
	// class: "praga de jardim" → inseticida
	// subject: "gramado" → grama
}

func ExampleScorer() {
	scorer := lexical.NewScorer(lexical.ScorerOptions{}) // the seeds' lexicalScore
	q := scorer.Prepare("fungicida para videira")
	item := lexical.Fields{ // one field per tag
		{Name: lexical.FieldName, Text: "Vinhedo Protect 250 SC"},
		{Name: lexical.FieldDescription, Text: "Fungicida sistêmico para míldio da videira"},
		{Name: lexical.FieldCategory, Text: "Fungicida"},
		{Name: lexical.FieldTags, Text: "Uva"},
		{Name: lexical.FieldTags, Text: "Tomate"},
	}
	score, sig := q.Score(item)
	fmt.Println("score:", score)
	for _, m := range sig.Matched {
		fmt.Println(" ", m.Term, m.Fields, m.Synonym)
	}
	fmt.Println("subjects:", sig.Subjects, "classes:", sig.Classes, "pair:", sig.Pair)
	fmt.Printf("%+v\n", sig.Breakdown)
	// Output:
	// score: 22.5
	//   fungicida [description category] false
	//   videira [description] false
	//   uva [tags] true
	// subjects: [uva] classes: [fungicida] pair: true
	// {Fields:11 Matches:1.5 Subject:2 Class:2 Pair:5 SubjectInTag:1 Proximity:0}
}

func ExampleFields() {
	// Any schema: FAQs scored on question and answer, with no synonyms.
	scorer := lexical.NewScorer(lexical.ScorerOptions{
		Fields:   []lexical.FieldSpec{{Name: "question", Weight: 3}, {Name: "answer", Weight: 1}},
		Synonyms: &lexical.Synonyms{},
	})
	q := scorer.Prepare("prazo de entrega da declaração")
	faq := lexical.Fields{
		{Name: "question", Text: "Qual o prazo para entregar a declaração?"},
		{Name: "answer", Text: "O prazo termina em 31 de maio."},
	}
	// prazo: question + answer + match = 3 + 1 + 0.5
	// entrega (inside "entregar"), declaracao: question + match = 3.5 each
	fmt.Println(q.ScoreOnly(faq))
	// Output:
	// 11.5
}
