package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hybridrag/hybridrag/internal/testenv"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/storage/postgres"
	"github.com/hybridrag/hybridrag/vector"
)

// testDims keeps indexing fast; the hash embedder works at any size.
const testDims = "256"

// repoRoot is the repository root, found from this file's location.
func repoRoot(t testing.TB) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("cannot locate the test file")
	}
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func testdataPath(t testing.TB, name string) string {
	return filepath.Join(repoRoot(t), "testdata", name)
}

// runCLI runs the command with args and returns its output and status.
func runCLI(t testing.TB, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

// runJSON runs the command with -json and decodes the report.
func runJSON(t testing.TB, args ...string) *report {
	t.Helper()
	out, errOut, code := runCLI(t, append(args, "-json")...)
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	var rep report
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("decode JSON: %v\n%s", err, out)
	}
	return &rep
}

// grapeFungicides returns the IDs of the active fungicides whose tags name
// grapes ("Uva") in a catalog file, read independently of the Searcher.
func grapeFungicides(t testing.TB, path string) map[string]bool {
	t.Helper()
	items, err := load.LoadCatalog(context.Background(), path, nil)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	ids := map[string]bool{}
	for _, it := range items {
		if it.Status.Active() && isFungicide(it.Category) && slices.Contains(it.Tags, "Uva") {
			ids[it.ID] = true
		}
	}
	return ids
}

func isFungicide(category string) bool {
	return strings.Contains(lexical.Normalize(category), "fungicida")
}

func TestUsageErrors(t *testing.T) {
	catalog := testdataPath(t, "catalog.jsonl")
	tests := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"no arguments", nil, "-q is required"},
		{"empty query", []string{"-catalog", catalog, "-q", ""}, "-q is required"},
		{"blank query", []string{"-catalog", catalog, "-q", "  \t "}, "-q is required"},
		{"no source", []string{"-q", "fungicida"}, "a data source is required"},
		{"two sources", []string{"-catalog", catalog, "-memfile", "x.snap", "-q", "fungicida"}, "mutually exclusive"},
		{"memfile and db", []string{"-memfile", "x.snap", "-db", "postgres://x", "-q", "fungicida"}, "mutually exclusive"},
		{"bad mode", []string{"-catalog", catalog, "-q", "x", "-mode", "fuzzy"}, "-mode \"fuzzy\""},
		{"bad fusion", []string{"-catalog", catalog, "-q", "x", "-fusion", "borda"}, "-fusion \"borda\""},
		{"bad seedmode", []string{"-catalog", catalog, "-q", "x", "-seedmode", "turbo"}, "-seedmode"},
		{"bad kind", []string{"-catalog", catalog, "-q", "x", "-kind", "pdf"}, "-kind \"pdf\""},
		{"kind without its file", []string{"-catalog", catalog, "-q", "x", "-kind", "faq"}, "needs the matching file flag"},
		{"zero limit", []string{"-catalog", catalog, "-q", "x", "-limit", "0"}, "-limit must be at least 1"},
		{"negative dims", []string{"-catalog", catalog, "-q", "x", "-dims", "-3"}, "-dims"},
		{"bad embedder", []string{"-catalog", catalog, "-q", "x", "-embedder", "bert"}, "-embedder \"bert\""},
		{"vector without embedder", []string{"-catalog", catalog, "-q", "x", "-mode", "vector", "-embedder", "none"}, "needs an embedder"},
		{"bad threshold", []string{"-catalog", catalog, "-q", "x", "-threshold", "low"}, "-threshold"},
		{"schema without db", []string{"-catalog", catalog, "-q", "x", "-schema", "s"}, "-schema needs -db"},
		{"stray argument", []string{"-catalog", catalog, "-q", "fungicida", "videira"}, "unexpected arguments"},
		{"unknown flag", []string{"-catalog", catalog, "-q", "x", "-verbose"}, "flag provided but not defined"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit = %d, want %d (usage)", code, exitUsage)
			}
			if out != "" {
				t.Errorf("stdout = %q, want nothing", out)
			}
			if !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr = %q, want it to contain %q", errOut, tt.want)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	out, errOut, code := runCLI(t, "-h")
	if code != exitOK {
		t.Fatalf("exit = %d, want 0", code)
	}
	if out != "" || !strings.Contains(errOut, "Usage: search") || !strings.Contains(errOut, "-fusion") {
		t.Errorf("help: stdout %q, stderr %q", out, errOut)
	}
}

func TestRuntimeErrors(t *testing.T) {
	dir := t.TempDir()
	badJSONL := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(badJSONL, []byte("{not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	snap := writeSnapshot(t, "acme")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing catalog", []string{"-catalog", filepath.Join(dir, "nope.jsonl"), "-q", "x"}, "load catalog"},
		{"catalog without a valid record", []string{"-catalog", badJSONL, "-q", "x"}, "load catalog"},
		{"missing snapshot", []string{"-memfile", filepath.Join(dir, "nope.snap"), "-q", "x"}, "load snapshot"},
		{"tenant not in snapshot", []string{"-memfile", snap, "-q", "x", "-tenant", "other"}, `tenant "other" is not in snapshot`},
		{"snapshot dims mismatch", []string{"-memfile", snap, "-q", "x", "-tenant", "acme", "-dims", "128"}, "load snapshot"},
		{"invalid tenant", []string{"-catalog", testdataPath(t, "catalog.jsonl"), "-q", "x", "-tenant", "bad tenant!"}, "-tenant"},
		{"database unreachable", []string{"-db", "postgres://u:s3cret@127.0.0.1:1/x?sslmode=disable&connect_timeout=2", "-q", "x"}, "connect"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, tt.args...)
			if code != exitError {
				t.Errorf("exit = %d, want %d; stderr:\n%s", code, exitError, errOut)
			}
			if out != "" {
				t.Errorf("stdout = %q, want nothing", out)
			}
			if !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr = %q, want it to contain %q", errOut, tt.want)
			}
			if strings.Contains(errOut, "s3cret") {
				t.Errorf("stderr leaks the password: %q", errOut)
			}
		})
	}
}

// writeSnapshot indexes the testdata catalog for tenant into a memory
// snapshot, as examples/ingest does, and returns its path.
func writeSnapshot(t testing.TB, tenant string) string {
	t.Helper()
	ctx := context.Background()
	db := memory.New(memory.Options{Dimensions: 256})
	st, err := db.Tenant(tenant)
	if err != nil {
		t.Fatal(err)
	}
	items, err := load.LoadCatalog(ctx, testdataPath(t, "catalog.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	emb, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 256})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.NewIndexer(st, emb, ingest.IndexerOptions{}).Reindex(ctx, ingest.Sources{Items: items}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "catalog.snap")
	if err := db.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkGrapeFungicides checks that the first len(want) hits are exactly the
// wanted items, that no inactive or non-fungicide item precedes them, and
// that every hit explains itself.
func checkGrapeFungicides(t *testing.T, rep *report, want map[string]bool) {
	t.Helper()
	if len(rep.Hits) < len(want) {
		t.Fatalf("%d hits, want at least %d", len(rep.Hits), len(want))
	}
	for _, h := range rep.Hits[:len(want)] {
		if !want[h.ID] {
			t.Errorf("hit %d %s (%s, %s, tags %v) is not an active grape fungicide", h.Rank, h.ID, h.Title, h.Category, h.Tags)
		}
	}
	for _, h := range rep.Hits {
		if h.ID == "prd-014" {
			t.Errorf("inactive item prd-014 returned at rank %d", h.Rank)
		}
	}
}

func TestCatalogJSON(t *testing.T) {
	catalog := testdataPath(t, "catalog.jsonl")
	want := grapeFungicides(t, catalog)
	if len(want) != 8 {
		t.Fatalf("testdata has %d active grape fungicides, the test expects 8", len(want))
	}

	t.Run("hybrid weighted", func(t *testing.T) {
		rep := runJSON(t, "-catalog", catalog, "-q", "fungicida para videira", "-dims", testDims, "-limit", "10")
		if rep.Kind != kindCatalog || rep.Store != "memory" || rep.Tenant != defaultTenant || rep.Dimensions != 256 {
			t.Errorf("header: kind %q store %q tenant %q dims %d", rep.Kind, rep.Store, rep.Tenant, rep.Dimensions)
		}
		if rep.Mode != "enhanced" || rep.Legs != "hybrid" || rep.Fusion != "weighted" || rep.Limit != 10 {
			t.Errorf("settings: mode %q legs %q fusion %q limit %d", rep.Mode, rep.Legs, rep.Fusion, rep.Limit)
		}
		if !rep.EmbeddingUsed || rep.FallbackReason != "" || rep.VectorCount == 0 || rep.LexicalCount == 0 {
			t.Errorf("legs: embedding_used %t fallback %q vector %d lexical %d", rep.EmbeddingUsed, rep.FallbackReason, rep.VectorCount, rep.LexicalCount)
		}
		if rep.Index == nil || rep.Index.Items != 81 || rep.Index.Embedded == 0 {
			t.Errorf("index = %+v, want 81 items embedded", rep.Index)
		}
		if !slices.Equal(rep.Query.Tokens, []string{"fungicida", "videira"}) || !slices.Contains(rep.Query.Terms, "uva") {
			t.Errorf("tokens %v terms %v, want fungicida+videira expanded with uva", rep.Query.Tokens, rep.Query.Terms)
		}
		if len(rep.Query.Synonyms) == 0 || rep.Query.Synonyms[0].Term != "uva" || rep.Query.Synonyms[0].Category != lexical.CategorySubject {
			t.Errorf("synonyms = %+v, want videira → uva (culture)", rep.Query.Synonyms)
		}
		if len(rep.Query.Cultures) != 1 || len(rep.Query.Treatments) != 1 {
			t.Errorf("cultures %+v treatments %+v, want one each", rep.Query.Cultures, rep.Query.Treatments)
		}
		checkGrapeFungicides(t, rep, want)
		for _, h := range rep.Hits[:len(want)] {
			c := h.Explanation.Combined
			if h.Explanation.Method != "weighted" || c == nil {
				t.Fatalf("hit %s: explanation %+v, want weighted with components", h.ID, h.Explanation)
			}
			if sum := c.Vector.Contribution + c.Lexical.Contribution + c.Pair.Contribution + c.VectorRank.Contribution + c.LexicalRank.Contribution; !near(sum, h.Score) || !near(c.Score, h.Score) {
				t.Errorf("hit %s: components sum to %v, combined %v, score %v", h.ID, sum, c.Score, h.Score)
			}
			if h.Lexical == nil || !h.Lexical.Pair || !slices.Contains(h.Lexical.Cultures, "uva") || h.Lexical.Breakdown == nil {
				t.Errorf("hit %s: lexical evidence %+v, want a uva+fungicida pair with breakdown", h.ID, h.Lexical)
			}
			if h.Source == "both" && (h.Vector == nil || h.Vector.Rank < 1 || !near(-h.Vector.Distance, h.Vector.Similarity)) {
				t.Errorf("hit %s: source both with vector evidence %+v", h.ID, h.Vector)
			}
			if h.Snippet == "" || h.Category == "" || len(h.Tags) == 0 {
				t.Errorf("hit %s: snippet %q category %q tags %v", h.ID, h.Snippet, h.Category, h.Tags)
			}
		}
		for i := 1; i < len(rep.Hits); i++ {
			if rep.Hits[i].Score > rep.Hits[i-1].Score || rep.Hits[i].Rank != i+1 {
				t.Errorf("hits out of order at %d: %v after %v", i, rep.Hits[i].Score, rep.Hits[i-1].Score)
			}
		}
	})

	t.Run("lexical mode computes no embedding", func(t *testing.T) {
		rep := runJSON(t, "-catalog", catalog, "-q", "fungicida para videira", "-dims", testDims, "-mode", "lexical")
		if rep.Legs != "lexical" || rep.EmbeddingUsed || rep.VectorCount != 0 || rep.FallbackReason != "" || rep.Timings.Embed != 0 {
			t.Errorf("legs %q embedding_used %t vector_count %d fallback %q embed %vms",
				rep.Legs, rep.EmbeddingUsed, rep.VectorCount, rep.FallbackReason, rep.Timings.Embed)
		}
		checkGrapeFungicides(t, rep, want)
		for _, h := range rep.Hits {
			if h.Source != "lexical" || h.Vector != nil {
				t.Errorf("hit %s: source %q vector %+v, want lexical only", h.ID, h.Source, h.Vector)
			}
		}
	})

	t.Run("no embedder falls back", func(t *testing.T) {
		rep := runJSON(t, "-catalog", catalog, "-q", "fungicida para videira", "-embedder", "none", "-dims", testDims)
		if rep.EmbeddingUsed || rep.FallbackReason != string(rag.FallbackEmbeddingDisabled) {
			t.Errorf("embedding_used %t fallback %q, want %q", rep.EmbeddingUsed, rep.FallbackReason, rag.FallbackEmbeddingDisabled)
		}
		checkGrapeFungicides(t, rep, want)
	})

	t.Run("vector mode", func(t *testing.T) {
		rep := runJSON(t, "-catalog", catalog, "-q", "fungicida para videira", "-dims", testDims, "-mode", "vector", "-threshold", "inf")
		// 60 chunks (limit × multiplier, no threshold) aggregated by owner.
		if !rep.EmbeddingUsed || rep.LexicalCount != 0 || rep.VectorCount < 10 || rep.VectorCount > 10*rag.DefaultSearcherOptions().Lexical.CandidateMultiplier || len(rep.Hits) != 10 {
			t.Errorf("embedding_used %t lexical %d vector %d", rep.EmbeddingUsed, rep.LexicalCount, rep.VectorCount)
		}
		for _, h := range rep.Hits {
			if h.Source != "vector" || h.Vector == nil {
				t.Errorf("hit %s: source %q, want vector with evidence", h.ID, h.Source)
			}
		}
	})

	t.Run("rrf explains ranks", func(t *testing.T) {
		rep := runJSON(t, "-catalog", catalog, "-q", "fungicida para videira", "-dims", testDims, "-fusion", "rrf")
		if rep.Fusion != "rrf" || len(rep.Hits) == 0 {
			t.Fatalf("fusion %q with %d hits", rep.Fusion, len(rep.Hits))
		}
		for _, h := range rep.Hits {
			e := h.Explanation
			if e.Method != "rrf" || e.Combined != nil || len(e.Lists) != 2 {
				t.Fatalf("hit %s: explanation %+v", h.ID, e)
			}
			sum := 0.0
			for _, c := range e.Lists {
				if c.Rank > 0 && !near(c.Normalized, 1/float64(60+c.Rank)) {
					t.Errorf("hit %s list %s: normalized %v at rank %d, want 1/(60+rank)", h.ID, c.List, c.Normalized, c.Rank)
				}
				sum += c.Contribution
			}
			if !near(sum, h.Score) {
				t.Errorf("hit %s: contributions sum to %v, score %v", h.ID, sum, h.Score)
			}
		}
	})

	t.Run("seed simple mode", func(t *testing.T) {
		rep := runJSON(t, "-catalog", catalog, "-q", "fungicida para videira", "-dims", testDims, "-seedmode", "simple", "-limit", "5")
		if rep.Mode != "simple" || rep.Fusion != "simple" || len(rep.Hits) != 5 {
			t.Fatalf("mode %q fusion %q hits %d", rep.Mode, rep.Fusion, len(rep.Hits))
		}
	})
}

func near(a, b float64) bool { d := a - b; return d < 1e-9 && d > -1e-9 }

func TestJSONFieldNames(t *testing.T) {
	out, errOut, code := runCLI(t, "-catalog", testdataPath(t, "catalog.jsonl"), "-q", "fungicida para videira", "-dims", testDims, "-limit", "3", "-json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &top); err != nil {
		t.Fatal(err)
	}
	var hits []map[string]json.RawMessage
	if err := json.Unmarshal(top["hits"], &hits); err != nil || len(hits) == 0 {
		t.Fatalf("hits: %v (%d)", err, len(hits))
	}
	var query, timings map[string]json.RawMessage
	if err := json.Unmarshal(top["query"], &query); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(top["timings_ms"], &timings); err != nil {
		t.Fatal(err)
	}
	var both map[string]json.RawMessage
	for _, h := range hits {
		if string(h["source"]) == `"both"` {
			both = h
			break
		}
	}
	if both == nil {
		t.Fatalf("no hit found by both legs in %s", top["hits"])
	}
	var lex, vec map[string]json.RawMessage
	if err := json.Unmarshal(both["lexical"], &lex); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(both["vector"], &vec); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		obj  map[string]json.RawMessage
		want []string
	}{
		{"report", top, []string{"kind", "store", "tenant", "dimensions", "embedder", "query", "mode", "legs", "fusion", "limit",
			"lexical_count", "vector_count", "embedding_used", "fallback_reason", "index", "timings_ms", "hits"}},
		{"query", query, []string{"text", "tokens", "terms", "fallback", "synonyms", "cultures", "treatments", "generics"}},
		{"timings", timings, []string{"lexical", "embed", "vector", "fetch", "merge", "rerank", "total"}},
		{"hit", both, []string{"rank", "id", "title", "category", "manufacturer", "tags", "price", "source", "score", "explanation", "lexical", "vector", "snippet"}},
		{"lexical", lex, []string{"rank", "terms_matched", "score", "matched", "cultures", "treatments", "culture_in_tag", "pair", "breakdown"}},
		{"vector", vec, []string{"rank", "distance", "similarity", "chunks"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make([]string, 0, len(tt.obj))
			for k := range tt.obj {
				got = append(got, k)
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tt.want))
			if !slices.Equal(got, want) {
				t.Errorf("keys = %v\nwant   %v", got, want)
			}
		})
	}
}

func TestHumanOutput(t *testing.T) {
	catalog := testdataPath(t, "catalog.jsonl")
	tests := []struct {
		name    string
		args    []string
		want    []string
		notWant []string
	}{
		{
			name: "default",
			args: []string{"-limit", "3"},
			want: []string{
				`query       "fungicida para videira"`, "tokens      fungicida · videira", "terms       fungicida · videira · uva",
				"synonyms    videira → uva (culture)", "cultures    videira → uva", "treatments  fungicida", "fallback    no",
				"counts      lexical=", "embedding_used=true fallback_reason=-", "timings     lexical ", "index       items=81",
				"3 hits", " 1. prd-", "    score       ", "source=both", "    fused       weighted: vector ", "    matched     fungicida→",
				"uva*→", "culture+treatment pair", "    vector      rank ", "    snippet     ",
			},
			notWant: []string{"\x1b[", "component", "breakdown"},
		},
		{
			name:    "explain",
			args:    []string{"-limit", "2", "-explain"},
			want:    []string{"    explain     list", "component", "vector_rank", "lexical_rank", "combined", "    breakdown   fields ", "uva (synonym) → "},
			notWant: []string{"\x1b["},
		},
		{
			name: "lexical fallback reason",
			args: []string{"-limit", "2", "-embedder", "none"},
			want: []string{"embedding_used=false fallback_reason=embedding-disabled", "    vector      -"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"-catalog", catalog, "-q", "fungicida para videira", "-dims", testDims}, tt.args...)
			out, errOut, code := runCLI(t, args...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.Contains(errOut, "indexed in memory: items=81") {
				t.Errorf("stderr = %q, want the indexing summary", errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output contains %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestOtherKinds(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		kind      string
		wantTop   string // ID expected among the first three hits
		wantTitle string // substring of that hit's title
	}{
		{"faq inferred from -faqs", []string{"-faqs", testdataPath(t, "faqs.jsonl"), "-q", "quanto custa o frete"}, kindFAQ, "faq-002", "frete"},
		{"documents dir", []string{"-docs", testdataPath(t, "documents"), "-q", "ferrugem asiática da soja"}, kindDoc, "manejo-ferrugem-asiatica", ""},
		{"explicit faq kind with catalog too", []string{"-catalog", testdataPath(t, "catalog.jsonl"), "-faqs", testdataPath(t, "faqs.jsonl"), "-kind", "faq", "-q", "prazo de entrega"}, kindFAQ, "faq-001", "entrega"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := runJSON(t, append(tt.args, "-dims", testDims, "-limit", "5")...)
			if rep.Kind != tt.kind {
				t.Errorf("kind = %q, want %q", rep.Kind, tt.kind)
			}
			idx := slices.IndexFunc(rep.Hits, func(h hitReport) bool { return strings.Contains(h.ID, tt.wantTop) })
			if idx < 0 || idx > 2 {
				ids := make([]string, len(rep.Hits))
				for i, h := range rep.Hits {
					ids[i] = h.ID
				}
				t.Fatalf("%s not in the top 3: %v", tt.wantTop, ids)
			}
			if !strings.Contains(strings.ToLower(rep.Hits[idx].Title), tt.wantTitle) {
				t.Errorf("title = %q, want it to contain %q", rep.Hits[idx].Title, tt.wantTitle)
			}
		})
	}
}

func TestMemfile(t *testing.T) {
	snap := writeSnapshot(t, "acme")
	want := grapeFungicides(t, testdataPath(t, "catalog.jsonl"))
	rep := runJSON(t, "-memfile", snap, "-tenant", "acme", "-q", "fungicida para videira")
	if rep.Store != "memfile" || rep.Dimensions != 256 || rep.Index != nil || !rep.EmbeddingUsed {
		t.Errorf("store %q dims %d index %+v embedding_used %t", rep.Store, rep.Dimensions, rep.Index, rep.EmbeddingUsed)
	}
	checkGrapeFungicides(t, rep, want)
}

// TestAgrofit runs the acceptance query over the real AGROFIT
// catalog (4,220 items), indexed once.
func TestAgrofit(t *testing.T) {
	path := filepath.Join(repoRoot(t), "..", "shared", "data", "agrofit", "catalog.jsonl")
	if _, err := os.Stat(path); err != nil {
		testenv.Skip(t, testenv.Data, "AGROFIT catalog not available: %v", err)
	}
	if testing.Short() {
		t.Skip("indexes 4,220 items; skipped with -short")
	}
	t.Parallel()
	rep := runJSON(t, "-catalog", path, "-q", "fungicida para videira", "-dims", testDims, "-limit", "10")
	if len(rep.Hits) != 10 {
		t.Fatalf("%d hits, want 10", len(rep.Hits))
	}
	if !rep.EmbeddingUsed || rep.Index == nil || rep.Index.Items < 4000 {
		t.Errorf("embedding_used %t index %+v", rep.EmbeddingUsed, rep.Index)
	}
	for _, h := range rep.Hits {
		if !isFungicide(h.Category) || !slices.Contains(h.Tags, "Uva") {
			t.Errorf("hit %d %s %q: category %q tags %v, want a fungicide registered for grapes", h.Rank, h.ID, h.Title, h.Category, h.Tags)
		}
		if h.Explanation.Combined == nil || h.Lexical == nil || !h.Lexical.Pair || len(h.Lexical.Matched) == 0 {
			t.Errorf("hit %s: explanation %+v lexical %+v, want weighted components and a culture+treatment pair", h.ID, h.Explanation, h.Lexical)
		}
	}
}

// TestPostgres searches a database filled like examples/ingest does, in a
// scratch schema. It needs HYBRIDRAG_TEST_DATABASE_URL.
func TestPostgres(t *testing.T) {
	dsn := os.Getenv("HYBRIDRAG_TEST_DATABASE_URL")
	if dsn == "" {
		testenv.Skip(t, testenv.Postgres, "HYBRIDRAG_TEST_DATABASE_URL is not set; skipping the Postgres search test")
	}
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close) // runs after the schema is dropped
	schema := fmt.Sprintf("search_cli_%d", time.Now().UnixNano())
	t.Cleanup(func() {
		if _, err := pool.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE"); err != nil {
			t.Logf("drop schema %s: %v", schema, err)
		}
	})
	db := postgres.New(pool, postgres.Options{Dimensions: 256, Schema: schema, ExactSearch: true})
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	st, err := db.Tenant("acme")
	if err != nil {
		t.Fatal(err)
	}
	catalog := testdataPath(t, "catalog.jsonl")
	items, err := load.LoadCatalog(ctx, catalog, nil)
	if err != nil {
		t.Fatal(err)
	}
	emb, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 256})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingest.NewIndexer(st, emb, ingest.IndexerOptions{}).Reindex(ctx, ingest.Sources{Items: items}); err != nil {
		t.Fatal(err)
	}

	args := []string{"-q", "fungicida para videira", "-tenant", "acme", "-dims", "256", "-mode", "lexical"}
	pg := runJSON(t, append([]string{"-db", dsn, "-schema", schema}, args...)...)
	mem := runJSON(t, append([]string{"-catalog", catalog}, args...)...)
	if pg.Store != "postgres" || pg.Index != nil {
		t.Errorf("store %q index %+v", pg.Store, pg.Index)
	}
	checkGrapeFungicides(t, pg, grapeFungicides(t, catalog))
	pgIDs, memIDs := make([]string, len(pg.Hits)), make([]string, len(mem.Hits))
	for i := range pg.Hits {
		pgIDs[i] = pg.Hits[i].ID
	}
	for i := range mem.Hits {
		memIDs[i] = mem.Hits[i].ID
	}
	if !slices.Equal(pgIDs, memIDs) {
		t.Errorf("lexical ranking differs:\npostgres %v\nmemory   %v", pgIDs, memIDs)
	}

	hybrid := runJSON(t, "-db", dsn, "-schema", schema, "-q", "fungicida para videira", "-tenant", "acme", "-dims", "256")
	if !hybrid.EmbeddingUsed || hybrid.VectorCount == 0 {
		t.Errorf("hybrid on postgres: embedding_used %t vector_count %d fallback %q (%s)", hybrid.EmbeddingUsed, hybrid.VectorCount, hybrid.FallbackReason, hybrid.VectorError)
	}
	checkGrapeFungicides(t, hybrid, grapeFungicides(t, catalog))
}
