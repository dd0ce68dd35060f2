package chunk

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func mustStructural(t testing.TB, opts StructuralOptions) *Structural {
	t.Helper()
	s, err := NewStructural(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// doc builds a text from (level, heading, body) parts the way a Markdown
// loader would, returning the text and its sections.
type part struct {
	level   int
	heading string
	body    string
}

func buildDoc(parts []part) (string, []Section) {
	var b strings.Builder
	var secs []Section
	var stack []part
	for _, p := range parts {
		if p.heading == "" { // preamble
			b.WriteString(p.body + "\n\n")
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].level >= p.level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, p)
		path := make([]string, len(stack))
		for i, s := range stack {
			path[i] = s.heading
		}
		if n := len(secs); n > 0 {
			secs[n-1].End = b.Len()
		}
		secs = append(secs, Section{Start: b.Len(), Level: p.level, HeadingPath: path})
		b.WriteString(strings.Repeat("#", max(p.level, 1)) + " " + p.heading + "\n\n" + p.body + "\n\n")
	}
	if n := len(secs); n > 0 {
		secs[n-1].End = b.Len()
	}
	return b.String(), secs
}

func TestNewStructuralOptions(t *testing.T) {
	tests := []struct {
		name    string
		opts    StructuralOptions
		wantErr bool
	}{
		{"zero value means defaults", StructuralOptions{}, false},
		{"no overlap, no minimum", StructuralOptions{MaxTokens: 10, OverlapTokens: -1, MinTokens: -1}, false},
		{"overlap not below max", StructuralOptions{MaxTokens: 10, OverlapTokens: 10}, true},
		{"default overlap above small max", StructuralOptions{MaxTokens: 20}, true},
		{"negative max", StructuralOptions{MaxTokens: -1, OverlapTokens: -1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewStructural(tt.opts)
			if tt.wantErr != (err != nil) {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil && !errors.Is(err, ErrInvalidOptions) {
				t.Errorf("err = %v, want ErrInvalidOptions", err)
			}
		})
	}
}

func TestStructuralSplit(t *testing.T) {
	para := func(word string, n int) string { return strings.TrimSpace(strings.Repeat(word+" ", n)) }
	// 10 tokens = 40 runes a chunk, no overlap, minimum 5 tokens = 20 runes.
	opts := StructuralOptions{MaxTokens: 10, OverlapTokens: -1, MinTokens: 5}
	tests := []struct {
		name  string
		parts []part
		want  []string // "heading path | text"
	}{
		{
			"no sections is one untitled section",
			[]part{{body: "Texto sem títulos."}},
			[]string{" | Texto sem títulos."},
		},
		{
			"level 1 and 2 headings break, level 3 does not",
			[]part{
				{1, "Manual", "Introdução."},
				{2, "Soja", "Ferrugem."},
				{3, "Doses", "Dose baixa."},
				{2, "Milho", "Cigarrinha."},
			},
			[]string{
				"Manual | # Manual\n\nIntrodução.",
				"Manual › Soja | ## Soja\n\nFerrugem.\n\n### Doses\n\nDose baixa.",
				"Manual › Milho | ## Milho\n\nCigarrinha.",
			},
		},
		{
			"preamble before the first heading has no path",
			[]part{{body: "Prefácio."}, {1, "Capítulo", "Corpo."}},
			[]string{" | Prefácio.", "Capítulo | # Capítulo\n\nCorpo."},
		},
		{
			"small trailing piece merged into the previous chunk of its section",
			[]part{{1, "A", para("soja", 8) + "\n\n" + "fim."}, {1, "B", "outro."}},
			[]string{
				"A | # A",
				"A | " + para("soja", 8) + "\n\nfim.",
				"B | # B\n\noutro.",
			},
		},
		{
			"short section stays a chunk of its own",
			[]part{{1, "A", "um."}, {1, "B", "dois."}},
			[]string{"A | # A\n\num.", "B | # B\n\ndois."},
		},
	}
	st := mustStructural(t, opts)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, secs := buildDoc(tt.parts)
			got, err := st.Split(src, secs)
			if err != nil {
				t.Fatal(err)
			}
			var gotS []string
			for _, c := range got {
				gotS = append(gotS, strings.Join(c.HeadingPath, HeadingSeparator)+" | "+c.Text)
			}
			if !slices.Equal(gotS, tt.want) {
				t.Errorf("got\n%q\nwant\n%q", gotS, tt.want)
			}
			checkChunks(t, src, got, (10+5)*charsPerToken, 0)
		})
	}
}

func TestStructuralSectionErrors(t *testing.T) {
	src := "ação\n\n# Título\n\ncorpo"
	tests := []struct {
		name string
		secs []Section
	}{
		{"start negative", []Section{{Start: -1, End: 3}}},
		{"end past text", []Section{{Start: 0, End: len(src) + 1}}},
		{"end before start", []Section{{Start: 5, End: 4}}},
		{"overlapping", []Section{{Start: 0, End: 10}, {Start: 8, End: 12}}},
		{"inside a rune", []Section{{Start: 1, End: 4}}},
	}
	st := mustStructural(t, StructuralOptions{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := st.Split(src, tt.secs); !errors.Is(err, ErrInvalidSections) {
				t.Errorf("err = %v, want ErrInvalidSections", err)
			}
		})
	}
}

func TestStructuralHeadingPathIsCopied(t *testing.T) {
	src, secs := buildDoc([]part{{1, "A", "x"}})
	got, err := mustStructural(t, StructuralOptions{}).Split(src, secs)
	if err != nil || len(got) != 1 {
		t.Fatalf("got %v, %v", got, err)
	}
	got[0].HeadingPath[0] = "changed"
	if secs[0].HeadingPath[0] != "A" {
		t.Error("chunk shares its heading path with the section")
	}
}

// TestStructuralProperties checks the invariants over seeded random
// documents: provenance, coverage, sizes (up to MaxTokens+MinTokens),
// bounded overlap, no chunk across a breaking heading, and the heading path
// of the section each chunk starts in.
func TestStructuralProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 120 {
		var parts []part
		if rng.IntN(2) == 0 {
			parts = append(parts, part{body: randomText(rng, rng.IntN(50))})
		}
		for j := range 1 + rng.IntN(8) {
			parts = append(parts, part{1 + rng.IntN(4), "H" + string(rune('a'+j)) + " ação", randomText(rng, rng.IntN(400))})
		}
		src, secs := buildDoc(parts)
		maxT := 5 + rng.IntN(100)
		ov := rng.IntN(maxT)
		minT := rng.IntN(maxT)
		opts := StructuralOptions{MaxTokens: maxT, OverlapTokens: ov, MinTokens: minT}
		if ov == 0 {
			opts.OverlapTokens = -1
		}
		if minT == 0 {
			opts.MinTokens = -1
		}
		st := mustStructural(t, opts)
		got, err := st.Split(src, secs)
		if err != nil {
			t.Fatal(err)
		}
		checkChunks(t, src, got, (maxT+minT)*charsPerToken, ov*charsPerToken)
		for _, c := range got {
			for _, s := range secs {
				if s.Level <= defaultBreakLevel && s.Start > c.Start && s.Start < (c.Start+len(c.Text)) {
					t.Fatalf("case %d: chunk [%d,%d) crosses the level-%d heading at %d", i, c.Start, (c.Start + len(c.Text)), s.Level, s.Start)
				}
			}
			if want := pathAt(secs, c.Start); !slices.Equal(c.HeadingPath, want) {
				t.Fatalf("case %d: chunk at %d has path %q, want %q", i, c.Start, c.HeadingPath, want)
			}
			if utf8.RuneCountInString(c.Text) > (maxT+minT)*charsPerToken {
				t.Fatalf("case %d: chunk too long", i)
			}
		}
		if t.Failed() {
			t.Fatalf("case %d", i)
		}
	}
}

func TestStructuralDefaultsOnRealText(t *testing.T) {
	src := faquadText(t)
	// Each "# Title" line of faquadText is a level-1 section.
	var secs []Section
	for off := 0; off < len(src); {
		i := strings.Index(src[off:], "# ")
		if i < 0 {
			break
		}
		start := off + i
		eol := strings.IndexByte(src[start:], '\n')
		if n := len(secs); n > 0 {
			secs[n-1].End = start
		}
		secs = append(secs, Section{Start: start, End: len(src), Level: 1, HeadingPath: []string{src[start+2 : start+eol]}})
		off = start + eol
	}
	got, err := mustStructural(t, StructuralOptions{}).Split(src, secs)
	if err != nil {
		t.Fatal(err)
	}
	checkChunks(t, src, got, (defaultMaxTokens+defaultMinTokens)*charsPerToken, defaultOverlapTokens*charsPerToken)
	if len(got) < len(secs) {
		t.Errorf("%d chunks for %d sections", len(got), len(secs))
	}
}

func BenchmarkStructural(b *testing.B) {
	src := faquadText(b)
	var secs []Section
	for off := 0; ; {
		i := strings.Index(src[off:], "# ")
		if i < 0 {
			break
		}
		start := off + i
		if n := len(secs); n > 0 {
			secs[n-1].End = start
		}
		secs = append(secs, Section{Start: start, End: len(src), Level: 1, HeadingPath: []string{"t"}})
		off = start + 2
	}
	st := mustStructural(b, StructuralOptions{})
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := st.Split(src, secs); err != nil {
			b.Fatal(err)
		}
	}
}
