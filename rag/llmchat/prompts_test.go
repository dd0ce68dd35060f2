package llmchat_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hybridrag/hybridrag/internal/actions"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/internal/ragtest"
	"github.com/hybridrag/hybridrag/rag/llmchat"
)

// dumpRequest renders a model request as reviewable text.
func dumpRequest(t *testing.T, req llm.Request) string {
	t.Helper()
	var b strings.Builder
	indent := func(raw []byte) string {
		var out bytes.Buffer
		if err := json.Indent(&out, raw, "", "  "); err != nil {
			t.Fatalf("indent %s: %v", raw, err)
		}
		return out.String()
	}
	fmt.Fprintf(&b, "model: %q\n", req.Model)
	if req.Temperature != nil {
		fmt.Fprintf(&b, "temperature: %v\n", *req.Temperature)
	}
	if req.MaxTokens > 0 {
		fmt.Fprintf(&b, "max_tokens: %d\n", req.MaxTokens)
	}
	if f := req.ResponseFormat; f != nil {
		fmt.Fprintf(&b, "response_format: %s (strict: %v)\n%s\n", f.Name, f.Strict, indent(f.Schema))
	}
	for _, tool := range req.Tools {
		fmt.Fprintf(&b, "\n== tool %s ==\n%s\nparameters: %s\n", tool.Name, tool.Description, indent(tool.Parameters))
		for _, ex := range tool.InputExamples {
			fmt.Fprintf(&b, "example: %s\n", ex)
		}
	}
	for _, m := range req.Messages {
		fmt.Fprintf(&b, "\n== %s ==\n%s\n", m.Role, m.Content)
	}
	return b.String()
}

// update rewrites the golden prompts (go test -update).
var update = flag.Bool("update", false, "rewrite golden files")

// checkGolden compares got with testdata/prompts/name.golden, rewriting it
// with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "prompts", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./rag -run TestPromptGolden -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("prompt %s changed (-want +got):\n%s", name, diff)
	}
}

// TestPromptGolden renders every prompt template, in each language, with
// fixed input, through the component that sends it.
func TestPromptGolden(t *testing.T) {
	ctx := context.Background()
	history := []rag.Turn{
		{Role: llm.RoleUser, Content: "bom dia, tenho um parreiral"},
		{Role: llm.RoleAssistant, Content: "Olá! Como posso ajudar?"},
	}
	for _, lang := range []rag.Language{rag.LanguagePortuguese, rag.LanguageEnglish} {
		captured := func(t *testing.T, steps ...llmtest.Step) *llmtest.Model {
			t.Helper()
			return llmtest.NewModel(steps...)
		}
		t.Run("classify/"+string(lang), func(t *testing.T) {
			m := captured(t, llmtest.Text(classifyCatalogJSON))
			c, err := llmchat.NewClassifier(m, llmchat.ClassifierOptions{Model: "classify-model", Language: lang})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Classify(ctx, rag.ClassifyRequest{Message: "tem fungicida para oídio?", Summary: "Cliente com parreiral.", History: history}); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "classify."+string(lang), dumpRequest(t, m.Requests()[0]))
		})
		for _, intent := range []rag.Intent{rag.IntentCatalog, rag.IntentSmallTalk} {
			t.Run("answer/"+string(intent)+"/"+string(lang), func(t *testing.T) {
				a, err := llmchat.NewAnswerer(llmtest.NewModel(), llmchat.AnswererOptions{Model: "answer-model", Language: lang})
				if err != nil {
					t.Fatal(err)
				}
				req := answerRequest()
				req.Intent = intent
				r, err := a.RequestForTest(req)
				if err != nil {
					t.Fatal(err)
				}
				checkGolden(t, "answer_"+string(intent)+"."+string(lang), dumpRequest(t, r))
			})
		}
		t.Run("answer/abstained/"+string(lang), func(t *testing.T) {
			a, err := llmchat.NewAnswerer(llmtest.NewModel(), llmchat.AnswererOptions{Model: "answer-model", Language: lang})
			if err != nil {
				t.Fatal(err)
			}
			req := rag.AnswerRequest{
				Message: "Vocês vendem ração para cachorro?", Intent: rag.IntentCatalog, Abstained: true,
				Sections: []rag.ContextSection{{Name: "abstain", Text: rag.AbstainContextText}},
			}
			r, err := a.RequestForTest(req)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "answer_abstained."+string(lang), dumpRequest(t, r))
		})
		t.Run("summarize/"+string(lang), func(t *testing.T) {
			m := captured(t, llmtest.Text(`{"summary":"s","catalog_query":""}`))
			s, err := llmchat.NewSummarizer(m, llmchat.SummarizerOptions{Language: lang})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Summarize(ctx, history); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "summarize."+string(lang), dumpRequest(t, m.Requests()[0]))
		})
		t.Run("agentic/"+string(lang), func(t *testing.T) {
			m := captured(t, llmtest.Text("ok"))
			p := ragtest.OfflinePipeline(t, rag.PipelineOptions{Language: lang})
			if _, err := ragtest.Agent(t, p, m, rag.AgentOptions{}).Chat(ctx, rag.ChatRequest{Message: "tem fungicida para oídio?", History: history}); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "agentic."+string(lang), dumpRequest(t, m.Requests()[0]))
		})
		t.Run("agentic_actions/"+string(lang), func(t *testing.T) {
			m := captured(t, llmtest.Text("ok"))
			p := ragtest.OfflinePipeline(t, rag.PipelineOptions{Language: lang})
			quote, err := actions.NewQuoteTool(func(context.Context, actions.Quote) (string, error) { return "", nil }, actions.QuoteOptions{Language: lang})
			if err != nil {
				t.Fatal(err)
			}
			opts := rag.AgentOptions{Tools: []string{rag.ToolSearchFAQs}, Actions: []llm.Tool{quote}}
			if _, err := ragtest.Agent(t, p, m, opts).Chat(ctx, rag.ChatRequest{Message: "vocês fazem cotação para 500 L?"}); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "agentic_actions."+string(lang), dumpRequest(t, m.Requests()[0]))
		})
	}
}
