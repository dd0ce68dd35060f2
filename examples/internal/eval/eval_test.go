package eval_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/examples/internal/eval"
	"github.com/hybridrag/hybridrag/merge"
	"github.com/hybridrag/hybridrag/rag"
)

func TestReadQueries(t *testing.T) {
	in := `{"id":"q1","text":"fungicida para uva","type":"class_crop","split":"heldout"}

{"id":"q2","text":"acaro no algodao"}
`
	qs, err := eval.ReadQueries(strings.NewReader(in), "q.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []eval.Query{
		{ID: "q1", Text: "fungicida para uva", Type: "class_crop", Split: "heldout"},
		{ID: "q2", Text: "acaro no algodao", Split: eval.SplitOf("q2")},
	}
	if len(qs) != len(want) || qs[0] != want[0] || qs[1] != want[1] {
		t.Errorf("got %+v, want %+v", qs, want)
	}

	for _, tt := range []struct{ name, in, line string }{
		{"bad json", `{"id":`, "q.jsonl:1"},
		{"no id", `{"text":"x"}`, "q.jsonl:1"},
		{"no text", "{\"id\":\"a\",\"text\":\"x\"}\n{\"id\":\"b\",\"text\":\"  \"}", "q.jsonl:2"},
		{"repeated id", "{\"id\":\"a\",\"text\":\"x\"}\n{\"id\":\"a\",\"text\":\"y\"}", "q.jsonl:2"},
		{"bad split", `{"id":"a","text":"x","split":"train"}`, "q.jsonl:1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := eval.ReadQueries(strings.NewReader(tt.in), "q.jsonl")
			var fe *eval.FormatError
			if !errors.Is(err, eval.ErrFormat) || !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.line) {
				t.Errorf("error %v, want a FormatError at %s", err, tt.line)
			}
		})
	}
}

func TestReadQrels(t *testing.T) {
	in := "query_id\tdoc_id\tgrade\n" +
		"q1\tdoc a\t2\n" + // tab-separated IDs may hold spaces
		"q1 d2 1\n" + // space-separated
		"q1\td2\t0\n" + // a repeated pair keeps the highest grade
		"# comment\n\n" +
		"q2 0 d3 1\n" // TREC form
	got, err := eval.ReadQrels(strings.NewReader(in), "r.tsv")
	if err != nil {
		t.Fatal(err)
	}
	want := eval.Qrels{"q1": {"doc a": 2, "d2": 1}, "q2": {"d3": 1}}
	b1, _ := json.Marshal(got)
	b2, _ := json.Marshal(want)
	if !bytes.Equal(b1, b2) {
		t.Errorf("got %s, want %s", b1, b2)
	}
	if got.Relevant("q1") != 2 || got.Relevant("zz") != 0 {
		t.Errorf("Relevant: %d, %d", got.Relevant("q1"), got.Relevant("zz"))
	}
	for _, bad := range []string{"q1 d1", "q1 d1 x", "a b c d e"} {
		if _, err := eval.ReadQrels(strings.NewReader(bad), "r.tsv"); !errors.Is(err, eval.ErrFormat) {
			t.Errorf("ReadQrels(%q) error %v, want ErrFormat", bad, err)
		}
	}
}

func TestLoadGzipAndRoundTrip(t *testing.T) {
	dir := t.TempDir()
	qs := []eval.Query{{ID: "q1", Text: "fungicida", Type: "t", Split: eval.SplitTune}}
	js := []eval.Judgement{{QueryID: "q1", DocID: "d1", Grade: 2}}
	var qb, rb bytes.Buffer
	if err := eval.WriteQueries(&qb, qs); err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(&rb)
	if err := eval.WriteQrels(zw, js); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	qp, rp := filepath.Join(dir, "q.jsonl"), filepath.Join(dir, "r.tsv.gz")
	os.WriteFile(qp, qb.Bytes(), 0o644)
	os.WriteFile(rp, rb.Bytes(), 0o644)
	gotQ, err := eval.LoadQueries(qp)
	if err != nil || len(gotQ) != 1 || gotQ[0] != qs[0] {
		t.Errorf("LoadQueries = %+v, %v", gotQ, err)
	}
	gotR, err := eval.LoadQrels(rp)
	if err != nil || gotR["q1"]["d1"] != 2 {
		t.Errorf("LoadQrels = %v, %v", gotR, err)
	}
	if _, err := eval.LoadQrels(filepath.Join(dir, "missing.tsv")); err == nil {
		t.Error("LoadQrels of a missing file succeeded")
	}
}

func TestSplitOfStable(t *testing.T) {
	// The split depends on the ID alone and both halves are used.
	n := map[string]int{}
	for i := range 200 {
		id := "q" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		if eval.SplitOf(id) != eval.SplitOf(id) {
			t.Fatal("SplitOf is not deterministic")
		}
		n[eval.SplitOf(id)]++
	}
	if n[eval.SplitTune] < 70 || n[eval.SplitHeldOut] < 70 {
		t.Errorf("unbalanced halves: %v", n)
	}
}

// fakeSearch answers from a fixed table, by legs.
func fakeSearch(answers map[rag.Legs]map[string][]string) eval.SearchFunc {
	return func(_ context.Context, q rag.Query) ([]string, error) {
		if q.Text == "boom" {
			return nil, errors.New("store down")
		}
		ids := answers[q.Legs][q.Text]
		if q.Limit > 0 && len(ids) > q.Limit {
			ids = ids[:q.Limit]
		}
		return ids, nil
	}
}

func TestRun(t *testing.T) {
	queries := []eval.Query{
		{ID: "q1", Text: "uva", Type: "a", Split: eval.SplitTune},
		{ID: "q2", Text: "soja", Type: "b", Split: eval.SplitHeldOut},
		{ID: "q3", Text: "sem julgamento", Split: eval.SplitTune},
	}
	qrels := eval.Qrels{"q1": {"d1": 2, "d2": 1}, "q2": {"d9": 1}, "q3": {"x": 0}}
	search := fakeSearch(map[rag.Legs]map[string][]string{
		rag.LegsLexical: {"uva": {"d2", "x", "d1"}, "soja": {}},
		rag.LegsHybrid:  {"uva": {"d1", "d2"}, "soja": {"x", "d9"}},
	})
	configs := []eval.Config{
		{Name: "lexical", Template: rag.Query{Legs: rag.LegsLexical}},
		{Name: "hybrid", Template: rag.Query{Legs: rag.LegsHybrid}},
	}
	rep, err := eval.Run(context.Background(), search, queries, qrels, eval.Options{K: 3, Configs: configs})
	if err != nil {
		t.Fatal(err)
	}
	if rep.K != 3 || rep.Queries != 2 || len(rep.Unjudged) != 1 || rep.Unjudged[0] != "q3" {
		t.Fatalf("k %d queries %d unjudged %v", rep.K, rep.Queries, rep.Unjudged)
	}
	l2 := math.Log2
	idcg1 := 2 + 1/l2(3) // grades 2, 1
	// lexical q1: d2 (1) at rank 1, x, d1 (2) at rank 3: DCG = 1 + 2/log2(4) = 2.
	// lexical q2: no result: everything 0, a zero-result query.
	lex := rep.Modes["lexical"]
	checks := []struct {
		name      string
		got, want float64
	}{
		{"lexical ndcg", lex.NDCG, (2 / idcg1) / 2},
		{"lexical recall", lex.Recall, (1.0 + 0) / 2},
		{"lexical mrr", lex.MRR, (1.0 + 0) / 2},
		{"lexical precision", lex.Precision, (2.0 / 3) / 2},
		// hybrid q1 is ideal (1); q2: d9 at rank 2: DCG = 1/log2(3), IDCG = 1.
		{"hybrid ndcg", rep.Modes["hybrid"].NDCG, (1 + 1/l2(3)) / 2},
		{"hybrid mrr", rep.Modes["hybrid"].MRR, (1 + 0.5) / 2},
		{"hybrid type b ndcg", rep.Modes["hybrid"].ByType["b"].NDCG, 1 / l2(3)},
		{"hybrid heldout mrr", rep.Modes["hybrid"].BySplit[eval.SplitHeldOut].MRR, 0.5},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if lex.ZeroResult != 1 || rep.Modes["hybrid"].ZeroResult != 0 || lex.ByType["b"].ZeroResult != 1 {
		t.Errorf("zero results: lexical %d, hybrid %d", lex.ZeroResult, rep.Modes["hybrid"].ZeroResult)
	}
	if got := lex.PerQuery[0].Top; len(got) != 3 || got[0] != (eval.RankedID{ID: "d2", Grade: 1}) || got[2].Grade != 2 {
		t.Errorf("per-query top %+v", got)
	}
	if lex.Latency == nil || lex.Latency.P95 < lex.Latency.P50 {
		t.Errorf("latency %+v", lex.Latency)
	}

	// The JSON has the keys of DESIGN §11.
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		K       int                                   `json:"k"`
		Queries int                                   `json:"queries"`
		Modes   map[string]map[string]json.RawMessage `json:"modes"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"ndcg", "recall", "mrr", "zero_result"} {
		if _, ok := doc.Modes["hybrid"][key]; !ok {
			t.Errorf("JSON mode object lacks %q: %s", key, b)
		}
	}

	var text bytes.Buffer
	if err := rep.WriteText(&text, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"k=3 queries=2", "lexical", "by type", "by split"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, text.String())
		}
	}
	text.Reset()
	if err := rep.WritePerQuery(&text, "hybrid"); err != nil || !strings.Contains(text.String(), "q2") {
		t.Errorf("WritePerQuery: %v\n%s", err, text.String())
	}
	if err := rep.WritePerQuery(&text, "nope"); !errors.Is(err, eval.ErrInvalidOptions) {
		t.Errorf("WritePerQuery(nope) error %v", err)
	}
}

func TestRunErrors(t *testing.T) {
	ctx := context.Background()
	qs := []eval.Query{{ID: "q1", Text: "boom"}}
	qrels := eval.Qrels{"q1": {"d": 1}}
	search := fakeSearch(nil)
	if _, err := eval.Run(ctx, search, qs, qrels, eval.Options{}); err == nil || !strings.Contains(err.Error(), "q1") {
		t.Errorf("search error not reported with the query: %v", err)
	}
	if _, err := eval.Run(ctx, nil, qs, qrels, eval.Options{}); !errors.Is(err, eval.ErrInvalidOptions) {
		t.Errorf("nil search: %v", err)
	}
	if _, err := eval.Run(ctx, search, qs, qrels, eval.Options{K: -1}); !errors.Is(err, eval.ErrInvalidOptions) {
		t.Errorf("k -1: %v", err)
	}
	dup := []eval.Config{{Name: "a"}, {Name: "a"}}
	if _, err := eval.Run(ctx, search, qs, qrels, eval.Options{Configs: dup}); !errors.Is(err, eval.ErrInvalidOptions) {
		t.Errorf("repeated config name: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := eval.Run(cctx, fakeSearch(nil), []eval.Query{{ID: "q1", Text: "x"}}, qrels, eval.Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v", err)
	}
}

func TestConfigs(t *testing.T) {
	tests := []struct {
		mode   string
		fusion merge.Method
		names  []string
		ok     bool
	}{
		{"lexical", "", []string{"lexical"}, true},
		{"hybrid", merge.MethodRRF, []string{"hybrid"}, true},
		{"all", "", []string{"lexical", "vector", "hybrid", "hybrid-weighted", "hybrid-rrf", "hybrid-relative"}, true},
		{"both", "", nil, false},
		{"hybrid", "borda", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.mode+"/"+string(tt.fusion), func(t *testing.T) {
			cs, err := eval.Configs(tt.mode, tt.fusion)
			if (err == nil) != tt.ok {
				t.Fatalf("error %v, want ok=%v", err, tt.ok)
			}
			var names []string
			for _, c := range cs {
				names = append(names, c.Name)
			}
			if strings.Join(names, ",") != strings.Join(tt.names, ",") {
				t.Errorf("names %v, want %v", names, tt.names)
			}
			if tt.mode == "hybrid" && tt.ok && cs[0].Template.Fusion != tt.fusion {
				t.Errorf("fusion %q, want %q", cs[0].Template.Fusion, tt.fusion)
			}
		})
	}
}

func TestSearcherFunc(t *testing.T) {
	if _, err := eval.SearcherFunc(nil, "items"); !errors.Is(err, eval.ErrInvalidOptions) {
		t.Errorf("unknown kind: %v", err)
	}
}
