package eval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/hybridrag/hybridrag/merge"
	"github.com/hybridrag/hybridrag/rag"
)

// DefaultK is the default metric cut-off.
const DefaultK = 10

// ErrInvalidOptions is wrapped by Run's errors about its options.
var ErrInvalidOptions = errors.New("eval: invalid options")

// Kind names what a query set searches.
type Kind string

// Kinds of search.
const (
	KindCatalog  Kind = "catalog"
	KindFAQ      Kind = "faq"
	KindDocument Kind = "doc"
)

// SearchFunc runs one search and returns the IDs of the hits, best first.
// It lets Run evaluate a rag.Searcher or any other engine.
type SearchFunc func(ctx context.Context, q rag.Query) ([]string, error)

// SearcherFunc returns the SearchFunc of s for kind: SearchCatalog,
// SearchFAQs or SearchDocuments.
func SearcherFunc(s *rag.Searcher, kind Kind) (SearchFunc, error) {
	switch kind {
	case KindCatalog:
		return func(ctx context.Context, q rag.Query) ([]string, error) {
			res, err := s.SearchCatalog(ctx, q)
			if err != nil {
				return nil, err
			}
			return hitIDs(res.Hits), nil
		}, nil
	case KindFAQ:
		return func(ctx context.Context, q rag.Query) ([]string, error) {
			res, err := s.SearchFAQs(ctx, q)
			if err != nil {
				return nil, err
			}
			return hitIDs(res.Hits), nil
		}, nil
	case KindDocument:
		return func(ctx context.Context, q rag.Query) ([]string, error) {
			res, err := s.SearchDocuments(ctx, q)
			if err != nil {
				return nil, err
			}
			return hitIDs(res.Hits), nil
		}, nil
	}
	return nil, fmt.Errorf("%w: kind %q (want catalog|faq|doc)", ErrInvalidOptions, kind)
}

func hitIDs[T any](hits []rag.Hit[T]) []string {
	ids := make([]string, len(hits))
	for i := range hits {
		ids[i] = hits[i].ID
	}
	return ids
}

// Config is one way of searching, reported under Name: Template holds
// the query settings (legs, fusion, weights, threshold, aggregation...);
// Run sets its Text and Limit for every query.
type Config struct {
	Name     string
	Template rag.Query
}

// Mode names used by [Configs].
const (
	ModeLexical = "lexical"
	ModeVector  = "vector"
	ModeHybrid  = "hybrid"
)

// Configs returns the configurations for mode ("lexical", "vector",
// "hybrid" or "all"), hybrid using fusion ("" means the Searcher's
// default). "all" is lexical, vector and hybrid followed by
// "hybrid-weighted", "hybrid-rrf" and "hybrid-relative", so every fusion
// method is reported side by side.
func Configs(mode string, fusion merge.Method) ([]Config, error) {
	switch fusion {
	case "", merge.MethodWeighted, merge.MethodRRF, merge.MethodRelative:
	default:
		return nil, fmt.Errorf("%w: fusion %q (want weighted|rrf|relative)", ErrInvalidOptions, fusion)
	}
	lex := Config{Name: ModeLexical, Template: rag.Query{Legs: rag.LegsLexical, Fusion: fusion}}
	vec := Config{Name: ModeVector, Template: rag.Query{Legs: rag.LegsVector, Fusion: fusion}}
	hyb := Config{Name: ModeHybrid, Template: rag.Query{Legs: rag.LegsHybrid, Fusion: fusion}}
	switch mode {
	case ModeLexical:
		return []Config{lex}, nil
	case ModeVector:
		return []Config{vec}, nil
	case ModeHybrid:
		return []Config{hyb}, nil
	case "all":
		out := []Config{lex, vec, hyb}
		for _, m := range []merge.Method{merge.MethodWeighted, merge.MethodRRF, merge.MethodRelative} {
			out = append(out, Config{Name: ModeHybrid + "-" + string(m), Template: rag.Query{Legs: rag.LegsHybrid, Fusion: m}})
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: mode %q (want lexical|vector|hybrid|all)", ErrInvalidOptions, mode)
}

// Options configure Run.
type Options struct {
	// K is the metric cut-off (default 10).
	K int
	// Limit is the number of hits asked for (default K).
	Limit int
	// Configs are the ways of searching; nil means Configs("all", "").
	Configs []Config
	// Filter, when set, keeps the queries it returns true for.
	Filter func(Query) bool
}

// Metrics are mean metrics over a set of queries.
type Metrics struct {
	// Queries is the number of queries averaged.
	Queries int `json:"queries"`
	// NDCG, Recall, MRR and Precision are the means at K.
	NDCG      float64 `json:"ndcg"`
	Recall    float64 `json:"recall"`
	MRR       float64 `json:"mrr"`
	Precision float64 `json:"precision"`
	// ZeroResult is the number of queries that returned no hit.
	ZeroResult int `json:"zero_result"`
}

// Latency summarizes per-query search times, in milliseconds.
type Latency struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	Max  float64 `json:"max"`
}

// QueryResult is one query's outcome under one configuration.
type QueryResult struct {
	ID    string `json:"id"`
	Type  string `json:"type,omitempty"`
	Split string `json:"split"`
	// Relevant is the number of documents judged relevant.
	Relevant int `json:"relevant"`
	// Hits is the number of hits returned.
	Hits      int     `json:"hits"`
	NDCG      float64 `json:"ndcg"`
	Recall    float64 `json:"recall"`
	MRR       float64 `json:"mrr"`
	Precision float64 `json:"precision"`
	// Top are the first K hit IDs with their grades (0: not relevant).
	Top []RankedID `json:"top"`
	// Latency is the search's wall time.
	Latency time.Duration `json:"-"`
}

// RankedID is a returned ID with its judged grade.
type RankedID struct {
	ID    string `json:"id"`
	Grade int    `json:"grade"`
}

// ModeReport is the outcome of one configuration: mean metrics (the JSON
// keys "ndcg", "recall", "mrr", "zero_result", "precision" and
// "queries"), the same per query type and per split,
// latency and per-query results.
type ModeReport struct {
	Metrics
	// ByType and BySplit break the means down by the queries' Type
	// ("" is reported as "untyped") and Split.
	ByType  map[string]Metrics `json:"by_type,omitempty"`
	BySplit map[string]Metrics `json:"by_split,omitempty"`
	// Latency summarizes the search times; Run fills it in, callers that
	// need byte-identical output may zero it.
	Latency *Latency `json:"latency_ms,omitempty"`
	// PerQuery are the per-query results in query order.
	PerQuery []QueryResult `json:"-"`
}

// Report is the outcome of Run.
type Report struct {
	// K is the metric cut-off.
	K int `json:"k"`
	// Queries is the number of queries evaluated (judged ones).
	Queries int `json:"queries"`
	// Modes are the reports per configuration name.
	Modes map[string]*ModeReport `json:"modes"`
	// Order lists the configuration names in the order run.
	Order []string `json:"order"`
	// Unjudged are the IDs of queries skipped because no document is
	// judged relevant for them.
	Unjudged []string `json:"unjudged,omitempty"`
	// Types and Splits list the query types and splits seen, sorted.
	Types  []string `json:"types,omitempty"`
	Splits []string `json:"splits,omitempty"`
}

// Untyped is the type reported for queries without one.
const Untyped = "untyped"

// Run searches every judged query with every configuration, in order, one
// search at a time (so latencies are not disturbed by each other), and
// computes the metrics at K. Queries without any relevant judgement are
// skipped and listed in Report.Unjudged. A search error stops the run and
// is returned with the query ID; a cancelled ctx stops it promptly.
func Run(ctx context.Context, search SearchFunc, queries []Query, qrels Qrels, opts Options) (*Report, error) {
	if search == nil {
		return nil, fmt.Errorf("%w: nil SearchFunc", ErrInvalidOptions)
	}
	k := opts.K
	if k == 0 {
		k = DefaultK
	}
	if k < 0 {
		return nil, fmt.Errorf("%w: k %d", ErrInvalidOptions, opts.K)
	}
	limit := opts.Limit
	if limit <= 0 {
		limit = k
	}
	configs := opts.Configs
	if configs == nil {
		var err error
		if configs, err = Configs("all", ""); err != nil {
			return nil, err
		}
	}
	rep := &Report{K: k, Modes: make(map[string]*ModeReport, len(configs))}
	for _, c := range configs {
		if c.Name == "" || rep.Modes[c.Name] != nil {
			return nil, fmt.Errorf("%w: configuration name %q empty or repeated", ErrInvalidOptions, c.Name)
		}
		rep.Modes[c.Name] = &ModeReport{}
		rep.Order = append(rep.Order, c.Name)
	}

	var judged []Query
	types, splits := map[string]bool{}, map[string]bool{}
	for _, q := range queries {
		if opts.Filter != nil && !opts.Filter(q) {
			continue
		}
		if qrels.Relevant(q.ID) == 0 {
			rep.Unjudged = append(rep.Unjudged, q.ID)
			continue
		}
		if q.Split == "" {
			q.Split = SplitOf(q.ID)
		}
		if q.Type == "" {
			q.Type = Untyped
		}
		types[q.Type], splits[q.Split] = true, true
		judged = append(judged, q)
	}
	rep.Queries = len(judged)
	rep.Types = sortedKeys(types)
	rep.Splits = sortedKeys(splits)

	for _, c := range configs {
		mr := rep.Modes[c.Name]
		mr.PerQuery = make([]QueryResult, 0, len(judged))
		for _, q := range judged {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			tq := c.Template
			tq.Text, tq.Limit = q.Text, limit
			start := time.Now()
			ids, err := search(ctx, tq)
			took := time.Since(start)
			if err != nil {
				return nil, fmt.Errorf("eval: %s: query %s: %w", c.Name, q.ID, err)
			}
			mr.PerQuery = append(mr.PerQuery, score(q, ids, qrels[q.ID], k, took))
		}
		summarize(mr, rep.Types, rep.Splits)
	}
	return rep, nil
}

func score(q Query, ids []string, judged map[string]int, k int, took time.Duration) QueryResult {
	r := QueryResult{
		ID: q.ID, Type: q.Type, Split: q.Split, Hits: len(ids), Latency: took,
		NDCG:      NDCG(ids, judged, k),
		Recall:    Recall(ids, judged, k),
		MRR:       MRR(ids, judged, k),
		Precision: Precision(ids, judged, k),
	}
	for _, g := range judged {
		if g >= 1 {
			r.Relevant++
		}
	}
	top := ids
	if k > 0 && len(top) > k {
		top = top[:k]
	}
	r.Top = make([]RankedID, len(top))
	for i, id := range top {
		r.Top[i] = RankedID{ID: id, Grade: judged[id]}
	}
	return r
}

func summarize(mr *ModeReport, types, splits []string) {
	mr.Metrics = mean(mr.PerQuery, func(QueryResult) bool { return true })
	mr.ByType = make(map[string]Metrics, len(types))
	for _, t := range types {
		mr.ByType[t] = mean(mr.PerQuery, func(r QueryResult) bool { return r.Type == t })
	}
	mr.BySplit = make(map[string]Metrics, len(splits))
	for _, s := range splits {
		mr.BySplit[s] = mean(mr.PerQuery, func(r QueryResult) bool { return r.Split == s })
	}
	if len(mr.PerQuery) > 0 {
		ms := make([]float64, len(mr.PerQuery))
		var sum float64
		for i, r := range mr.PerQuery {
			ms[i] = float64(r.Latency) / float64(time.Millisecond)
			sum += ms[i]
		}
		slices.Sort(ms)
		mr.Latency = &Latency{
			Mean: sum / float64(len(ms)), P50: percentile(ms, 0.50),
			P95: percentile(ms, 0.95), Max: ms[len(ms)-1],
		}
	}
}

func mean(rs []QueryResult, keep func(QueryResult) bool) Metrics {
	var m Metrics
	for _, r := range rs {
		if !keep(r) {
			continue
		}
		m.Queries++
		m.NDCG += r.NDCG
		m.Recall += r.Recall
		m.MRR += r.MRR
		m.Precision += r.Precision
		if r.Hits == 0 {
			m.ZeroResult++
		}
	}
	if m.Queries > 0 {
		n := float64(m.Queries)
		m.NDCG, m.Recall, m.MRR, m.Precision = m.NDCG/n, m.Recall/n, m.MRR/n, m.Precision/n
	}
	return m
}

// percentile returns the nearest-rank percentile of sorted values.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
