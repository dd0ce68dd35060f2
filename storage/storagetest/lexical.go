package storagetest

import (
	"fmt"
	"testing"

	"github.com/hybridrag/hybridrag/storage"
)

func lexicalTests() []testCase {
	return []testCase{
		{"Accents", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st,
				storage.CatalogItem{ID: "nfc", Name: "Café Arábica", CreatedAt: at(3)},
				storage.CatalogItem{ID: "nfd", Name: "Cafe\u0301 Conilon", CreatedAt: at(2)},
				storage.CatalogItem{ID: "plain", Name: "CAFE torrado", CreatedAt: at(1)},
				storage.CatalogItem{ID: "other", Name: "Chá mate", CreatedAt: at(4)})
			for _, term := range []string{"café", "Cafe\u0301", "cafe", "CAFÉ", "  Café  "} {
				t.Run(term, func(t *testing.T) {
					diff(t, "IDs", []string{"nfc", "nfd", "plain"}, searchItemIDs(t, st, storage.LexicalQuery{Terms: []string{term}}))
				})
			}
			t.Run("NFD data, NFC query", func(t *testing.T) {
				upsertItems(t, st, storage.CatalogItem{ID: "nfd2", Name: "Ac\u0327u\u0301car mascavo"})
				diff(t, "IDs", []string{"nfd2"}, searchItemIDs(t, st, storage.LexicalQuery{Terms: []string{"Açúcar"}}))
			})
		}},
		{"Literal", func(t *testing.T, s *suite) {
			st := s.store(t)
			texts := map[string]string{
				"pct":    "Pureza 100% garantida",
				"pct2":   "Caixa com 1000 unidades",
				"under":  "Código a_b",
				"under2": "Código axb",
				"bslash": `Caminho C:\dados`,
				"slash2": "Caminho C:/dados",
				"quote":  "Marca O'Brien",
				"quote2": "Marca OBrien",
				"dquote": `Modelo "Pro"`,
				"star":   "Linha * estrela",
			}
			var items []storage.CatalogItem
			for id, name := range texts {
				items = append(items, storage.CatalogItem{ID: id, Name: name})
			}
			upsertItems(t, st, items...)
			tests := []struct {
				term string
				want []string
			}{
				{"100%", []string{"pct"}},
				{"%", []string{"pct"}},
				{"1%0", nil},
				{"a_b", []string{"under"}},
				{"_", []string{"under"}},
				{`c:\dados`, []string{"bslash"}},
				{`\`, []string{"bslash"}},
				{`\d`, []string{"bslash"}},
				{"o'brien", []string{"quote"}},
				{"'", []string{"quote"}},
				{`"pro"`, []string{"dquote"}},
				{`"`, []string{"dquote"}},
				{"*", []string{"star"}},
				{"'; drop table x; --", nil},
			}
			for _, tc := range tests {
				t.Run(tc.term, func(t *testing.T) {
					diff(t, "IDs", tc.want, searchItemIDs(t, st, storage.LexicalQuery{Terms: []string{tc.term}}))
				})
			}
		}},
		{"Fields", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st,
				storage.CatalogItem{ID: "name", Name: "Alfa"},
				storage.CatalogItem{ID: "desc", Name: "x", Description: "Contém bravo"},
				storage.CatalogItem{ID: "cat", Name: "x", Category: "Charlie"},
				storage.CatalogItem{ID: "maker", Name: "x", Manufacturer: "Delta Ltda"},
				storage.CatalogItem{ID: "tag", Name: "x", Tags: []string{"eco", "Echo"}},
				storage.CatalogItem{ID: "file", Name: "x", Files: []storage.CatalogFile{{Name: "bula.txt", Text: "Controla a lagarta Foxtrot."}}},
				storage.CatalogItem{ID: "fname", Name: "x", Files: []storage.CatalogFile{{Name: "Golf.pdf", Text: "y"}}},
				storage.CatalogItem{ID: "spaces", Name: "Óleo   \t Mineral"},
				storage.CatalogItem{ID: "split", Name: "Hotel", Description: "India"},
			)
			tests := []struct {
				term string
				want []string
			}{
				{"alfa", []string{"name"}},
				{"bravo", []string{"desc"}},
				{"charlie", []string{"cat"}},
				{"delta", []string{"maker"}},
				{"echo", []string{"tag"}},
				{"foxtrot", []string{"file"}},
				{"golf", []string{"fname"}},
				{"oleo mineral", []string{"spaces"}},
				{"ÓLEO\nMINERAL", []string{"spaces"}},
				{"hotel india", nil}, // never across two fields
				{"otel", []string{"split"}},
			}
			for _, tc := range tests {
				t.Run(tc.term, func(t *testing.T) {
					diff(t, "IDs", tc.want, searchItemIDs(t, st, storage.LexicalQuery{Terms: []string{tc.term}}))
				})
			}
		}},
		{"Ranking", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st,
				storage.CatalogItem{ID: "one", Name: "Inseticida", CreatedAt: at(9)},
				storage.CatalogItem{ID: "three", Name: "Inseticida para soja", Tags: []string{"lagarta"}, CreatedAt: at(1)},
				storage.CatalogItem{ID: "two", Name: "Inseticida", Description: "Inseticida de soja", CreatedAt: at(5)},
				storage.CatalogItem{ID: "none", Name: "Herbicida", CreatedAt: at(10)},
			)
			got, err := st.Items().Search(ctx(t), storage.LexicalQuery{Terms: []string{"inseticida", "soja", "Lagarta", "INSETICIDA", "inseticída", ""}})
			must(t, err)
			type rank struct {
				ID string
				N  int
			}
			var ranks []rank
			for _, c := range got {
				ranks = append(ranks, rank{c.Record.ID, c.TermsMatched})
			}
			diff(t, "ranking", []rank{{"three", 3}, {"two", 2}, {"one", 1}}, ranks)
		}},
		{"Ties", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st,
				storage.CatalogItem{ID: "old", Name: "Adubo", CreatedAt: at(1)},
				storage.CatalogItem{ID: "new", Name: "Adubo", CreatedAt: at(3)},
				storage.CatalogItem{ID: "mid-b", Name: "Adubo", CreatedAt: at(2)},
				storage.CatalogItem{ID: "mid-a", Name: "Adubo", CreatedAt: at(2)},
				storage.CatalogItem{ID: "Mid-c", Name: "Adubo", CreatedAt: at(2)},
			)
			want := []string{"new", "Mid-c", "mid-a", "mid-b", "old"}
			for i := range 3 {
				diff(t, fmt.Sprintf("run %d", i), want, searchItemIDs(t, st, storage.LexicalQuery{Terms: []string{"adubo"}}))
			}
		}},
		{"Inactive", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st,
				storage.CatalogItem{ID: "on", Name: "Semente"},
				storage.CatalogItem{ID: "off", Name: "Semente", Status: storage.StatusInactive})
			diff(t, "IDs", []string{"on"}, searchItemIDs(t, st, storage.LexicalQuery{Terms: []string{"semente"}}))
			upsertItems(t, st, storage.CatalogItem{ID: "on", Name: "Semente", Status: storage.StatusInactive})
			diff(t, "IDs after deactivation", []string(nil), searchItemIDs(t, st, storage.LexicalQuery{Terms: []string{"semente"}}))
		}},
		{"Limit", func(t *testing.T, s *suite) {
			st := s.store(t)
			var items []storage.CatalogItem
			for i := range 15 {
				items = append(items, storage.CatalogItem{ID: fmt.Sprintf("i%02d", i), Name: "Calcário", CreatedAt: at(i)})
			}
			upsertItems(t, st, items...)
			diff(t, "limit 3", []string{"i14", "i13", "i12"}, searchItemIDs(t, st, storage.LexicalQuery{Terms: []string{"calcario"}, Limit: 3}))
			if n := len(searchItemIDs(t, st, storage.LexicalQuery{Terms: []string{"calcario"}})); n != storage.DefaultResultLimit {
				t.Errorf("limit 0 returned %d, want %d", n, storage.DefaultResultLimit)
			}
		}},
		{"NoTerms", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st, storage.CatalogItem{ID: "a", Name: "Algo"})
			for _, terms := range [][]string{nil, {}, {"", "  ", "\u0301"}} {
				diff(t, fmt.Sprintf("terms %q", terms), []string(nil), searchItemIDs(t, st, storage.LexicalQuery{Terms: terms}))
			}
		}},
		{"Filters", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st,
				storage.CatalogItem{ID: "a", Name: "Produto", Category: "Fungicidas", Manufacturer: "Acme", Tags: []string{"Soja", "milho"}, Metadata: map[string]string{"crop": "Soja"}, CreatedAt: at(2)},
				storage.CatalogItem{ID: "b", Name: "Produto", Category: "Herbicidas", Manufacturer: "Beta", Tags: []string{"café"}, Metadata: map[string]string{"crop": "Café", "lang": "pt"}, CreatedAt: at(1)},
				storage.CatalogItem{ID: "c", Name: "Produto", Category: "fungicidas", Manufacturer: "Beta", CreatedAt: at(0)},
			)
			tests := []struct {
				name    string
				filters []storage.Filter
				want    []string
			}{
				{"category normalized", []storage.Filter{{Field: storage.FieldCategory, Value: "FUNGICIDAS"}}, []string{"a", "c"}},
				{"category is equality not substring", []storage.Filter{{Field: storage.FieldCategory, Value: "fungi"}}, nil},
				{"manufacturer", []storage.Filter{{Field: storage.FieldManufacturer, Value: "beta"}}, []string{"b", "c"}},
				{"tag any", []storage.Filter{{Field: storage.FieldTag, Value: "Milho"}}, []string{"a"}},
				{"tag accents", []storage.Filter{{Field: storage.FieldTag, Value: "cafe"}}, []string{"b"}},
				{"metadata", []storage.Filter{{Field: storage.FieldMetadata, Key: "crop", Value: "café"}}, []string{"b"}},
				{"metadata missing key", []storage.Filter{{Field: storage.FieldMetadata, Key: "lang", Value: "pt"}}, []string{"b"}},
				{"AND", []storage.Filter{{Field: storage.FieldManufacturer, Value: "Beta"}, {Field: storage.FieldCategory, Value: "Fungicidas"}}, []string{"c"}},
				{"injection is just a value", []storage.Filter{{Field: storage.FieldCategory, Value: "x' OR '1'='1"}}, nil},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					diff(t, "IDs", tc.want, searchItemIDs(t, st, storage.LexicalQuery{Terms: []string{"produto"}, Filters: tc.filters}))
				})
			}
		}},
		{"InvalidFilters", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertItems(t, st, storage.CatalogItem{ID: "a", Name: "Produto", Metadata: map[string]string{"secret": "x"}})
			bad := [][]storage.Filter{
				{{Field: storage.FieldMetadata, Key: "secret", Value: "x"}},
				{{Field: storage.FieldMetadata, Key: "crop'--", Value: "x"}},
				{{Field: "price", Value: "1"}},
				{{Field: storage.FieldSource, Value: "x"}},
			}
			for i, f := range bad {
				t.Run(fmt.Sprint(i), func(t *testing.T) {
					_, err := st.Items().Search(ctx(t), storage.LexicalQuery{Terms: []string{"produto"}, Filters: f})
					wantErr(t, err, storage.ErrInvalidFilter)
				})
			}
			_, err := st.FAQs().Search(ctx(t), storage.LexicalQuery{Terms: []string{"x"}, Filters: []storage.Filter{{Field: storage.FieldTag, Value: "x"}}})
			wantErr(t, err, storage.ErrInvalidFilter)
			_, err = st.Documents().Search(ctx(t), storage.LexicalQuery{Terms: []string{"x"}, Filters: []storage.Filter{{Field: storage.FieldCategory, Value: "x"}}})
			wantErr(t, err, storage.ErrInvalidFilter)
		}},
		{"TermCap", func(t *testing.T, s *suite) {
			// A query of thousands of terms is answered, with its first
			// storage.MaxLexicalTerms distinct normalized terms: repeats
			// and empty terms do not count, later terms are ignored.
			st := s.store(t)
			upsertItems(t, st,
				storage.CatalogItem{ID: "first", Name: "Alfa", CreatedAt: at(1)},
				storage.CatalogItem{ID: "last", Name: "Ômega", CreatedAt: at(2)},
				storage.CatalogItem{ID: "many", Name: "palavra7 palavra8", CreatedAt: at(3)})
			terms := []string{"alfa", "ALFA", " ", "Álfa"}
			for i := range 4500 {
				terms = append(terms, fmt.Sprintf("palavra%d", i))
			}
			terms = append(terms, "omega")
			got, err := st.Items().Search(ctx(t), storage.LexicalQuery{Terms: terms})
			must(t, err)
			diff(t, "IDs", []string{"many", "first"}, itemIDs(got))
			if len(got) == 2 && (got[0].TermsMatched != 2 || got[1].TermsMatched != 1) {
				t.Errorf("TermsMatched = %d, %d; want 2, 1", got[0].TermsMatched, got[1].TermsMatched)
			}
			// The 64th distinct term counts, the 65th does not.
			cut := []string{"alfa"}
			for i := range storage.MaxLexicalTerms - 2 {
				cut = append(cut, fmt.Sprintf("zz%d", i))
			}
			cut = append(cut, "palavra7", "palavra8")
			got, err = st.Items().Search(ctx(t), storage.LexicalQuery{Terms: cut})
			must(t, err)
			diff(t, "IDs at the cap", []string{"many", "first"}, itemIDs(got))
			if len(got) == 2 && got[0].TermsMatched != 1 {
				t.Errorf("TermsMatched of many = %d, want 1 (palavra8 is term 65)", got[0].TermsMatched)
			}
			for _, kind := range []string{"faqs", "documents"} {
				var err error
				if kind == "faqs" {
					_, err = st.FAQs().Search(ctx(t), storage.LexicalQuery{Terms: terms})
				} else {
					_, err = st.Documents().Search(ctx(t), storage.LexicalQuery{Terms: terms})
				}
				if err != nil {
					t.Errorf("search %s with %d terms: %v", kind, len(terms), err)
				}
			}
		}},
		{"FAQs", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertFAQs(t, st,
				storage.FAQ{ID: "q", Question: "Como faço a devolução?", Answer: "x", CreatedAt: at(4)},
				storage.FAQ{ID: "a", Question: "x", Answer: "A devolução é grátis", CreatedAt: at(3)},
				storage.FAQ{ID: "cat", Question: "x", Answer: "y", Category: "Devoluções", CreatedAt: at(2)},
				storage.FAQ{ID: "kw", Question: "x", Answer: "y", Keywords: []string{"troca", "devolucao"}, CreatedAt: at(1)},
				storage.FAQ{ID: "off", Question: "Devolução antiga", Status: storage.StatusInactive, CreatedAt: at(5)},
				storage.FAQ{ID: "both", Question: "Troca ou devolução", Category: "Trocas", CreatedAt: at(0)},
			)
			got, err := st.FAQs().Search(ctx(t), storage.LexicalQuery{Terms: []string{"devoluc", "troca"}})
			must(t, err)
			diff(t, "IDs", []string{"kw", "both", "q", "a", "cat"}, faqIDs(got))
			if got[0].TermsMatched != 2 || got[2].TermsMatched != 1 {
				t.Errorf("TermsMatched = %d, %d; want 2, 1", got[0].TermsMatched, got[2].TermsMatched)
			}
			got, err = st.FAQs().Search(ctx(t), storage.LexicalQuery{Terms: []string{"devoluc"}, Filters: []storage.Filter{{Field: storage.FieldCategory, Value: "devoluções"}}})
			must(t, err)
			diff(t, "filtered IDs", []string{"cat"}, faqIDs(got))
		}},
		{"Documents", func(t *testing.T, s *suite) {
			st := s.store(t)
			upsertDocs(t, st,
				storage.Document{ID: "t", Source: "lei.md", Title: "Lei do Inquilinato", Content: "Art. 1", Metadata: map[string]string{"lang": "pt"}, CreatedAt: at(2)},
				storage.Document{ID: "c", Source: "faq.md", Title: "x", Content: "Sobre o inquilinato e a locação", CreatedAt: at(1)},
				storage.Document{ID: "n", Source: "lei.md", Title: "y", Content: "z", CreatedAt: at(3)},
			)
			got, err := st.Documents().Search(ctx(t), storage.LexicalQuery{Terms: []string{"inquilinato", "locacao"}})
			must(t, err)
			diff(t, "IDs", []string{"c", "t"}, docIDs(got))
			for _, f := range []storage.Filter{
				{Field: storage.FieldSource, Value: "LEI.md"},
				{Field: storage.FieldMetadata, Key: "lang", Value: "PT"},
			} {
				got, err = st.Documents().Search(ctx(t), storage.LexicalQuery{Terms: []string{"inquilinato"}, Filters: []storage.Filter{f}})
				must(t, err)
				diff(t, "filtered IDs", []string{"t"}, docIDs(got))
			}
		}},
	}
}
