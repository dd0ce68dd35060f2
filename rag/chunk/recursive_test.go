package chunk

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func mustRecursive(t testing.TB, opts RecursiveOptions) *Recursive {
	t.Helper()
	r, err := NewRecursive(opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func texts(cs []Chunk) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Text
	}
	return out
}

func TestNewRecursiveOptions(t *testing.T) {
	tests := []struct {
		name          string
		opts          RecursiveOptions
		size, overlap int
		wantErr       bool
	}{
		{"zero value means defaults", RecursiveOptions{}, 1000, 200, false},
		{"negative overlap means none", RecursiveOptions{Size: 10, Overlap: -1}, 10, 0, false},
		{"custom", RecursiveOptions{Size: 50, Overlap: 10}, 50, 10, false},
		{"overlap equal to size", RecursiveOptions{Size: 10, Overlap: 10}, 0, 0, true},
		{"default overlap above small size", RecursiveOptions{Size: 100}, 0, 0, true},
		{"negative size", RecursiveOptions{Size: -5, Overlap: -1}, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewRecursive(tt.opts)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidOptions) {
					t.Fatalf("err = %v, want ErrInvalidOptions", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.sizeRunes() != tt.size || r.overlapRunes() != tt.overlap {
				t.Errorf("size, overlap = %d, %d; want %d, %d", r.sizeRunes(), r.overlapRunes(), tt.size, tt.overlap)
			}
		})
	}
}

// The expected chunks below were cross-checked against a port of
// LangChain's RecursiveCharacterTextSplitter (keep_separator="end",
// strip_whitespace=True).
func TestRecursiveSplit(t *testing.T) {
	tests := []struct {
		name string
		opts RecursiveOptions
		in   string
		want []string
	}{
		{"empty", RecursiveOptions{}, "", nil},
		{"whitespace only", RecursiveOptions{}, " \n\n\t ", nil},
		{"fits in one chunk, trimmed", RecursiveOptions{}, "  Café com leite.\n", []string{"Café com leite."}},
		{
			"paragraphs packed greedily",
			RecursiveOptions{Size: 12, Overlap: -1},
			"aaaa bbbb\n\ncccc dddd\n\neeee ffff",
			[]string{"aaaa bbbb", "cccc dddd", "eeee ffff"},
		},
		{
			"sentences with overlap of whole pieces",
			RecursiveOptions{Size: 25, Overlap: 14},
			"Uma frase. Outra frase. Mais uma. Fim aqui.",
			[]string{"Uma frase. Outra frase.", "Outra frase. Mais uma.", "Mais uma. Fim aqui."},
		},
		{
			"long paragraph falls back to words",
			RecursiveOptions{Size: 12, Overlap: -1},
			"curto\n\numa linha longa demais aqui",
			[]string{"curto", "uma linha", "longa", "demais aqui"},
		},
		{
			"huge word falls back to runes",
			RecursiveOptions{Size: 4, Overlap: 1},
			"açãoçãoç",
			[]string{"ação", "oção", "oç"},
		},
		{
			"size one",
			RecursiveOptions{Size: 1, Overlap: -1},
			"é a",
			[]string{"é", "a"},
		},
		{
			"custom separators",
			RecursiveOptions{Size: 6, Overlap: -1, Separators: []string{";", ""}},
			"ab;cd;efgh;ij",
			[]string{"ab;cd;", "efgh;", "ij"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustRecursive(t, tt.opts)
			got := r.Split(tt.in)
			if !slices.Equal(texts(got), tt.want) {
				t.Errorf("Split(%q) =\n%q\nwant\n%q", tt.in, texts(got), tt.want)
			}
			checkChunks(t, tt.in, got, r.sizeRunes(), r.overlapRunes())
		})
	}
}

func TestRecursiveOffsetsAreBytes(t *testing.T) {
	src := "ação\n\nnão"
	got := mustRecursive(t, RecursiveOptions{Size: 5, Overlap: -1}).Split(src)
	want := []Chunk{{Text: "ação", Start: 0}, {Text: "não", Start: 8}}
	if len(got) != len(want) {
		t.Fatalf("got %d chunks, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i].Text != want[i].Text || got[i].Start != want[i].Start {
			t.Errorf("chunk %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestRecursiveInvalidUTF8(t *testing.T) {
	src := "ab\xffcd\xe3\x81ef"
	r := mustRecursive(t, RecursiveOptions{Size: 2, Overlap: -1})
	got := r.Split(src)
	var joined strings.Builder
	for _, c := range got {
		joined.WriteString(c.Text)
	}
	if joined.String() != src {
		t.Errorf("chunks %q do not rebuild %q", texts(got), src)
	}
}

// TestRecursiveProperties runs the invariants over seeded random texts with
// pt-BR words, emoji, combining marks, huge words and every separator.
func TestRecursiveProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(2024, 5))
	for i := range 250 {
		src := randomText(rng, 1+rng.IntN(300))
		size := 1 + rng.IntN(400)
		overlap := rng.IntN(size)
		opts := RecursiveOptions{Size: size, Overlap: overlap}
		if overlap == 0 {
			opts.Overlap = -1
		}
		r := mustRecursive(t, opts)
		got := r.Split(src)
		checkChunks(t, src, got, size, overlap)
		if again := r.Split(src); !slices.EqualFunc(got, again, func(a, b Chunk) bool {
			return a.Text == b.Text && a.Start == b.Start
		}) {
			t.Fatalf("case %d: Split is not deterministic", i)
		}
		if t.Failed() {
			t.Fatalf("case %d: size %d overlap %d text %q", i, size, overlap, src)
		}
	}
}

func TestRecursiveDefaultsOnRealText(t *testing.T) {
	src := faquadText(t)
	r := mustRecursive(t, RecursiveOptions{})
	got := r.Split(src)
	checkChunks(t, src, got, defaultSize, defaultOverlap)
	if len(got) < 100 {
		t.Fatalf("only %d chunks for %d bytes", len(got), len(src))
	}
	// Chunks should be close to the target size, not tiny.
	total := 0
	for _, c := range got {
		total += utf8.RuneCountInString(c.Text)
	}
	if avg := total / len(got); avg < defaultSize/3 {
		t.Errorf("average chunk %d runes, want at least %d", avg, defaultSize/3)
	}
}

func FuzzRecursive(f *testing.F) {
	f.Add("Fungicidas protegem a soja.\n\nHerbicidas controlam plantas daninhas.", uint16(30), uint16(10))
	f.Add("açãoçãoçãoção não coração 🌱🌱🌱", uint16(3), uint16(1))
	f.Add(strings.Repeat("x", 500)+" y", uint16(7), uint16(0))
	f.Add("a\n\n\n\nb\n \n c. d.  e", uint16(1), uint16(0))
	f.Add("\xff\xfe invalid \xe3\x81 utf8", uint16(2), uint16(1))
	f.Fuzz(func(t *testing.T, src string, size, overlap uint16) {
		sz := 1 + int(size)%2000
		ov := int(overlap) % sz
		opts := RecursiveOptions{Size: sz, Overlap: ov}
		if ov == 0 {
			opts.Overlap = -1
		}
		r, err := NewRecursive(opts)
		if err != nil {
			t.Fatal(err)
		}
		got := r.Split(src)
		if utf8.ValidString(src) {
			checkChunks(t, src, got, sz, ov)
			return
		}
		// Invalid UTF-8: provenance and coverage still hold.
		for i, c := range got {
			if c.Text != src[c.Start:(c.Start+len(c.Text))] || strings.TrimSpace(c.Text) == "" {
				t.Fatalf("chunk %d = %+v", i, c)
			}
		}
	})
}

func BenchmarkRecursive(b *testing.B) {
	src := faquadText(b)
	r := mustRecursive(b, RecursiveOptions{})
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	var n int
	for b.Loop() {
		n = len(r.Split(src))
	}
	b.ReportMetric(float64(n), "chunks")
}

func BenchmarkRecursiveHugeWord(b *testing.B) {
	src := strings.Repeat("ação", 50_000) // 200k runes, no separator
	r := mustRecursive(b, RecursiveOptions{})
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		r.Split(src)
	}
}
