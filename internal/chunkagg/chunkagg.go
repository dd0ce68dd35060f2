// Package chunkagg turns the chunk matches of a vector search into one hit
// per owner (item, FAQ or document): the owner's score under a
// vector.AggregateMode, its best chunks and a snippet. rag's Searcher is its
// user; the mode is chosen in rag.SearcherOptions. Truncate, the rune-bounded
// cut with an ellipsis of those snippets, also shortens the texts of rag's
// prompts and answers.
package chunkagg

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/vector"
)

// Aggregation defaults: an owner is shown by its best chunk, and a snippet
// of 800 runes (about 200 tokens, a paragraph) says why it matched without
// filling a chat context.
const (
	DefaultChunksPerOwner  = 1
	DefaultSnippetMaxChars = 800
	defaultMeanTopK        = 3
	// snippetSeparator joins the kept chunks of an owner.
	snippetSeparator = " … "
)

// ScoredChunk is one chunk returned by a vector search, as Aggregate
// groups it by owner (storage.ChunkMatch is the store's form, with the
// whole chunk).
type ScoredChunk struct {
	// OwnerID identifies the item, FAQ or document the chunk belongs to.
	OwnerID string
	// Content is the chunk text, used for the snippet.
	Content string
	// Distance is the <#> distance to the query: smaller is closer.
	Distance float64
	// Seq is the chunk's position within its owner; it breaks ties
	// between chunks at equal distance.
	Seq int
}

// Options configures [Aggregate]. The zero value gives the
// defaults: mode max, one chunk per owner, snippets of at most 800 runes.
type Options struct {
	// Mode combines the chunk similarities of an owner.
	Mode vector.AggregateMode
	// MeanTopK is the number of best chunks averaged by vector.AggregateTopKMean;
	// 0 means 3.
	MeanTopK int
	// ChunksPerOwner is how many distinct chunks (best first) are kept as
	// evidence and joined into the snippet; 0 means 1.
	ChunksPerOwner int
	// SnippetMaxChars bounds the snippet in runes, the ellipsis included;
	// 0 means 800.
	SnippetMaxChars int
}

// OwnerHit is one owner after aggregation.
type OwnerHit struct {
	// OwnerID identifies the owner.
	OwnerID string
	// Score is the aggregated similarity (per Mode); larger is better.
	Score float64
	// Distance is the distance of the owner's best chunk.
	Distance float64
	// Matched is the number of the owner's chunks in the input.
	Matched int
	// Chunks are the kept chunks, best first, with distinct contents.
	Chunks []ScoredChunk
	// Snippet is the kept chunk contents, trimmed, joined with
	// " … " and truncated to SnippetMaxChars runes (ending with "…" when
	// cut).
	Snippet string
}

// Aggregate groups chunk matches by owner and returns one hit per owner,
// best first (by Score, then by Distance, then by OwnerID, so the order is
// deterministic). Chunks with an empty OwnerID or a NaN distance are
// ignored. Aggregate does not modify chunks; it returns nil for no input.
func Aggregate(chunks []ScoredChunk, opts Options) []OwnerHit {
	perOwner := opts.ChunksPerOwner
	if perOwner <= 0 {
		perOwner = DefaultChunksPerOwner
	}
	maxChars := opts.SnippetMaxChars
	if maxChars <= 0 {
		maxChars = DefaultSnippetMaxChars
	}
	meanK := opts.MeanTopK
	if meanK <= 0 {
		meanK = defaultMeanTopK
	}

	groups := make(map[string][]ScoredChunk)
	var order []string
	for _, c := range chunks {
		if c.OwnerID == "" || math.IsNaN(c.Distance) {
			continue
		}
		g, ok := groups[c.OwnerID]
		if !ok {
			order = append(order, c.OwnerID)
		}
		groups[c.OwnerID] = append(g, c)
	}
	if len(order) == 0 {
		return nil
	}

	hits := make([]OwnerHit, 0, len(order))
	for _, id := range order {
		g := groups[id] // a private copy: appended from the input
		slices.SortFunc(g, func(a, b ScoredChunk) int {
			if c := cmp.Compare(a.Distance, b.Distance); c != 0 {
				return c
			}
			return cmp.Compare(a.Seq, b.Seq)
		})
		h := OwnerHit{OwnerID: id, Distance: g[0].Distance, Matched: len(g)}
		switch opts.Mode {
		case vector.AggregateSum:
			for _, c := range g {
				h.Score += -c.Distance
			}
		case vector.AggregateTopKMean:
			n := min(meanK, len(g))
			for _, c := range g[:n] {
				h.Score += -c.Distance
			}
			h.Score /= float64(n)
		default:
			h.Score = -g[0].Distance
		}

		seen := make(map[string]bool, perOwner)
		parts := make([]string, 0, perOwner)
		for _, c := range g {
			if len(h.Chunks) == perOwner {
				break
			}
			text := strings.TrimSpace(c.Content)
			if seen[text] {
				continue
			}
			seen[text] = true
			h.Chunks = append(h.Chunks, c)
			if text != "" {
				parts = append(parts, text)
			}
		}
		h.Snippet = Truncate(strings.Join(parts, snippetSeparator), maxChars)
		hits = append(hits, h)
	}
	slices.SortFunc(hits, func(a, b OwnerHit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Distance, b.Distance); c != 0 {
			return c
		}
		return strings.Compare(a.OwnerID, b.OwnerID)
	})
	return hits
}

// ellipsis ends a truncated text.
const ellipsis = "…"

// Truncate returns s unchanged when it has at most maxRunes runes, and
// otherwise its first runes with trailing space removed, followed by
// "…", maxRunes runes in all. It never splits a UTF-8 sequence.
// maxRunes <= 0 returns "".
func Truncate(s string, maxRunes int) string {
	if maxRunes <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= maxRunes {
		return s
	}
	keep := maxRunes - 1 // room for the ellipsis
	i, n := 0, 0
	for i < len(s) && n < keep {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return strings.TrimRight(s[:i], " \t\n\r") + ellipsis
}
