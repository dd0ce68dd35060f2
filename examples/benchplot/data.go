package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The data files, in the results directory (-dir), one CSV file per
// figure. Every row names the run that printed it: its date, a source (the
// run and commit, as BENCHMARKS.md tells them) and the command.
const (
	latencyFile = "latency.csv"
	qualityFile = "quality.csv"
	chatFile    = "chat.csv"
)

// latencyHeader, qualityHeader and chatHeader are the first lines of the
// data files; reading a file with another header is an error.
var (
	latencyHeader = []string{"series", "items", "p50_ms", "p95_ms", "mean_ms", "date", "source", "command"}
	qualityHeader = []string{"set", "system", "queries", "ndcg10", "recall10", "mrr10", "zero_result", "date", "source", "command"}
	chatHeader    = []string{"set", "split", "cases", "source_precision", "source_recall", "abstention_accuracy", "fact_recall", "context_fact_recall", "context_tokens_p50", "context_tokens_p95", "abstained", "failed", "date", "source", "command"}
)

// latencyRow is one search latency: a series (an engine and what it
// runs, see seriesInfo) at one catalog size. P50 and P95 are the per-query
// medians and 95th percentiles the benchmarks report; Mean is ns/op where
// that is all the benchmark reports. A figure not measured is NaN (an
// empty cell).
type latencyRow struct {
	Series                string
	Items                 int
	P50, P95, Mean        float64
	Date, Source, Command string
}

// qualityRow is the retrieval quality of one system (an examples/eval
// mode: hybrid, lexical, vector, …, or an anchor-* baseline) on one data
// set, at k = 10.
type qualityRow struct {
	Set, System           string
	Queries               int
	NDCG, Recall, MRR     float64
	ZeroResult            int
	Date, Source, Command string
}

// chatRow holds the chat answer metrics (examples/eval -chat) of one
// evaluation set, over all its cases or one split (tune, heldout).
type chatRow struct {
	Set, Split                                string
	Cases                                     int
	Precision, Recall, Abstention, FactRecall float64
	// ContextFactRecall is the share of the expected facts in the
	// context the answerer was given; ContextP50 and ContextP95 the
	// context's estimated tokens per turn.
	ContextFactRecall      float64
	ContextP50, ContextP95 int
	Abstained, Failed      int
	Date, Source, Command  string
}

// results are the three data files.
type results struct {
	Latency []latencyRow
	Quality []qualityRow
	Chat    []chatRow
}

// readResults reads the three data files of dir.
func readResults(dir string) (*results, error) {
	var r results
	lat, err := readCSV(filepath.Join(dir, latencyFile), latencyHeader)
	if err != nil {
		return nil, err
	}
	for i, rec := range lat {
		var row latencyRow
		p := fieldParser{file: latencyFile, line: i + 2}
		row.Series = rec[0]
		row.Items = p.int(rec[1])
		row.P50, row.P95, row.Mean = p.float(rec[2]), p.float(rec[3]), p.float(rec[4])
		row.Date, row.Source, row.Command = rec[5], rec[6], rec[7]
		if p.err == nil && math.IsNaN(row.P50) && math.IsNaN(row.Mean) {
			p.err = fmt.Errorf("%s:%d: neither p50_ms nor mean_ms", p.file, p.line)
		}
		if p.err == nil && seriesOf(row.Series) == nil {
			p.err = fmt.Errorf("%s:%d: unknown series %q", p.file, p.line, row.Series)
		}
		if p.err != nil {
			return nil, p.err
		}
		r.Latency = append(r.Latency, row)
	}
	qual, err := readCSV(filepath.Join(dir, qualityFile), qualityHeader)
	if err != nil {
		return nil, err
	}
	for i, rec := range qual {
		p := fieldParser{file: qualityFile, line: i + 2}
		row := qualityRow{Set: rec[0], System: rec[1], Queries: p.int(rec[2]),
			NDCG: p.float(rec[3]), Recall: p.float(rec[4]), MRR: p.float(rec[5]), ZeroResult: p.int(rec[6]),
			Date: rec[7], Source: rec[8], Command: rec[9]}
		if p.err != nil {
			return nil, p.err
		}
		r.Quality = append(r.Quality, row)
	}
	chat, err := readCSV(filepath.Join(dir, chatFile), chatHeader)
	if err != nil {
		return nil, err
	}
	for i, rec := range chat {
		p := fieldParser{file: chatFile, line: i + 2}
		row := chatRow{Set: rec[0], Split: rec[1], Cases: p.int(rec[2]),
			Precision: p.float(rec[3]), Recall: p.float(rec[4]), Abstention: p.float(rec[5]), FactRecall: p.float(rec[6]),
			ContextFactRecall: p.float(rec[7]), ContextP50: p.int(rec[8]), ContextP95: p.int(rec[9]),
			Abstained: p.int(rec[10]), Failed: p.int(rec[11]), Date: rec[12], Source: rec[13], Command: rec[14]}
		if p.err != nil {
			return nil, p.err
		}
		r.Chat = append(r.Chat, row)
	}
	return &r, nil
}

// readCSV reads a data file and checks its header; it returns the records
// after the header.
func readCSV(path string, header []string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = len(header)
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 || !slices.Equal(recs[0], header) {
		return nil, fmt.Errorf("%s: the header is not %s", path, strings.Join(header, ","))
	}
	return recs[1:], nil
}

// fieldParser parses the cells of one line, keeping the first error.
type fieldParser struct {
	file string
	line int
	err  error
}

// float parses a number; an empty cell is NaN.
func (p *fieldParser) float(s string) float64 {
	if s == "" {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || f < 0 {
		if p.err == nil {
			p.err = fmt.Errorf("%s:%d: %q is not a figure", p.file, p.line, s)
		}
		return math.NaN()
	}
	return f
}

// int parses a count.
func (p *fieldParser) int(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		if p.err == nil {
			p.err = fmt.Errorf("%s:%d: %q is not a count", p.file, p.line, s)
		}
	}
	return n
}

// writeResults writes the three data files of dir, rows sorted so that
// rewriting unchanged results changes no byte.
func writeResults(dir string, r *results) error {
	sortResults(r)
	lat := [][]string{latencyHeader}
	for _, row := range r.Latency {
		lat = append(lat, []string{row.Series, strconv.Itoa(row.Items), formatFloat(row.P50), formatFloat(row.P95), formatFloat(row.Mean), row.Date, row.Source, row.Command})
	}
	qual := [][]string{qualityHeader}
	for _, row := range r.Quality {
		qual = append(qual, []string{row.Set, row.System, strconv.Itoa(row.Queries), formatFloat(row.NDCG), formatFloat(row.Recall), formatFloat(row.MRR), strconv.Itoa(row.ZeroResult), row.Date, row.Source, row.Command})
	}
	chat := [][]string{chatHeader}
	for _, row := range r.Chat {
		chat = append(chat, []string{row.Set, row.Split, strconv.Itoa(row.Cases), formatFloat(row.Precision), formatFloat(row.Recall), formatFloat(row.Abstention), formatFloat(row.FactRecall), formatFloat(row.ContextFactRecall), strconv.Itoa(row.ContextP50), strconv.Itoa(row.ContextP95), strconv.Itoa(row.Abstained), strconv.Itoa(row.Failed), row.Date, row.Source, row.Command})
	}
	return errors.Join(
		writeCSV(filepath.Join(dir, latencyFile), lat),
		writeCSV(filepath.Join(dir, qualityFile), qual),
		writeCSV(filepath.Join(dir, chatFile), chat))
}

// writeCSV writes records to path.
func writeCSV(path string, recs [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeRecords(f, recs); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// writeRecords writes CSV records to w.
func writeRecords(w io.Writer, recs [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.WriteAll(recs); err != nil {
		return err
	}
	return cw.Error()
}

// formatFloat writes a figure with the digits it was measured with
// (shortest representation); NaN is an empty cell.
func formatFloat(f float64) string {
	if math.IsNaN(f) {
		return ""
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// sortResults orders the rows: latency by series (in the order of
// seriesInfo) then size; quality by data set (setOrder) then system
// (systemOrder); chat by set then split (all first).
func sortResults(r *results) {
	slices.SortStableFunc(r.Latency, func(a, b latencyRow) int {
		if c := seriesRank(a.Series) - seriesRank(b.Series); c != 0 {
			return c
		}
		return a.Items - b.Items
	})
	slices.SortStableFunc(r.Quality, func(a, b qualityRow) int {
		if c := rank(setOrder, a.Set) - rank(setOrder, b.Set); c != 0 {
			return c
		}
		if c := strings.Compare(a.Set, b.Set); c != 0 {
			return c
		}
		if c := rank(systemOrder, a.System) - rank(systemOrder, b.System); c != 0 {
			return c
		}
		return strings.Compare(a.System, b.System)
	})
	slices.SortStableFunc(r.Chat, func(a, b chatRow) int {
		if c := rank(chatSetOrder, a.Set) - rank(chatSetOrder, b.Set); c != 0 {
			return c
		}
		if c := strings.Compare(a.Set, b.Set); c != 0 {
			return c
		}
		if c := rank([]string{"all", "heldout", "tune"}, a.Split) - rank([]string{"all", "heldout", "tune"}, b.Split); c != 0 {
			return c
		}
		return strings.Compare(a.Split, b.Split)
	})
}

// rank is the index of s in order, or len(order) when it is not there.
func rank(order []string, s string) int {
	if i := slices.Index(order, s); i >= 0 {
		return i
	}
	return len(order)
}
