// Package chunk splits text into overlapping pieces for embedding, keeping
// exact provenance: every Chunk carries the byte offset of its text in the
// source, so Chunk.Text == source[Start:Start+len(Text)] always holds.
//
// Two splitters are provided:
//
//   - Recursive follows LangChain's RecursiveCharacterTextSplitter: the text
//     is cut at the first separator of the list that occurs in it ("\n\n",
//     "\n", ". ", " " by default), pieces are packed greedily into chunks of
//     at most Size runes, consecutive chunks share up to Overlap runes of
//     whole pieces, and pieces still too long are cut again with the next
//     separators, down to single runes as a last resort. Defaults: 1000 runes,
//     200 runes of overlap (a paragraph or a dose table per chunk).
//   - Structural packs the paragraphs of each section of a document (as
//     found by a loader from Markdown or .docx headings) into chunks of about
//     MaxTokens tokens (500), with OverlapTokens of overlap (50), starting a
//     new chunk at every heading of level 1 or 2, merging a trailing piece
//     shorter than MinTokens (100) into the chunk before it, and recording
//     the heading path ("Title › Section › Subsection") of each chunk for
//     citations. Tokens are estimated as runes / 4 (llm.EstimateTokens).
//
// # Sizes
//
// Sizes are counted in runes (Unicode code points), not bytes, so a pt-BR
// text with accents is cut where an ASCII text of the same length would be.
// A chunk never splits a rune and never is empty or whitespace only: leading
// and trailing white space is trimmed from each chunk (Start is moved
// accordingly), so white space between two chunks may belong to
// neither. Every other byte of the source belongs to at least one chunk.
//
// # Errors
//
// Constructors return an error wrapping ErrInvalidOptions for inconsistent
// options (for example an overlap not smaller than the size). Structural.Split
// returns an error wrapping ErrInvalidSections when the sections are out of
// range, unsorted, overlapping or not on rune boundaries. Splitting itself
// never fails and never panics.
//
// # Concurrency
//
// Recursive and Structural are immutable after construction and safe for
// concurrent use by multiple goroutines.
package chunk
