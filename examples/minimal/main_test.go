package main

import (
	"io"
	"os"
	"regexp"
	"testing"
)

// TestMinimalProgram runs the program from the repository root, as its doc says, and
// checks each step's output: what was indexed, relevant hits, and an answer
// that cites them. The README's "From Go" section shows this file's program
// (readme_test.go at the root checks they are the same).
func TestMinimalProgram(t *testing.T) {
	t.Chdir("../..")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		done <- b
	}()
	main()
	os.Stdout = stdout
	w.Close()
	out := string(<-done)

	for _, want := range []string{
		`(?m)^items=\d+ faqs=\d+ documents=\d+ chunks=\d+ embedded=\d+ .*failed=0`,
		`(?m)^prd-\d+ .+ true$`,
		`(?m)^- item prd-\d+ `,
	} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("output has no line matching %s:\n%s", want, out)
		}
	}
}
