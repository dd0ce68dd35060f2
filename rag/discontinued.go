package rag

import (
	"context"
	"strings"
	"unicode"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
)

// itemLister is the store method discontinuedHits pages through the
// catalog with; storage.Store has it. A store without it gets no lookup.
type itemLister interface {
	ListItems(ctx context.Context, page storage.Page) ([]storage.CatalogItem, error)
}

// discontinuedScanMax caps the items discontinuedHits reads in one turn.
const discontinuedScanMax = 20000

// discontinuedHits answers a turn that would abstain when its message
// names an inactive catalog item exactly ("ainda tem o Vinhedo Cobre 350
// WP?"): inactive items are left out of every search, so the turn found
// nothing, yet the honest answer is that the product is discontinued.
// It returns the named inactive item (the longest name when several
// match) followed by the active item its description names, if any (the
// substitute: "consulte o substituto Cobrefix 500 WP"); nil when the
// store cannot list items or no inactive item is named.
func (p *Pipeline) discontinuedHits(ctx context.Context, message string) []Hit[storage.CatalogItem] {
	l, ok := p.searcher.store.(itemLister)
	if !ok {
		return nil
	}
	msg := " " + nameWords(message) + " "
	var (
		named  *storage.CatalogItem
		active []storage.CatalogItem
		after  string
	)
	for n := 0; n < discontinuedScanMax; {
		page, err := l.ListItems(ctx, storage.Page{After: after, Limit: storage.MaxResultLimit})
		if err != nil || len(page) == 0 {
			break
		}
		for i := range page {
			it := page[i]
			if it.Status.Active() {
				active = append(active, it)
				continue
			}
			name := nameWords(it.Name)
			if name != "" && strings.Contains(msg, " "+name+" ") && (named == nil || len(name) > len(nameWords(named.Name))) {
				named = &it
			}
		}
		after, n = page[len(page)-1].ID, n+len(page)
		if len(page) < storage.MaxResultLimit {
			break
		}
	}
	if named == nil {
		return nil
	}
	ev := func(name string) *Evidence {
		return &Evidence{Relevance: 1, Relevant: true, Reason: ReasonNamed, Coverage: 1, Named: true, Name: name}
	}
	hits := []Hit[storage.CatalogItem]{{ID: named.ID, Record: *named, Source: SourceLexical, Snippet: named.Description, Evidence: ev(named.Name)}}
	desc := " " + nameWords(named.Description) + " "
	var sub *storage.CatalogItem
	for i := range active {
		name := nameWords(active[i].Name)
		if name != "" && strings.Contains(desc, " "+name+" ") && (sub == nil || len(name) > len(nameWords(sub.Name))) {
			sub = &active[i]
		}
	}
	if sub != nil {
		hits = append(hits, Hit[storage.CatalogItem]{ID: sub.ID, Record: *sub, Source: SourceLexical, Snippet: sub.Description, Evidence: ev(sub.Name)})
	}
	return hits
}

// nameWords is s folded (lexical.Normalize) with every run of characters
// other than letters and digits made one space.
func nameWords(s string) string {
	return strings.Join(strings.FieldsFunc(lexical.Normalize(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}
