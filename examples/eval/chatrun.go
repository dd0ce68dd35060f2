package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/examples/internal/eval"
	"github.com/hybridrag/hybridrag/examples/internal/settings"
	"github.com/hybridrag/hybridrag/internal/tuning"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/rag"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/load"
	"github.com/hybridrag/hybridrag/rag/offline"
	"github.com/hybridrag/hybridrag/rag/rerank"
	"github.com/hybridrag/hybridrag/storage/memory"
	"github.com/hybridrag/hybridrag/vector"
	"github.com/hybridrag/hybridrag/vector/cache"
)

// This file runs the chat evaluation (-chat): it builds the pipeline the
// chatserver serves offline, runs every case through it and prints the
// report. chat.go holds the case file and the metrics.

// chatOnlyFlags only apply with -chat.
var chatOnlyFlags = []string{"testdata", "v", "env"}

// retrievalOnlyFlags do not apply with -chat.
var retrievalOnlyFlags = []string{"queries", "qrels", "mode", "fusion", "k", "per-query", "threshold",
	"aggregate", "weights", "cand-mult", "cand-max", "anchors", "anchor-db"}

// checkChatFlags validates the command line of -chat.
func checkChatFlags(cfg *config) error {
	for _, name := range retrievalOnlyFlags {
		if cfg.set[name] {
			return usagef("-%s is not used with -chat", name)
		}
	}
	if cfg.testdata != "" && (cfg.catalog != "" || cfg.faqs != "" || cfg.docs != "") {
		return usagef("give -testdata or -catalog/-faqs/-docs, not both")
	}
	switch cfg.split {
	case "all", eval.SplitTune, eval.SplitHeldOut:
	default:
		return usagef("-split %q: want all|tune|heldout", cfg.split)
	}
	if cfg.set["dims"] && cfg.dims < 1 {
		return usagef("-dims %d: want > 0", cfg.dims)
	}
	if cfg.rerank != "off" && cfg.rerank != "keyword" {
		return usagef("-rerank %q: want off or keyword", cfg.rerank)
	}
	return nil
}

// Testdata of the chatserver, relative to its directory.
const (
	testdataCatalog   = "catalog.jsonl"
	testdataFAQs      = "faqs.jsonl"
	testdataDocsDir   = "documents"
	testdataDocsJSONL = "documents.jsonl"
	// chatTenant is the chatserver's default tenant.
	chatTenant = "default"
)

// Names of the offline components, as the chatserver reports them.
const (
	offlineStore      = "memory"
	offlineClassifier = "keyword (offline)"
	offlineAnswerer   = "extractive (offline)"
)

// offlineChat is the chat pipeline `go run ./examples/chatserver` serves
// with no DATABASE_URL and no model keys, over the records given.
type offlineChat struct {
	pipeline *rag.Pipeline
	// embedder names the hash embedder as the chatserver does.
	embedder string
	dims     int
	stats    ingest.Stats
}

// newOfflineChat indexes src and wires the pipeline exactly as the
// chatserver's openModels and openBackend do offline: a memory store of
// the default tenant, the hash embedder at dims dimensions, indexing with
// rc.IndexerOptions(), a searcher with rc.SearcherOptions() over a
// query-embedding cache, with the hash embedder's suggested threshold for
// every kind whose threshold rc leaves unset, and a pipeline with
// rc.PipelineOptions(), the KeywordClassifier and the ExtractiveAnswerer.
// Keep it in step with examples/chatserver/backend.go and models.go.
//
// tune, when not nil, adjusts the searcher options before the thresholds
// are filled in (the ablation switches); nil measures what a user sees.
func newOfflineChat(ctx context.Context, rc settings.Config, dims int, src ingest.Sources, tune func(*rag.SearcherOptions)) (*offlineChat, error) {
	h, err := vector.NewHashEmbedder(vector.HashOptions{Dimensions: dims})
	if err != nil {
		return nil, fmt.Errorf("hash embedder: %w", err)
	}
	st, err := memory.New(memory.Options{Dimensions: h.Dimensions()}).Tenant(chatTenant)
	if err != nil {
		return nil, err
	}
	stats, err := ingest.NewIndexer(st, h, rc.IndexerOptions()).Reindex(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	sopts := rc.SearcherOptions()
	if tune != nil {
		tune(&sopts)
	}
	searcher := rag.NewSearcher(st, cache.New(h, cache.Options{}), sopts)
	p, err := rag.NewPipeline(searcher, offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rc.PipelineOptions())
	if err != nil {
		return nil, err
	}
	return &offlineChat{pipeline: p, embedder: "hash (offline, " + h.Model() + ")", dims: h.Dimensions(), stats: stats}, nil
}

// tuneSearcher applies the ablation switches that differ from their
// defaults to o (the switches' zero values leave o as it is).
func tuneSearcher(a ablation) func(*rag.SearcherOptions) {
	return func(o *rag.SearcherOptions) {
		x := a.searcherOptions()
		for _, t := range []struct{ to, from *rag.Toggle }{{&o.Lexical.Vocabulary, &x.Lexical.Vocabulary}, {&o.Lexical.TypoCorrection, &x.Lexical.TypoCorrection}, {&o.Lexical.IDF, &x.Lexical.IDF}} {
			if *t.from == rag.Off {
				*t.to = rag.Off
			}
		}
		if a.idfOpts != (lexical.IDFOptions{}) || a.minDF != 0 {
			tuning.SetLexical(o, tuning.Lexical{IDF: a.idfOpts, CorrectionMinDF: a.minDF})
		}
		if x.Kinds.Catalog.Scorer != nil {
			o.Kinds.Catalog.Scorer, o.Kinds.FAQs.Scorer, o.Kinds.Documents.Scorer = x.Kinds.Catalog.Scorer, x.Kinds.FAQs.Scorer, x.Kinds.Documents.Scorer
		}
	}
}

// chatData are the records of a chat evaluation and where they came from.
type chatData struct {
	src ingest.Sources
	// from describes the source: the testdata directory or the files.
	from string
}

// loadChatData reads -catalog/-faqs/-docs when any is given, else the
// chatserver's testdata (-testdata, or testdata/ found from the working
// directory upwards). Bad records are reported to stderr and skipped.
func loadChatData(ctx context.Context, cfg *config, stderr io.Writer) (*chatData, error) {
	d := &chatData{}
	var err error
	if cfg.catalog == "" && cfg.faqs == "" && cfg.docs == "" {
		dir, err := findTestdata(cfg.testdata)
		if err != nil {
			return nil, err
		}
		d.from = dir
		if d.src.Items, err = loadRecords(ctx, stderr, "catalog", filepath.Join(dir, testdataCatalog), load.LoadCatalog); err != nil {
			return nil, err
		}
		if d.src.FAQs, err = loadRecords(ctx, stderr, "FAQs", filepath.Join(dir, testdataFAQs), load.LoadFAQs); err != nil {
			return nil, err
		}
		for _, name := range []string{testdataDocsDir, testdataDocsJSONL} {
			p := filepath.Join(dir, name)
			if _, err := os.Stat(p); err != nil {
				continue
			}
			docs, err := loadRecords(ctx, stderr, "documents", p, load.LoadDocuments)
			if err != nil {
				return nil, err
			}
			d.src.Documents = append(d.src.Documents, docs...)
		}
		return d, nil
	}
	var from []string
	if cfg.catalog != "" {
		from = append(from, "catalog "+cfg.catalog)
		if d.src.Items, err = loadRecords(ctx, stderr, "catalog", cfg.catalog, load.LoadCatalog); err != nil {
			return nil, err
		}
	}
	if cfg.faqs != "" {
		from = append(from, "faqs "+cfg.faqs)
		if d.src.FAQs, err = loadRecords(ctx, stderr, "FAQs", cfg.faqs, load.LoadFAQs); err != nil {
			return nil, err
		}
	}
	if cfg.docs != "" {
		from = append(from, "docs "+cfg.docs)
		if d.src.Documents, err = loadRecords(ctx, stderr, "documents", cfg.docs, load.LoadDocuments); err != nil {
			return nil, err
		}
	}
	d.from = strings.Join(from, ", ")
	return d, nil
}

// loadRecords runs a loader; bad records are reported and skipped unless
// none loaded.
func loadRecords[T any](ctx context.Context, stderr io.Writer, what, path string, loader func(context.Context, string, *load.Options) ([]T, error)) ([]T, error) {
	recs, err := loader(ctx, path, nil)
	if err != nil {
		var bad load.RecordErrors
		if !errors.As(err, &bad) || len(recs) == 0 {
			return nil, fmt.Errorf("load %s: %w", what, err)
		}
		fmt.Fprintf(stderr, "eval: warning: %s: %d bad record(s) skipped\n", path, len(bad))
	}
	return recs, nil
}

// findTestdata returns dir when given (it must hold catalog.jsonl), else
// the first "testdata" holding catalog.jsonl in the working directory or
// one of its parents, as the chatserver does.
func findTestdata(dir string) (string, error) {
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, testdataCatalog)); err != nil {
			return "", fmt.Errorf("-testdata %s has no %s", dir, testdataCatalog)
		}
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; {
		cand := filepath.Join(d, "testdata")
		if _, err := os.Stat(filepath.Join(cand, testdataCatalog)); err == nil {
			return cand, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return "", fmt.Errorf("no testdata/%s in %s or its parents; run from the repository root or pass -testdata DIR", testdataCatalog, wd)
}

// executeChat is the -chat mode.
func executeChat(ctx context.Context, cfg *config, stdout, stderr io.Writer) error {
	rc, cfgName := settings.DefaultConfig(), "settings.DefaultConfig"
	if cfg.env {
		var err error
		if rc, err = settings.ConfigFromEnv(os.Getenv); err != nil {
			return fmt.Errorf("environment: %w", err)
		}
		cfgName = "settings.ConfigFromEnv"
	}
	dims := rc.Embedding.Dimensions
	if cfg.set["dims"] {
		dims = cfg.dims
	}
	cases, err := loadChatCases(cfg.chat)
	if err != nil {
		return err
	}
	cases = slices.DeleteFunc(cases, func(c chatCase) bool {
		return cfg.split != "all" && c.Split != cfg.split || cfg.qtype != "" && c.Type != cfg.qtype
	})
	if len(cases) == 0 {
		return fmt.Errorf("%s: no case with split %s and type %q", cfg.chat, cfg.split, cfg.qtype)
	}
	if err := cfg.ablation.check(); err != nil {
		return err
	}
	if err := cfg.ablation.load(); err != nil {
		return err
	}
	data, err := loadChatData(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	tune := tuneSearcher(cfg.ablation)
	if cfg.rerank == "keyword" {
		kw, err := rerank.NewKeyword(rerank.KeywordOptions{})
		if err != nil {
			return err
		}
		base := tune
		tune = func(o *rag.SearcherOptions) {
			base(o)
			o.Rerank.Reranker, o.Rerank.Enabled = kw, rag.On
		}
	}
	chat, err := newOfflineChat(ctx, rc, dims, data.src, tune)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "indexed in memory: %s\n", chat.stats)

	latency := cfg.latency && cfg.set["latency"]
	start := time.Now()
	results, err := runChatCases(ctx, chat.pipeline, cases, latency)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "evaluated %d chat cases in %s\n", len(results), time.Since(start).Round(time.Millisecond))

	rep := newChatReport(results)
	if latency {
		rep.Latency = latencyOf(results)
	}
	rep.Settings = map[string]any{
		"cases": cfg.chat, "split": cfg.split, "data": data.from, "config": cfgName,
		"store": offlineStore, "embedder": chat.embedder, "dims": chat.dims,
		"classifier": offlineClassifier, "answerer": offlineAnswerer,
		"indexed": map[string]int{"items": chat.stats.Items, "faqs": chat.stats.FAQs, "documents": chat.stats.Documents, "chunks": chat.stats.Chunks},
	}
	if cfg.qtype != "" {
		rep.Settings["type"] = cfg.qtype
	}
	cfg.ablation.describe(rep.Settings)
	if cfg.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(rep)
	}
	return writeChatText(stdout, rep, cases, cfg.ablation.String(), cfg.verbose)
}

// runChatCases runs the cases one at a time, in order, and scores them.
func runChatCases(ctx context.Context, p *rag.Pipeline, cases []chatCase, latency bool) ([]chatResult, error) {
	results := make([]chatResult, len(cases))
	for i := range cases {
		c := &cases[i]
		t := time.Now()
		resp, err := p.Chat(ctx, c.request())
		took := time.Since(t)
		if err != nil {
			return nil, fmt.Errorf("case %q: %w", c.ID, err)
		}
		r := &results[i]
		*r = chatResult{
			ID: c.ID, Type: c.Type, Split: c.Split, Question: c.question(),
			Answer: resp.Answer, Sources: uniqueSourceIDs(resp.Sources), Abstained: resp.Abstained,
			Intent: resp.Intent.Intent, Confidence: resp.Confidence.String(), ContextTokens: resp.Debug.ContextTokens, context: resp.Debug.Context,
		}
		if latency {
			ms := float64(took.Microseconds()) / 1000
			r.LatencyMS = &ms
		}
		r.scoreAgainst(c.Expect)
	}
	return results, nil
}

// latencyOf summarizes the results' latencies.
func latencyOf(results []chatResult) *eval.Latency {
	var ms []float64
	var sum float64
	for _, r := range results {
		if r.LatencyMS != nil {
			ms = append(ms, *r.LatencyMS)
			sum += *r.LatencyMS
		}
	}
	if len(ms) == 0 {
		return nil
	}
	slices.Sort(ms)
	pct := func(p float64) float64 { return ms[int(p*float64(len(ms)-1)+0.5)] }
	return &eval.Latency{Mean: sum / float64(len(ms)), P50: pct(0.50), P95: pct(0.95), Max: ms[len(ms)-1]}
}

// answerPreview is the length of the answers quoted in the text report.
const answerPreview = 200

// writeChatText prints the report as tables and the failing cases (every
// case with verbose); switches describes the ablation switches.
func writeChatText(w io.Writer, rep *chatReport, cases []chatCase, switches string, verbose bool) error {
	s := rep.Settings
	fmt.Fprintf(w, "chat evaluation of %s: %d cases, split=%s", s["cases"], rep.Questions, s["split"])
	if t, ok := s["type"]; ok {
		fmt.Fprintf(w, ", type=%s", t)
	}
	fmt.Fprintf(w, "\ndata: %s\npipeline: store %s, embedder %s at %d dims, classifier %s, answerer %s, options of %s",
		s["data"], s["store"], s["embedder"], s["dims"], s["classifier"], s["answerer"], s["config"])
	fmt.Fprintf(w, ", %s\n\n", switches)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\tcases\tabstained\tfailed\tsource precision\tsource recall\tabstention accuracy\tfact recall\tcontext fact recall\tcontext tokens p50/p95")
	row := func(name string, m chatMetrics) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%d/%d\n", name, m.Questions, m.Abstained, m.Failed,
			cell(m.SourcePrecision, m.CitedExpected, m.Cited), cell(m.SourceRecall, m.Recalled, m.Answerable),
			cell(m.AbstentionAccuracy, m.AbstentionCorrect, m.WithExpect), cell(m.FactRecall, m.FactsFound, m.Facts),
			cell(m.ContextFactRecall, m.ContextFactsFound, m.Facts), m.ContextTokensMedian, m.ContextTokensP95)
	}
	row("all", rep.chatMetrics)
	for _, k := range sortedMapKeys(rep.BySplit) {
		row("split "+k, rep.BySplit[k])
	}
	for _, k := range sortedMapKeys(rep.ByType) {
		row("type "+k, rep.ByType[k])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	m := rep.chatMetrics
	switch {
	case m.Answerable == 0:
		fmt.Fprintln(w, "note: no answerable case (expect with abstain false and sources): source precision and recall are reported as 0")
	case m.Cited == 0:
		fmt.Fprintln(w, "note: no answerable case cited any source: source precision is reported as 0")
	}
	if m.WithExpect == 0 {
		fmt.Fprintln(w, "note: no case has an expect: abstention accuracy is reported as 0")
	}
	if m.Facts == 0 {
		fmt.Fprintln(w, "note: no case expects facts: fact recall is reported as 0")
	}
	writeReliability(w, rep.Reliability)
	if l := rep.Latency; l != nil {
		fmt.Fprintf(w, "latency ms: mean %.1f p50 %.1f p95 %.1f max %.1f\n", l.Mean, l.P50, l.P95, l.Max)
	}

	if verbose {
		fmt.Fprintf(w, "\ncases (%d, %d failing):\n", len(rep.Results), m.Failed)
	} else if m.Failed > 0 {
		fmt.Fprintf(w, "\nfailing cases (%d of %d):\n", m.Failed, len(rep.Results))
	} else {
		fmt.Fprintln(w, "\nno failing case")
	}
	for i := range rep.Results {
		r := &rep.Results[i]
		if len(r.Failures) == 0 && !verbose {
			continue
		}
		writeCase(w, r, len(cases[i].Messages)-1)
	}
	return nil
}

// writeCase prints one case: what failed, the question and the start of
// the answer.
func writeCase(w io.Writer, r *chatResult, history int) {
	head := typeKey(r) + ", " + r.Split + ", intent " + string(r.Intent)
	if history > 0 {
		head += fmt.Sprintf(", %d history messages", history)
	}
	fmt.Fprintf(w, "\n%s (%s)\n", r.ID, head)
	var what []string
	e := r.Expect
	for _, f := range r.Failures {
		switch f {
		case failAbstention:
			what = append(what, fmt.Sprintf("abstained=%t, want %t", r.Abstained, e.Abstain))
		case failNoExpected:
			what = append(what, "no expected source (want "+strings.Join(e.Sources, ", ")+")")
		case failUnexpected:
			what = append(what, "unexpected sources "+strings.Join(r.UnexpectedSources, ", "))
		case failMissingFacts:
			q := make([]string, len(r.MissingFacts))
			for i, f := range r.MissingFacts {
				q[i] = fmt.Sprintf("%q", f)
			}
			what = append(what, "missing facts "+strings.Join(q, ", "))
		}
	}
	switch {
	case len(what) > 0:
		fmt.Fprintf(w, "  FAIL: %s\n", strings.Join(what, "; "))
	case e == nil:
		fmt.Fprintln(w, "  no expect")
	default:
		fmt.Fprintln(w, "  ok")
	}
	cited := "none"
	if len(r.Sources) > 0 {
		cited = strings.Join(r.Sources, ", ")
	}
	fmt.Fprintf(w, "  cited: %s\n  Q: %s\n  A: %s\n", cited, oneLine(r.Question, answerPreview), oneLine(r.Answer, answerPreview))
}

// oneLine collapses s's white space and cuts it to n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// cell formats a ratio with its counts: "0.750 (3/4)".
func cell(v float64, num, den int) string {
	return fmt.Sprintf("%.3f (%d/%d)", v, num, den)
}

func sortedMapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
