package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func testdata(name string) string { return filepath.Join("..", "..", "testdata", name) }

func TestRunJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"-catalog", testdata("catalog.jsonl"), "-queries", testdata("queries.jsonl"), "-qrels", testdata("qrels.tsv"),
		"-dims", "256", "-json", "-latency=false", "-per-query", "hybrid"}
	if code := run(context.Background(), args, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var doc struct {
		K        int                                   `json:"k"`
		Queries  int                                   `json:"queries"`
		Modes    map[string]map[string]json.RawMessage `json:"modes"`
		PerQuery map[string][]json.RawMessage          `json:"per_query"`
		Settings map[string]any                        `json:"settings"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if doc.K != 10 || doc.Queries != 24 {
		t.Errorf("k %d queries %d, want 10 and 24", doc.K, doc.Queries)
	}
	for _, mode := range []string{"lexical", "vector", "hybrid", "hybrid-weighted", "hybrid-rrf", "hybrid-relative"} {
		m, ok := doc.Modes[mode]
		if !ok {
			t.Errorf("mode %q missing", mode)
			continue
		}
		for _, key := range []string{"ndcg", "recall", "mrr", "zero_result"} {
			if _, ok := m[key]; !ok {
				t.Errorf("mode %q lacks %q", mode, key)
			}
		}
		if _, ok := m["latency_ms"]; ok {
			t.Errorf("mode %q has latencies with -latency=false", mode)
		}
	}
	var hybrid struct{ NDCG float64 }
	_ = json.Unmarshal(doc.Modes["hybrid"]["ndcg"], &hybrid.NDCG)
	if hybrid.NDCG < 0.5 {
		t.Errorf("hybrid nDCG@10 %.3f on the testdata catalog: retrieval is broken", hybrid.NDCG)
	}
	if len(doc.PerQuery["hybrid"]) != 24 {
		t.Errorf("per_query has %d hybrid rows, want 24", len(doc.PerQuery["hybrid"]))
	}

	// Deterministic without latencies.
	var again bytes.Buffer
	run(context.Background(), args, &again, &errOut)
	if !bytes.Equal(out.Bytes(), again.Bytes()) {
		t.Error("two runs printed different JSON")
	}
}

func TestRunText(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"-catalog", testdata("catalog.jsonl"), "-queries", testdata("queries.jsonl"), "-qrels", testdata("qrels.tsv"),
		"-dims", "256", "-mode", "hybrid", "-fusion", "rrf", "-k", "5", "-split", "tune", "-typo=false"}
	if code := run(context.Background(), args, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"kind=catalog", "split=tune", "typo=false idf=true", "nDCG@5", "hybrid"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestUsageErrors(t *testing.T) {
	q, r := testdata("queries.jsonl"), testdata("qrels.tsv")
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"no data", []string{"-queries", q, "-qrels", r}},
		{"two data files", []string{"-catalog", "a", "-faqs", "b", "-queries", q, "-qrels", r}},
		{"no qrels", []string{"-catalog", "a", "-queries", q}},
		{"bad mode", []string{"-catalog", "a", "-queries", q, "-qrels", r, "-mode", "semantic"}},
		{"bad fusion", []string{"-catalog", "a", "-queries", q, "-qrels", r, "-fusion", "borda"}},
		{"bad k", []string{"-catalog", "a", "-queries", q, "-qrels", r, "-k", "0"}},
		{"bad split", []string{"-catalog", "a", "-queries", q, "-qrels", r, "-split", "train"}},
		{"bad weights", []string{"-catalog", "a", "-queries", q, "-qrels", r, "-weights", "6"}},
		{"bad aggregate", []string{"-catalog", "a", "-queries", q, "-qrels", r, "-aggregate", "median"}},
		{"stray argument", []string{"-catalog", "a", "-queries", q, "-qrels", r, "extra"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(context.Background(), tt.args, &out, &errOut); code != exitUsage {
				t.Errorf("exit %d, want %d (%s)", code, exitUsage, errOut.String())
			}
		})
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"-catalog", "missing.jsonl", "-queries", q, "-qrels", r}, &out, &errOut); code != exitError {
		t.Errorf("missing catalog: exit %d, want %d", code, exitError)
	}
}

// TestAnchors runs the anchors over the testdata catalog: seed-sql always,
// the full-text anchors against the real PostgreSQL of
// HYBRIDRAG_TEST_DATABASE_URL. Our hybrid search must beat each of them
// on this catalog, whose queries include colloquial words and typos.
func TestAnchors(t *testing.T) {
	anchors := "seed-sql"
	args := []string{"-catalog", testdata("catalog.jsonl"), "-queries", testdata("queries.jsonl"), "-qrels", testdata("qrels.tsv"),
		"-dims", "256", "-json", "-latency=false", "-mode", "hybrid"}
	if dsn := os.Getenv("HYBRIDRAG_TEST_DATABASE_URL"); dsn != "" {
		anchors = "all"
		args = append(args, "-anchor-db", dsn)
	} else {
		t.Log("HYBRIDRAG_TEST_DATABASE_URL is unset: the pg-fts anchors are not run")
	}
	args = append(args, "-anchors", anchors)
	var out, errOut bytes.Buffer
	if code := run(context.Background(), args, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var doc struct {
		Modes map[string]struct {
			NDCG       float64 `json:"ndcg"`
			ZeroResult int     `json:"zero_result"`
		} `json:"modes"`
		Order []string `json:"order"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	want := []string{"hybrid", "anchor-seed-sql"}
	if anchors == "all" {
		want = []string{"hybrid", "anchor-pg-fts", "anchor-pg-fts-or", "anchor-seed-sql"}
	}
	if !slices.Equal(doc.Order, want) {
		t.Fatalf("modes %v, want %v", doc.Order, want)
	}
	hybrid := doc.Modes["hybrid"].NDCG
	for _, m := range want[1:] {
		a := doc.Modes[m]
		if a.NDCG <= 0 || a.NDCG >= hybrid {
			t.Errorf("%s nDCG@10 %.3f, want in (0, hybrid's %.3f)", m, a.NDCG, hybrid)
		}
	}
	if doc.Modes["anchor-pg-fts"].ZeroResult == 0 && anchors == "all" {
		t.Error("plainto_tsquery ANDs every word: some natural query should find nothing")
	}
}

func TestAnchorUsage(t *testing.T) {
	q, r := testdata("queries.jsonl"), testdata("qrels.tsv")
	for _, args := range [][]string{
		{"-catalog", testdata("catalog.jsonl"), "-queries", q, "-qrels", r, "-anchors", "bm25"},
		{"-catalog", testdata("catalog.jsonl"), "-queries", q, "-qrels", r, "-anchors", "pg-fts"},
	} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), args, &out, &errOut); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitUsage, errOut.String())
		}
	}
}
