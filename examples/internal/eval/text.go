package eval

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText writes the report as human-readable tables: the mean metrics
// per configuration, then nDCG@K per query type and per split for every
// configuration. withLatency adds the latency columns.
func (r *Report) WriteText(w io.Writer, withLatency bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "k=%d queries=%d", r.K, r.Queries)
	if len(r.Unjudged) > 0 {
		fmt.Fprintf(w, " unjudged=%d (skipped)", len(r.Unjudged))
	}
	fmt.Fprintln(w)
	head := fmt.Sprintf("mode\tnDCG@%d\tR@%d\tMRR@%d\tP@%d\tzero\t", r.K, r.K, r.K, r.K)
	if withLatency {
		head += "p50 ms\tp95 ms\t"
	}
	fmt.Fprintln(tw, head)
	for _, name := range r.Order {
		m := r.Modes[name]
		line := fmt.Sprintf("%s\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t", name, m.NDCG, m.Recall, m.MRR, m.Precision, m.ZeroResult)
		if withLatency && m.Latency != nil {
			line += fmt.Sprintf("%.2f\t%.2f\t", m.Latency.P50, m.Latency.P95)
		}
		fmt.Fprintln(tw, line)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Types) > 1 {
		r.writeBreakdown(w, "type", r.Types, func(m *ModeReport, key string) Metrics { return m.ByType[key] })
	}
	if len(r.Splits) > 1 {
		r.writeBreakdown(w, "split", r.Splits, func(m *ModeReport, key string) Metrics { return m.BySplit[key] })
	}
	return nil
}

// writeBreakdown writes one table: a row per key, nDCG / MRR / zero-result
// columns per configuration.
func (r *Report) writeBreakdown(w io.Writer, what string, keys []string, get func(*ModeReport, string) Metrics) {
	fmt.Fprintf(w, "\nnDCG@%d / MRR@%d / zero-result by %s\n", r.K, r.K, what)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	var b strings.Builder
	b.WriteString(what + "\tn\t")
	for _, name := range r.Order {
		b.WriteString(name + "\t")
	}
	fmt.Fprintln(tw, b.String())
	for _, key := range keys {
		b.Reset()
		n := 0
		if len(r.Order) > 0 {
			n = get(r.Modes[r.Order[0]], key).Queries
		}
		fmt.Fprintf(&b, "%s\t%d\t", key, n)
		for _, name := range r.Order {
			m := get(r.Modes[name], key)
			fmt.Fprintf(&b, "%.3f %.3f %d\t", m.NDCG, m.MRR, m.ZeroResult)
		}
		fmt.Fprintln(tw, b.String())
	}
	_ = tw.Flush()
}

// WritePerQuery writes one line per query of configuration name: ID,
// type, split, nDCG@K, MRR@K, hits, and the grades of the top hits
// ("2 2 0 1 ...").
func (r *Report) WritePerQuery(w io.Writer, name string) error {
	m := r.Modes[name]
	if m == nil {
		return fmt.Errorf("%w: no configuration %q in the report", ErrInvalidOptions, name)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "query\ttype\tsplit\tnDCG\tMRR\thits\trelevant\tgrades of top %d\n", r.K)
	for _, q := range m.PerQuery {
		grades := make([]string, len(q.Top))
		for i, t := range q.Top {
			grades[i] = fmt.Sprint(t.Grade)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.3f\t%.3f\t%d\t%d\t%s\n", q.ID, q.Type, q.Split, q.NDCG, q.MRR, q.Hits, q.Relevant, strings.Join(grades, " "))
	}
	return tw.Flush()
}
