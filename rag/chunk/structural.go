package chunk

import (
	"fmt"
	"slices"
	"sort"
	"unicode/utf8"
)

// Structural splitter defaults: chunks of about 500 tokens, small enough
// that an embedding stands for one topic of a section, with 50 tokens (a
// tenth) of overlap so a sentence cut at a boundary is whole in one chunk;
// a trailing piece under 100 tokens joins the chunk before it rather than
// matching on little more than its heading; headings of level 1 and 2
// (chapters, sections) always start a new chunk.
const (
	defaultMaxTokens     = 500
	defaultOverlapTokens = 50
	defaultMinTokens     = 100
	defaultBreakLevel    = 2
	// charsPerToken is the number of runes counted as one token, the
	// usual estimate for OpenAI-style tokenizers. On pt-BR it is generous:
	// the project's testdata measures 2.93 runes a token (leaflets) and
	// 3.33 (documents) with text-embedding-3-small's tokenizer
	// (cl100k_base), so a chunk of 500 estimated tokens holds about
	// 600–680 real ones, far below the model's 8,191-token input limit.
	charsPerToken = 4
)

// StructuralOptions configures a Structural splitter. The zero value means
// the defaults.
type StructuralOptions struct {
	// MaxTokens is the target chunk size in estimated tokens (runes / 4);
	// 0 means 500.
	MaxTokens int
	// OverlapTokens is the most tokens consecutive chunks of one section
	// share; 0 means 50, negative means none. It must be
	// smaller than MaxTokens.
	OverlapTokens int
	// MinTokens: the last chunk of a section shorter than this is merged
	// into the chunk before it in the same section; 0 means
	// 100, negative means never merge.
	MinTokens int
	// BreakLevel: a section whose heading level is at most BreakLevel
	// starts a new chunk; deeper sections continue the current one. 0 means
	// 2.
	BreakLevel int
	// Separators for cutting a section, as in RecursiveOptions; nil means
	// paragraphs, lines, sentences, words, so paragraphs are packed first.
	Separators []string
}

// Structural splits a document by its sections, packing each section's
// paragraphs into chunks of about MaxTokens tokens. It is immutable and safe
// for concurrent use.
//
// The text of a section (from a heading of level ≤ BreakLevel to the next
// such heading, deeper sub-sections included) is cut with the Recursive
// algorithm at MaxTokens*4 runes and OverlapTokens*4 runes of overlap; no
// chunk spans two such sections. If the last chunk of a section has fewer
// than MinTokens*4 runes, it is merged into the previous chunk of the same
// section when the result holds at most (MaxTokens+MinTokens)*4 runes, the
// largest a chunk can be. A section shorter than MinTokens on its own stays
// a chunk. Each chunk's
// HeadingPath is that of the section (of any level) its first byte is in.
type Structural struct {
	rec        *Recursive
	minRunes   int
	breakLevel int
}

// NewStructural returns a Structural splitter. It fails with an error
// wrapping ErrInvalidOptions when MaxTokens is negative or OverlapTokens is
// not smaller than MaxTokens.
func NewStructural(opts StructuralOptions) (*Structural, error) {
	maxT, overT, minT, brk := opts.MaxTokens, opts.OverlapTokens, opts.MinTokens, opts.BreakLevel
	if maxT == 0 {
		maxT = defaultMaxTokens
	}
	if overT == 0 {
		overT = defaultOverlapTokens
	}
	if minT == 0 {
		minT = defaultMinTokens
	}
	if brk == 0 {
		brk = defaultBreakLevel
	}
	if maxT < 0 {
		return nil, fmt.Errorf("%w: max tokens %d is negative", ErrInvalidOptions, maxT)
	}
	if overT >= maxT {
		return nil, fmt.Errorf("%w: overlap tokens %d must be smaller than max tokens %d", ErrInvalidOptions, overT, maxT)
	}
	ropts := RecursiveOptions{Size: maxT * charsPerToken, Overlap: -1, Separators: opts.Separators}
	if overT > 0 {
		ropts.Overlap = overT * charsPerToken
	}
	rec, err := NewRecursive(ropts)
	if err != nil {
		return nil, err
	}
	if minT < 0 {
		minT = 0
	}
	return &Structural{rec: rec, minRunes: minT * charsPerToken, breakLevel: brk}, nil
}

// Split cuts text into chunks along sections. Sections must be sorted by
// Start, must not overlap, and must lie on rune boundaries inside text;
// otherwise Split returns an error wrapping ErrInvalidSections. Text outside
// every section belongs to the section before it, or to an untitled section
// when it comes first. With no sections the whole text is one untitled
// section.
func (st *Structural) Split(text string, sections []Section) ([]Chunk, error) {
	if err := checkSections(text, sections); err != nil {
		return nil, err
	}
	// Block boundaries: the start of the text and every section that
	// breaks.
	bounds := []int{0}
	for _, s := range sections {
		if s.Level <= st.breakLevel && s.Start > 0 {
			bounds = append(bounds, s.Start)
		}
	}
	bounds = append(bounds, len(text))
	var out []Chunk
	for b := 0; b+1 < len(bounds); b++ {
		lo, hi := bounds[b], bounds[b+1]
		var spans []span
		st.rec.splitRange(text, lo, hi, &spans)
		block := spansToChunks(text, spans)
		if n := len(block); n >= 2 && utf8.RuneCountInString(block[n-1].Text) < st.minRunes {
			prev := &block[n-2]
			last := &block[n-1]
			if merged := text[prev.Start : last.Start+len(last.Text)]; utf8.RuneCountInString(merged) <= st.rec.size+st.minRunes {
				prev.Text = merged
				block = block[:n-1]
			}
		}
		for i := range block {
			block[i].HeadingPath = pathAt(sections, block[i].Start)
		}
		out = append(out, block...)
	}
	return out, nil
}

// pathAt returns a copy of the heading path of the last section starting
// at or before off.
func pathAt(sections []Section, off int) []string {
	i := sort.Search(len(sections), func(i int) bool { return sections[i].Start > off })
	if i == 0 {
		return nil
	}
	return slices.Clone(sections[i-1].HeadingPath)
}

func checkSections(text string, sections []Section) error {
	prevEnd := 0
	for i, s := range sections {
		switch {
		case s.Start < 0 || s.End < s.Start || s.End > len(text):
			return fmt.Errorf("%w: sections[%d] [%d,%d) outside text of %d bytes", ErrInvalidSections, i, s.Start, s.End, len(text))
		case s.Start < prevEnd:
			return fmt.Errorf("%w: sections[%d] starts at %d, before the previous section ends (%d)", ErrInvalidSections, i, s.Start, prevEnd)
		case !onRuneBoundary(text, s.Start) || !onRuneBoundary(text, s.End):
			return fmt.Errorf("%w: sections[%d] [%d,%d) not on rune boundaries", ErrInvalidSections, i, s.Start, s.End)
		}
		prevEnd = s.End
	}
	return nil
}

func onRuneBoundary(s string, i int) bool {
	return i == len(s) || utf8.RuneStart(s[i])
}
