package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// committed is the directory of the committed data files and figures.
var committed = filepath.Join("..", "..", "docs", "bench")

func TestMain(m *testing.M) {
	fontsReady()
	os.Exit(m.Run())
}

// TestCommittedData checks that the committed data files parse and hold
// what the figures and BENCHMARKS.md's first screen show.
func TestCommittedData(t *testing.T) {
	r, err := readResults(committed)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"memory", "postgres", "pg-fts", "seed-sql", "chromem-go"} {
		n := 0
		for _, row := range r.Latency {
			if row.Series == key {
				n++
			}
		}
		if n == 0 {
			t.Errorf("latency.csv: no row of series %s", key)
		}
	}
	for _, set := range setOrder {
		for _, b := range qualityBars {
			found := false
			for _, row := range r.Quality {
				found = found || row.Set == set && row.System == b.system
			}
			if !found {
				t.Errorf("quality.csv: no %s row for %s", b.system, set)
			}
		}
	}
	for _, set := range chatSetOrder {
		found := false
		for _, row := range r.Chat {
			found = found || row.Set == set && row.Split == "all"
		}
		if !found {
			t.Errorf("chat.csv: no row for all cases of %s", set)
		}
	}
	for _, row := range r.Latency {
		if row.Source == "" {
			t.Errorf("latency.csv: %s at %d has no source", row.Series, row.Items)
		}
	}
}

// TestDataRoundTrip checks that writing the committed data changes no
// byte, so that record leaves rows it does not replace as they are.
func TestDataRoundTrip(t *testing.T) {
	r, err := readResults(committed)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := writeResults(dir, r); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{latencyFile, qualityFile, chatFile} {
		want, err := os.ReadFile(filepath.Join(committed, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s changes when rewritten: sort or format it with `go run ./examples/benchplot record -dir docs/bench`", name)
		}
	}
}

// TestRender renders every figure from the committed data into a
// temporary directory, checks each is well-formed SVG naming its series,
// and that the committed figures are that rendering.
func TestRender(t *testing.T) {
	r, err := readResults(committed)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := render(r, dir); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		latencySVG: seriesNames(r),
		qualitySVG: {"nDCG@10", "AGROFIT catalog", "IRPF FAQs", "FaQuAD documents"},
		chatSVG:    {"source", "precision", "abstention", "fact"},
	}
	for _, b := range qualityBars {
		want[qualitySVG] = append(want[qualitySVG], b.label)
	}
	for _, set := range chatSetOrder {
		want[chatSVG] = append(want[chatSVG], chatSetLabels[set])
	}
	if len(want[latencySVG]) < 5 {
		t.Fatalf("latency figure: %d series, want at least 5", len(want[latencySVG]))
	}
	for name, texts := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		svgTexts, err := svgText(got)
		if err != nil {
			t.Fatalf("%s: not well-formed SVG: %v", name, err)
		}
		for _, s := range texts {
			if !strings.Contains(svgTexts, xmlEscape(s)) && !strings.Contains(svgTexts, s) {
				t.Errorf("%s: no text %q", name, s)
			}
		}
		again := t.TempDir()
		if err := render(r, again); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(again, name)); !bytes.Equal(b, got) {
			t.Errorf("%s: two renderings of the same data differ", name)
		}
		old, err := os.ReadFile(filepath.Join(committed, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(old, got) {
			t.Errorf("docs/bench/%s is not the rendering of the committed data: run `go run ./examples/benchplot render`", name)
		}
	}
}

// svgText checks that b is an XML document whose root is <svg> and
// returns the character data of its elements, joined by newlines.
func svgText(b []byte) (string, error) {
	dec := xml.NewDecoder(bytes.NewReader(b))
	var texts []string
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
		case xml.CharData:
			if s := strings.TrimSpace(string(tok)); s != "" {
				texts = append(texts, s)
			}
		}
	}
	if root != "svg" {
		return "", io.ErrUnexpectedEOF
	}
	return strings.Join(texts, "\n"), nil
}

// xmlEscape escapes s as character data.
func xmlEscape(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// TestParseBench reads go test -bench lines of each benchmark the latency
// figure shows, and ignores the others.
func TestParseBench(t *testing.T) {
	out := `goos: linux
BenchmarkSearchCatalog/memory-agrofit4220-2  50  1472630 ns/op  0.3640 lex_p50_ms  0.3540 merge_p50_ms  1.374 p50_ms  2.073 p95_ms  0.6850 vec_p50_ms  401398 B/op  1743 allocs/op
--- BENCH: BenchmarkSearchCatalog/memory-agrofit4220-2
    bench_test.go:127: indexed 4220 items, 11612 chunks in 1.9s
BenchmarkPostgresCatalog/100k/anchor-ts_rank-2  50  146016700 ns/op   0.4600 p50_ms   837.7 p95_ms
BenchmarkPostgresCatalog/10k/anchor-seed-ilike-translate-2  50 1479234160 ns/op  1294 p50_ms  2432 p95_ms
BenchmarkSearchChunks/100k-2  310  4333417 ns/op  141781.88 MB/s  61.66 rescored/op  30164 B/op  41 allocs/op
BenchmarkSearchChunksFiltered/100k-2  132  8511183 ns/op  38.00 rescored/op  22776 B/op  43 allocs/op
BenchmarkSearchCatalogScale/n=1000000/postgres-2   200  304996896 ns/op  24.26 lex_p50_ms  33.49 p50_ms  377.3 p95_ms
BenchmarkLexicalItems/n=10000/mixed-2  100  23680823 ns/op  19.25 p50_ms  50.62 p95_ms
PASS
`
	rows, err := parseBench(strings.NewReader(out), "2026-11-27", "test", "go test")
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		series   string
		items    int
		p50, p95 float64
		mean     float64
	}{
		{"memory", 4220, 1.374, 2.073, math.NaN()},
		{"pg-fts", 100_000, 0.46, 837.7, math.NaN()},
		{"seed-sql", 10_000, 1294, 2432, math.NaN()},
		{"memory-vector", 100_000, math.NaN(), math.NaN(), 4.333417},
		{"postgres-scale", 1_000_000, 33.49, 377.3, math.NaN()},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(rows), len(want), rows)
	}
	same := func(a, b float64) bool { return math.IsNaN(a) && math.IsNaN(b) || a == b }
	for i, w := range want {
		g := rows[i]
		if g.Series != w.series || g.Items != w.items || !same(g.P50, w.p50) || !same(g.P95, w.p95) || !same(g.Mean, w.mean) {
			t.Errorf("row %d = %+v, want %+v", i, g, w)
		}
	}
}

// TestParseEval reads the -json outputs of examples/eval.
func TestParseEval(t *testing.T) {
	q := `{"k":10,"queries":2,"modes":{"hybrid":{"queries":2,"ndcg":0.95012,"recall":0.2,"mrr":0.9604,"precision":0.9,"zero_result":0},
	"anchor-pg-fts":{"queries":2,"ndcg":0.4626,"recall":0.1,"mrr":0.47,"zero_result":1}},"order":["hybrid","anchor-pg-fts"]}`
	rows, err := parseQuality(strings.NewReader(q), "agrofit", "d", "s", "c")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].System != "hybrid" || rows[0].NDCG != 0.95 || rows[0].MRR != 0.96 || rows[1].ZeroResult != 1 {
		t.Errorf("quality rows = %+v", rows)
	}
	c := `{"questions":40,"source_precision":0.7083,"source_recall":0.75,"abstention_accuracy":0.875,"fact_recall":0.6734,"context_fact_recall":0.6938,"context_tokens_median":210,"context_tokens_p95":646,"abstained":13,"failed":17,
	"by_split":{"tune":{"questions":20,"source_recall":0.6875},"heldout":{"questions":20,"source_recall":0.8125}}}`
	crows, err := parseChat(strings.NewReader(c), "chat_eval_fresh", "d", "s", "c")
	if err != nil {
		t.Fatal(err)
	}
	if len(crows) != 3 || crows[0].Split != "all" || crows[0].Precision != 0.708 || crows[0].ContextFactRecall != 0.694 || crows[0].ContextP95 != 646 || crows[1].Split != "heldout" || crows[1].Recall != 0.812 || crows[2].Split != "tune" {
		t.Errorf("chat rows = %+v", crows)
	}
	if _, err := parseQuality(strings.NewReader(`{"k":5,"order":["hybrid"]}`), "x", "", "", ""); err == nil {
		t.Error("k = 5 accepted")
	}
}
