package eval

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"strconv"
	"strings"
)

// ErrFormat is wrapped by every error about malformed queries or
// judgements; the concrete error is a *FormatError naming the line.
var ErrFormat = errors.New("eval: bad format")

// FormatError is a malformed line of a queries or judgements file.
type FormatError struct {
	// Name is the file name (or the name given to the reader function).
	Name string
	// Line is the 1-based line number.
	Line int
	// Reason says what is wrong.
	Reason string
}

// Error implements error.
func (e *FormatError) Error() string {
	return fmt.Sprintf("eval: %s:%d: %s", e.Name, e.Line, e.Reason)
}

// Unwrap returns ErrFormat.
func (e *FormatError) Unwrap() error { return ErrFormat }

// Splits of a query set: queries are tuned on one half and reported on
// both, the other half staying untouched while tuning.
const (
	SplitTune    = "tune"
	SplitHeldOut = "heldout"
)

// Query is one evaluation query, a line of a queries JSONL file:
// {"id","text"} plus the optional "type" (for a per-type breakdown) and
// "split" ("tune" or "heldout"; when absent [SplitOf] decides).
type Query struct {
	ID    string `json:"id"`
	Text  string `json:"text"`
	Type  string `json:"type,omitempty"`
	Split string `json:"split,omitempty"`
}

// SplitOf returns the split of a query ID: the FNV-1a hash of the ID,
// even → [SplitTune], odd → [SplitHeldOut]. The assignment depends on the
// ID alone, so adding or removing queries never moves another query to the
// other half.
func SplitOf(id string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	if h.Sum32()%2 == 0 {
		return SplitTune
	}
	return SplitHeldOut
}

// Qrels are graded judgements: query ID → document ID → grade. A grade
// >= 1 is relevant; higher is more relevant.
type Qrels map[string]map[string]int

// Relevant returns the number of documents judged relevant (grade >= 1)
// for the query.
func (q Qrels) Relevant(queryID string) int {
	n := 0
	for _, g := range q[queryID] {
		if g >= 1 {
			n++
		}
	}
	return n
}

// ReadQueries reads queries JSONL from r: one JSON object per line, blank
// lines skipped. A query without an id or text, or an id seen twice, is a
// *FormatError. A missing split is filled in with [SplitOf]. name labels
// errors.
func ReadQueries(r io.Reader, name string) ([]Query, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	var out []Query
	seen := make(map[string]bool)
	for line := 1; sc.Scan(); line++ {
		b := sc.Bytes()
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		var q Query
		if err := json.Unmarshal(b, &q); err != nil {
			return nil, &FormatError{Name: name, Line: line, Reason: "invalid JSON: " + err.Error()}
		}
		q.ID = strings.TrimSpace(q.ID)
		switch {
		case q.ID == "":
			return nil, &FormatError{Name: name, Line: line, Reason: `missing "id"`}
		case strings.TrimSpace(q.Text) == "":
			return nil, &FormatError{Name: name, Line: line, Reason: fmt.Sprintf("query %q has no text", q.ID)}
		case seen[q.ID]:
			return nil, &FormatError{Name: name, Line: line, Reason: fmt.Sprintf("query %q repeated", q.ID)}
		}
		switch q.Split {
		case "":
			q.Split = SplitOf(q.ID)
		case SplitTune, SplitHeldOut:
		default:
			return nil, &FormatError{Name: name, Line: line, Reason: fmt.Sprintf("query %q: split %q (want tune|heldout)", q.ID, q.Split)}
		}
		seen[q.ID] = true
		out = append(out, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("eval: read %s: %w", name, err)
	}
	return out, nil
}

// ReadQrels reads judgements from r: lines "query_id doc_id grade"
// separated by tabs (then IDs may hold spaces) or, in lines without a
// tab, by spaces (an optional header starting with "query_id" is
// skipped) or the TREC form "query_id 0 doc_id grade". Blank lines and
// lines starting with "#" are skipped. A repeated (query, document) pair
// keeps the highest grade. name labels errors.
func ReadQrels(r io.Reader, name string) (Qrels, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	out := make(Qrels)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		var f []string
		if strings.Contains(text, "\t") {
			f = strings.Split(text, "\t") // IDs may hold spaces
			for i := range f {
				f[i] = strings.TrimSpace(f[i])
			}
		} else {
			f = strings.Fields(text)
		}
		if line == 1 && strings.EqualFold(f[0], "query_id") {
			continue
		}
		var qid, did, grade string
		switch len(f) {
		case 3:
			qid, did, grade = f[0], f[1], f[2]
		case 4:
			qid, did, grade = f[0], f[2], f[3]
		default:
			return nil, &FormatError{Name: name, Line: line, Reason: fmt.Sprintf("want 3 columns (query_id doc_id grade), got %d", len(f))}
		}
		g, err := strconv.Atoi(grade)
		if err != nil {
			return nil, &FormatError{Name: name, Line: line, Reason: fmt.Sprintf("grade %q is not an integer", grade)}
		}
		m := out[qid]
		if m == nil {
			m = make(map[string]int)
			out[qid] = m
		}
		if old, ok := m[did]; !ok || g > old {
			m[did] = g
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("eval: read %s: %w", name, err)
	}
	return out, nil
}

// LoadQueries reads a queries JSONL file, gzip-compressed when its name
// ends in ".gz"; see [ReadQueries].
func LoadQueries(path string) ([]Query, error) {
	var out []Query
	err := withFile(path, func(r io.Reader) (err error) {
		out, err = ReadQueries(r, path)
		return err
	})
	return out, err
}

// LoadQrels reads a judgements TSV file, gzip-compressed when its name
// ends in ".gz"; see [ReadQrels].
func LoadQrels(path string) (Qrels, error) {
	var out Qrels
	err := withFile(path, func(r io.Reader) (err error) {
		out, err = ReadQrels(r, path)
		return err
	})
	return out, err
}

// withFile opens path (through gzip for ".gz") and calls fn with it.
func withFile(path string, fn func(io.Reader) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("eval: %s: %w", path, err)
		}
		defer zr.Close()
		r = zr
	}
	return fn(r)
}

// WriteQueries writes queries as JSONL, one object per line, in order.
func WriteQueries(w io.Writer, queries []Query) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, q := range queries {
		if err := enc.Encode(q); err != nil {
			return fmt.Errorf("eval: write queries: %w", err)
		}
	}
	return nil
}

// Judgement is one line of a judgements file.
type Judgement struct {
	QueryID, DocID string
	Grade          int
}

// WriteQrels writes judgements as TSV with the header
// "query_id\tdoc_id\tgrade", in the order given.
func WriteQrels(w io.Writer, judgements []Judgement) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "query_id\tdoc_id\tgrade")
	for _, j := range judgements {
		fmt.Fprintf(bw, "%s\t%s\t%d\n", j.QueryID, j.DocID, j.Grade)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("eval: write qrels: %w", err)
	}
	return nil
}
