package testenv_test

import (
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
