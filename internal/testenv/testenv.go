// Package testenv lets the project's tests skip for a missing external
// requirement — a PostgreSQL server, a browser, the shared data sets —
// everywhere but in CI, where a skip for a missing requirement is a
// failure: .ci/run sets HYBRIDRAG_REQUIRE_<FAMILY>=1 for every family it
// provides, so "ok" there means the test ran.
//
// Outside CI a skip is easy to miss: `go test work` prints only "ok" for
// a package whose tests pass or skip. So the first skip of each family in
// a test binary also prints one line saying what is skipped and how to
// run it (see Announce).
package testenv

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Family names a kind of external requirement.
type Family string

// Requirement families; HYBRIDRAG_REQUIRE_<family>=1 makes a missing one
// fail the test instead of skipping it.
const (
	// Postgres is a PostgreSQL + pgvector server (HYBRIDRAG_TEST_DATABASE_URL).
	Postgres Family = "POSTGRES"
	// Browser is a headless Chromium for the demo page's test.
	Browser Family = "BROWSER"
	// Data is the public data sets under ../shared/data.
	Data Family = "DATA"
)

// Required reports whether the environment demands family
// (HYBRIDRAG_REQUIRE_<family>=1).
func Required(f Family) bool {
	return os.Getenv("HYBRIDRAG_REQUIRE_"+string(f)) == "1"
}

// Skip skips tb because a requirement of family f is missing — or, when
// the environment requires f, fails it with the same message.
func Skip(tb testing.TB, f Family, format string, args ...any) {
	tb.Helper()
	msg := fmt.Sprintf(format, args...)
	if Required(f) {
		tb.Fatalf("%s (HYBRIDRAG_REQUIRE_%s=1: a missing requirement fails the test)", msg, f)
		return
	}
	Announce(f)
	tb.Skip(msg)
}

// howTo says, per family, what is skipped and how to run it.
var howTo = map[Family]string{
	Postgres: "the PostgreSQL + pgvector tests (HYBRIDRAG_TEST_DATABASE_URL is unset); to run them: " +
		"export HYBRIDRAG_TEST_DATABASE_URL=$(bash .ci/postgres.sh start | tail -n1)",
	Browser: "the browser test of the demo page (no /usr/bin/chromium); to run it: bash .ci/browser.sh (installs Debian's chromium)",
	Data: "the tests on the public data sets (../shared/data is absent beside the repository); " +
		"they run where that directory holds the AGROFIT, IRPF and FaQuAD files",
}

var (
	announceMu sync.Mutex
	announced  = map[Family]bool{}
	// announceTo opens where the line goes; see Announce.
	announceTo = openAnnounce
)

// Announce prints, once per family and test binary, one line naming the
// package and what its missing requirement skips, with how to run it:
//
//	hybridrag: storage/postgres: skipping the PostgreSQL + pgvector tests (HYBRIDRAG_TEST_DATABASE_URL is unset); to run them: export …
//
// `go test` shows a passing package's output only with -v, so the line
// goes to the terminal (/dev/tty) when there is one, where whoever runs
// `go test work` sees it beside the package's "ok"; without a terminal
// (CI, a pipe) it goes to standard error, shown with -v. Skip calls it.
func Announce(f Family) {
	announceMu.Lock()
	defer announceMu.Unlock()
	if announced[f] {
		return
	}
	announced[f] = true
	what, ok := howTo[f]
	if !ok {
		what = "the tests needing " + string(f)
	}
	w, done := announceTo()
	defer done()
	fmt.Fprintf(w, "hybridrag: %s: skipping %s\n", packageDir(), what)
}

// openAnnounce returns the terminal when the process has one, else
// standard error.
func openAnnounce() (io.Writer, func()) {
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		return tty, func() { _ = tty.Close() }
	}
	return os.Stderr, func() {}
}

// packageDir is the test's directory (go test runs a test binary in its
// package's directory) relative to the repository root, the nearest
// directory above it holding go.work; the directory itself when none does.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "?"
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			if rel, err := filepath.Rel(dir, wd); err == nil {
				return filepath.ToSlash(rel)
			}
			return wd
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return wd
		}
		dir = parent
	}
}
