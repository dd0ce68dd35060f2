package testenv_test

import (
	"io"
	"strings"
	"testing"

	"github.com/hybridrag/hybridrag/internal/testenv"
)

// fakeTB records what Skip does.
type fakeTB struct {
	testing.TB
	skipped, failed bool
}

func (f *fakeTB) Helper()               {}
func (f *fakeTB) Skip(...any)           { f.skipped = true }
func (f *fakeTB) Fatalf(string, ...any) { f.failed = true }

func TestSkip(t *testing.T) {
	t.Setenv("HYBRIDRAG_REQUIRE_DATA", "")
	testenv.SetAnnounce(t, io.Discard)
	tb := &fakeTB{}
	testenv.Skip(tb, testenv.Data, "no data at %s", "x")
	if !tb.skipped || tb.failed {
		t.Errorf("without the requirement: skipped %v failed %v, want a skip", tb.skipped, tb.failed)
	}
	t.Setenv("HYBRIDRAG_REQUIRE_DATA", "1")
	tb = &fakeTB{}
	testenv.Skip(tb, testenv.Data, "no data at %s", "x")
	if tb.skipped || !tb.failed {
		t.Errorf("with HYBRIDRAG_REQUIRE_DATA=1: skipped %v failed %v, want a failure", tb.skipped, tb.failed)
	}
}

// The first skip of a family prints one line naming the package, what is
// skipped and how to run it; later skips of the family print nothing.
func TestSkipAnnouncesOnce(t *testing.T) {
	t.Setenv("HYBRIDRAG_REQUIRE_POSTGRES", "")
	t.Setenv("HYBRIDRAG_REQUIRE_BROWSER", "")
	var out strings.Builder
	testenv.SetAnnounce(t, &out)
	for range 3 {
		testenv.Skip(&fakeTB{}, testenv.Postgres, "no DSN")
	}
	testenv.Skip(&fakeTB{}, testenv.Browser, "no chromium")
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want one per family:\n%s", len(lines), out.String())
	}
	for i, want := range []string{"bash .ci/postgres.sh start", "bash .ci/browser.sh"} {
		if !strings.HasPrefix(lines[i], "hybridrag: internal/testenv: skipping ") || !strings.Contains(lines[i], want) {
			t.Errorf("line %d = %q, want the package and %q", i, lines[i], want)
		}
	}
}
