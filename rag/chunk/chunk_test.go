package chunk

import (
	"bufio"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/internal/testenv"
)

// checkChunks verifies the invariants every splitter guarantees: exact
// provenance, no empty or white-space chunks, rune boundaries, sizes, order,
// bounded overlap, and no skipped text.
func checkChunks(t testing.TB, src string, chunks []Chunk, maxRunes, overlap int) {
	t.Helper()
	prevStart, prevEnd := -1, 0
	for i, c := range chunks {
		end := c.Start + len(c.Text)
		if c.Start < 0 || end > len(src) || c.Start >= end {
			t.Fatalf("chunk %d: bad span [%d,%d) for %d bytes", i, c.Start, end, len(src))
		}
		if c.Text != src[c.Start:end] {
			t.Fatalf("chunk %d: Text != src[%d:%d]", i, c.Start, end)
		}
		if strings.TrimSpace(c.Text) == "" {
			t.Fatalf("chunk %d: whitespace-only text %q", i, c.Text)
		}
		if lo, hi := trimSpan(src, c.Start, end); lo != c.Start || hi != end {
			t.Fatalf("chunk %d: untrimmed text %q", i, c.Text)
		}
		if !onRuneBoundary(src, c.Start) || !onRuneBoundary(src, end) {
			t.Fatalf("chunk %d: [%d,%d) splits a rune", i, c.Start, end)
		}
		if n := utf8.RuneCountInString(c.Text); n > maxRunes {
			t.Fatalf("chunk %d: %d runes > %d", i, n, maxRunes)
		}
		if c.Start <= prevStart || end <= prevEnd {
			t.Fatalf("chunk %d [%d,%d) not after chunk %d [%d,%d)", i, c.Start, end, i-1, prevStart, prevEnd)
		}
		if c.Start < prevEnd {
			if n := utf8.RuneCountInString(src[c.Start:prevEnd]); n > overlap {
				t.Fatalf("chunks %d and %d overlap by %d runes > %d", i-1, i, n, overlap)
			}
		} else if gap := src[prevEnd:c.Start]; strings.TrimSpace(gap) != "" {
			t.Fatalf("text %q between chunks %d and %d is in no chunk", gap, i-1, i)
		}
		prevStart, prevEnd = c.Start, end
	}
	if rest := src[prevEnd:]; strings.TrimSpace(rest) != "" {
		t.Fatalf("trailing text %.40q is in no chunk", rest)
	}
}

var vocab = []string{
	"soja", "café", "ação", "não", "coração", "pulverização", "fungicida", "Heterorhabditis",
	"lagarta-do-cartucho", "R$", "1.234,56", "ñ", "über", "日本", "🌱", "e\u0301", "a",
	"\n\n", "\n", ". ", " ", "  ", "\t", ",", ".", "\n \n",
}

// randomText builds a seeded pseudo-random text mixing pt-BR words,
// separators, multi-byte runes and, sometimes, huge words.
func randomText(rng *rand.Rand, words int) string {
	var b strings.Builder
	for range words {
		switch rng.IntN(40) {
		case 0: // a huge word
			w := vocab[rng.IntN(8)]
			for range 1 + rng.IntN(300) {
				b.WriteString(w)
			}
		default:
			b.WriteString(vocab[rng.IntN(len(vocab))])
			if rng.IntN(3) > 0 {
				b.WriteByte(' ')
			}
		}
	}
	return b.String()
}

// repoRoot walks up from the working directory to the directory holding
// go.mod.
func repoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}

// faquadText returns the concatenated FaQuAD paragraphs from ../shared,
// skipping the test when the data is absent.
func faquadText(t testing.TB) string {
	t.Helper()
	path := filepath.Join(repoRoot(t), "..", "shared", "data", "faquad", "documents.jsonl")
	f, err := os.Open(path)
	if err != nil {
		testenv.Skip(t, testenv.Data, "FaQuAD data not available: %v", err)
	}
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var d struct{ Title, Content string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		b.WriteString("# " + d.Title + "\n\n" + d.Content + "\n\n")
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestEstimateTokensRunes(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"empty", "", 0},
		{"one rune", "a", 1},
		{"four runes", "abcd", 1},
		{"five runes", "abcde", 2},
		{"accents count as runes", "ação", 1},
		{"eight multi-byte runes", "çãçãçãçã", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := estimateTokens(tt.in); got != tt.want {
				t.Errorf("estimateTokens(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

// trimSpan narrows [lo, hi) of s to exclude leading and trailing white
// space, the obvious way; trimmer must agree with it.
func trimSpan(s string, lo, hi int) (int, int) {
	for lo < hi {
		r, n := utf8.DecodeRuneInString(s[lo:hi])
		if !unicode.IsSpace(r) {
			break
		}
		lo += n
	}
	for hi > lo {
		r, n := utf8.DecodeLastRuneInString(s[lo:hi])
		if !unicode.IsSpace(r) {
			break
		}
		hi -= n
	}
	return lo, hi
}

func TestTrimmerMatchesTrimSpan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		var b strings.Builder
		for range rng.IntN(200) {
			b.WriteString([]string{" ", "\n", "\u00a0", "a", "ç", "  \t"}[rng.IntN(6)])
		}
		s := b.String()
		tr := trimmer{s: s}
		lo, hi := 0, 0
		for lo < len(s) {
			// Spans moving forward, as packing produces them.
			lo = min(lo+rng.IntN(8), len(s))
			hi = min(max(hi, lo)+rng.IntN(30), len(s))
			for lo < len(s) && !utf8.RuneStart(s[lo]) {
				lo++
			}
			for hi < len(s) && !utf8.RuneStart(s[hi]) {
				hi++
			}
			if hi < lo {
				hi = lo
			}
			gl, gh := tr.trim(lo, hi)
			wl, wh := trimSpan(s, lo, hi)
			if wl < wh && (gl != wl || gh != wh) || wl >= wh && gl < gh {
				t.Fatalf("trim(%q, %d, %d) = [%d,%d), want [%d,%d)", s, lo, hi, gl, gh, wl, wh)
			}
			if lo == len(s) {
				break
			}
		}
	}
}

func TestTrimSpan(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		lo, hi int
	}{
		{"no space", "abc", 0, 3},
		{"both sides", " \n abc\t ", 3, 6},
		{"all space", " \n\t ", 4, 4},
		{"unicode space", "\u00a0ação\u2003", 2, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := trimSpan(tt.in, 0, len(tt.in))
			if tt.lo == tt.hi && lo == hi {
				return
			}
			if lo != tt.lo || hi != tt.hi {
				t.Errorf("trimSpan(%q) = [%d,%d), want [%d,%d)", tt.in, lo, hi, tt.lo, tt.hi)
			}
		})
	}
}
