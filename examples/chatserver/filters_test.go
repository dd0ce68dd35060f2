package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/examples/internal/settings"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
)

// sameText compares as the filters do: normalized, case and accents
// ignored.
func sameText(a, b string) bool { return lexical.Normalize(a) == lexical.Normalize(b) }

// TestSearchFilters: the typed filters of /api/rag/search and
// /api/faq/search restrict both legs; every hit satisfies them, the
// unfiltered search returns others, and the response echoes the filters.
func TestSearchFilters(t *testing.T) {
	s := newTestServer(t, nil, nil)
	h := s.routes()
	st := s.be.store
	ctx := context.Background()
	item := func(t *testing.T, id string) storage.CatalogItem {
		t.Helper()
		got, err := st.Items().GetMany(ctx, []string{id})
		if err != nil || len(got) != 1 {
			t.Fatalf("item %s: %v", id, err)
		}
		return got[0]
	}
	for _, tc := range []struct {
		name, path, body string
		filtered         string // the filters object
		want             []filterJSON
		check            func(t *testing.T, hit hitJSON) bool
	}{
		{
			name: "category", path: "/api/rag/search", body: `"query":"soja","mode":"hybrid"`,
			filtered: `{"category":"fungicida"}`, want: []filterJSON{{Field: "category", Value: "fungicida"}},
			check: func(t *testing.T, hit hitJSON) bool { return sameText(hit.Category, "Fungicida") },
		},
		{
			name: "manufacturer and tag", path: "/api/rag/search", body: `"query":"herbicida","mode":"hybrid"`,
			filtered: `{"manufacturer":"AgroVale","tag":"Soja"}`,
			want:     []filterJSON{{Field: "manufacturer", Value: "AgroVale"}, {Field: "tag", Value: "Soja"}},
			check: func(t *testing.T, hit hitJSON) bool {
				return sameText(hit.Manufacturer, "AgroVale") && slices.ContainsFunc(hit.Tags, func(tag string) bool { return sameText(tag, "soja") })
			},
		},
		{
			name: "metadata", path: "/api/rag/search", body: `"query":"fungicida","mode":"vector"`,
			filtered: `{"metadata":{"formulacao":"sc"}}`, want: []filterJSON{{Field: "metadata", Key: "formulacao", Value: "sc"}},
			check: func(t *testing.T, hit hitJSON) bool { return sameText(item(t, hit.ID).Metadata["formulacao"], "SC") },
		},
		{
			name: "faq category", path: "/api/faq/search", body: `"query":"prazo"`,
			filtered: `{"category":"entrega"}`, want: []filterJSON{{Field: "category", Value: "entrega"}},
			check: func(t *testing.T, hit hitJSON) bool { return sameText(hit.Category, "entrega") },
		},
		{
			name: "document metadata", path: "/api/rag/search", body: `"query":"milho","kind":"doc"`,
			filtered: `{"metadata":{"tema":"Milho"}}`, want: []filterJSON{{Field: "metadata", Key: "tema", Value: "Milho"}},
			check: func(t *testing.T, hit hitJSON) bool { return hit.ID == "doc-002" },
		},
		{
			name: "document source", path: "/api/rag/search", body: `"query":"milho","kind":"doc"`,
			filtered: `{"source":"equipe-tecnica"}`, want: []filterJSON{{Field: "source", Value: "equipe-tecnica"}},
			check: func(t *testing.T, hit hitJSON) bool { return sameText(hit.DocumentSource, "equipe-tecnica") },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			all := decode[searchResponse](t, do(t, h, "POST", tc.path, `{`+tc.body+`,"limit":20}`))
			rec := do(t, h, "POST", tc.path, `{`+tc.body+`,"limit":20,"filters":`+tc.filtered+`}`)
			if rec.Code != http.StatusOK {
				t.Fatalf("%d %s", rec.Code, rec.Body.String())
			}
			got := decode[searchResponse](t, rec)
			if len(got.Hits) == 0 {
				t.Fatal("no hit")
			}
			for _, hit := range got.Hits {
				if !tc.check(t, hit) {
					t.Errorf("hit %s does not satisfy %s", hit.ID, tc.filtered)
				}
			}
			others := 0
			for _, hit := range all.Hits {
				if !tc.check(t, hit) {
					others++
				}
			}
			if others == 0 {
				t.Errorf("the unfiltered search returns only hits the filter keeps; the test proves nothing")
			}
			if !slices.Equal(got.Filters, tc.want) {
				t.Errorf("filters echoed %+v, want %+v", got.Filters, tc.want)
			}
		})
	}
	t.Run("no filters", func(t *testing.T) {
		rec := do(t, h, "POST", "/api/rag/search", `{"query":"soja","filters":{"category":" ","metadata":{"tema":""}}}`)
		if r := decode[searchResponse](t, rec); rec.Code != http.StatusOK || r.Filters != nil {
			t.Errorf("blank filters: %d %+v", rec.Code, r.Filters)
		}
	})
}

// TestSearchFilterErrors: filters a kind does not have, metadata keys
// outside the allowlist and over-long values are typed 400s.
func TestSearchFilterErrors(t *testing.T) {
	h := newTestServer(t, nil, nil).routes()
	for _, tc := range []struct {
		name, path, body, code string
	}{
		{"key not allowed", "/api/rag/search", `{"query":"soja","filters":{"metadata":{"registro":"HR-24.0101"}}}`, codeMetadataNotAllowed},
		{"key not allowed on docs", "/api/rag/search", `{"query":"milho","kind":"doc","filters":{"metadata":{"praga":"cigarrinha"}}}`, codeMetadataNotAllowed},
		{"metadata on FAQs", "/api/faq/search", `{"query":"prazo","filters":{"metadata":{"tema":"x"}}}`, codeInvalidFilter},
		{"manufacturer on FAQs", "/api/faq/search", `{"query":"prazo","filters":{"manufacturer":"AgroVale"}}`, codeInvalidFilter},
		{"tag on documents", "/api/rag/search", `{"query":"milho","kind":"doc","filters":{"tag":"Soja"}}`, codeInvalidFilter},
		{"category on documents", "/api/rag/search", `{"query":"milho","kind":"doc","filters":{"category":"x"}}`, codeInvalidFilter},
		{"source on items", "/api/rag/search", `{"query":"soja","filters":{"source":"x"}}`, codeInvalidFilter},
		{"long value", "/api/rag/search", `{"query":"soja","filters":{"category":"` + strings.Repeat("a", 257) + `"}}`, codeInvalidFilter},
		{"unknown filter", "/api/rag/search", `{"query":"soja","filters":{"colour":"red"}}`, codeInvalidJSON},
		{"filters not an object", "/api/rag/search", `{"query":"soja","filters":["category"]}`, codeInvalidJSON},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := do(t, h, "POST", tc.path, tc.body)
			wantError(t, rec, http.StatusBadRequest, tc.code)
			if tc.code == codeMetadataNotAllowed && !strings.Contains(rec.Body.String(), "formulacao") {
				t.Errorf("the error does not list the allowed keys: %s", rec.Body.String())
			}
		})
	}
}

// TestSearchFilterAllowlist: -metadata-keys replaces the allowlist of the
// server and of its store.
func TestSearchFilterAllowlist(t *testing.T) {
	cfg, err := parseConfig([]string{"-testdata", testdataDir, "-metadata-keys", "registro, Praga"}, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Rate = 0
	be, err := openBackend(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer be.close()
	s := newServerWith(cfg, nil, be)
	defer s.stopStreams()
	h := s.routes()
	rec := do(t, h, "POST", "/api/rag/search", `{"query":"fungicida","filters":{"metadata":{"registro":"HR-24.0101"}}}`)
	r := decode[searchResponse](t, rec)
	if rec.Code != http.StatusOK || len(r.Hits) != 1 || r.Hits[0].ID != "prd-001" {
		t.Errorf("registro filter: %d %s", rec.Code, rec.Body.String())
	}
	rec = do(t, h, "POST", "/api/rag/search", `{"query":"milho","kind":"doc","filters":{"metadata":{"praga":"cigarrinha-do-milho"}}}`)
	if r := decode[searchResponse](t, rec); rec.Code != http.StatusOK || len(r.Hits) != 1 || r.Hits[0].ID != "doc-002" {
		t.Errorf("praga filter: %d %s", rec.Code, rec.Body.String())
	}
	wantError(t, do(t, h, "POST", "/api/rag/search", `{"query":"soja","filters":{"metadata":{"formulacao":"SC"}}}`),
		http.StatusBadRequest, codeMetadataNotAllowed)
}

// TestMetadataKeysConfig: -metadata-keys, else METADATA_FILTER_KEYS, else
// the default; "none" allows no key; a key no filter could name is a
// usage error (a *settings.EnvError for the variable).
func TestMetadataKeysConfig(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		env     string
		want    []string
		wantErr bool
	}{
		{name: "default", want: defaultMetadataKeys},
		{name: "flag", args: []string{"-metadata-keys", " Tema,tema , cultivar,"}, want: []string{"tema", "cultivar"}},
		{name: "env", env: "grupo_maturacao,peneira", want: []string{"grupo_maturacao", "peneira"}},
		{name: "flag wins", args: []string{"-metadata-keys", "tema"}, env: "peneira", want: []string{"tema"}},
		{name: "none", env: "none", want: []string{}},
		{name: "empty flag", args: []string{"-metadata-keys", ""}, want: []string{}},
		{name: "bad flag", args: []string{"-metadata-keys", "a b"}, wantErr: true},
		{name: "bad env", env: "tema,é", wantErr: true},
		{name: "leading dot", env: ".tema", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := func(k string) string {
				if k == envMetadataKeys {
					return tc.env
				}
				return ""
			}
			cfg, err := parseConfig(tc.args, env, io.Discard)
			if tc.wantErr {
				var ue *usageError
				if !errors.As(err, &ue) {
					t.Fatalf("err = %v, want a usage error", err)
				}
				var ee *settings.EnvError
				if tc.env != "" && (!errors.As(err, &ee) || ee.Var != envMetadataKeys) {
					t.Errorf("err = %v, want a *settings.EnvError naming %s", err, envMetadataKeys)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(cfg.MetadataKeys, tc.want) || cfg.MetadataKeys == nil {
				t.Errorf("MetadataKeys = %#v, want %#v", cfg.MetadataKeys, tc.want)
			}
		})
	}
}
