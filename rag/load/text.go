package load

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"golang.org/x/text/unicode/norm"
)

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// cleaner repairs text read from a file: input that is not valid UTF-8 is
// decoded as Windows-1252 (see decodeText), NUL bytes (which PostgreSQL
// text cannot hold) are dropped, and, unless disabled, the text is put in
// Unicode NFC and lines of UTF-8 mojibake are repaired (see
// repairMojibake).
type cleaner struct{ keepForm, keepMojibake bool }

// newCleaner returns the cleaner of o.
func newCleaner(o *Options) cleaner {
	return cleaner{keepForm: o.KeepUnicodeForm, keepMojibake: o.KeepMojibake}
}

func (c cleaner) text(s string) string {
	s = decodeText(s, false)
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "")
	}
	if !c.keepForm && !norm.NFC.IsNormalString(s) {
		s = norm.NFC.String(s)
	}
	return s
}

// field cleans and trims a field (ID, name, description, answer, ...).
// The mojibake repair and trimming alternate until neither changes the
// text, so that cleaning a cleaned field changes nothing: the repair runs
// first, since a trailing no-break space may be half of a mangled "à",
// and trimming can make a line repairable.
func (c cleaner) field(s string) string {
	s = c.text(s)
	if c.keepMojibake {
		return strings.TrimSpace(s)
	}
	for {
		r := strings.TrimSpace(repairMojibake(s))
		if r == s {
			return s
		}
		s = r
	}
}

// document cleans a whole document: leading BOMs stripped (after the text
// is cleaned, so cleaning a cleaned document changes nothing), CRLF and
// lone CR turned into LF, and lines of mojibake repaired.
func (c cleaner) document(b []byte) string {
	s := strings.TrimLeft(c.text(string(b)), "\ufeff")
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	if !c.keepMojibake {
		s = repairMojibake(s)
	}
	return s
}

// readAllLimit reads r whole, failing with ErrFileTooLarge past limit bytes.
func readAllLimit(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrFileTooLarge, limit)
	}
	return b, nil
}

// lineReader reads lines of any length up to max bytes, unlike
// bufio.Scanner whose default limit (64 KiB) is too small for JSONL records
// carrying file texts.
type lineReader struct {
	r    *bufio.Reader
	max  int
	line int // number of the line last returned, from 1
	buf  []byte
	// bom is set when the first line began with a UTF-8 byte order mark,
	// which declares the whole input UTF-8.
	bom bool
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its "\n" or "\r\n" (and, on the first
// line, without a UTF-8 BOM). tooLong is set when the line exceeded max
// bytes; its content is then dropped. err is io.EOF at the end, or an I/O
// error.
func (lr *lineReader) next() (line []byte, tooLong bool, err error) {
	lr.buf = lr.buf[:0]
	for {
		frag, e := lr.r.ReadSlice('\n')
		if !tooLong {
			if len(lr.buf)+len(frag) > lr.max+2 { // +2: room for "\r\n"
				tooLong = true
				lr.buf = lr.buf[:0]
			} else {
				lr.buf = append(lr.buf, frag...)
			}
		}
		if e == bufio.ErrBufferFull {
			continue
		}
		if e != nil && e != io.EOF {
			return nil, false, e
		}
		if e == io.EOF && len(lr.buf) == 0 && !tooLong && len(frag) == 0 {
			return nil, false, io.EOF
		}
		break
	}
	lr.line++
	line = bytes.TrimSuffix(lr.buf, []byte{'\n'})
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if lr.line == 1 && bytes.HasPrefix(line, utf8BOM) {
		line, lr.bom = line[len(utf8BOM):], true
	}
	if len(line) > lr.max {
		tooLong, line = true, nil
	}
	return line, tooLong, nil
}
