package hybridrag_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readmeProgram returns the first ```go block under the heading named
// heading in the Markdown text md, before the next heading of any level.
func readmeProgram(md, heading string) (string, error) {
	lines := strings.Split(md, "\n")
	start := -1
	for i, l := range lines {
		if strings.TrimSpace(strings.TrimLeft(l, "#")) == heading && strings.HasPrefix(l, "#") {
			start = i + 1
			break
		}
	}
	if start < 0 {
		return "", errors.New("no heading " + heading)
	}
	var (
		code []string
		in   bool
	)
	for _, l := range lines[start:] {
		switch {
		case !in && strings.HasPrefix(l, "#"):
			return "", errors.New("no ```go block under " + heading)
		case !in && strings.TrimSpace(l) == "```go":
			in = true
		case in && strings.TrimSpace(l) == "```":
			return strings.Join(code, "\n") + "\n", nil
		case in:
			code = append(code, l)
		}
	}
	return "", errors.New("unterminated ```go block under " + heading)
}

// TestReadmeFromGo checks that the README's "From Go" program is
// examples/minimal, builds it against this checkout and runs it from the
// repository root: a throwaway module in a
// temporary directory requires the library, replaced by the repository
// root, with the library's go.sum. It works offline (GOPROXY=off): every
// dependency comes from the module cache the library's own build filled.
func TestReadmeFromGo(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not on PATH; cannot build the README program")
	}
	md, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := readmeProgram(string(md), "From Go")
	if err != nil {
		t.Fatalf("README.md: %v", err)
	}
	minimal, err := os.ReadFile(filepath.Join("examples", "minimal", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	if src != string(minimal) {
		t.Errorf("README.md: the From Go block is not examples/minimal/main.go; copy the file into the README")
	}
	if !strings.Contains(src, "\npackage main\n") || !strings.Contains(src, "\nfunc main() {") {
		t.Fatalf("README.md: the From Go block is not a complete program (package main with func main):\n%s", src)
	}
	if formatted, err := format.Source([]byte(src)); err != nil {
		t.Fatalf("README.md: the From Go block does not parse: %v\n%s", err, src)
	} else if !bytes.Equal(formatted, []byte(src)) {
		t.Errorf("README.md: the From Go block is not gofmt-formatted; gofmt gives:\n%s", formatted)
	}

	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module readmecheck\n\ngo 1.25.0\n\n" +
		"require github.com/hybridrag/hybridrag v0.0.0\n\n" +
		"replace github.com/hybridrag/hybridrag => " + root + "\n"
	for name, data := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "main.go": []byte(src)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", filepath.Join(dir, "readme"), ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GOWORK=off",       // the temporary module is not in go.work
		"GOFLAGS=-mod=mod", // let go build record the library's requirements in go.mod
		"GOPROXY=off",      // never download: the module cache has every dependency
		"GOSUMDB=off",      // the checksums are the library's go.sum
		"GOTOOLCHAIN=local",
	)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's From Go program does not build (%v):\n%s\n--- main.go ---\n%s", err, out, numbered(src))
	}
	built := time.Since(start)

	// The program reads testdata/ from the repository root, as the README
	// says to run it; it must succeed there.
	run := exec.CommandContext(ctx, filepath.Join(dir, "readme"))
	run.Dir = root
	out, err = run.CombinedOutput()
	if err != nil {
		t.Fatalf("the README's From Go program fails (%v):\n%s", err, out)
	}
	t.Logf("built the README program in %v, ran it in %v", built.Round(time.Millisecond), (time.Since(start) - built).Round(time.Millisecond))
}

// numbered prefixes each line of src with its number, to match compiler
// errors.
func numbered(src string) string {
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimSuffix(src, "\n"), "\n") {
		fmt.Fprintf(&b, "%3d  %s\n", i+1, l)
	}
	return b.String()
}
