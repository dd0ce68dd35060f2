package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hybridrag/hybridrag/examples/internal/eval"
	"github.com/hybridrag/hybridrag/examples/internal/settings"
	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/rag/load"
)

// This file is the cross-domain chat evaluation (-cross): every store is
// asked its own domain's questions, expecting the records the judgements
// name, and the other domains' questions, expecting an abstention. No case
// is written by hand: the questions and judgements are the retrieval sets'
// (written by others, or generated from the data), so no rule can be tuned
// to a phrasing of ours.

// crossDomain is one store of the cross-domain evaluation with its own
// questions.
type crossDomain struct {
	// name labels the store in the report.
	name string
	// domain is what the store is about: stores of one domain are not
	// asked each other's questions (an agronomy store may sell what the
	// AGROFIT questions ask for, so no abstention can be expected).
	domain string
	// load reads the store's records; dataDir is -cross, root the
	// repository (for testdata/).
	load func(ctx context.Context, dataDir, root string, stderr io.Writer) (ingest.Sources, error)
	// queries and qrels are the domain's questions and judgements,
	// relative to the repository root ("shared:" prefix: to -cross).
	queries, qrels string
	// english are English translations of some of queries (same IDs),
	// asked by -cross-lang en; "" when there are none.
	english string
}

// crossDomains are the stores of -cross: the project's agronomy store
// (testdata/, its 24 retrieval queries), the AGROFIT catalog (queries
// generated from its fields, testdata/eval), the IRPF FAQs (colloquial
// paraphrases, testdata/eval) and the FaQuAD paragraphs (human-written
// questions).
var crossDomains = []crossDomain{
	{name: "agro-store", domain: "agronomy", queries: "testdata/queries.jsonl", qrels: "testdata/qrels.tsv", english: "testdata/eval/agro_queries_en.jsonl",
		load: func(ctx context.Context, _, root string, stderr io.Writer) (ingest.Sources, error) {
			d, err := loadChatData(ctx, &config{testdata: filepath.Join(root, "testdata")}, stderr)
			if err != nil {
				return ingest.Sources{}, err
			}
			return d.src, nil
		}},
	{name: "agrofit", domain: "agronomy", queries: "testdata/eval/agrofit_queries.jsonl", qrels: "testdata/eval/agrofit_qrels.tsv.gz",
		load: func(ctx context.Context, dataDir, _ string, stderr io.Writer) (ingest.Sources, error) {
			items, err := loadRecords(ctx, stderr, "catalog", filepath.Join(dataDir, "agrofit", "catalog.jsonl"), load.LoadCatalog)
			return ingest.Sources{Items: items}, err
		}},
	{name: "irpf", domain: "income tax", queries: "testdata/eval/irpf_queries.jsonl", qrels: "testdata/eval/irpf_qrels.tsv", english: "testdata/eval/irpf_queries_en.jsonl",
		load: func(ctx context.Context, dataDir, _ string, stderr io.Writer) (ingest.Sources, error) {
			faqs, err := loadRecords(ctx, stderr, "FAQs", filepath.Join(dataDir, "br_taxqa", "faqs.jsonl"), load.LoadFAQs)
			return ingest.Sources{FAQs: faqs}, err
		}},
	{name: "faquad", domain: "encyclopedia", queries: "shared:faquad/queries.jsonl", qrels: "shared:faquad/qrels.tsv", english: "testdata/eval/faquad_queries_en.jsonl",
		load: func(ctx context.Context, dataDir, _ string, stderr io.Writer) (ingest.Sources, error) {
			docs, err := loadRecords(ctx, stderr, "documents", filepath.Join(dataDir, "faquad", "documents.jsonl"), load.LoadDocuments)
			return ingest.Sources{Documents: docs}, err
		}},
}

// crossCases returns up to max questions of d (every len/max-th, so the
// sample spans the file) as chat cases: expecting the judged records when
// own, an abstention otherwise. Questions without a relevant judgement
// are left out.
func crossCases(d crossDomain, dataDir, root string, max int, own bool, lang string) ([]chatCase, error) {
	path := func(p string) string {
		if rest, ok := strings.CutPrefix(p, "shared:"); ok {
			return filepath.Join(dataDir, rest)
		}
		return filepath.Join(root, p)
	}
	file := d.queries
	if lang == "en" {
		if d.english == "" {
			return nil, nil
		}
		file = d.english
	}
	queries, err := eval.LoadQueries(path(file))
	if err != nil {
		return nil, err
	}
	qrels, err := eval.LoadQrels(path(d.qrels))
	if err != nil {
		return nil, err
	}
	queries = slices.DeleteFunc(queries, func(q eval.Query) bool { return qrels.Relevant(q.ID) == 0 })
	step := 1
	if max > 0 && len(queries) > max {
		step = (len(queries) + max - 1) / max
	}
	var cases []chatCase
	for i := 0; i < len(queries); i += step {
		q := queries[i]
		c := chatCase{ID: d.name + "/" + q.ID, Type: d.name, Split: eval.SplitHeldOut,
			Messages: []chatMessage{{Role: "user", Content: q.Text}}, Expect: &chatExpect{Abstain: !own}}
		if own {
			for id, g := range qrels[q.ID] {
				if g >= 1 {
					c.Expect.Sources = append(c.Expect.Sources, id)
				}
			}
			slices.Sort(c.Expect.Sources)
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// crossStoreReport is one store's outcome.
type crossStoreReport struct {
	Store string `json:"store"`
	// Own are the metrics of its own domain's questions: source
	// precision and recall against the judgements, and abstention
	// accuracy (the share answered).
	Own chatMetrics `json:"own"`
	// Other are the metrics of the other domains' questions: abstention
	// accuracy is the share that abstained.
	Other chatMetrics `json:"other"`
	// OtherByDomain is the share of each other domain's questions that
	// abstained.
	OtherByDomain map[string]float64 `json:"other_by_domain"`
}

// crossReport is the output of -cross.
type crossReport struct {
	// MaxPerDomain caps the questions taken from each domain.
	MaxPerDomain int                `json:"max_per_domain"`
	Stores       []crossStoreReport `json:"stores"`
	// Own and Other pool every store's cases.
	Own   chatMetrics `json:"own"`
	Other chatMetrics `json:"other"`
	// Reliability is the reliability table of every store's cases.
	Reliability reliability `json:"reliability"`
}

// executeCross is the -cross mode.
func executeCross(ctx context.Context, cfg *config, stdout, stderr io.Writer) error {
	root, err := findTestdata(cfg.testdata)
	if err != nil {
		return err
	}
	root = filepath.Dir(root)
	if _, err := os.Stat(cfg.cross); err != nil {
		return fmt.Errorf("-cross %s: %w", cfg.cross, err)
	}
	rc := settings.DefaultConfig()
	dims := rc.Embedding.Dimensions
	if cfg.set["dims"] {
		dims = cfg.dims
	}
	own := make([][]chatCase, len(crossDomains))
	other := make([][]chatCase, len(crossDomains))
	for i, d := range crossDomains {
		if own[i], err = crossCases(d, cfg.cross, root, cfg.crossMax, true, cfg.crossLang); err != nil {
			return fmt.Errorf("%s questions: %w", d.name, err)
		}
		if other[i], err = crossCases(d, cfg.cross, root, cfg.crossMax, false, cfg.crossLang); err != nil {
			return fmt.Errorf("%s questions: %w", d.name, err)
		}
	}
	rep := &crossReport{MaxPerDomain: cfg.crossMax}
	var failing []crossFailure
	var allOwn, allOther []chatResult
	for i, d := range crossDomains {
		if len(cfg.crossStores) > 0 && !slices.Contains(cfg.crossStores, d.name) {
			continue
		}
		start := time.Now()
		src, err := d.load(ctx, cfg.cross, root, stderr)
		if err != nil {
			return fmt.Errorf("%s store: %w", d.name, err)
		}
		chat, err := newOfflineChat(ctx, rc, dims, src, nil)
		if err != nil {
			return fmt.Errorf("%s store: %w", d.name, err)
		}
		ownRes, err := runChatCases(ctx, chat.pipeline, own[i], false)
		if err != nil {
			return err
		}
		var cases []chatCase
		for j, od := range crossDomains {
			if od.domain != d.domain {
				cases = append(cases, other[j]...)
			}
		}
		otherRes, err := runChatCases(ctx, chat.pipeline, cases, false)
		if err != nil {
			return err
		}
		sr := crossStoreReport{Store: d.name, Own: chatMetricsOf(ownRes), Other: chatMetricsOf(otherRes), OtherByDomain: map[string]float64{}}
		for _, od := range crossDomains {
			if od.domain != d.domain {
				if m := chatMetricsOf(filterResults(otherRes, func(r *chatResult) bool { return r.Type == od.name })); m.Questions > 0 {
					sr.OtherByDomain[od.name] = m.AbstentionAccuracy
				}
			}
		}
		rep.Stores = append(rep.Stores, sr)
		if cfg.verbose {
			for _, r := range append(slices.Clone(ownRes), otherRes...) {
				if len(r.Failures) > 0 {
					failing = append(failing, crossFailure{store: d.name, r: r})
				}
			}
		}
		allOwn, allOther = append(allOwn, ownRes...), append(allOther, otherRes...)
		fmt.Fprintf(stderr, "%s: %s, %d questions in %s\n", d.name, chat.stats, len(ownRes)+len(otherRes), time.Since(start).Round(time.Millisecond))
	}
	rep.Own, rep.Other = chatMetricsOf(allOwn), chatMetricsOf(allOther)
	rep.Reliability = reliabilityOf(append(slices.Clone(allOwn), allOther...))
	if cfg.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	if err := writeCrossText(stdout, rep); err != nil {
		return err
	}
	if cfg.verbose {
		fmt.Fprintf(stdout, "\nfailing cases (%d):\n", len(failing))
		for _, f := range failing {
			fmt.Fprintf(stdout, "%s\t%s\t%s\t%s\t%s\t%q\n", f.store, f.r.Type, f.r.Confidence, strings.Join(f.r.Failures, ","), strings.Join(f.r.Sources, " "), f.r.Question)
		}
	}
	return nil
}

// crossFailure is a failing case of one store, listed by -cross -v.
type crossFailure struct {
	store string
	r     chatResult
}

// writeCrossText prints the report as a table: per store, its own
// domain's source precision, recall and share answered, and the share of
// the other domains' questions it abstained on.
func writeCrossText(w io.Writer, rep *crossReport) error {
	fmt.Fprintf(w, "cross-domain chat evaluation: each store asked its own questions (expected: the judged records) and other domains' (expected: abstain; agro-store and agrofit are one domain); at most %d questions a set; offline pipeline\n\n", rep.MaxPerDomain)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "store\town questions\tsource precision\tsource recall\tanswered\tother-domain questions\tabstained")
	for _, d := range crossDomains {
		fmt.Fprintf(tw, "\t%s", d.name)
	}
	fmt.Fprintln(tw)
	row := func(name string, own, other chatMetrics, by map[string]float64) {
		// A share of nothing (a store without questions of its own in
		// that language) prints as "-".
		c := func(v float64, num, den int) string {
			if den == 0 {
				return "-"
			}
			return cell(v, num, den)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%d\t%s", name, own.Questions,
			c(own.SourcePrecision, own.CitedExpected, own.Cited), c(own.SourceRecall, own.Recalled, own.Answerable),
			c(own.AbstentionAccuracy, own.AbstentionCorrect, own.WithExpect), other.Questions,
			c(other.AbstentionAccuracy, other.AbstentionCorrect, other.WithExpect))
		for _, d := range crossDomains {
			if v, ok := by[d.name]; ok {
				fmt.Fprintf(tw, "\t%.3f", v)
			} else {
				fmt.Fprint(tw, "\t-")
			}
		}
		fmt.Fprintln(tw)
	}
	for _, s := range rep.Stores {
		row(s.Store, s.Own, s.Other, s.OtherByDomain)
	}
	row("all", rep.Own, rep.Other, nil)
	if err := tw.Flush(); err != nil {
		return err
	}
	writeReliability(w, rep.Reliability)
	return nil
}
