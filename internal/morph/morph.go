// Package morph holds small pieces of Portuguese morphology shared by the
// lexical engine and the evidence of package rag.
package morph

import "strings"

// Undiminish returns the words a Portuguese diminutive may stand for, in
// lexical.Normalize form: "lagartinha" → "lagarta", "mosquinha" →
// "mosca", "formiguinhas" → "formigas", "pulgaozinho" → "pulgao". A word
// without a diminutive ending, or too short to have one, gives nil. Many
// words only look like diminutives ("vizinho", "caminho", "farinha"):
// callers accept a base only when their vocabulary knows it.
func Undiminish(word string) []string {
	plural := ""
	w := word
	if strings.HasSuffix(w, "s") {
		plural, w = "s", w[:len(w)-1]
	}
	if len(w) < 7 {
		return nil
	}
	for _, suf := range []string{"zinho", "zinha"} {
		if stem, ok := strings.CutSuffix(w, suf); ok && len(stem) >= 3 {
			return []string{stem + plural}
		}
	}
	var out []string
	for _, suf := range []string{"inho", "inha"} {
		stem, ok := strings.CutSuffix(w, suf)
		if !ok || len(stem) < 3 {
			continue
		}
		switch {
		case strings.HasSuffix(stem, "qu"):
			stem = stem[:len(stem)-2] + "c"
		case strings.HasSuffix(stem, "gu"):
			stem = stem[:len(stem)-1]
		}
		out = append(out, stem+suf[3:]+plural)
	}
	return out
}
