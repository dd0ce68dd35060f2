package offline

import (
	"slices"
	"strings"

	"github.com/hybridrag/hybridrag/internal/chunkagg"
	"github.com/hybridrag/hybridrag/internal/textutil"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/passage"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/rag/chunk"
	"github.com/hybridrag/hybridrag/storage"
)

// contentWords are the stemmed content words of a question: no stopword,
// no frame word ("qual", "vende", "serve"), no word shorter than 3.
func contentWords(question string) []string {
	stop := lexical.DefaultStopwords()
	frame := defaultFrameSet
	var out []string
	for _, w := range textutil.NormWords(question) {
		st := lexical.Stem(w)
		if len(w) < 3 || stop.Contains(w) || frame[w] || frame[st] || slices.Contains(out, st) {
			continue
		}
		out = append(out, st)
	}
	return out
}

// documentQuote is what a document hit says on the question: the
// sentence (or table row) that best matches words (those of its title
// aside) and a sentence defining one of terms (definedTerms), with the
// next best of the same Markdown section up to n units — the whole section
// when it has maxShort characters or fewer — and the citation "Title ›
// Section". The section of the hit's best chunk (its heading_path) is
// favoured. defines reports a sentence defining a term. With no sentence
// holding a question word it falls back to the hit's snippet.
func documentQuote(h *rag.Hit[storage.Document], words, terms []string, n, maxShort int) (text, citation string, defines bool) {
	heading := ""
	if h.Vector != nil {
		heading = strings.Join(h.Vector.HeadingPath, chunk.HeadingSeparator)
	}
	// The title's words are what every passage is about.
	if title := passage.StemSet(h.Record.Title); len(title) > 0 {
		if rest := slices.DeleteFunc(slices.Clone(words), func(w string) bool { return title[w] }); len(rest) > 0 {
			words = rest
		}
	}
	secs := passage.MarkdownSections(h.Record.Content)
	var units []passage.Unit
	for i, s := range secs {
		var head map[string]bool
		if len(s.Path) > 1 {
			head = passage.StemSet(s.Path[len(s.Path)-1])
		}
		for _, t := range passage.Units(s.Text) {
			units = append(units, passage.Unit{Text: t, Section: i, Words: passage.StemSet(t), Heading: head})
		}
	}
	passage.ScoreUnits(units, words)
	defines = passage.BoostDefinitions(units, terms)
	for i := range units {
		if p := secs[units[i].Section].Heading(); units[i].Score > 0 && heading != "" && p != "" && strings.HasSuffix(heading, p) {
			units[i].Score += 1
		}
	}
	picked, ok := passage.PickUnits(units, n, maxShort)
	if !ok {
		return chunkagg.Truncate(textutil.OneLine(strings.Join(passage.Units(h.Snippet), " ")), 320), rag.DocumentCitation(h), false
	}
	texts := make([]string, len(picked))
	for i, u := range picked {
		texts[i] = chunkagg.Truncate(u.Text, 320)
	}
	citation = h.Record.Title
	if p := secs[picked[0].Section].Heading(); p != "" {
		citation = p
		if h.Record.Title != "" && !strings.HasPrefix(p, h.Record.Title) {
			citation = h.Record.Title + chunk.HeadingSeparator + p
		}
	}
	return passage.JoinPassages(texts), citation, defines
}

// faqQuote is a FAQ's answer, Markdown stripped: whole when short
// (maxShort characters or fewer), else its sentences that hold the most
// of words (at most n, in order; the first one leads when the FAQ's
// question holds most of words), or its first n sentences. defines
// reports a sentence defining one of terms (definedTerms).
func faqQuote(question, answer string, words, terms []string, n, maxShort int) (string, bool) {
	var units []passage.Unit
	for _, t := range passage.Units(answer) {
		units = append(units, passage.Unit{Text: t, Words: passage.StemSet(t)})
	}
	passage.ScoreUnits(units, words)
	if len(units) > 0 && holdsMost(passage.StemSet(question), words) {
		// The FAQ asks what the user asks: its answer opens with the
		// answer ("Mantenha os sacos em local seco, fresco e ventilado…").
		top := 0.0
		for _, u := range units {
			top = max(top, u.Score)
		}
		units[0].Score = top + 1
	}
	defines := passage.BoostDefinitions(units, terms)
	picked, ok := passage.PickUnits(units, n, maxShort)
	if !ok {
		picked = units[:min(n, len(units))]
	}
	texts := make([]string, len(picked))
	for i, u := range picked {
		texts[i] = u.Text
	}
	return passage.JoinPassages(texts), defines
}

// holdsMost reports whether set holds at least half of words (and one).
func holdsMost(set map[string]bool, words []string) bool {
	n := 0
	for _, w := range words {
		if set[w] {
			n++
		}
	}
	return n > 0 && 2*n >= len(words)
}

// defaultFrameSet holds the request words (rag.DefaultSearcherOptions().Evidence.FrameWords) folded
// for lookup.
var defaultFrameSet = textutil.FrameSet(rag.DefaultSearcherOptions().Evidence.FrameWords)
