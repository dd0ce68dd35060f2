package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// benchLine matches a result line of `go test -bench`: the name with its
// -GOMAXPROCS suffix, the iteration count, then value-unit pairs.
var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+(\d+)\s+(.*)$`)

// benchSeries maps a benchmark name (without the -GOMAXPROCS suffix) to a
// series and a catalog size; ok is false for benchmarks no figure shows.
func benchSeries(name string) (key string, items int, ok bool) {
	parts := strings.Split(name, "/")
	size := func(s string) (int, bool) {
		switch s {
		case "1k":
			return 1_000, true
		case "agrofit4220":
			return 4_220, true
		case "10k":
			return 10_000, true
		case "100k":
			return 100_000, true
		}
		n, err := strconv.Atoi(strings.TrimPrefix(s, "n="))
		return n, err == nil && strings.HasPrefix(s, "n=") && n > 0
	}
	switch {
	case parts[0] == "BenchmarkSearchCatalog" && len(parts) == 2 && strings.HasPrefix(parts[1], "memory-"):
		n, ok := size(strings.TrimPrefix(parts[1], "memory-"))
		return "memory", n, ok
	case parts[0] == "BenchmarkPostgresCatalog" && len(parts) == 3:
		n, ok := size(parts[1])
		key, known := map[string]string{
			"searchcatalog-hnsw":          "postgres",
			"searchcatalog-exact":         "postgres-exact",
			"anchor-ts_rank":              "pg-fts",
			"anchor-seed-ilike-translate": "seed-sql",
		}[parts[2]]
		return key, n, ok && known
	case parts[0] == "BenchmarkSearchChunks" && len(parts) == 2:
		n, ok := size(parts[1])
		return "memory-vector", n, ok
	case parts[0] == "BenchmarkSearchCatalogScale" && len(parts) == 3 && (parts[2] == "memory" || parts[2] == "postgres"):
		n, ok := size(parts[1])
		return parts[2] + "-scale", n, ok
	}
	return "", 0, false
}

// parseBench reads `go test -bench` output and returns the latency rows of
// the benchmarks the latency figure shows (benchSeries), with p50_ms and
// p95_ms where the benchmark reports them and the mean (ns/op) otherwise.
// Other lines are ignored. date, source and command are copied to every
// row.
func parseBench(r io.Reader, date, source, command string) ([]latencyRow, error) {
	var rows []latencyRow
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		key, items, ok := benchSeries(m[1])
		if !ok {
			continue
		}
		row := latencyRow{Series: key, Items: items, P50: math.NaN(), P95: math.NaN(), Mean: math.NaN(),
			Date: date, Source: source, Command: command}
		f := strings.Fields(m[3])
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %q is not a number", m[1], f[i])
			}
			switch f[i+1] {
			case "p50_ms":
				row.P50 = v
			case "p95_ms":
				row.P95 = v
			case "ns/op":
				if key == "memory-vector" {
					row.Mean = v / 1e6
				}
			}
		}
		if math.IsNaN(row.P50) && math.IsNaN(row.Mean) {
			return nil, fmt.Errorf("%s: no p50_ms", m[1])
		}
		rows = append(rows, row)
	}
	return rows, sc.Err()
}

// evalReport is the part of examples/eval's -json output kept here.
type evalReport struct {
	K       int                 `json:"k"`
	Queries int                 `json:"queries"`
	Modes   map[string]evalMode `json:"modes"`
	Order   []string            `json:"order"`
}

// evalMode holds one mode's metrics in examples/eval's -json output.
type evalMode struct {
	Queries    int     `json:"queries"`
	NDCG       float64 `json:"ndcg"`
	Recall     float64 `json:"recall"`
	MRR        float64 `json:"mrr"`
	ZeroResult int     `json:"zero_result"`
}

// parseQuality reads the -json output of examples/eval for the data set
// set and returns one row per mode, in the report's order.
func parseQuality(r io.Reader, set, date, source, command string) ([]qualityRow, error) {
	var rep evalReport
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, fmt.Errorf("%s: %w", set, err)
	}
	if rep.K != 10 {
		return nil, fmt.Errorf("%s: k = %d, the figures are at k = 10", set, rep.K)
	}
	if len(rep.Order) == 0 {
		return nil, fmt.Errorf("%s: no mode", set)
	}
	var rows []qualityRow
	for _, name := range rep.Order {
		m, ok := rep.Modes[name]
		if !ok {
			return nil, fmt.Errorf("%s: mode %q is in the order but not in the modes", set, name)
		}
		rows = append(rows, qualityRow{Set: set, System: name, Queries: m.Queries,
			NDCG: round3(m.NDCG), Recall: round3(m.Recall), MRR: round3(m.MRR), ZeroResult: m.ZeroResult,
			Date: date, Source: source, Command: command})
	}
	return rows, nil
}

// chatReportJSON is the part of examples/eval -chat -json kept here.
type chatReportJSON struct {
	chatMetricsJSON
	BySplit map[string]chatMetricsJSON `json:"by_split"`
}

// chatMetricsJSON are the metrics of a set of chat cases.
type chatMetricsJSON struct {
	Questions          int     `json:"questions"`
	SourcePrecision    float64 `json:"source_precision"`
	SourceRecall       float64 `json:"source_recall"`
	AbstentionAccuracy float64 `json:"abstention_accuracy"`
	FactRecall         float64 `json:"fact_recall"`
	ContextFactRecall  float64 `json:"context_fact_recall"`
	ContextTokensP50   int     `json:"context_tokens_median"`
	ContextTokensP95   int     `json:"context_tokens_p95"`
	Abstained          int     `json:"abstained"`
	Failed             int     `json:"failed"`
}

// parseChat reads the -json output of examples/eval -chat for the
// evaluation set set and returns its rows: all cases, then each split in
// name order.
func parseChat(r io.Reader, set, date, source, command string) ([]chatRow, error) {
	var rep chatReportJSON
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, fmt.Errorf("%s: %w", set, err)
	}
	if rep.Questions == 0 {
		return nil, fmt.Errorf("%s: no chat case", set)
	}
	row := func(split string, m chatMetricsJSON) chatRow {
		return chatRow{Set: set, Split: split, Cases: m.Questions,
			Precision: round3(m.SourcePrecision), Recall: round3(m.SourceRecall),
			Abstention: round3(m.AbstentionAccuracy), FactRecall: round3(m.FactRecall),
			ContextFactRecall: round3(m.ContextFactRecall), ContextP50: m.ContextTokensP50, ContextP95: m.ContextTokensP95,
			Abstained: m.Abstained, Failed: m.Failed, Date: date, Source: source, Command: command}
	}
	rows := []chatRow{row("all", rep.chatMetricsJSON)}
	for _, split := range slices.Sorted(maps.Keys(rep.BySplit)) {
		rows = append(rows, row(split, rep.BySplit[split]))
	}
	return rows, nil
}

// round3 rounds a ratio to the three decimals examples/eval prints, the
// way it prints them (so 0.8125 is 0.812, as in its tables).
func round3(f float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'f', 3, 64), 64)
	return r
}
