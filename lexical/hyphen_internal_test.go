package lexical

import (
	"slices"
	"testing"
)

// TestHyphenatedCode: a code typed without its hyphen ("2,4D") searches
// the form records write ("2,4-D"); a number with a unit ("15km") or a
// stage ("v8") does not.
func TestHyphenatedCode(t *testing.T) {
	for in, want := range map[string]string{
		"2,4d": "2,4-d", "24d": "24-d", "15km": "", "v8": "", "2800": "", "mcpa": "", "2,4-d": "", "": "",
	} {
		if got := hyphenatedCode(in); got != want {
			t.Errorf("hyphenatedCode(%q) = %q, want %q", in, got, want)
		}
	}
	q := NewScorer(ScorerOptions{}).Prepare("tem 2,4D?")
	if terms := q.Terms(); !slices.Contains(terms, "2,4-d") || !slices.Contains(terms, "2,4d") {
		t.Errorf("Prepare(\"tem 2,4D?\").Terms() = %v, want 2,4d and 2,4-d", terms)
	}
}
