package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/hybridrag/hybridrag/examples/internal/eval"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag"
)

// This file is the pure half of the chat evaluation (-chat): the case file
// and the metrics. chatrun.go wires the pipeline, runs the cases and
// prints the report.

// splitHeldOutAlias is accepted for eval.SplitHeldOut in case files and
// -split.
const splitHeldOutAlias = "held-out"

// untyped names the cases without a type in by_type, as examples/internal/eval does.
const untyped = "untyped"

// chatCase is one line of a -chat file: a conversation whose last message
// is the user's question, and what its answer should do.
type chatCase struct {
	ID string `json:"id"`
	// Type groups cases in by_type ("followup", "abstain", ...).
	Type string `json:"type,omitempty"`
	// Split is eval.SplitTune or eval.SplitHeldOut; empty in the file
	// means eval.SplitOf(ID).
	Split string `json:"split,omitempty"`
	// Messages are the conversation, oldest first; the last one is the
	// question and must be the user's.
	Messages []chatMessage `json:"messages"`
	// Expect is what the answer should do; nil leaves the case out of
	// every metric but the question count.
	Expect *chatExpect `json:"expect,omitempty"`
	// Note documents the case; it is not used.
	Note string `json:"note,omitempty"`
}

// chatMessage is one message of a case.
type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// chatExpect is what a case's answer should do.
type chatExpect struct {
	// Sources are record IDs (items, FAQs, documents) the answer should
	// cite; any other cited source is unexpected.
	Sources []string `json:"sources,omitempty"`
	// Abstain says the answer should abstain (the store has nothing
	// relevant); an abstaining case expects no source.
	Abstain bool `json:"abstain"`
	// Facts are texts the answer should contain, compared after
	// lexical.Normalize (case, accents and spacing do not matter).
	Facts []string `json:"facts,omitempty"`
}

// answerable reports whether the case counts in source precision and
// recall: an expect with abstain false and at least one source.
func (e *chatExpect) answerable() bool {
	return e != nil && !e.Abstain && len(e.Sources) > 0
}

// request is the case as a pipeline request: the last message is the
// question, the earlier ones the history.
func (c *chatCase) request() rag.ChatRequest {
	n := len(c.Messages) - 1
	req := rag.ChatRequest{Message: c.Messages[n].Content}
	for _, m := range c.Messages[:n] {
		req.History = append(req.History, rag.Turn{Role: llm.Role(m.Role), Content: m.Content})
	}
	return req
}

// question is the case's last message.
func (c *chatCase) question() string { return c.Messages[len(c.Messages)-1].Content }

// loadChatCases reads a -chat file.
func loadChatCases(path string) ([]chatCase, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseChatCases(f, path)
}

// maxCaseLine bounds one line of a case file.
const maxCaseLine = 4 << 20

// parseChatCases reads JSONL cases from r; name labels errors. Blank lines
// are skipped. A malformed line is an *eval.FormatError naming it.
func parseChatCases(r io.Reader, name string) ([]chatCase, error) {
	var (
		cases []chatCase
		seen  = map[string]int{} // ID → line
		line  int
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxCaseLine)
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		fail := func(format string, args ...any) error {
			return &eval.FormatError{Name: name, Line: line, Reason: fmt.Sprintf(format, args...)}
		}
		var c chatCase
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			return nil, fail("not a case object: %v", err)
		}
		if dec.More() {
			return nil, fail("more than one JSON value on the line")
		}
		c.ID = strings.TrimSpace(c.ID)
		if c.ID == "" {
			return nil, fail("missing id")
		}
		if first, dup := seen[c.ID]; dup {
			return nil, fail("case %q: duplicate id (first on line %d)", c.ID, first)
		}
		seen[c.ID] = line
		if reason := c.check(); reason != "" {
			return nil, fail("case %q: %s", c.ID, reason)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: line %d: %w", name, line+1, err)
	}
	if len(cases) == 0 {
		return nil, &eval.FormatError{Name: name, Line: line, Reason: "no case"}
	}
	return cases, nil
}

// check validates and normalizes a decoded case (roles, split); it
// returns what is wrong, or "".
func (c *chatCase) check() string {
	if len(c.Messages) == 0 {
		return "no messages"
	}
	for i := range c.Messages {
		m := &c.Messages[i]
		m.Role = strings.ToLower(strings.TrimSpace(m.Role))
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Sprintf("messages[%d]: role %q (want user or assistant)", i, m.Role)
		}
		if strings.TrimSpace(m.Content) == "" {
			return fmt.Sprintf("messages[%d]: empty content", i)
		}
	}
	if last := c.Messages[len(c.Messages)-1]; last.Role != "user" {
		return fmt.Sprintf("the last message is the %s's; it must be the user's question", last.Role)
	}
	switch c.Split {
	case "":
		c.Split = eval.SplitOf(c.ID)
	case eval.SplitTune, eval.SplitHeldOut:
	case splitHeldOutAlias:
		c.Split = eval.SplitHeldOut
	default:
		return fmt.Sprintf("split %q (want %s or %s)", c.Split, eval.SplitTune, eval.SplitHeldOut)
	}
	e := c.Expect
	if e == nil {
		return ""
	}
	for i, s := range e.Sources {
		if strings.TrimSpace(s) == "" {
			return fmt.Sprintf("expect.sources[%d] is empty", i)
		}
	}
	if e.Abstain && len(e.Sources) > 0 {
		return "expect.abstain is true but expect.sources is not empty (an abstaining answer cites nothing)"
	}
	for i, f := range e.Facts {
		if lexical.Normalize(f) == "" {
			return fmt.Sprintf("expect.facts[%d] is empty once normalized", i)
		}
	}
	return ""
}

// Failure kinds of a case, in the order they are reported.
const (
	failAbstention   = "abstention"         // abstained differs from expect.abstain
	failNoExpected   = "no_expected_source" // an answerable case cited no expected source
	failUnexpected   = "unexpected_sources" // a cited source is not expected
	failMissingFacts = "missing_facts"      // an expected fact is not in the answer
)

// chatResult is one case's outcome (the "results" of the -json output).
type chatResult struct {
	ID    string `json:"id"`
	Type  string `json:"type"`
	Split string `json:"split"`
	// Question is the last message.
	Question string `json:"question"`
	Answer   string `json:"answer"`
	// Sources are the IDs of the response's Sources in order, without
	// repeats.
	Sources   []string   `json:"sources"`
	Abstained bool       `json:"abstained"`
	Intent    rag.Intent `json:"intent"`
	// Confidence is the turn's confidence level (high, medium, low,
	// none).
	Confidence string `json:"confidence"`
	// Expect is the case's expectation, for reference.
	Expect *chatExpect `json:"expect,omitempty"`
	// MissingFacts are the expected facts not found in the answer.
	MissingFacts []string `json:"missing_facts"`
	// ContextMissingFacts are the expected facts not found in the context
	// the pipeline built for the answerer (Debug.Context): what a model
	// told to answer only from its context could not state.
	ContextMissingFacts []string `json:"context_missing_facts"`
	// ContextTokens is the estimated size of that context
	// (Debug.ContextTokens).
	ContextTokens int `json:"context_tokens"`
	// UnexpectedSources are cited sources that were not expected (every
	// cited source when the case expects an abstention); empty when the
	// case expects no particular source.
	UnexpectedSources []string `json:"unexpected_sources"`
	// Failures name what went wrong: abstention, no_expected_source,
	// unexpected_sources, missing_facts.
	Failures []string `json:"failures"`
	// LatencyMS is the turn's wall time, with -latency only.
	LatencyMS *float64 `json:"latency_ms,omitempty"`

	// context is the text the answerer was given; scoreAgainst reads it.
	context string
	score   caseScore
}

// caseScore are a case's contributions to the metrics.
type caseScore struct {
	answerable        bool // counts in source precision and recall
	cited, citedRight int  // sources cited; of which expected (answerable cases)
	judged, abstainOK bool // has an expect; abstained == expect.abstain
	facts, factsFound int
	// contextFactsFound are the expected facts found in the context.
	contextFactsFound int
}

// uniqueSourceIDs returns the citations' IDs in order, without repeats.
func uniqueSourceIDs(cites []rag.Citation) []string {
	ids := make([]string, 0, len(cites))
	for _, c := range cites {
		if !slices.Contains(ids, c.ID) {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// scoreAgainst compares r's answer, sources and abstention with the case's
// expectation and fills in the missing facts, unexpected sources,
// failures and metric contributions.
func (r *chatResult) scoreAgainst(e *chatExpect) {
	r.Expect = e
	r.MissingFacts, r.ContextMissingFacts, r.UnexpectedSources, r.Failures = []string{}, []string{}, []string{}, []string{}
	r.score = caseScore{}
	if e == nil {
		return
	}
	s := &r.score
	s.judged, s.abstainOK = true, r.Abstained == e.Abstain
	if !s.abstainOK {
		r.Failures = append(r.Failures, failAbstention)
	}
	if e.Abstain || e.answerable() {
		for _, id := range r.Sources {
			if !slices.Contains(e.Sources, id) {
				r.UnexpectedSources = append(r.UnexpectedSources, id)
			}
		}
	}
	if e.answerable() {
		s.answerable = true
		s.cited = len(r.Sources)
		s.citedRight = s.cited - len(r.UnexpectedSources)
		if s.citedRight == 0 {
			r.Failures = append(r.Failures, failNoExpected)
		}
	}
	if len(r.UnexpectedSources) > 0 {
		r.Failures = append(r.Failures, failUnexpected)
	}
	answer, context := lexical.Normalize(r.Answer), lexical.Normalize(r.context)
	for _, f := range e.Facts {
		s.facts++
		nf := lexical.Normalize(f)
		if strings.Contains(answer, nf) {
			s.factsFound++
		} else {
			r.MissingFacts = append(r.MissingFacts, f)
		}
		if strings.Contains(context, nf) {
			s.contextFactsFound++
		} else {
			r.ContextMissingFacts = append(r.ContextMissingFacts, f)
		}
	}
	if len(r.MissingFacts) > 0 {
		r.Failures = append(r.Failures, failMissingFacts)
	}
}

// chatMetrics are the chat metrics of a set of cases, with the counts
// behind each ratio. A ratio whose denominator is 0 is reported as 0.
type chatMetrics struct {
	Questions int `json:"questions"`
	// SourcePrecision = CitedExpected / Cited over the answerable cases
	// (micro-averaged).
	SourcePrecision float64 `json:"source_precision"`
	// SourceRecall = Recalled / Answerable.
	SourceRecall float64 `json:"source_recall"`
	// AbstentionAccuracy = AbstentionCorrect / WithExpect.
	AbstentionAccuracy float64 `json:"abstention_accuracy"`
	// FactRecall = FactsFound / Facts.
	FactRecall float64 `json:"fact_recall"`
	// ContextFactRecall = ContextFactsFound / Facts: the expected facts
	// present in the context the answerer was given (compared after
	// lexical.Normalize), what a model answering only from its context
	// can state at best.
	ContextFactRecall float64 `json:"context_fact_recall"`
	// ContextTokensMedian and ContextTokensP95 summarize the estimated
	// context size per turn (Debug.ContextTokens).
	ContextTokensMedian int `json:"context_tokens_median"`
	ContextTokensP95    int `json:"context_tokens_p95"`

	// Answerable are the cases with an expect, abstain false and at least
	// one expected source.
	Answerable int `json:"answerable"`
	// Cited are the sources the answerable cases cited; CitedExpected
	// those that were expected.
	Cited         int `json:"cited"`
	CitedExpected int `json:"cited_expected"`
	// Recalled are the answerable cases citing an expected source.
	Recalled int `json:"recalled"`
	// WithExpect are the cases with an expect; AbstentionCorrect those
	// whose abstention was as expected.
	WithExpect        int `json:"with_expect"`
	AbstentionCorrect int `json:"abstention_correct"`
	// Facts are the expected facts of all cases; FactsFound those in the
	// answers.
	Facts             int `json:"facts"`
	FactsFound        int `json:"facts_found"`
	ContextFactsFound int `json:"context_facts_found"`
	// Abstained are the cases that abstained; Failed those with a
	// failure.
	Abstained int `json:"abstained"`
	Failed    int `json:"failed"`
}

// chatMetricsOf sums the results' scores.
func chatMetricsOf(results []chatResult) chatMetrics {
	var m chatMetrics
	tokens := make([]int, 0, len(results))
	for i := range results {
		r := &results[i]
		s := r.score
		m.Questions++
		tokens = append(tokens, r.ContextTokens)
		if r.Abstained {
			m.Abstained++
		}
		if len(r.Failures) > 0 {
			m.Failed++
		}
		if s.answerable {
			m.Answerable++
			m.Cited += s.cited
			m.CitedExpected += s.citedRight
			if s.citedRight > 0 {
				m.Recalled++
			}
		}
		if s.judged {
			m.WithExpect++
			if s.abstainOK {
				m.AbstentionCorrect++
			}
		}
		m.Facts += s.facts
		m.FactsFound += s.factsFound
		m.ContextFactsFound += s.contextFactsFound
	}
	m.ContextTokensMedian, m.ContextTokensP95 = percentileInt(tokens, 0.50), percentileInt(tokens, 0.95)
	m.SourcePrecision = ratioOf(m.CitedExpected, m.Cited)
	m.SourceRecall = ratioOf(m.Recalled, m.Answerable)
	m.AbstentionAccuracy = ratioOf(m.AbstentionCorrect, m.WithExpect)
	m.FactRecall = ratioOf(m.FactsFound, m.Facts)
	m.ContextFactRecall = ratioOf(m.ContextFactsFound, m.Facts)
	return m
}

// percentileInt is the nearest-rank p-th percentile (0 < p ≤ 1) of xs, 0
// for none; xs is sorted in place.
func percentileInt(xs []int, p float64) int {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	i := int(math.Ceil(p*float64(len(xs)))) - 1
	return xs[max(0, min(i, len(xs)-1))]
}

// ratioOf is a/b, 0 when b is 0.
func ratioOf(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// right reports whether the turn's citations are right: it abstained
// when it should, and an answerable case cites an expected source and no
// unexpected one. Facts do not count. A case without an expect is never
// right or wrong (ok false).
func (r *chatResult) right() (right, ok bool) {
	e := r.Expect
	if e == nil {
		return false, false
	}
	if r.Abstained != e.Abstain {
		return false, true
	}
	if e.answerable() {
		return r.score.citedRight > 0 && len(r.UnexpectedSources) == 0, true
	}
	return len(r.UnexpectedSources) == 0, true
}

// reliabilityRow is one confidence level's share of right turns.
type reliabilityRow struct {
	Level string  `json:"level"`
	Turns int     `json:"turns"`
	Right int     `json:"right"`
	Share float64 `json:"share"`
}

// reliability is the reliability table of the results: per confidence
// level (high, medium, low, none), the turns judged and the share whose
// citations are right (chatResult.right); and the turns whose level is
// none without abstaining, or that abstained at another level.
type reliability struct {
	Levels []reliabilityRow `json:"levels"`
	// NoneMismatch counts turns where level none and abstention
	// disagree (none must mean exactly "abstained").
	NoneMismatch int `json:"none_mismatch"`
}

// confidenceLevels are the levels in report order.
var confidenceLevels = []string{"high", "medium", "low", "none"}

// reliabilityOf computes the reliability table of results.
func reliabilityOf(results []chatResult) reliability {
	var rel reliability
	for _, level := range confidenceLevels {
		row := reliabilityRow{Level: level}
		for i := range results {
			r := &results[i]
			if r.Confidence != level {
				continue
			}
			if right, ok := r.right(); ok {
				row.Turns++
				if right {
					row.Right++
				}
			}
		}
		row.Share = ratioOf(row.Right, row.Turns)
		rel.Levels = append(rel.Levels, row)
	}
	for i := range results {
		if (results[i].Confidence == "none") != results[i].Abstained {
			rel.NoneMismatch++
		}
	}
	return rel
}

// writeReliability prints the reliability table on one line.
func writeReliability(w io.Writer, rel reliability) {
	fmt.Fprint(w, "reliability (confidence level: turns whose citations are right):")
	for _, r := range rel.Levels {
		fmt.Fprintf(w, " %s %s", r.Level, cell(r.Share, r.Right, r.Turns))
	}
	fmt.Fprintf(w, "; level none without abstaining or abstaining at another level: %d\n", rel.NoneMismatch)
}

// chatReport is the -json output of -chat.
type chatReport struct {
	chatMetrics
	// Reliability is the reliability table of every case.
	Reliability reliability            `json:"reliability"`
	BySplit     map[string]chatMetrics `json:"by_split"`
	ByType      map[string]chatMetrics `json:"by_type"`
	// Latency summarizes the turns' wall times, with -latency only.
	Latency  *eval.Latency  `json:"latency_ms,omitempty"`
	Settings map[string]any `json:"settings"`
	Results  []chatResult   `json:"results"`
}

// newChatReport computes the metrics of results, overall, per split and
// per type.
func newChatReport(results []chatResult) *chatReport {
	rep := &chatReport{
		chatMetrics: chatMetricsOf(results),
		Reliability: reliabilityOf(results),
		BySplit:     map[string]chatMetrics{},
		ByType:      map[string]chatMetrics{},
		Results:     results,
	}
	for _, s := range groupKeys(results, func(r *chatResult) string { return r.Split }) {
		rep.BySplit[s] = chatMetricsOf(filterResults(results, func(r *chatResult) bool { return r.Split == s }))
	}
	for _, t := range groupKeys(results, typeKey) {
		rep.ByType[t] = chatMetricsOf(filterResults(results, func(r *chatResult) bool { return typeKey(r) == t }))
	}
	return rep
}

func typeKey(r *chatResult) string {
	if r.Type == "" {
		return untyped
	}
	return r.Type
}

// groupKeys returns the sorted distinct keys of results.
func groupKeys(results []chatResult, key func(*chatResult) string) []string {
	var keys []string
	for i := range results {
		if k := key(&results[i]); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func filterResults(results []chatResult, keep func(*chatResult) bool) []chatResult {
	var out []chatResult
	for i := range results {
		if keep(&results[i]) {
			out = append(out, results[i])
		}
	}
	return out
}
