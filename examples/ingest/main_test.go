package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/hybridrag/hybridrag/internal/testenv"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/storage/postgres"
	"github.com/hybridrag/hybridrag/vector"
)

var summaryRE = regexp.MustCompile(`^items=(\d+) faqs=(\d+) documents=(\d+) chunks=(\d+) embedded=(\d+) skipped=(\d+) failed=(\d+) duration=\S+\n$`)

// summary parses the summary line of a run.
func summary(t *testing.T, out string) map[string]int {
	t.Helper()
	m := summaryRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("stdout %q is not a summary line", out)
	}
	got := map[string]int{}
	for i, k := range []string{"items", "faqs", "documents", "chunks", "embedded", "skipped", "failed"} {
		got[k], _ = strconv.Atoi(m[i+1])
	}
	return got
}

// runIngest runs the command with an empty environment.
func runIngest(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runIngestEnv(t, nil, args...)
}

// runIngestEnv runs the command with env as its environment.
func runIngestEnv(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, func(k string) string { return env[k] }, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestIngestMemfileTwice ingests the repository's testdata into a new
// snapshot, then again: the second run embeds and writes nothing.
func TestIngestMemfileTwice(t *testing.T) {
	snap := filepath.Join(t.TempDir(), "store.snap")
	args := []string{
		"-catalog", "../../testdata/catalog.jsonl",
		"-faqs", "../../testdata/faqs.jsonl",
		"-docs", "../../testdata/documents",
		"-memfile", snap, "-dims", "256", "-progress", "lines",
	}
	code, out, errOut := runIngest(t, args...)
	if code != exitOK {
		t.Fatalf("first run: exit %d\n%s", code, errOut)
	}
	first := summary(t, out)
	if first["items"] == 0 || first["faqs"] == 0 || first["documents"] == 0 || first["embedded"] == 0 || first["failed"] != 0 {
		t.Errorf("first run summary %v", first)
	}
	if !strings.Contains(errOut, "ingest: items ") || !strings.Contains(errOut, "ingest: documents ") {
		t.Errorf("no progress lines on stderr:\n%s", errOut)
	}
	db, err := memory.LoadFile(snap, memory.Options{})
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	st, err := db.Tenant(defaultTenant)
	if err != nil {
		t.Fatal(err)
	}
	c, err := st.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c.Items != first["items"] || c.Chunks != first["chunks"] || c.Embedded != c.Chunks || db.Dimensions() != 256 {
		t.Errorf("snapshot counts %+v (dims %d), summary %v", c, db.Dimensions(), first)
	}
	info, err := os.Stat(snap)
	if err != nil {
		t.Fatal(err)
	}

	// -dims is taken from the snapshot on the second run.
	args = slicesWithout(args, "-dims", "256")
	code, out, errOut = runIngest(t, args...)
	if code != exitOK {
		t.Fatalf("second run: exit %d\n%s", code, errOut)
	}
	second := summary(t, out)
	if second["embedded"] != 0 || second["skipped"] != first["chunks"] || second["chunks"] != first["chunks"] {
		t.Errorf("second run summary %v, want embedded=0 and every chunk skipped", second)
	}
	if info2, err := os.Stat(snap); err != nil || !info2.ModTime().Equal(info.ModTime()) {
		t.Errorf("an unchanged run rewrote the snapshot (%v)", err)
	}
}

func slicesWithout(args []string, flag, value string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == flag && i+1 < len(args) && args[i+1] == value {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// TestIngestMalformedRecords reports every bad record with its file and
// line, ingests the good ones and exits with status 1.
func TestIngestMalformedRecords(t *testing.T) {
	dir := t.TempDir()
	catalog := filepath.Join(dir, "catalog.jsonl")
	lines := []string{
		`{"id":"a","name":"Fungicida A","description":"Para uva."}`,
		`{"id":"b","name":`,
		`{"id":"c","name":"Herbicida C","price":"caro"}`,
		`{"id":"d","name":"Inseticida D","tags":["soja"]}`,
	}
	if err := os.WriteFile(catalog, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, "out.snap")
	code, out, errOut := runIngest(t, "-catalog", catalog, "-memfile", snap, "-dims", "64", "-progress", "none")
	if code != exitError {
		t.Errorf("exit %d, want %d", code, exitError)
	}
	for _, want := range []string{"catalog.jsonl:2:", "catalog.jsonl:3:", "2 malformed record(s)"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if s := summary(t, out); s["items"] != 2 || s["failed"] != 0 {
		t.Errorf("summary %v, want the 2 good items", s)
	}
	if _, err := os.Stat(snap); err != nil {
		t.Errorf("snapshot not saved: %v", err)
	}
}

func TestIngestUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no input", []string{"-memfile", "x"}, "nothing to ingest"},
		{"no output", []string{"-catalog", "c.jsonl"}, "exactly one of -memfile and -db"},
		{"both outputs", []string{"-catalog", "c.jsonl", "-memfile", "x", "-db", "postgres://x"}, "exactly one"},
		{"bad embedder", []string{"-catalog", "c.jsonl", "-memfile", "x", "-embedder", "word2vec"}, "-embedder"},
		{"bad tenant", []string{"-catalog", "c.jsonl", "-memfile", "x", "-tenant", "a b"}, "-tenant"},
		{"bad progress", []string{"-catalog", "c.jsonl", "-memfile", "x", "-progress", "fancy"}, "-progress"},
		{"unknown flag", []string{"-catalgo", "c.jsonl"}, "flag provided but not defined"},
		{"bulk without db", []string{"-catalog", "c.jsonl", "-memfile", "x", "-bulk"}, "-bulk needs -db"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runIngest(t, tc.args...)
			if code != exitUsage || out != "" || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 mentioning %q", code, out, errOut, tc.want)
			}
		})
	}
}

func TestIngestMissingFile(t *testing.T) {
	code, out, errOut := runIngest(t, "-catalog", filepath.Join(t.TempDir(), "none.jsonl"), "-memfile", filepath.Join(t.TempDir(), "x"))
	if code != exitError || out != "" || !strings.Contains(errOut, "none.jsonl") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestIngestPostgres runs the -db path twice into a fresh schema: migrate,
// index, then an unchanged run that embeds nothing.
func TestIngestPostgres(t *testing.T) {
	dsn := os.Getenv("HYBRIDRAG_TEST_DATABASE_URL")
	if dsn == "" {
		testenv.Skip(t, testenv.Postgres, "HYBRIDRAG_TEST_DATABASE_URL is unset; set it to a pgx DSN to test ingest -db")
	}
	schema := fmt.Sprintf("ingest_test_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		pool, err := pgxpool.New(ctx, dsn)
		if err != nil {
			t.Errorf("drop schema: %v", err)
			return
		}
		defer pool.Close()
		if _, err := pool.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	args := []string{
		"-catalog", "../../testdata/catalog.jsonl", "-faqs", "../../testdata/faqs.jsonl",
		"-db", dsn, "-schema", schema, "-tenant", "acme", "-dims", "128", "-progress", "none",
	}
	code, out, errOut := runIngest(t, args...)
	if code != exitOK {
		t.Fatalf("first run: exit %d\n%s", code, errOut)
	}
	first := summary(t, out)
	if first["embedded"] == 0 || first["failed"] != 0 {
		t.Errorf("first run summary %v", first)
	}
	code, out, errOut = runIngest(t, args...)
	if code != exitOK {
		t.Fatalf("second run: exit %d\n%s", code, errOut)
	}
	if second := summary(t, out); second["embedded"] != 0 || second["skipped"] != first["chunks"] {
		t.Errorf("second run summary %v, want embedded=0", second)
	}
	// Other dimensions than the schema's are refused.
	code, _, errOut = runIngest(t, append(args[:len(args)-4:len(args)-4], "-dims", "64", "-progress", "none")...)
	if code != exitError || !strings.Contains(errOut, "-dims") {
		t.Errorf("dimension mismatch: exit %d, stderr %q", code, errOut)
	}
}

// TestIngestPostgresBulk loads with -bulk into a fresh schema: the run
// reports the rebuild, and afterwards the records are found by lexical and
// vector search, the HNSW indexes exist and the word-index triggers are
// enabled again.
func TestIngestPostgresBulk(t *testing.T) {
	dsn := os.Getenv("HYBRIDRAG_TEST_DATABASE_URL")
	if dsn == "" {
		testenv.Skip(t, testenv.Postgres, "HYBRIDRAG_TEST_DATABASE_URL is unset; set it to a pgx DSN to test ingest -db -bulk")
	}
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close) // after the schema is dropped
	schema := fmt.Sprintf("ingest_bulk_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9)
	t.Cleanup(func() {
		if _, err := pool.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	code, out, errOut := runIngest(t, "-catalog", "../../testdata/catalog.jsonl", "-db", dsn, "-schema", schema,
		"-tenant", "acme", "-dims", "64", "-progress", "none", "-bulk")
	if code != exitOK || !strings.Contains(errOut, "indexes rebuilt") {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	var hnsw, disabled int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE '%_embedding_hnsw'`, schema).Scan(&hnsw); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND NOT g.tgisinternal AND g.tgenabled = 'D'`, schema).Scan(&disabled); err != nil {
		t.Fatal(err)
	}
	if hnsw != 3 || disabled != 0 {
		t.Errorf("after -bulk: %d HNSW indexes (want 3), %d disabled triggers (want 0)", hnsw, disabled)
	}
	st, err := postgres.New(pool, postgres.Options{Dimensions: 64, Schema: schema}).Tenant("acme")
	if err != nil {
		t.Fatal(err)
	}
	res, err := st.Items().Search(ctx, storage.LexicalQuery{Terms: []string{"fungicida"}, Limit: 5})
	if err != nil || len(res) == 0 {
		t.Errorf("lexical search after -bulk: %d results, %v", len(res), err)
	}
	emb, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: 64})
	if err != nil {
		t.Fatal(err)
	}
	qv, err := emb.Embed(ctx, []string{"fungicida"})
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := st.SearchChunks(ctx, storage.VectorQuery{Kind: storage.KindItem, Vector: qv[0], Limit: 5, MaxDistance: storage.NoThreshold})
	if err != nil || len(chunks) != 5 {
		t.Errorf("vector search after -bulk: %d chunks, %v", len(chunks), err)
	}
}

// TestIngestPrune syncs a snapshot with a catalog that lost an item: without
// -prune the item stays; with it the item and its chunks are gone, the
// summary says pruned=1, and the FAQs (a kind not given) are left alone.
func TestIngestPrune(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, lines ...string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	full := write("full.jsonl",
		`{"id":"a","name":"Fungicida A","description":"Para uva."}`,
		`{"id":"b","name":"Herbicida B","description":"Para soja."}`,
		`{"id":"c","name":"Inseticida C","description":"Para milho."}`)
	faqs := write("faqs.jsonl", `{"id":"f1","question":"Qual o prazo?","answer":"Cinco dias."}`)
	less := write("less.jsonl",
		`{"id":"a","name":"Fungicida A","description":"Para uva."}`,
		`{"id":"b","name":"Herbicida B","description":"Para soja."}`)
	snap := filepath.Join(dir, "store.snap")
	counts := func() (items, faqs, chunks int, ids map[string]bool) {
		t.Helper()
		db, err := memory.LoadFile(snap, memory.Options{})
		if err != nil {
			t.Fatal(err)
		}
		st, err := db.Tenant(defaultTenant)
		if err != nil {
			t.Fatal(err)
		}
		c, err := st.Counts(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		ids = map[string]bool{}
		for _, id := range []string{"a", "b", "c"} {
			if _, err := st.Items().Get(context.Background(), id); err == nil {
				ids[id] = true
			}
		}
		return c.Items, c.FAQs, c.Chunks, ids
	}

	if code, _, errOut := runIngest(t, "-catalog", full, "-faqs", faqs, "-memfile", snap, "-dims", "64", "-progress", "none"); code != exitOK {
		t.Fatalf("first run: exit %d\n%s", code, errOut)
	}
	_, _, chunksFull, _ := counts()
	code, out, errOut := runIngest(t, "-catalog", less, "-memfile", snap, "-progress", "none")
	if code != exitOK {
		t.Fatalf("run without -prune: exit %d\n%s", code, errOut)
	}
	if items, _, _, ids := counts(); items != 3 || !ids["c"] || strings.Contains(out, "pruned=") {
		t.Fatalf("without -prune: %d items %v, summary %q; want c kept", items, ids, out)
	}
	code, out, errOut = runIngest(t, "-catalog", less, "-memfile", snap, "-progress", "none", "-prune")
	if code != exitOK {
		t.Fatalf("run with -prune: exit %d\n%s", code, errOut)
	}
	items, nfaqs, chunks, ids := counts()
	if items != 2 || ids["c"] || !ids["a"] || !ids["b"] || nfaqs != 1 || chunks >= chunksFull || !strings.Contains(out, "pruned=1") {
		t.Fatalf("with -prune: %d items %v, %d faqs, %d chunks (was %d), summary %q; want c and its chunks gone, the FAQ kept",
			items, ids, nfaqs, chunks, chunksFull, out)
	}
}
