package lexical

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// fuzzSeeds are shared by the fuzzers; more seeds live in testdata/fuzz.
var fuzzSeeds = []string{
	"",
	"Café",
	"Cafe\u0301",
	"Fungicida para VIDEIRA",
	"Herbicida 2,4-D para cana-de-açúcar e pastagens",
	"adubo NPK 10-10-10, dose 0,5 L/ha",
	"  \t\n espaços\u00a0\u2003demais  ",
	"caf\xe9 \xff inválido",
	"\u0130STANBUL ẞ \u212a \u212b \u1f88",
	"ca\u00adfé\u200b\ufeff",
	"o que é isso?",
	"Фунгицид 農薬 مبيد",
	"a-b-c 1.2.3 -x- ,5 5, --",
}

func FuzzNormalize(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Normalize(s)
		if utf8.ValidString(s) {
			if fast, ok := normalizeTable(s); ok && fast != normalizeFull(s) {
				t.Fatalf("normalizeTable(%q) = %q, normalizeFull = %q", s, fast, normalizeFull(s))
			}
		}
		if !utf8.ValidString(out) {
			t.Fatalf("Normalize(%q) = %q: invalid UTF-8", s, out)
		}
		if again := Normalize(out); again != out {
			t.Fatalf("not idempotent: Normalize(%q) = %q, Normalize(%q) = %q", s, out, out, again)
		}
		if strings.HasPrefix(out, " ") || strings.HasSuffix(out, " ") || strings.Contains(out, "  ") {
			t.Fatalf("Normalize(%q) = %q: white space not collapsed", s, out)
		}
		for _, r := range out {
			switch {
			case r != ' ' && (unicode.IsSpace(r) || unicode.IsControl(r)):
				t.Fatalf("Normalize(%q) = %q keeps space or control %U", s, out, r)
			case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Cf, r):
				t.Fatalf("Normalize(%q) = %q keeps mark or format %U", s, out, r)
			case unicode.ToLower(r) != r:
				t.Fatalf("Normalize(%q) = %q keeps upper-case %U", s, out, r)
			}
		}
	})
}

func FuzzTokens(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks, fallback := Tokenizer{}.Analyze(s)
		if len(toks) > defaultMaxTokens {
			t.Fatalf("Tokens(%q) = %d tokens", s, len(toks))
		}
		if norm := Normalize(s); norm == "" {
			if toks != nil {
				t.Fatalf("Tokens(%q) = %q, want nil", s, toks)
			}
			return
		} else if fallback && (len(toks) != 1 || toks[0] != norm) {
			t.Fatalf("fallback Tokens(%q) = %q, want [%q]", s, toks, norm)
		}
		for i, tok := range toks {
			if !utf8.ValidString(tok) || tok == "" {
				t.Fatalf("Tokens(%q)[%d] = %q: empty or invalid UTF-8", s, i, tok)
			}
			if Normalize(tok) != tok {
				t.Fatalf("Tokens(%q)[%d] = %q is not normalized", s, i, tok)
			}
			if slices.Index(toks, tok) != i {
				t.Fatalf("Tokens(%q) = %q repeats %q", s, toks, tok)
			}
			if !fallback {
				if again := Tokens(tok); len(again) == 0 || again[0] != tok {
					t.Fatalf("Tokens(%q) = %q, want %q first", tok, again, tok)
				}
			}
		}
		// Idempotent: tokenizing the normalized text, or the tokens
		// themselves, gives the same tokens.
		if again := Tokens(Normalize(s)); !slices.Equal(again, toks) {
			t.Fatalf("Tokens(Normalize(%q)) = %q, Tokens = %q", s, again, toks)
		}
		if !fallback {
			if again := Tokens(strings.Join(toks, " ")); !slices.Equal(again, toks) {
				t.Fatalf("Tokens(join(Tokens(%q))) = %q, want %q", s, again, toks)
			}
		}
	})
}

func FuzzStem(f *testing.F) {
	for _, s := range []string{"fungicidas", "pulgoes", "sistemicas", "canaviais", "pastagens", "aaaa", "ssss", "oesoes"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st := Stem(s)
		if !strings.HasPrefix(s, st) {
			t.Fatalf("Stem(%q) = %q is not a prefix", s, st)
		}
		if again := Stem(st); again != st {
			t.Fatalf("Stem(Stem(%q)) = %q, Stem = %q", s, again, st)
		}
		if len(s) >= 3 && len(st) < 3 {
			t.Fatalf("Stem(%q) = %q over-reduced", s, st)
		}
	})
}
