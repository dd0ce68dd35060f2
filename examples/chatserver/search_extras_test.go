package main

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/rag"
)

// TestSearchDocumentIDs: "document_ids" restricts a doc search to those
// documents (both legs), is echoed, and bad lists are typed 400s.
func TestSearchDocumentIDs(t *testing.T) {
	h := newTestServer(t, nil, nil).routes()
	all := decode[searchResponse](t, do(t, h, "POST", "/api/rag/search", `{"query":"manejo","kind":"doc","limit":20}`))
	if len(all.Hits) < 2 {
		t.Fatalf("unrestricted: %d hits, want at least 2", len(all.Hits))
	}
	want := []string{all.Hits[len(all.Hits)-1].ID}
	ids, _ := json.Marshal(want)
	rec := do(t, h, "POST", "/api/rag/search", `{"query":"manejo","kind":"doc","limit":20,"document_ids":`+string(ids)+`}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("%d %s", rec.Code, rec.Body.String())
	}
	got := decode[searchResponse](t, rec)
	if len(got.Hits) == 0 {
		t.Fatal("no hit")
	}
	for _, hit := range got.Hits {
		if hit.ID != want[0] {
			t.Errorf("hit %s, want only %s", hit.ID, want[0])
		}
	}
	if !slices.Equal(got.DocumentIDs, want) {
		t.Errorf("document_ids echoed %v, want %v", got.DocumentIDs, want)
	}
	if all.DocumentIDs != nil {
		t.Errorf("unrestricted search echoes document_ids %v", all.DocumentIDs)
	}

	many, _ := json.Marshal(slices.Repeat([]string{"doc-001"}, 101))
	for _, tc := range []struct{ name, path, body, code, text string }{
		{"empty ID", "/api/rag/search", `{"query":"manejo","kind":"doc","document_ids":["doc-001",""]}`, codeInvalidField, "document_ids[1]"},
		{"too many", "/api/rag/search", `{"query":"manejo","kind":"doc","document_ids":` + string(many) + `}`, codeInvalidField, "at most 100"},
		{"catalog", "/api/rag/search", `{"query":"soja","document_ids":["doc-001"]}`, codeInvalidField, "document searches only"},
		{"faq", "/api/faq/search", `{"query":"prazo","document_ids":["doc-001"]}`, codeInvalidField, "document searches only"},
		{"not a list", "/api/rag/search", `{"query":"manejo","kind":"doc","document_ids":"doc-001"}`, codeInvalidJSON, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := do(t, h, "POST", tc.path, tc.body)
			wantError(t, rec, http.StatusBadRequest, tc.code)
			if !strings.Contains(rec.Body.String(), tc.text) {
				t.Errorf("error %s does not say %q", rec.Body.String(), tc.text)
			}
		})
	}
}

// TestSearchIncludeContext: "include_context" adds the hits formatted as
// a chat turn's context; for the hits a chat turn keeps, each search's
// section is the one in the turn's debug.context, between the same
// preamble and question.
func TestSearchIncludeContext(t *testing.T) {
	h := newTestServer(t, nil, nil).routes()
	const msg = "Qual fungicida vocês têm para ferrugem na soja?"
	rec := do(t, h, "POST", "/api/chat", `{"message":"`+msg+`"}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("chat: %d %s", rec.Code, rec.Body.String())
	}
	chat := decode[chatResponse](t, rec)
	preamble, _, _ := strings.Cut(chat.Debug.Context, "\n\n")
	question := "\n\n" + rag.QuestionPrefix + msg
	if chat.Abstained || !strings.HasSuffix(chat.Debug.Context, question) {
		t.Fatalf("chat abstained (%v) or its context does not end with the question: %q", chat.Abstained, chat.Debug.Context)
	}
	compared := 0
	for _, tool := range chat.Tools {
		var path, kind string
		switch tool.Tool {
		case rag.ToolSearchFAQs:
			path = "/api/faq/search"
		case rag.ToolSearchCatalog:
			path, kind = "/api/rag/search", kindCatalog
		default:
			continue
		}
		if len(tool.Hits) == 0 {
			continue
		}
		body, _ := json.Marshal(map[string]any{"query": msg, "kind": kind, "limit": len(tool.Hits), "include_context": true})
		rec := do(t, h, "POST", path, string(body))
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", path, rec.Code, rec.Body.String())
		}
		got := decode[searchResponse](t, rec)
		if !slices.Equal(hitIDs(got.Hits), hitIDs(tool.Hits)) {
			// The chat keeps relevant hits in evidence order: another
			// list, formatted alike but not comparable.
			t.Logf("%s: search hits %v, the chat kept %v: not compared", tool.Tool, hitIDs(got.Hits), hitIDs(tool.Hits))
			continue
		}
		section, ok := strings.CutPrefix(got.Context, preamble+"\n\n")
		if section, ok = strings.CutSuffix(section, question); !ok {
			t.Fatalf("%s: context %q lacks the chat's preamble or question", tool.Tool, got.Context)
		}
		if !strings.Contains(chat.Debug.Context, "\n\n"+section+"\n\n") {
			t.Errorf("%s: section %q is not in the chat's context %q", tool.Tool, section, chat.Debug.Context)
		}
		compared++
	}
	if compared == 0 {
		t.Fatal("the chat kept no FAQ or catalog hit to compare")
	}
	// Documents, with document_ids; and nothing without the flag.
	got := decode[searchResponse](t, do(t, h, "POST", "/api/rag/search", `{"query":"milho","kind":"doc","document_ids":["doc-002"],"include_context":true}`))
	if !strings.Contains(got.Context, "Documentos relevantes (1): [1] ") || !strings.HasSuffix(got.Context, rag.QuestionPrefix+"milho") {
		t.Errorf("document context %q", got.Context)
	}
	rec = do(t, h, "POST", "/api/faq/search", `{"query":"prazo de entrega"}`)
	if strings.Contains(rec.Body.String(), `"context":"`) {
		t.Errorf("context without include_context: %s", rec.Body.String())
	}
}

// hitIDs are the IDs of hits, in order.
func hitIDs(hits []hitJSON) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

// TestSearchCorrections: "query.corrections" lists the words typo
// correction replaced; a valid inflection ("entregar" of the FAQs'
// "entrega") is none.
func TestSearchCorrections(t *testing.T) {
	h := newTestServer(t, nil, nil).routes()
	typo := decode[searchResponse](t, do(t, h, "POST", "/api/rag/search", `{"query":"fungisida para videira"}`))
	if want := []lexical.Correction{{From: "fungisida", To: "fungicida"}}; !slices.Equal(typo.Query.Corrections, want) {
		t.Errorf("fungisida: corrections %v, want %v", typo.Query.Corrections, want)
	}
	rec := do(t, h, "POST", "/api/faq/search", `{"query":"pra entregar"}`)
	if strings.Contains(rec.Body.String(), `"corrections"`) {
		t.Errorf("pra entregar: %s, want no corrections", rec.Body.String())
	}
	if r := decode[searchResponse](t, rec); r.Query.Text != "pra entregar" {
		t.Errorf("pra entregar searched as %q", r.Query.Text)
	}
}
