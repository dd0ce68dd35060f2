package offline_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/offline"
)

func TestDetectLanguage(t *testing.T) {
	tests := []struct {
		in   string
		want rag.Language
	}{
		{"What is the dose of Fungiprot 250 SC on coffee?", rag.LanguageEnglish},
		{"do you sell cordless drills?", rag.LanguageEnglish},
		{"qual a dose do Fungiprot 250 SC no café?", rag.LanguagePortuguese},
		{"vcs tem inseticida pra lagarta?", rag.LanguagePortuguese},
		{"Fungiprot", rag.LanguagePortuguese},
		{"", rag.LanguagePortuguese},
		{"Thanks a lot, that was helpful. Bye!", rag.LanguageEnglish},
		{"My order arrived with a broken container and the product leaked", rag.LanguageEnglish},
	}
	for _, tt := range tests {
		if got := offline.DetectLanguage(tt.in); got != tt.want {
			t.Errorf("DetectLanguage(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestOfflineAnswersTheQuestion runs the offline pipeline over testdata
// and checks that the fact asked is in the answer, in the question's
// language, without Markdown.
func TestOfflineAnswersTheQuestion(t *testing.T) {
	p := ragtest.OfflinePipeline(t, rag.PipelineOptions{})
	grape := []rag.Turn{
		{Role: llm.RoleUser, Content: "tem fungicida para uva?"},
		{Role: llm.RoleAssistant, Content: "Temos o Fosetal 800 WG e outros."},
	}
	tests := []struct {
		name    string
		msg     string
		history []rag.Turn
		want    []string
		not     []string
	}{
		{name: "leaflet table row of the crop asked", msg: "Qual a dose do Fungiprot 250 SC no café?",
			want: []string{"Fungiprot 250 SC", "400 mL/ha", "30 dias"}, not: []string{"300 mL/ha"}},
		{name: "safety interval from a bullet line", msg: "Tebucor no trigo, quantos dias de carencia?",
			want: []string{"Tebucor 200 EC", "35 dias"}},
		{name: "active ingredient from metadata", msg: "qual o princípio ativo do Cletox 240 EC?", want: []string{"cletodim"}},
		{name: "FAQ fact", msg: "qual o prazo de entrega?", want: []string{"14h", "2 a 5 dias úteis"}},
		{name: "document textPassage, no Markdown", msg: "o que é vazio sanitário?", want: []string{"60 dias"}, not: []string{"#"}},
		{name: "follow-up takes the crop from the history", msg: "e qual a dose do Fosetal?", history: grape,
			want: []string{"Fosetal 800 WG", "Uva"}},
		{name: "English frame, data as stored", msg: "What is the dose of Fungiprot 250 SC on coffee?",
			want: []string{"400 mL/ha", "label"}, not: []string{"culturas", "Confira"}},
		{name: "abstention in Portuguese", msg: "Vocês vendem ração para cachorro?",
			want: []string{"Não encontrei", "WhatsApp"}, not: []string{"R$"}},
		{name: "abstention in English", msg: "do you sell cordless drills?",
			want: []string{"I found nothing"}, not: []string{"R$", "culturas"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := p.Chat(context.Background(), rag.ChatRequest{Message: tt.msg, History: tt.history})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(resp.Answer, w) {
					t.Errorf("answer lacks %q:\n%s", w, resp.Answer)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(resp.Answer, w) {
					t.Errorf("answer has %q:\n%s", w, resp.Answer)
				}
			}
		})
	}
}

func TestKeywordClassifierDefinitions(t *testing.T) {
	c := offline.KeywordClassifier{}
	// The definition outweighs a topic keyword (tríplice lavagem is an
	// agronomy one, calcário a catalog one): documents and FAQs answer.
	for _, msg := range []string{"o que é vazio sanitário?", "o que é tríplice lavagem?", "o que quer dizer PRNT no calcário?"} {
		got, err := c.Classify(context.Background(), rag.ClassifyRequest{Message: msg})
		if err != nil {
			t.Fatal(err)
		}
		if got.Intent != rag.IntentSupport {
			t.Errorf("Classify(%q) = %q (%s), want support", msg, got.Intent, got.Reason)
		}
	}
}

// An everyday English word read through the preset's English table
// (lexical.Mention.Translation: "morning" as "manhã", "thank" as
// "agradecer") is no keyword of the store's: English small talk stays
// small talk, and a question naming nothing of the store stays "other";
// the English request words are catalog keywords as the Portuguese ones
// ("sell" as "vendem", "how much" as "quanto custa").
func TestKeywordClassifierEnglishWords(t *testing.T) {
	c := offline.KeywordClassifier{}
	for msg, want := range map[string]rag.Intent{
		"Hello, how are you?":                       rag.IntentSmallTalk,
		"thank you so much":                         rag.IntentSmallTalk,
		"bye, see you later":                        rag.IntentSmallTalk,
		"Thanks a lot, that was helpful. Bye!":      rag.IntentSmallTalk,
		"what is the weather tomorrow in Campinas?": rag.IntentOther,
		"Do you sell cigarettes?":                   rag.IntentCatalog,
		"How much does a tractor cost?":             rag.IntentCatalog,
	} {
		got, err := c.Classify(context.Background(), rag.ClassifyRequest{Message: msg})
		if err != nil {
			t.Fatal(err)
		}
		if got.Intent != want {
			t.Errorf("Classify(%q) = %q (%s), want %q", msg, got.Intent, got.Reason, want)
		}
	}
}
