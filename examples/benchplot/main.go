package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "benchplot:", err)
		os.Exit(1)
	}
}

// run executes one subcommand: render or record.
func run(args []string, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: benchplot render|record [flags] (see go doc ./examples/benchplot)")
	}
	fontsReady()
	switch args[0] {
	case "render":
		return runRender(args[1:], stderr)
	case "record":
		return runRecord(args[1:], stderr)
	}
	return fmt.Errorf("unknown command %q: render or record", args[0])
}

// runRender reads the data files of -dir and writes the figures into -out.
func runRender(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "docs/bench", "`directory` of the data files")
	out := fs.String("out", "", "`directory` for the SVG figures (default: -dir)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		*out = *dir
	}
	r, err := readResults(*dir)
	if err != nil {
		return err
	}
	if err := render(r, *out); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "rendered %s, %s, %s into %s\n", latencySVG, qualitySVG, chatSVG, *out)
	return nil
}

// pairs collects repeated NAME=FILE flags.
type pairs [][2]string

func (p *pairs) String() string { return fmt.Sprint(*p) }

func (p *pairs) Set(s string) error {
	name, file, ok := strings.Cut(s, "=")
	if !ok || name == "" || file == "" {
		return fmt.Errorf("%q is not NAME=FILE", s)
	}
	*p = append(*p, [2]string{name, file})
	return nil
}

// files collects repeated FILE flags.
type files []string

func (f *files) String() string { return fmt.Sprint(*f) }

func (f *files) Set(s string) error { *f = append(*f, s); return nil }

// runRecord merges new results into the data files of -dir: latency rows
// replace the rows of the same series and size, quality and chat rows all
// the rows of their set. Rows no input mentions are kept as they are.
func runRecord(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "docs/bench", "`directory` of the data files")
	date := fs.String("date", time.Now().UTC().Format("2006-01-02"), "`date` of the runs")
	source := fs.String("source", "", "what ran, e.g. the commit (written in every new row)")
	var bench files
	var quality, chat pairs
	fs.Var(&bench, "bench", "`file` of go test -bench output (repeatable); FILE.cmd, if present, holds its command")
	fs.Var(&quality, "quality", "`SET=FILE`: examples/eval -json output for data set SET (agrofit, irpf, faquad; repeatable)")
	fs.Var(&chat, "chat", "`SET=FILE`: examples/eval -chat -json output for evaluation set SET (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	r, err := readResults(*dir)
	if err != nil {
		return err
	}
	for _, file := range bench {
		cmd, err := commandOf(file)
		if err != nil {
			return err
		}
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		rows, err := parseBench(f, *date, *source, cmd)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		for _, row := range rows {
			r.Latency = replaceLatency(r.Latency, row)
		}
		fmt.Fprintf(stderr, "%s: %d latency rows\n", file, len(rows))
	}
	for _, q := range quality {
		cmd, err := commandOf(q[1])
		if err != nil {
			return err
		}
		f, err := os.Open(q[1])
		if err != nil {
			return err
		}
		rows, err := parseQuality(f, q[0], *date, *source, cmd)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", q[1], err)
		}
		kept := r.Quality[:0]
		for _, row := range r.Quality {
			if row.Set != q[0] {
				kept = append(kept, row)
			}
		}
		r.Quality = append(kept, rows...)
		fmt.Fprintf(stderr, "%s: %d quality rows for %s\n", q[1], len(rows), q[0])
	}
	for _, c := range chat {
		cmd, err := commandOf(c[1])
		if err != nil {
			return err
		}
		f, err := os.Open(c[1])
		if err != nil {
			return err
		}
		rows, err := parseChat(f, c[0], *date, *source, cmd)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", c[1], err)
		}
		kept := r.Chat[:0]
		for _, row := range r.Chat {
			if row.Set != c[0] {
				kept = append(kept, row)
			}
		}
		r.Chat = append(kept, rows...)
		fmt.Fprintf(stderr, "%s: %d chat rows for %s\n", c[1], len(rows), c[0])
	}
	return writeResults(*dir, r)
}

// replaceLatency puts row in rows in place of the row of the same series
// and size, or adds it.
func replaceLatency(rows []latencyRow, row latencyRow) []latencyRow {
	for i := range rows {
		if rows[i].Series == row.Series && rows[i].Items == row.Items {
			rows[i] = row
			return rows
		}
	}
	return append(rows, row)
}

// commandOf returns the command recorded beside file (FILE.cmd), or "".
func commandOf(file string) (string, error) {
	b, err := os.ReadFile(file + ".cmd")
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	return strings.TrimSpace(string(b)), err
}
