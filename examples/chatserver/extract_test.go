package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hybridrag/hybridrag/examples/internal/settings"
)

// TestChunkFiltersLegal: with -extract legal, a statute written through
// the write API gets the legal chunk metadata, and chunk_filters find the
// article asked for (and the document metadata its type).
func TestChunkFiltersLegal(t *testing.T) {
	law, err := os.ReadFile(filepath.Join("..", "..", "rag", "ingest", "legal", "testdata", "lei_1234.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := parseConfig([]string{"-testdata", testdataDir, "-extract", "legal", "-metadata-keys", "tema,tipo_documento"}, nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Rate, cfg.Token = 0, writeToken
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	be, err := openBackend(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer be.close()
	s := newServerWith(cfg, nil, be)
	defer s.stopStreams()
	h := s.routes()
	if st := decode[statsResponse](t, authed(t, h, "GET", "/api/stats", "")); st.Components.Extractor != "legal" {
		t.Errorf("stats extractor = %q, want legal", st.Components.Extractor)
	}
	rec := authed(t, h, "PUT", "/api/documents/lei-1234", `{"title":"Lei nº 1.234, de 10 de março de 2020","content":`+quoteJSON(t, string(law))+`}`)
	if rec.Code != http.StatusCreated {
		t.Fatalf("put: %d %s", rec.Code, rec.Body.String())
	}
	search := func(body string) searchResponse {
		t.Helper()
		rec := authed(t, h, "POST", "/api/rag/search", body)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", body, rec.Code, rec.Body.String())
		}
		return decode[searchResponse](t, rec)
	}
	r := search(`{"query":"multa infração árvore","kind":"doc","chunk_filters":{"artigo":"5","tipo":" "}}`)
	if len(r.Hits) != 1 || r.Hits[0].ID != "lei-1234" || !strings.Contains(r.Hits[0].Snippet, "Art. 5") {
		t.Errorf("artigo=5: %+v", r.Hits)
	}
	if len(r.ChunkFilters) != 1 || r.ChunkFilters[0] != (filterJSON{Field: "chunk", Key: "artigo", Value: "5"}) {
		t.Errorf("chunk filters echoed %+v", r.ChunkFilters)
	}
	// Statutes are chunked at their articles: every one is found by its
	// own filter (with the default chunk size, short articles used to
	// share a chunk labelled with the first).
	for n := 1; n <= 7; n++ {
		art := strconv.Itoa(n)
		r := search(`{"query":"lei","kind":"doc","chunk_filters":{"artigo":"` + art + `"}}`)
		if len(r.Hits) != 1 || r.Hits[0].ID != "lei-1234" {
			t.Errorf("artigo=%s: %+v", art, r.Hits)
		}
	}
	if r := search(`{"query":"guardião praga","kind":"doc","chunk_filters":{"artigo":"3"}}`); len(r.Hits) != 1 ||
		!strings.Contains(r.Hits[0].Snippet, "Art. 3º") || strings.Contains(r.Hits[0].Snippet, "Art. 4º") {
		t.Errorf("artigo=3: %+v", r.Hits)
	}
	if r := search(`{"query":"multa infração árvore","kind":"doc","chunk_filters":{"artigo":"99"}}`); len(r.Hits) != 0 {
		t.Errorf("artigo=99 found %d hits", len(r.Hits))
	}
	if r := search(`{"query":"pomar","kind":"doc","filters":{"metadata":{"tipo_documento":"lei"}}}`); len(r.Hits) != 1 || r.Hits[0].ID != "lei-1234" {
		t.Errorf("tipo_documento=lei: %+v", r.Hits)
	}
	wantError(t, authed(t, h, "POST", "/api/rag/search", `{"query":"pomar","kind":"doc","chunk_filters":{" ":"5"}}`), http.StatusBadRequest, codeInvalidField)
	wantError(t, authed(t, h, "POST", "/api/rag/search", `{"query":"pomar","chunk_filters":{"artigo":5}}`), http.StatusBadRequest, codeInvalidJSON)
}

// TestExtractConfig: -extract, else DOCUMENT_EXTRACTOR, else none; a bad
// variable is a *settings.EnvError naming it.
func TestExtractConfig(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		env     string
		want    extractMode
		wantErr bool
	}{
		{name: "default", want: extractNone},
		{name: "flag", args: []string{"-extract", "Legal"}, want: extractLegal},
		{name: "env", env: " legal ", want: extractLegal},
		{name: "flag wins", args: []string{"-extract", "none"}, env: "legal", want: extractNone},
		{name: "bad flag", args: []string{"-extract", "pdf"}, wantErr: true},
		{name: "bad env", env: "pdf", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := func(k string) string {
				if k == envExtract {
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
				if tc.env != "" && (!errors.As(err, &ee) || ee.Var != envExtract) {
					t.Errorf("err = %v, want a *settings.EnvError naming %s", err, envExtract)
				}
				return
			}
			if err != nil || cfg.Extract != tc.want {
				t.Errorf("Extract = %q (%v), want %q", cfg.Extract, err, tc.want)
			}
		})
	}
}
