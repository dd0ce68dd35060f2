package offline

import (
	"reflect"
	"strings"
	"testing"
)

func TestExtractAsksSafetyInterval(t *testing.T) {
	for q, want := range map[string]bool{
		"Qual a carência do Tebucor no trigo?":                                    true,
		"qual o intervalo de segurança do Fungiprot":                              true,
		"What is the safety interval of Mancozan on tomato?":                      true,
		"quantos dias antes da colheita posso aplicar?":                           true,
		"no programa, qual o intervalo entre as aplicações de fungicida?":         false,
		"depois de aplicar quanto tempo tenho que esperar pra entrar (reentrada)": false,
		"qual a dose do Fungiprot no café?":                                       false,
	} {
		if got := asksSafetyInterval(paddedWords(q)); got != want {
			t.Errorf("asksSafetyInterval(%q) = %v", q, got)
		}
	}
}

func TestExtractMatchTargets(t *testing.T) {
	targets := "capim-amargoso (Digitaria insularis), capim-colchão (Digitaria horizontalis) e capim-carrapicho (Cenchrus echinatus)"
	tests := []struct {
		words []string
		want  []string
	}{
		{contentWords("capim-amargoso"), []string{"capim-amargoso (Digitaria insularis)"}},
		{contentWords("capim"), []string{"capim-amargoso (Digitaria insularis)", "capim-colchão (Digitaria horizontalis)", "capim-carrapicho (Cenchrus echinatus)"}},
		{contentWords("buva"), nil},
	}
	for _, tt := range tests {
		if got, _ := matchTargets(targets, tt.words); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("matchTargets(%q) = %q, want %q", tt.words, got, tt.want)
		}
	}
}

// TestSmallTalkClosings: thanks and goodbyes get a closing, not the
// greeting again ("obrigado, valeu" was greeted as if the chat began), but
// thanks for help that did not help get the greeting's offer; the language
// of a short closing is its own word's.
func TestSmallTalkClosings(t *testing.T) {
	for msg, want := range map[string]string{
		"obrigado, valeu":              "De nada!",
		"vlw":                          "De nada!",
		"thanks!":                      "You're welcome!",
		"tchau, até logo":              "Até logo!",
		"bye":                          "Goodbye!",
		"oi, bom dia":                  GreetingAnswer,
		"hi":                           GreetingAnswerEnglish,
		"hello, good night":            GreetingAnswerEnglish,
		"hello, obrigado":              "De nada!",
		"muito agradecido":             "De nada!",
		"valeu, até mais":              "De nada!",
		"goodbye":                      "Goodbye!",
		"obrigado, mas não era isso":   GreetingAnswer,
		"thanks, but that didn't help": GreetingAnswerEnglish,
	} {
		got := smallTalkAnswer(msg, DetectLanguage(msg))
		if !strings.HasPrefix(got, want) {
			t.Errorf("%q → %q, want it to start with %q", msg, got, want)
		}
	}
}
