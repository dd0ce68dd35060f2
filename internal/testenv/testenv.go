// Package testenv lets the project's tests skip for a missing external
// requirement — a PostgreSQL server, a browser, the shared data sets —
// everywhere but in CI, where a skip for a missing requirement is a
// failure: .ci/run sets HYBRIDRAG_REQUIRE_<FAMILY>=1 for every family it
// provides, so "ok" there means the test ran.
package testenv

import (
	"fmt"
	"os"
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
	tb.Skip(msg)
}
