package rag

import (
	"context"
	"strings"
	"unicode"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/lexical/lexicon"
	"github.com/hybridrag/hybridrag/storage"
)

// discontinuedScanMax caps the items a discontinued index reads.
const discontinuedScanMax = 20000

// discontinuedEntry is one inactive catalog item of a discontinued index,
// with the active item its description names (its substitute), if any.
type discontinuedEntry struct {
	name string // nameWords of the item's name
	// brand is the name's words before its first word holding a digit
	// ("vinhedo cobre" of "Vinhedo Cobre 350 WP"), when no other item's
	// name starts with them; "" otherwise.
	brand string
	item  storage.CatalogItem
	sub   *storage.CatalogItem
}

// discontinuedIndex holds the store's inactive catalog items by name. It
// is built once from the store (at most discontinuedScanMax items read)
// and rebuilt when the store changes (or dropped by Searcher.Refresh), so a turn that would abstain costs a
// scan of the inactive names only, not of the catalog.
type discontinuedIndex struct {
	entries []discontinuedEntry
}

// discontinued returns the Searcher's discontinued index, building it on
// first use after a Refresh; nil when the listing failed (the next turn
// tries again).
func (s *Searcher) discontinued(ctx context.Context) *discontinuedIndex {
	if ix := s.disc.Load(); ix != nil {
		return ix
	}
	ix := s.buildDiscontinued(ctx)
	if ix == nil {
		return nil
	}
	s.disc.CompareAndSwap(nil, ix)
	return s.disc.Load()
}

// buildDiscontinued reads the store's inactive items into a new index;
// nil when the listing failed.
func (s *Searcher) buildDiscontinued(ctx context.Context) *discontinuedIndex {
	l := s.store.Items()
	var (
		ix     discontinuedIndex
		active []storage.CatalogItem
		after  string
	)
	for n := 0; n < discontinuedScanMax; {
		page, err := l.List(ctx, storage.Page{After: after, Limit: storage.MaxResultLimit})
		if err != nil {
			return nil
		}
		if len(page) == 0 {
			break
		}
		for i := range page {
			it := page[i]
			if it.Status.Active() {
				active = append(active, it) // for substitutes; let go once built
				continue
			}
			if name := nameWords(it.Name); name != "" {
				ix.entries = append(ix.entries, discontinuedEntry{name: name, item: it})
			}
		}
		after, n = page[len(page)-1].ID, n+len(page)
		if len(page) < storage.MaxResultLimit {
			break
		}
	}
	activeNames := make([]string, len(active))
	for j := range active {
		activeNames[j] = nameWords(active[j].Name)
	}
	// A brand is kept when it names no other item, active or not, and,
	// one word, is no word of the language ("cobre" of a "Cobre 500 WP"
	// would answer "vocês vendem fio de cobre?").
	lex := s.opts.Lexical.Lexicon
	if lex == nil {
		lex = lexicon.Default()
	}
	starts := func(name, brand string) bool { return name == brand || strings.HasPrefix(name, brand+" ") }
	for i := range ix.entries {
		e := &ix.entries[i]
		b := brandWords(e.name)
		if b == "" || !strings.Contains(b, " ") && lex.Known(b) {
			continue
		}
		unique := true
		for _, name := range activeNames {
			unique = unique && !starts(name, b)
		}
		for j := range ix.entries {
			unique = unique && (j == i || !starts(ix.entries[j].name, b))
		}
		if unique {
			e.brand = b
		}
	}
	for i := range ix.entries {
		e := &ix.entries[i]
		desc := " " + nameWords(e.item.Description) + " "
		for j := range active {
			name := activeNames[j]
			if name != "" && strings.Contains(desc, " "+name+" ") && (e.sub == nil || len(name) > len(nameWords(e.sub.Name))) {
				sub := active[j] // a copy: the index keeps no reference to the page
				e.sub = &sub
			}
		}
	}
	return &ix
}

// discontinuedHits answers a turn that would abstain when its message
// names an inactive catalog item ("ainda tem o Vinhedo Cobre 350 WP?", or
// by the words before its concentration, "o vinhedo cobre", when they name
// no other item): inactive items are left out of every search, so the turn found
// nothing, yet the honest answer is that the product is discontinued.
// It returns the named inactive item (the longest name when several
// match) followed by the active item its description names, if any (the
// substitute: "consulte o substituto Cobrefix 500 WP"); nil when the
// store cannot list items or no inactive item is named. The inactive
// items come from the Searcher's discontinued index (see Refresh).
func (p *Pipeline) discontinuedHits(ctx context.Context, message string) []Hit[storage.CatalogItem] {
	ix := p.searcher.discontinued(ctx)
	if ix == nil {
		return nil
	}
	msg := " " + nameWords(message) + " "
	var named *discontinuedEntry
	for i := range ix.entries {
		e := &ix.entries[i]
		if strings.Contains(msg, " "+e.name+" ") && (named == nil || len(e.name) > len(named.name)) {
			named = e
		}
	}
	if named == nil {
		// Customers drop the concentration and formulation: "ainda tem o
		// vinhedo cobre?".
		for i := range ix.entries {
			e := &ix.entries[i]
			if e.brand != "" && strings.Contains(msg, " "+e.brand+" ") && (named == nil || len(e.brand) > len(named.brand)) {
				named = e
			}
		}
	}
	if named == nil {
		return nil
	}
	ev := func(name string) *Evidence {
		return &Evidence{Relevance: 1, Relevant: true, Reason: ReasonNamed, Coverage: 1, Named: true, Name: name}
	}
	hits := []Hit[storage.CatalogItem]{{ID: named.item.ID, Record: named.item, Source: SourceLexical, Snippet: named.item.Description, Evidence: ev(named.item.Name)}}
	if sub := named.sub; sub != nil {
		hits = append(hits, Hit[storage.CatalogItem]{ID: sub.ID, Record: *sub, Source: SourceLexical, Snippet: sub.Description, Evidence: ev(sub.Name)})
	}
	return hits
}

// brandWords returns the words of name (nameWords form) before its first
// word holding a digit, when there are such words, at least five letters
// in all, and a word with a digit follows ("vinhedo cobre" of "vinhedo
// cobre 350 wp"); "" otherwise.
func brandWords(name string) string {
	words := strings.Fields(name)
	for i, w := range words {
		if strings.ContainsFunc(w, unicode.IsDigit) {
			b := strings.Join(words[:i], " ")
			if len(b) < 5 {
				return ""
			}
			return b
		}
	}
	return ""
}

// nameWords is s folded (lexical.Normalize) with every run of characters
// other than letters and digits made one space.
func nameWords(s string) string {
	return strings.Join(strings.FieldsFunc(lexical.Normalize(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}
