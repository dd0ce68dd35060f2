package rag_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/storage"
)

// contextBody is the part of a context between the preamble and the
// question: its sections.
func contextBody(t *testing.T, ctxText, message string) string {
	t.Helper()
	preamble, rest, ok := strings.Cut(ctxText, "\n\n")
	if !ok || !strings.HasPrefix(preamble, "Contexto consolidado") {
		t.Fatalf("no preamble in %q", ctxText)
	}
	body, ok := strings.CutSuffix(rest, "\n\n"+rag.QuestionPrefix+message)
	if !ok {
		t.Fatalf("context does not end with the question %q: %q", message, ctxText)
	}
	return body
}

// TestFormatContextMatchesPipeline: for the hits a chat turn keeps, each
// kind's FormatContext is the turn's Debug.Context with that kind's
// section alone: the same preamble, section text and question.
func TestFormatContextMatchesPipeline(t *testing.T) {
	store, emb := ragtest.Fixture(t)
	ans := &fakeAnswerer{text: "ok"}
	p, err := rag.NewPipeline(rag.NewSearcher(store, emb, rag.SearcherOptions{}), offline.KeywordClassifier{}, ans, rag.PipelineOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, msg := range []string{
		"Qual fungicida vocês têm para ferrugem na soja?",
		"Como controlar a cigarrinha-do-milho?",
		"qual o prazo de entrega?",
	} {
		t.Run(msg, func(t *testing.T) {
			resp, err := p.Chat(ctx, rag.ChatRequest{Message: msg})
			if err != nil {
				t.Fatal(err)
			}
			req := ans.got
			if req == nil || resp.Abstained {
				t.Fatalf("the turn did not answer from the store (abstained %v)", resp.Abstained)
			}
			if rag.BuildContext(req.Sections, req.Message) != resp.Debug.Context {
				t.Fatal("Debug.Context is not the answerer's context")
			}
			sections := map[string]string{}
			for _, s := range req.Sections {
				sections[s.Name] = s.Text
			}
			checked := 0
			check := func(name, got string, planned bool) {
				if !planned {
					return
				}
				checked++
				want := sections[name]
				if body := contextBody(t, got, msg); body != want {
					t.Errorf("%s: FormatContext section\n%q\nwant the Pipeline's\n%q", name, body, want)
				}
				if !strings.Contains(resp.Debug.Context, "\n\n"+want+"\n\n") {
					t.Errorf("%s: the section is not in Debug.Context", name)
				}
				if len(req.Sections) == 1 && got != resp.Debug.Context {
					t.Errorf("%s: FormatContext %q, Debug.Context %q", name, got, resp.Debug.Context)
				}
			}
			check("catalog", rag.FormatContext(msg, req.Catalog), resp.Debug.Plan.Catalog)
			check("faqs", rag.FormatContext(msg, req.FAQs), resp.Debug.Plan.FAQ)
			check("documents", rag.FormatContext(msg, req.Documents), resp.Debug.Plan.Documents)
			if checked == 0 {
				t.Error("the turn planned no search")
			}
			// The whole context is the sections FormatContext writes, joined.
			var bodies []string
			for _, s := range req.Sections {
				bodies = append(bodies, s.Text)
			}
			if got := contextBody(t, resp.Debug.Context, msg); got != strings.Join(bodies, "\n\n") {
				t.Errorf("Debug.Context body %q is not its sections", got)
			}
		})
	}
}

// TestFormatContextNoHits: with no hits each kind gets its "nothing
// found" sentence, the catalog's naming the message.
func TestFormatContextNoHits(t *testing.T) {
	const msg = "ração para cachorro"
	for name, tc := range map[string]struct{ got, want string }{
		"catalog":   {rag.FormatContext[storage.CatalogItem](msg, nil), `Nenhum item do catálogo encontrado para "ração para cachorro".`},
		"faqs":      {rag.FormatContext[storage.FAQ](msg, nil), "FAQs relevantes (0): Nenhuma FAQ relevante encontrada."},
		"documents": {rag.FormatContext[storage.Document](msg, nil), "Nenhum documento relevante encontrado."},
	} {
		if body := contextBody(t, tc.got, msg); body != tc.want {
			t.Errorf("%s: %q, want %q", name, body, tc.want)
		}
	}
}
