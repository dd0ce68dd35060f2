package load

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hybridrag/hybridrag/internal/testenv"
)

// recordErrors extracts the RecordErrors list of err (nil when none).
func recordErrors(t *testing.T, err error) RecordErrors {
	t.Helper()
	if err == nil {
		return nil
	}
	var res RecordErrors
	if !errors.As(err, &res) {
		t.Fatalf("error %v holds no RecordErrors", err)
	}
	return res
}

// wantRecordError checks that errs holds exactly one error, at file:line,
// wrapping target.
func wantRecordError(t *testing.T, err error, file string, line int, target error) *RecordError {
	t.Helper()
	res := recordErrors(t, err)
	if len(res) != 1 {
		t.Fatalf("got %d record errors, want 1: %v", len(res), err)
	}
	e := res[0]
	if e.File != file || e.Line != line {
		t.Errorf("error at %s:%d, want %s:%d (%v)", e.File, e.Line, file, line, e)
	}
	if !errors.Is(e, target) {
		t.Errorf("error %v does not wrap %v", e, target)
	}
	return e
}

// sharedData returns the path of a file under ../shared/data relative to
// the repository root, skipping the test when it is absent.
func sharedData(t testing.TB, rel string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
	p := filepath.Join(dir, "..", "shared", "data", rel)
	if _, err := os.Stat(p); err != nil {
		testenv.Skip(t, testenv.Data, "shared data not available: %v", err)
	}
	return p
}

func ptr(f float64) *float64 { return &f }

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
