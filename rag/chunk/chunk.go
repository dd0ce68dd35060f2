package chunk

import (
	"errors"
	"unicode/utf8"
)

// Sentinel errors.
var (
	// ErrInvalidOptions: splitter options are inconsistent.
	ErrInvalidOptions = errors.New("chunk: invalid options")
	// ErrInvalidSections: sections passed to Structural.Split do not describe
	// the text (out of range, unsorted, overlapping, or not on a rune
	// boundary).
	ErrInvalidSections = errors.New("chunk: invalid sections")
)

// HeadingSeparator joins a heading path for display, as in
// "Title › Section › Subsection".
const HeadingSeparator = " › "

// Chunk is a piece of a source text. A splitter returns the chunks of one
// source in source order, so a chunk's index in that slice numbers it.
type Chunk struct {
	// Text is source[Start:Start+len(Text)]: never empty, never only white
	// space, with no leading or trailing white space.
	Text string
	// Start is the byte offset of Text in the source text.
	Start int
	// HeadingPath is the path of headings of the section the chunk starts
	// in, outermost first; nil for the Recursive splitter and for text
	// before any heading.
	HeadingPath []string
}

// Section is a part of a text that starts at a heading, as found by a loader.
// A section runs from its heading line to the start of the next section of
// any level, so the sections of a text are sorted and do not overlap.
type Section struct {
	// Start and End are the byte offsets of the section in the text,
	// heading line included.
	Start, End int
	// Level is the heading level: 1 for a top-level heading ("# " in
	// Markdown, Heading 1 in Word), 2 for the next and so on. Level 0 is
	// a document title (Word's Title style) or, with an empty HeadingPath,
	// the text before the first heading.
	Level int
	// HeadingPath holds the titles of the enclosing headings, outermost
	// first, ending with this section's own heading.
	HeadingPath []string
}

// estimateTokens estimates the number of model tokens in s as its number of
// runes divided by 4, rounded up, as llm.EstimateTokens does (about 4
// characters a token, the usual estimate for OpenAI-style tokenizers). It
// under-counts pt-BR by 17–27% (4 runes a token; see the Structural
// defaults).
func estimateTokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}
