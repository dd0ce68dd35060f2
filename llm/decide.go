package llm

import (
	"strings"
	"unicode"
)

// KeywordDecision classifies a user's reply to a PendingConfirmation
// without a model call, from pt-BR and English keywords:
//
//   - DecisionConfirm when the reply only agrees: "sim", "pode", "ok",
//     "confirmo", "beleza", "manda ver", "tá certo", "yes", "go ahead";
//   - DecisionReject when it only refuses: "não", "cancela", "deixa",
//     "esquece", "não precisa, obrigado", "no", "cancel" — or both agrees
//     and refuses ("ok, cancela"), since nothing should run on a doubt;
//   - DecisionCorrect for anything else: a number ("não, 500 litros"), a
//     new value or word ("sim, mas em Goiânia"), another subject, an empty
//     reply.
//
// Words are compared without case or accents; punctuation separates them.
// A correction carries no arguments: callers give the reply to the model,
// which calls the tool again, so a correction is confirmed again before
// anything runs. A model does this better (DetectDecision recognizes
// phrasings no list holds); KeywordDecision is the offline default, and
// errs towards DecisionCorrect, which never executes anything.
func KeywordDecision(reply string) DecisionKind {
	var yes, no, other int
	for _, w := range decisionWords(reply) {
		switch {
		case confirmWords[w]:
			yes++
		case rejectWords[w]:
			no++
		case fillerWords[w]:
		default:
			other++
		}
	}
	switch {
	case other > 0 || yes+no == 0:
		return DecisionCorrect
	case no > 0:
		return DecisionReject
	default:
		return DecisionConfirm
	}
}

// decisionWords lower-cases s, folds Portuguese accents and splits it into
// words of letters and digits (apostrophes dropped: "don't" is "dont").
func decisionWords(s string) []string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == '\'' || r == '’':
			continue
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if f, ok := accentFold[r]; ok {
				r = f
			}
			b.WriteRune(r)
		default:
			b.WriteByte(' ')
		}
	}
	return strings.Fields(b.String())
}

var accentFold = map[rune]rune{
	'á': 'a', 'à': 'a', 'â': 'a', 'ã': 'a', 'ä': 'a',
	'é': 'e', 'ê': 'e', 'è': 'e', 'ë': 'e',
	'í': 'i', 'î': 'i', 'ì': 'i', 'ï': 'i',
	'ó': 'o', 'ô': 'o', 'õ': 'o', 'ò': 'o', 'ö': 'o',
	'ú': 'u', 'û': 'u', 'ù': 'u', 'ü': 'u',
	'ç': 'c', 'ñ': 'n',
}

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

var (
	// confirmWords agree: the common pt-BR and English ways of saying yes
	// (sim, ok, pode, beleza, manda ver, bora, tá certo…).
	confirmWords = wordSet(`sim s confirmo confirma confirmado confirmada confirmar pode podes ok okay okey blz beleza
		certo certinho isso exato exatamente correto perfeito claro fechado fechou bora manda mande mandar envia envie enviar
		segue siga seguir prossiga prosseguir solicita solicite solicitar faz faca fazer continua continue continuar vai
		positivo aceito quero bom otimo show certeza
		yes y yep yeah yup sure confirm confirmed proceed go ahead send do right fine correct absolutely`)
	// rejectWords refuse (não, cancela, deixa, esquece…).
	rejectWords = wordSet(`nao n cancela cancele cancelar cancelado cancelada deixa deixe esquece esqueca desisto desistir
		negativo nunca jamais pare parar
		no nope nah cancel stop abort dont never`)
	// fillerWords neither agree nor refuse nor add content.
	fillerWords = wordSet(`e o a os as um uma por favor obrigado obrigada valeu entao ta esta pra para mim la ai agora
		tudo mesmo ver com precisa preciso mais nada
		please thanks thank you it that is the mind its all good`)
)
