package lexical

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// benchVocabulary is pt-BR agronomy text the seeded generator draws from.
var benchVocabulary = strings.Fields(`fungicida herbicida inseticida acaricida sistêmico contato
	seletivo pós-emergente pré-emergente controle de míldio oídio ferrugem asiática mancha
	foliar lagartas pulgões percevejos mosca-branca ácaros plantas daninhas capim-amargoso buva
	tiririca para em da do das dos com aplicação terrestre aérea dose litros por hectare
	concentrado emulsionável suspensão concentrada granulado dispersível pó molhável registrado
	culturas soja milho café cana-de-açúcar algodão uva videira tomate batata feijão trigo
	citros laranja arroz pastagens eucalipto banana maçã cebola alho intervalo de segurança dias
	classe toxicológica produto pouco perigoso ao meio ambiente 2,4-D glifosato mancozebe`)

var benchCultures = strings.Fields("Soja Milho Café Cana-de-açúcar Algodão Uva Tomate Batata Feijão Trigo Citros Arroz Pastagens")

// benchRecords generates n catalog items with a fixed seed.
func benchRecords(n int, normalized bool) []productRecord {
	r := rand.New(rand.NewPCG(42, 2024))
	words := func(k int) string {
		ws := make([]string, k)
		for i := range ws {
			ws[i] = benchVocabulary[r.IntN(len(benchVocabulary))]
		}
		return strings.Join(ws, " ")
	}
	classes := []string{"Fungicida", "Herbicida", "Inseticida", "Acaricida/Inseticida", "Fertilizante"}
	out := make([]productRecord, n)
	for i := range out {
		rec := productRecord{
			Name:         "Produto " + words(2),
			Description:  words(30 + r.IntN(30)),
			Category:     classes[r.IntN(len(classes))],
			Manufacturer: "Empresa " + words(1) + " Ltda.",
		}
		for range 1 + r.IntN(5) {
			rec.Tags = append(rec.Tags, benchCultures[r.IntN(len(benchCultures))])
		}
		if normalized {
			rec.Name, rec.Description = Normalize(rec.Name), Normalize(rec.Description)
			rec.Category, rec.Manufacturer = Normalize(rec.Category), Normalize(rec.Manufacturer)
			for j, t := range rec.Tags {
				rec.Tags[j] = Normalize(t)
			}
		}
		out[i] = rec
	}
	return out
}

func BenchmarkNormalize(b *testing.B) {
	raw := benchRecords(1, false)[0].Description
	cases := []struct{ name, text string }{
		{"normalized-ascii", Normalize(raw)},
		{"accented-nfc", raw},
		{"accented-nfd", nfd(raw)},
		{"upper-case", strings.ToUpper(raw)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				_ = Normalize(c.text)
			}
		})
	}
}

func nfd(s string) string {
	r := strings.NewReplacer("á", "a\u0301", "é", "e\u0301", "í", "i\u0301", "ó", "o\u0301", "ú", "u\u0301", "ã", "a\u0303", "õ", "o\u0303", "ç", "c\u0327", "ê", "e\u0302", "â", "a\u0302")
	return r.Replace(s)
}

var benchQueries = []string{
	"Qual o melhor fungicida para míldio na videira?",
	"herbicida 2,4-D para pastagem",
	"remédio pra pulgões no tomateiro",
	"adubo foliar café",
}

func BenchmarkTokens(b *testing.B) {
	stem := Tokenizer{Filters: []TokenFilter{StemFilter{}}}
	b.Run("default", func(b *testing.B) {
		i := 0
		for b.Loop() {
			_ = Tokens(benchQueries[i%len(benchQueries)])
			i++
		}
	})
	b.Run("stemmed", func(b *testing.B) {
		i := 0
		for b.Loop() {
			_ = stem.Tokens(benchQueries[i%len(benchQueries)])
			i++
		}
	})
}

func BenchmarkStem(b *testing.B) {
	words := strings.Fields("fungicidas pulgoes sistemicas pastagens canaviais lagartas soja aplicacoes")
	i := 0
	for b.Loop() {
		_ = Stem(words[i%len(words)])
		i++
	}
}

func BenchmarkDetect(b *testing.B) {
	s := DefaultSynonyms()
	i := 0
	for b.Loop() {
		_ = s.Detect(benchQueries[i%len(benchQueries)])
		i++
	}
}

// BenchmarkDetectEnglish: English questions, which the preset also reads
// through its English table.
func BenchmarkDetectEnglish(b *testing.B) {
	s := DefaultSynonyms()
	qs := []string{
		"how many hours does the battery on your electric backpack sprayer last?",
		"do you sell gloves and boots for spraying?",
		"I sent the product back last week, when do I get my money?",
	}
	i := 0
	for b.Loop() {
		_ = s.Detect(qs[i%len(qs)])
		i++
	}
}

func BenchmarkPrepare(b *testing.B) {
	s := NewScorer(ScorerOptions{})
	i := 0
	for b.Loop() {
		_ = s.Prepare(benchQueries[i%len(benchQueries)])
		i++
	}
}

// BenchmarkScore measures one record per operation over 200 seeded
// candidates, the seeds' candidate cap.
func BenchmarkScore(b *testing.B) {
	s := NewScorer(ScorerOptions{})
	q := s.Prepare(benchQueries[0])
	for _, c := range []struct {
		name       string
		normalized bool
		signals    bool
	}{
		{"ScoreOnly/normalized", true, false},
		{"ScoreOnly/raw", false, false},
		{"Score/normalized", true, true},
		{"Score/raw", false, true},
	} {
		recs := benchRecords(200, c.normalized)
		b.Run(c.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				rec := &recs[i%len(recs)]
				if c.signals {
					_, _ = q.Score(rec)
				} else {
					_ = q.ScoreOnly(rec)
				}
				i++
			}
		})
	}
}
