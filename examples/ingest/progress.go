package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/hybridrag/hybridrag/rag/ingest"
	"github.com/hybridrag/hybridrag/storage"
)

// lineInterval is the least time between two plain progress lines.
const lineInterval = time.Second

// progress shows indexing progress on stderr: a bar on a terminal, plain
// lines elsewhere (logs, CI), or nothing. The Indexer calls update from the
// goroutine running Reindex, so no locking is needed.
type progress struct {
	mode  string // "bar", "lines" or "none"
	w     io.Writer
	total int // owners of every kind
	start time.Time

	bar *progressbar.ProgressBar

	// offset is the number of owners of the kinds finished before the
	// current one; kind and done describe the current one.
	offset int
	kind   storage.OwnerKind
	last   ingest.Progress

	// printed is the event of the last plain line, printed at lastLine.
	printed  ingest.Progress
	lastLine time.Time
}

// newProgress returns the display for mode ("auto" picks a bar when w is a
// terminal, lines otherwise) over total owners.
func newProgress(mode string, w io.Writer, total int) *progress {
	if mode == "auto" {
		mode = "lines"
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			mode = "bar"
		}
	}
	p := &progress{mode: mode, w: w, total: total, start: time.Now()}
	if mode == "bar" && total > 0 {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("indexing"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetWidth(30),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

// update is the Indexer's Progress callback.
func (p *progress) update(ev ingest.Progress) {
	if ev.Kind != p.kind {
		if p.kind != "" {
			p.line(true) // the last line of the previous kind
			p.offset += p.last.Total
		}
		p.kind = ev.Kind
	}
	p.last = ev
	switch p.mode {
	case "bar":
		if p.bar != nil {
			_ = p.bar.Set(min(p.offset+ev.Done, p.total))
			p.bar.Describe(fmt.Sprintf("%-9s embedded=%d", kindLabel(ev.Kind), ev.Embedded))
		}
	case "lines":
		p.line(ev.Done == ev.Total)
	}
}

// line prints a progress line, at most one a second unless force.
func (p *progress) line(force bool) {
	if p.mode != "lines" || p.kind == "" {
		return
	}
	now := time.Now()
	if !force && now.Sub(p.lastLine) < lineInterval {
		return
	}
	if force && !p.lastLine.IsZero() && p.printed == p.last {
		return
	}
	p.lastLine, p.printed = now, p.last
	fmt.Fprintf(p.w, "ingest: %s %d/%d embedded=%d skipped=%d elapsed=%s\n",
		kindLabel(p.kind), p.last.Done, p.last.Total, p.last.Embedded, p.last.Skipped,
		now.Sub(p.start).Round(100*time.Millisecond))
}

// finish ends the display.
func (p *progress) finish() {
	p.line(true)
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

func kindLabel(k storage.OwnerKind) string {
	switch k {
	case storage.KindItem:
		return "items"
	case storage.KindFAQ:
		return "faqs"
	case storage.KindDocument:
		return "documents"
	}
	return string(k)
}
