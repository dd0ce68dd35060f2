package lexical

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"ascii already normal", "fungicida para uva", "fungicida para uva"},
		{"upper ascii", "FUNGICIDA Para Uva", "fungicida para uva"},
		{"nfc accents", "Café", "cafe"},
		{"nfd accents", "Cafe\u0301", "cafe"},
		{"cedilla and tilde", "Cana-de-Açúcar e Algodão", "cana-de-acucar e algodao"},
		{"agrofit nfd text", "Nemato\u0301ides entomopatoge\u0302nicos", "nematoides entomopatogenicos"},
		{"upper accented", "PULGÕES NO TOMATEIRO", "pulgoes no tomateiro"},
		{"hyphen and digits kept", "Herbicida 2,4-D 806 g/L", "herbicida 2,4-d 806 g/l"},
		{"collapse white space", "  soja \t\n milho\u00a0\u2003 trigo  ", "soja milho trigo"},
		{"control characters are space", "soja\x00milho\x1ftrigo\x7f", "soja milho trigo"},
		{"format characters dropped", "ca\u00adfé\u200b \ufeffsoja", "cafe soja"},
		{"invalid utf-8 repaired", "caf\xe9 \xff\xfe soja", "caf\ufffd \ufffd soja"},
		{"dotted capital I", "\u0130NSET\u0130C\u0130DA", "inseticida"},
		{"kelvin sign", "\u212a", "k"},
		{"angstrom sign", "\u212b", "a"},
		{"greek", "ΦΥΤΟΦΘΟΡΑ", "φυτοφθορα"},
		{"german sharp s", "STRAẞE", "straße"},
		{"only spaces", " \t\n ", ""},
		{"punctuation kept", "O que é isso?!", "o que e isso?!"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Normalize(tt.in)
			if got != tt.want {
				t.Fatalf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if again := Normalize(got); again != got {
				t.Errorf("not idempotent: Normalize(%q) = %q", got, again)
			}
			if !utf8.ValidString(got) {
				t.Errorf("invalid UTF-8 out: %q", got)
			}
		})
	}
}

func TestNormalizeSameForAllForms(t *testing.T) {
	forms := []string{"Café", "Cafe\u0301", "cafe", "CAFÉ", "CAFE\u0301", " café "}
	for _, f := range forms {
		if got := Normalize(f); got != "cafe" {
			t.Errorf("Normalize(%q) = %q, want %q", f, got, "cafe")
		}
	}
}

func TestNormalizeFastPathDoesNotAllocate(t *testing.T) {
	s := strings.Repeat("fungicida sistemico para uva ", 20)
	s = s[:len(s)-1]
	allocs := testing.AllocsPerRun(100, func() {
		if Normalize(s) != s {
			t.Fatal("normalized ASCII changed")
		}
	})
	if allocs != 0 {
		t.Errorf("Normalize of normalized ASCII allocated %.0f times", allocs)
	}
}

func TestIsNormalASCII(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"", true},
		{"abc def", true},
		{"abc  def", false},
		{" abc", false},
		{"abc ", false},
		{"Abc", false},
		{"a\tb", false},
		{"a\x00b", false},
		{"caf\u00e9", false},
		{"2,4-d!", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := isNormalASCII(tt.in); got != tt.want {
				t.Errorf("isNormalASCII(%q) = %v, want %v", tt.in, got, tt.want)
			}
			if tt.want && Normalize(tt.in) != tt.in {
				t.Errorf("fast path accepted %q but Normalize changes it", tt.in)
			}
		})
	}
}

// isNormalASCIIRef is the byte-at-a-time definition isNormalASCII must
// agree with.
func isNormalASCIIRef(s string) bool {
	prevSpace := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf, 'A' <= c && c <= 'Z', c < ' ', c == 0x7f:
			return false
		case c == ' ':
			if prevSpace {
				return false
			}
			prevSpace = true
		default:
			prevSpace = false
		}
	}
	return !prevSpace || len(s) == 0
}

func TestIsNormalASCIIMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("ab z  AZ@[`{\x00\x1f\x7f\x80\xff-,.09")
	for range 50000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			if r.IntN(4) == 0 {
				b[i] = alphabet[r.IntN(len(alphabet))]
			} else {
				b[i] = byte('a' + r.IntN(26))
			}
		}
		s := string(b)
		if got, want := isNormalASCII(s), isNormalASCIIRef(s); got != want {
			t.Fatalf("isNormalASCII(%q) = %v, reference %v", s, got, want)
		}
	}
	for c := range 256 {
		for _, s := range []string{string([]byte{byte(c)}) + "abcdefghij", "abcdefgh" + string([]byte{byte(c)}), "abcdefg" + string([]byte{byte(c), ' '}) + "x"} {
			if got, want := isNormalASCII(s), isNormalASCIIRef(s); got != want {
				t.Fatalf("isNormalASCII(%q) = %v, reference %v", s, got, want)
			}
		}
	}
}

// TestNormalizeTableMatchesFull checks the table path against the x/text
// reference on every rune it covers, alone and next to marks and spaces.
func TestNormalizeTableMatchesFull(t *testing.T) {
	var runes []rune
	for r := rune(0x80); r < foldLatinEnd; r++ {
		runes = append(runes, r)
	}
	for r := rune(foldPunctStart); r < foldPunctEnd; r++ {
		runes = append(runes, r)
	}
	for _, r := range runes {
		for _, s := range []string{string(r), "A" + string(r) + "b", string(r) + "\u0301 x", " " + string(r) + " ", "e\u0301" + string(r) + "\u0327"} {
			got, ok := normalizeTable(s)
			if !ok {
				t.Fatalf("normalizeTable(%q) refused a covered rune", s)
			}
			if want := normalizeFull(s); got != want {
				t.Fatalf("normalizeTable(%q) = %q, normalizeFull = %q", s, got, want)
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		b := make([]rune, rng.IntN(20))
		for i := range b {
			if rng.IntN(3) == 0 {
				b[i] = rune(rng.IntN(128))
			} else {
				b[i] = runes[rng.IntN(len(runes))]
			}
		}
		s := string(b)
		got, ok := normalizeTable(s)
		if want := normalizeFull(s); !ok || got != want {
			t.Fatalf("normalizeTable(%q) = %q, %v; normalizeFull = %q", s, got, ok, want)
		}
	}
	if _, ok := normalizeTable("café 農薬"); ok {
		t.Error("normalizeTable must refuse runes outside its table")
	}
}
