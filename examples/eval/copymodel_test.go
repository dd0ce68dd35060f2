package main

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/examples/internal/settings"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/llm/llmtest"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/llmchat"
	"github.com/hybridrag/hybridrag/rag/offline"
)

// copyAnswer is a scripted model's answer that only copies from its
// context: it reads the request's last user message (the Pipeline's
// context, as llmchat.Answerer sends it, ending with "Pergunta do
// usuário: …"), splits the context into segments (a line, a hit of a
// section, a sentence), each led by the name of the hit it belongs to, and
// answers with the n segments that share the most words with the question,
// in context order. Told to abstain (rag.AbstainContextText), it says it
// found nothing. It knows nothing but the context, like a model told to
// answer only from it; what it cannot copy, it cannot state.
func copyAnswer(req llm.Request, n int) llm.Response {
	var payload string
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser {
			payload = m.Content
		}
	}
	i := strings.LastIndex(payload, rag.QuestionPrefix)
	if i < 0 {
		return llm.Response{}
	}
	ctxText, question := payload[:i], payload[i+len(rag.QuestionPrefix):]
	if strings.Contains(ctxText, rag.AbstainContextText) {
		return llm.Response{Message: llm.AssistantMessage(offline.NothingFound), FinishReason: llm.FinishStop}
	}
	stop, syn := lexical.DefaultStopwords(), lexical.DefaultSynonyms()
	// words are a text's stemmed content words and the canonical terms it
	// mentions: a model reads "coffee" as "café" and "carência" as
	// "intervalo de segurança".
	words := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, t := range syn.Detect(s) {
			m["≈"+t.Term] = true
		}
		for _, w := range strings.FieldsFunc(lexical.Normalize(s), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		}) {
			if len(w) >= 3 && !stop.Contains(w) {
				m[lexical.Stem(w)] = true
			}
		}
		return m
	}
	qw := words(question)
	type segment struct {
		text  string
		score int
		order int
	}
	var segs []segment
	for _, line := range strings.Split(ctxText, "\n") {
		// A section's header ("Busca híbrida no catálogo para "…" (N
		// itens): ", "FAQs relevantes (N): ") names the search, not an
		// answer: the question it echoes is not copied.
		if i := strings.Index(line, "): "); i >= 0 && i < len(line)/2 && strings.Contains(line[:i], " (") {
			line = line[i+len("): "):]
		}
		for _, hit := range strings.Split(line, " || ") {
			// "1. Name | Categoria: … | Trechos: …": the name leads every
			// sentence of the hit.
			name, _, _ := strings.Cut(hit, " | ")
			for _, sent := range units(hit) {
				sent = strings.TrimSpace(sent)
				if sent == "" {
					continue
				}
				text := sent
				if name != "" && !strings.HasPrefix(sent, name) {
					text = name + " — " + sent
				}
				s := 0
				for w := range words(sent) {
					if qw[w] {
						s++
					}
				}
				segs = append(segs, segment{text: text, score: s, order: len(segs)})
			}
		}
	}
	slices.SortStableFunc(segs, func(a, b segment) int { return b.score - a.score })
	if len(segs) == 0 || segs[0].score == 0 {
		return llm.Response{Message: llm.AssistantMessage(offline.NothingFound), FinishReason: llm.FinishStop}
	}
	segs = slices.DeleteFunc(segs, func(s segment) bool { return s.score == 0 })
	segs = segs[:min(n, len(segs))]
	slices.SortFunc(segs, func(a, b segment) int { return a.order - b.order })
	texts := make([]string, len(segs))
	for i, s := range segs {
		texts[i] = s.text
	}
	return llm.Response{Message: llm.AssistantMessage(strings.Join(texts, "\n")), FinishReason: llm.FinishStop}
}

// units splits a hit of the context into what copyAnswer may copy: each
// passage quoted in guillemets whole, a FAQ's answer whole, the rest by
// sentence.
func units(hit string) []string {
	if q, a, ok := strings.Cut(hit, " | A: "); ok && strings.HasPrefix(q, "Q: ") {
		return []string{q, a}
	}
	var out []string
	for {
		i := strings.Index(hit, "«")
		if i < 0 {
			break
		}
		j := strings.Index(hit[i:], "»")
		if j < 0 {
			break
		}
		out = append(out, strings.SplitAfter(hit[:i], ". ")...)
		out = append(out, hit[i+len("«"):i+j])
		hit = hit[i+j+len("»"):]
	}
	return append(out, strings.SplitAfter(hit, ". ")...)
}

// testdataChat is the offline pipeline over testdata/, as -chat builds it.
func testdataChat(tb testing.TB) *offlineChat {
	tb.Helper()
	ctx := context.Background()
	data, err := loadChatData(ctx, &config{}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	rc := settings.DefaultConfig()
	chat, err := newOfflineChat(ctx, rc, rc.Embedding.Dimensions, data.src, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return chat
}

// modelPipeline is chat's searcher and classifier with the real answer
// prompt (llmchat.Answerer) on a scripted model.
func modelPipeline(tb testing.TB, chat *offlineChat) (*rag.Pipeline, *llmtest.Model) {
	tb.Helper()
	model := llmtest.NewModel()
	answerer, err := llmchat.NewAnswerer(model, llmchat.AnswererOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	p, err := rag.NewPipeline(chat.pipeline.Searcher(), offline.KeywordClassifier{}, answerer, settings.DefaultConfig().PipelineOptions())
	if err != nil {
		tb.Fatal(err)
	}
	return p, model
}

// TestCopyingModelReadsTheFacts runs the chat cases through the real
// Pipeline and the real answer prompt (llmchat.Answerer) with a scripted
// model that can only copy from its context (copyAnswer), and checks that
// its answers state the expected facts about as often as the extractive
// answerer's, which reads the records themselves: the context carries the
// passages that answer.
func TestCopyingModelReadsTheFacts(t *testing.T) {
	ctx := context.Background()
	// Both sets pooled, as the context was measured when it was found
	// short (65 of the 127 facts in the context); each set is logged.
	var allExtractive, allCopied []chatResult
	for _, set := range []string{"chat_eval.jsonl", "chat_eval_fresh.jsonl"} {
		cases, err := loadChatCases("../../testdata/" + set)
		if err != nil {
			t.Fatal(err)
		}
		chat := testdataChat(t)
		extractive, err := runChatCases(ctx, chat.pipeline, cases, false)
		if err != nil {
			t.Fatal(err)
		}
		p, model := modelPipeline(t, chat)
		copied := make([]chatResult, len(cases))
		for i := range cases {
			model.Push(llmtest.Step{Func: func(_ context.Context, req llm.Request) (llm.Response, error) {
				return copyAnswer(req, 4), nil
			}})
			resp, err := p.Chat(ctx, cases[i].request())
			if err != nil {
				t.Fatalf("case %s: %v", cases[i].ID, err)
			}
			copied[i] = chatResult{ID: cases[i].ID, Answer: resp.Answer, context: resp.Debug.Context}
			copied[i].scoreAgainst(cases[i].Expect)
		}
		if model.Remaining() != 0 {
			t.Fatalf("%s: %d scripted answers left: the Pipeline did not ask the model every turn", set, model.Remaining())
		}
		want, got := chatMetricsOf(extractive), chatMetricsOf(copied)
		t.Logf("%s: fact recall extractive %.3f (%d/%d), copying model %.3f (%d/%d); context fact recall %.3f",
			set, want.FactRecall, want.FactsFound, want.Facts, got.FactRecall, got.FactsFound, got.Facts, got.ContextFactRecall)
		allExtractive, allCopied = append(allExtractive, extractive...), append(allCopied, copied...)
	}
	want, got := chatMetricsOf(allExtractive), chatMetricsOf(allCopied)
	t.Logf("both sets: fact recall extractive %.3f (%d/%d), copying model %.3f (%d/%d)", want.FactRecall, want.FactsFound, want.Facts, got.FactRecall, got.FactsFound, got.Facts)
	if got.FactRecall < want.FactRecall-0.05 {
		t.Errorf("the copying model states %.3f of the facts, the extractive answerer %.3f: the context misses what answers", got.FactRecall, want.FactRecall)
		for _, r := range allCopied {
			if len(r.MissingFacts) > len(r.ContextMissingFacts) {
				t.Logf("%s: missing %q though the context has them\nA: %s", r.ID, r.MissingFacts, r.Answer)
			}
		}
	}
}

// quotedField is the text of a record's field as rag.Quote.Field names it.
func quotedField(resp *rag.ChatResponse, c rag.Citation) (string, bool) {
	field := c.Quote.Field
	for _, h := range resp.Catalog {
		if h.ID != c.ID {
			continue
		}
		switch {
		case field == "description":
			return h.Record.Description, true
		case strings.HasPrefix(field, "metadata:"):
			v, ok := h.Record.Metadata[strings.TrimPrefix(field, "metadata:")]
			return v, ok
		case strings.HasPrefix(field, "file:"):
			for _, f := range h.Record.Files {
				if "file:"+f.Name == field {
					return f.Text, true
				}
			}
		}
	}
	for _, h := range resp.FAQs {
		if h.ID == c.ID && field == "answer" {
			return h.Record.Answer, true
		}
	}
	for _, h := range resp.Documents {
		if h.ID == c.ID && field == "content" {
			return h.Record.Content, true
		}
	}
	return "", false
}

// TestCitationsQuoteTheirRecords checks every citation of every chat
// case: it carries a Quote, and the quote is the record's field text
// between its offsets, exactly.
func TestCitationsQuoteTheirRecords(t *testing.T) {
	ctx := context.Background()
	chat := testdataChat(t)
	cited := 0
	for _, set := range []string{"chat_eval.jsonl", "chat_eval_fresh.jsonl"} {
		cases, err := loadChatCases("../../testdata/" + set)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			resp, err := chat.pipeline.Chat(ctx, c.request())
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range resp.Sources {
				cited++
				if s.Quote == nil {
					t.Errorf("%s: %s %s cited without a quote", c.ID, s.Kind, s.ID)
					continue
				}
				text, ok := quotedField(resp, s)
				if !ok {
					t.Errorf("%s: %s quotes field %q, which the record does not have", c.ID, s.ID, s.Quote.Field)
					continue
				}
				q := s.Quote
				if q.Start < 0 || q.End > len(text) || q.Start >= q.End || text[q.Start:q.End] != q.Text {
					t.Errorf("%s: %s quote %q at %d:%d is not the %s text there", c.ID, s.ID, q.Text, q.Start, q.End, q.Field)
				}
			}
		}
	}
	if cited == 0 {
		t.Fatal("no case cited a source")
	}
}

// BenchmarkChatTurns runs the 112 cases of testdata/chat_eval.jsonl
// through the offline pipeline the chatserver serves; ns/op is the whole
// set, turn_ms the mean turn.
func BenchmarkChatTurns(b *testing.B) {
	ctx := context.Background()
	chat := testdataChat(b)
	cases, err := loadChatCases("../../testdata/chat_eval.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := runChatCases(ctx, chat.pipeline, cases, false); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*len(cases)), "turn_ms")
}

// TestModelQuotesAreChecked: a model's answer quoting a passage of its
// context in guillemets passes; a quote the sources do not hold is
// reported in UnverifiedQuotes.
func TestModelQuotesAreChecked(t *testing.T) {
	ctx := context.Background()
	p, model := modelPipeline(t, testdataChat(t))
	var copied string
	model.Push(llmtest.Step{Func: func(_ context.Context, req llm.Request) (llm.Response, error) {
		payload := req.Messages[len(req.Messages)-1].Content
		i := strings.Index(payload, "«")
		j := strings.Index(payload[i:], "»")
		if i < 0 || j < 0 {
			return llm.Response{}, nil
		}
		copied = payload[i+len("«") : i+j]
		// The copied passage with its case and accents changed is still
		// the source's; the invented dose is not.
		text := "Segundo a bula: «" + strings.ToUpper(copied) + "». Use «Dose: 999 L/ha no café»."
		return llm.Response{Message: llm.AssistantMessage(text), FinishReason: llm.FinishStop}, nil
	}})
	resp, err := p.Chat(ctx, rag.ChatRequest{Message: "qual a dose do Fungiprot 250 SC no café?"})
	if err != nil {
		t.Fatal(err)
	}
	if copied == "" {
		t.Fatalf("the context quotes no passage:\n%s", resp.Debug.Context)
	}
	if want := []string{"Dose: 999 L/ha no café"}; !slices.Equal(resp.UnverifiedQuotes, want) {
		t.Errorf("UnverifiedQuotes = %q, want %q (the copied passage %q is the source's)", resp.UnverifiedQuotes, want, copied)
	}
}
