package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/examples/internal/eval"
	"github.com/hybridrag/hybridrag/examples/internal/settings"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/storage"
)

// scored returns r scored against e.
func scored(r chatResult, e *chatExpect) chatResult {
	r.scoreAgainst(e)
	return r
}

func TestChatMetrics(t *testing.T) {
	// The worked example of doc.go: six cases.
	worked := []chatResult{
		// a: answerable; cites one of its two expected sources and two
		// others; one of its two facts is in the answer.
		scored(chatResult{ID: "a", Sources: []string{"prd-016", "faq-001", "doc-1"}, Answer: "Use Fosetal 800 WG na uva."},
			&chatExpect{Sources: []string{"prd-016", "faq-007"}, Facts: []string{"fosetal", "250 g/100 L"}}),
		// b: answerable; cites nothing.
		scored(chatResult{ID: "b", Sources: []string{}, Answer: "Não sei."}, &chatExpect{Sources: []string{"faq-002"}}),
		// c: abstains as expected.
		scored(chatResult{ID: "c", Sources: []string{}, Abstained: true, Answer: offline.NothingFound}, &chatExpect{Abstain: true}),
		// d: should abstain but answers, citing prd-001.
		scored(chatResult{ID: "d", Sources: []string{"prd-001"}, Answer: "Fungiprot."}, &chatExpect{Abstain: true}),
		// e: no expect: counted as a question only.
		scored(chatResult{ID: "e", Sources: []string{"faq-003"}, Answer: "x"}, nil),
		// f: facts only (no expected source): its citations are not judged.
		scored(chatResult{ID: "f", Sources: []string{"prd-002"}, Answer: "Dose de 250 G/100 l; indicado para Cafe\u0301."},
			&chatExpect{Facts: []string{"250 g/100 L", "café"}}),
	}
	for _, tt := range []struct {
		name    string
		results []chatResult
		want    chatMetrics
	}{
		{"worked example", worked, chatMetrics{
			Questions: 6,
			// a: 1 of 3 cited expected; b: 0 of 0.
			SourcePrecision: 1.0 / 3, Answerable: 2, Cited: 3, CitedExpected: 1,
			// a cites an expected source, b does not.
			SourceRecall: 0.5, Recalled: 1,
			// a, b, c, f right; d wrong; e has no expect.
			AbstentionAccuracy: 0.8, WithExpect: 5, AbstentionCorrect: 4,
			// a: fosetal found, "250 g/100 L" missing; f: both found.
			FactRecall: 0.75, Facts: 4, FactsFound: 3,
			// c abstained; a, b and d failed.
			Abstained: 1, Failed: 3,
		}},
		{"answerable case citing only other sources", []chatResult{
			scored(chatResult{ID: "h", Sources: []string{"faq-003", "prd-001"}}, &chatExpect{Sources: []string{"faq-001"}})}, chatMetrics{
			Questions: 1, Answerable: 1, Cited: 2, WithExpect: 1, AbstentionCorrect: 1, AbstentionAccuracy: 1, Failed: 1,
		}},
		{"no case", nil, chatMetrics{}},
		{"no answerable case", []chatResult{worked[2], worked[3], worked[4]}, chatMetrics{
			Questions: 3, AbstentionAccuracy: 0.5, WithExpect: 2, AbstentionCorrect: 1, Abstained: 1, Failed: 1,
		}},
		{"answerable cases citing nothing", []chatResult{worked[1],
			scored(chatResult{ID: "g", Sources: []string{}, Abstained: true}, &chatExpect{Sources: []string{"faq-001"}})}, chatMetrics{
			Questions: 2, Answerable: 2, WithExpect: 2, AbstentionCorrect: 1, AbstentionAccuracy: 0.5, Abstained: 1, Failed: 2,
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := chatMetricsOf(tt.results); got != tt.want {
				t.Errorf("metrics\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}

	// Per-case findings of the worked example.
	for _, tt := range []struct {
		id                          string
		failures, unexpected, facts []string
	}{
		{"a", []string{failUnexpected, failMissingFacts}, []string{"faq-001", "doc-1"}, []string{"250 g/100 L"}},
		{"b", []string{failNoExpected}, nil, nil},
		{"c", nil, nil, nil},
		{"d", []string{failAbstention, failUnexpected}, []string{"prd-001"}, nil},
		{"e", nil, nil, nil},
		{"f", nil, nil, nil},
	} {
		i := slices.IndexFunc(worked, func(r chatResult) bool { return r.ID == tt.id })
		r := worked[i]
		if !slices.Equal(r.Failures, tt.failures) || !slices.Equal(r.UnexpectedSources, tt.unexpected) || !slices.Equal(r.MissingFacts, tt.facts) {
			t.Errorf("case %s: failures %q unexpected %q missing %q, want %q %q %q",
				tt.id, r.Failures, r.UnexpectedSources, r.MissingFacts, tt.failures, tt.unexpected, tt.facts)
		}
		if r.Failures == nil || r.UnexpectedSources == nil || r.MissingFacts == nil {
			t.Errorf("case %s: nil slices would encode as null", tt.id)
		}
	}
}

func TestChatFacts(t *testing.T) {
	answer := "Fosetil-Alumínio 800 g/kg: aplique em  dias\núteis; indicado para Cafe\u0301 e MAÇÃ."
	for _, tt := range []struct {
		fact  string
		found bool
	}{
		{"fosetil-aluminio", true},    // accents and case
		{"FOSETIL-ALUMÍNIO", true},    // both sides normalized
		{"café", true},                // NFD in the answer, NFC in the fact
		{"maca", true},                // no accents in the fact
		{"dias úteis", true},          // white space folded
		{"800 g/kg", true},            // punctuation kept
		{"aluminio 800", true},        // substring across words
		{"fosetil aluminio", false},   // the hyphen is kept
		{"ácaro", false},              // absent
		{"800 g/l", false},            // a different unit
		{"  Fosetil-Alumínio ", true}, // surrounding space
	} {
		t.Run(tt.fact, func(t *testing.T) {
			r := scored(chatResult{Answer: answer}, &chatExpect{Facts: []string{tt.fact}})
			if found := len(r.MissingFacts) == 0; found != tt.found {
				t.Errorf("fact %q found %t, want %t", tt.fact, found, tt.found)
			}
		})
	}
}

func TestChatContextFacts(t *testing.T) {
	// The context is scored like the answer, independently of it.
	results := []chatResult{
		{Answer: "Dose: 400 mL/ha.", context: "Trechos: CULTURA: Café; DOSE: 400 mL/ha; INTERVALO DE SEGURANÇA: 30 dias.", ContextTokens: 40},
		{Answer: "Não encontrei.", context: "Nenhum registro relevante", ContextTokens: 10},
		{Answer: "x", context: "Prazo de 7 dias", ContextTokens: 900},
	}
	expects := []*chatExpect{
		{Facts: []string{"400 mL/ha", "30 dias"}},
		{Facts: []string{"14h"}},
		{Facts: []string{"7 DIAS"}},
	}
	for i := range results {
		results[i].scoreAgainst(expects[i])
	}
	if got := results[0].ContextMissingFacts; len(got) != 0 {
		t.Errorf("case 0: context missing %q, want none", got)
	}
	if got := results[0].MissingFacts; !slices.Equal(got, []string{"30 dias"}) {
		t.Errorf("case 0: answer missing %q, want [30 dias]", got)
	}
	m := chatMetricsOf(results)
	if m.Facts != 4 || m.ContextFactsFound != 3 || m.ContextFactRecall != 0.75 {
		t.Errorf("context facts %d/%d = %v, want 3/4 = 0.75", m.ContextFactsFound, m.Facts, m.ContextFactRecall)
	}
	if m.ContextTokensMedian != 40 || m.ContextTokensP95 != 900 {
		t.Errorf("context tokens p50/p95 %d/%d, want 40/900", m.ContextTokensMedian, m.ContextTokensP95)
	}
}

func TestUniqueSourceIDs(t *testing.T) {
	cites := []rag.Citation{
		{Kind: storage.KindFAQ, ID: "faq-007"},
		{Kind: storage.KindItem, ID: "prd-016"},
		{Kind: storage.KindDocument, ID: "doc-001"},
		{Kind: storage.KindDocument, ID: "doc-001"}, // two sections of one document
		{Kind: storage.KindItem, ID: "prd-002"},
	}
	want := []string{"faq-007", "prd-016", "doc-001", "prd-002"}
	if got := uniqueSourceIDs(cites); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := uniqueSourceIDs(nil); got == nil || len(got) != 0 {
		t.Errorf("no citation: got %#v, want an empty slice", got)
	}
}

func TestParseChatCases(t *testing.T) {
	const text = `{"id":"c01","type":"followup","split":"tune","messages":[{"role":"user","content":"tem fungicida para uva?"},{"role":"Assistant","content":"Temos o Fosetal."},{"role":"user","content":"qual a dose?"}],"expect":{"sources":["prd-016","faq-007"],"abstain":false,"facts":["250 g/100 L"]}}

{"id":"c02","split":"held-out","messages":[{"role":"user","content":"oi"}]}
{"id":"c03","messages":[{"role":"user","content":"qual a capital da Mongólia?"}],"expect":{"abstain":true},"note":"out of scope"}
`
	cases, err := parseChatCases(strings.NewReader(text), "cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 3 {
		t.Fatalf("%d cases, want 3", len(cases))
	}
	req := cases[0].request()
	wantHist := []rag.Turn{{Role: llm.RoleUser, Content: "tem fungicida para uva?"}, {Role: llm.RoleAssistant, Content: "Temos o Fosetal."}}
	if req.Message != "qual a dose?" || !slices.Equal(req.History, wantHist) {
		t.Errorf("request %+v, want the last message and a two-turn history", req)
	}
	if e := cases[0].Expect; e == nil || !slices.Equal(e.Sources, []string{"prd-016", "faq-007"}) || e.Abstain || len(e.Facts) != 1 {
		t.Errorf("expect %+v", e)
	}
	if cases[1].Split != eval.SplitHeldOut || cases[1].Expect != nil || len(cases[1].request().History) != 0 {
		t.Errorf("c02: split %q expect %v", cases[1].Split, cases[1].Expect)
	}
	if cases[2].Split != eval.SplitOf("c03") || !cases[2].Expect.Abstain {
		t.Errorf("c03: split %q (want SplitOf's %q), expect %+v", cases[2].Split, eval.SplitOf("c03"), cases[2].Expect)
	}
}

func TestParseChatCasesErrors(t *testing.T) {
	const ok = `{"id":"ok","messages":[{"role":"user","content":"oi"}]}`
	for _, tt := range []struct {
		name, text string
		line       int
		reason     string
	}{
		{"bad JSON", ok + "\n{\"id\":\"c2\",", 2, "not a case object"},
		{"not an object", ok + "\n[1,2]", 2, "not a case object"},
		{"unknown field", `{"id":"c1","messages":[{"role":"user","content":"oi"}],"expected":{}}`, 1, `unknown field "expected"`},
		{"two values", ok + ` {"id":"x"}`, 1, "more than one JSON value"},
		{"missing id", `{"messages":[{"role":"user","content":"oi"}]}`, 1, "missing id"},
		{"duplicate id after a blank line", ok + "\n\n" + ok, 3, `"ok": duplicate id (first on line 1)`},
		{"no messages", `{"id":"c1","messages":[]}`, 1, "no messages"},
		{"bad role", `{"id":"c1","messages":[{"role":"system","content":"x"},{"role":"user","content":"oi"}]}`, 1, `messages[0]: role "system"`},
		{"empty content", `{"id":"c1","messages":[{"role":"user","content":"  "}]}`, 1, "messages[0]: empty content"},
		{"last message not the user's", `{"id":"c1","messages":[{"role":"user","content":"oi"},{"role":"assistant","content":"olá"}]}`, 1, "must be the user's question"},
		{"bad split", `{"id":"c1","split":"train","messages":[{"role":"user","content":"oi"}]}`, 1, `split "train"`},
		{"abstain with sources", `{"id":"c1","messages":[{"role":"user","content":"oi"}],"expect":{"abstain":true,"sources":["faq-001"]}}`, 1, "expect.abstain is true but expect.sources"},
		{"empty source", `{"id":"c1","messages":[{"role":"user","content":"oi"}],"expect":{"sources":[""]}}`, 1, "expect.sources[0] is empty"},
		{"empty fact", `{"id":"c1","messages":[{"role":"user","content":"oi"}],"expect":{"facts":["ok"," \u0301 "]}}`, 1, "expect.facts[1] is empty"},
		{"empty file", "\n\n", 2, "no case"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseChatCases(strings.NewReader(tt.text), "cases.jsonl")
			var fe *eval.FormatError
			if !errors.As(err, &fe) || !errors.Is(err, eval.ErrFormat) {
				t.Fatalf("error %v, want an *eval.FormatError", err)
			}
			if fe.Name != "cases.jsonl" || fe.Line != tt.line || !strings.Contains(fe.Reason, tt.reason) {
				t.Errorf("error %q, want line %d and %q", err, tt.line, tt.reason)
			}
		})
	}
}

// chatCasesFile is a small case file over the testdata: a support
// question, a follow-up, an out-of-scope question and small talk.
const chatCasesFile = `{"id":"t-support","type":"support","split":"tune","messages":[{"role":"user","content":"Qual é o prazo de entrega dos pedidos?"}],"expect":{"sources":["faq-001"],"abstain":false,"facts":["dias úteis"]}}
{"id":"t-followup","type":"followup","split":"heldout","messages":[{"role":"user","content":"Vocês têm fungicida para míldio na uva?"},{"role":"assistant","content":"Temos o Fosetal 800 WG."},{"role":"user","content":"E qual é a dose?"}],"expect":{"sources":["prd-016"],"facts":["fosetal"]}}
{"id":"t-abstain","type":"abstain","split":"heldout","messages":[{"role":"user","content":"Qual a capital da Mongólia?"}],"expect":{"abstain":true}}
{"id":"t-smalltalk","split":"tune","messages":[{"role":"user","content":"Oi, bom dia!"}]}
`

// chatJSON is the -json output of -chat, as a user would decode it.
type chatJSON struct {
	Questions          *int                          `json:"questions"`
	SourcePrecision    *float64                      `json:"source_precision"`
	SourceRecall       *float64                      `json:"source_recall"`
	AbstentionAccuracy *float64                      `json:"abstention_accuracy"`
	FactRecall         *float64                      `json:"fact_recall"`
	Failed             int                           `json:"failed"`
	BySplit            map[string]map[string]float64 `json:"by_split"`
	ByType             map[string]map[string]float64 `json:"by_type"`
	Latency            json.RawMessage               `json:"latency_ms"`
	Settings           map[string]any                `json:"settings"`
	Results            []struct {
		ID        *string   `json:"id"`
		Split     string    `json:"split"`
		Answer    *string   `json:"answer"`
		Sources   *[]string `json:"sources"`
		Abstained *bool     `json:"abstained"`
		Intent    string    `json:"intent"`
		Failures  []string  `json:"failures"`
		Latency   *float64  `json:"latency_ms"`
	} `json:"results"`
}

func writeCases(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cases.jsonl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runChatJSON(t *testing.T, args ...string) (chatJSON, []byte) {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(context.Background(), append(args, "-json"), &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var doc chatJSON
	dec := json.NewDecoder(bytes.NewReader(out.Bytes()))
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if dec.More() {
		t.Errorf("more than one JSON value:\n%s", out.String())
	}
	return doc, out.Bytes()
}

func TestRunChatJSON(t *testing.T) {
	cases := writeCases(t, chatCasesFile)
	args := []string{"-chat", cases, "-testdata", testdata("")}
	doc, raw := runChatJSON(t, args...)

	for key, v := range map[string]*float64{"source_precision": doc.SourcePrecision, "source_recall": doc.SourceRecall,
		"abstention_accuracy": doc.AbstentionAccuracy, "fact_recall": doc.FactRecall} {
		if v == nil {
			t.Errorf("no %q", key)
		} else if *v < 0 || *v > 1 {
			t.Errorf("%s = %g, want in [0, 1]", key, *v)
		}
	}
	if doc.Questions == nil || *doc.Questions != 4 {
		t.Errorf("questions %v, want 4", doc.Questions)
	}
	wantIDs := []string{"t-support", "t-followup", "t-abstain", "t-smalltalk"}
	if len(doc.Results) != len(wantIDs) {
		t.Fatalf("%d results, want %d", len(doc.Results), len(wantIDs))
	}
	failed := 0
	for i, r := range doc.Results {
		if r.ID == nil || *r.ID != wantIDs[i] {
			t.Errorf("results[%d].id %v, want %q", i, r.ID, wantIDs[i])
			continue
		}
		if r.Answer == nil || strings.TrimSpace(*r.Answer) == "" || r.Sources == nil || r.Abstained == nil {
			t.Errorf("%s: answer, sources or abstained missing", *r.ID)
			continue
		}
		// ChatResponse.Abstained: an abstaining turn cites nothing, and a
		// searching turn abstains when it has no relevant hit to cite.
		if *r.Abstained && len(*r.Sources) > 0 {
			t.Errorf("%s: abstained but cites %q", *r.ID, *r.Sources)
		}
		if !*r.Abstained && r.Intent != string(rag.IntentSmallTalk) && len(*r.Sources) == 0 {
			t.Errorf("%s: neither abstained nor cited a source", *r.ID)
		}
		if s := slices.Compact(slices.Clone(*r.Sources)); len(s) != len(*r.Sources) {
			t.Errorf("%s: repeated sources %q", *r.ID, *r.Sources)
		}
		if !rag.Intent(r.Intent).Valid() {
			t.Errorf("%s: intent %q", *r.ID, r.Intent)
		}
		if r.Latency != nil {
			t.Errorf("%s: latency without -latency", *r.ID)
		}
		if len(r.Failures) > 0 {
			failed++
		}
	}
	if failed != doc.Failed {
		t.Errorf("failed %d, but %d results have failures", doc.Failed, failed)
	}
	if *doc.Results[3].Abstained {
		t.Error("small talk abstained (ChatResponse.Abstained: small talk never abstains)")
	}
	for _, s := range []string{eval.SplitTune, eval.SplitHeldOut} {
		if m, ok := doc.BySplit[s]; !ok || m["questions"] != 2 {
			t.Errorf("by_split[%s] = %v, want 2 questions", s, m)
		}
	}
	for _, ty := range []string{"support", "followup", "abstain", untyped} {
		if m, ok := doc.ByType[ty]; !ok || m["questions"] != 1 {
			t.Errorf("by_type[%s] = %v, want 1 question", ty, m)
		}
	}
	if doc.Latency != nil {
		t.Error("latency_ms without -latency")
	}
	for key, want := range map[string]any{"store": offlineStore, "classifier": offlineClassifier, "answerer": offlineAnswerer,
		"dims": float64(settings.DefaultConfig().Embedding.Dimensions), "config": "settings.DefaultConfig"} {
		if got := doc.Settings[key]; got != want {
			t.Errorf("settings.%s = %v, want %v", key, got, want)
		}
	}

	// Deterministic without -latency.
	if _, again := runChatJSON(t, args...); !bytes.Equal(raw, again) {
		t.Error("two runs printed different JSON")
	}

	t.Run("split", func(t *testing.T) {
		doc, _ := runChatJSON(t, append(args, "-split", "held-out")...)
		if *doc.Questions != 2 || len(doc.Results) != 2 || doc.Results[0].Split != eval.SplitHeldOut || len(doc.BySplit) != 1 {
			t.Errorf("-split held-out: %d questions, results %+v", *doc.Questions, doc.Results)
		}
	})
	t.Run("latency", func(t *testing.T) {
		doc, _ := runChatJSON(t, append(args, "-latency")...)
		if doc.Latency == nil || doc.Results[0].Latency == nil || *doc.Results[0].Latency <= 0 {
			t.Errorf("-latency: latency_ms %s, first case %v", doc.Latency, doc.Results[0].Latency)
		}
	})
	t.Run("data files", func(t *testing.T) {
		doc, _ := runChatJSON(t, "-chat", cases, "-faqs", testdata("faqs.jsonl"), "-dims", "256")
		indexed, _ := doc.Settings["indexed"].(map[string]any)
		if indexed["faqs"] != 36.0 || indexed["items"] != 0.0 || doc.Settings["dims"] != 256.0 {
			t.Errorf("-faqs only: settings %v", doc.Settings)
		}
	})
}

func TestRunChatText(t *testing.T) {
	cases := writeCases(t, chatCasesFile)
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-chat", cases, "-testdata", testdata(""), "-v"}, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"source precision", "source recall", "abstention accuracy", "fact recall",
		"\nall ", "\nsplit tune ", "\nsplit heldout ", "\ntype followup ", "\ntype untyped ",
		"t-support (support, tune", "t-followup (followup, heldout, intent ", "2 history messages",
		"Q: E qual é a dose?", "cases (4, "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestChatUsageErrors(t *testing.T) {
	cases := writeCases(t, chatCasesFile)
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"retrieval flag", []string{"-chat", cases, "-queries", "q.jsonl"}},
		{"mode", []string{"-chat", cases, "-mode", "hybrid"}},
		{"testdata and catalog", []string{"-chat", cases, "-testdata", testdata(""), "-catalog", testdata("catalog.jsonl")}},
		{"bad split", []string{"-chat", cases, "-split", "train"}},
		{"bad dims", []string{"-chat", cases, "-dims", "0"}},
		{"bad rerank", []string{"-chat", cases, "-rerank", "cohere"}},
		{"testdata without -chat", []string{"-catalog", "a", "-queries", "q", "-qrels", "r", "-testdata", "x"}},
		{"-v without -chat", []string{"-catalog", "a", "-queries", "q", "-qrels", "r", "-v"}},
		{"-cross with -chat", []string{"-cross", "d", "-chat", cases}},
		{"-cross with -catalog", []string{"-cross", "d", "-catalog", "a"}},
		{"-cross-max negative", []string{"-cross", "d", "-cross-max", "-1"}},
		{"-cross-stores unknown", []string{"-cross", "d", "-cross-stores", "agro-store,lawyers"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(context.Background(), tt.args, &out, &errOut); code != exitUsage {
				t.Errorf("exit %d, want %d (%s)", code, exitUsage, errOut.String())
			}
		})
	}
	for _, tt := range []struct {
		name, text, want string
	}{
		{"bad case line", chatCasesFile + `{"id":"x","messages":[{"role":"assistant","content":"oi"}]}` + "\n", "cases.jsonl:5: case \"x\""},
		{"no case of the split", `{"id":"a","split":"tune","messages":[{"role":"user","content":"oi"}]}`, "no case with split heldout"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := []string{"-chat", writeCases(t, tt.text), "-testdata", testdata(""), "-split", "heldout"}
			if code := run(context.Background(), args, &out, &errOut); code != exitError || !strings.Contains(errOut.String(), tt.want) {
				t.Errorf("exit %d, want %d and %q in %q", code, exitError, tt.want, errOut.String())
			}
		})
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-chat", filepath.Join(t.TempDir(), "missing.jsonl")}, &out, &errOut); code != exitError {
		t.Errorf("missing case file: exit %d, want %d", code, exitError)
	}
}

// TestRunChatCasesEmptyStore runs cases through a pipeline over an empty
// store: every searching turn must abstain (rag.PipelineOptions.Confidence:
// a turn with no relevant hit abstains) and small talk must not, so the
// recorded abstentions are the pipeline's.
func TestRunChatCasesEmptyStore(t *testing.T) {
	ctx := context.Background()
	chat, err := newOfflineChat(ctx, settings.DefaultConfig(), 64, ingest.Sources{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := parseChatCases(strings.NewReader(`{"id":"a","messages":[{"role":"user","content":"tem fungicida para uva?"}],"expect":{"abstain":true}}
{"id":"b","messages":[{"role":"user","content":"oi"}],"expect":{"abstain":false}}
`), "cases")
	if err != nil {
		t.Fatal(err)
	}
	results, err := runChatCases(ctx, chat.pipeline, cases, false)
	if err != nil {
		t.Fatal(err)
	}
	if r := results[0]; !r.Abstained || len(r.Sources) != 0 || r.Answer == "" || len(r.Failures) != 0 {
		t.Errorf("searching turn over an empty store: %+v, want an abstention", r)
	}
	if r := results[1]; r.Abstained || r.Intent != rag.IntentSmallTalk || len(r.Failures) != 0 {
		t.Errorf("small talk: %+v, want no abstention", r)
	}
	if m := chatMetricsOf(results); m.AbstentionAccuracy != 1 || m.Abstained != 1 {
		t.Errorf("metrics %+v", m)
	}
}
