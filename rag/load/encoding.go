package load

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// win1252 is Windows-1252 as the WHATWG Encoding Standard decodes it: the
// bytes 0x80–0x9F are the typographic characters Windows adds to Latin-1
// (€, curly quotes, dashes, Œ, Š, ...), and the five bytes Windows-1252
// leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) become the C1 controls of
// the same value, as in ISO-8859-1, so that no byte is lost. The bytes
// 0xA0–0xFF are ISO-8859-1 (Latin-1) itself.
var win1252 = func() (t [256]rune) {
	for i := range t {
		r := charmap.Windows1252.DecodeByte(byte(i))
		if r == utf8.RuneError {
			r = rune(i)
		}
		t[i] = r
	}
	return t
}()

// win1252Bytes maps every non-ASCII rune of win1252 back to its byte.
var win1252Bytes = func() map[rune]byte {
	m := make(map[rune]byte, 128)
	for i := 0x80; i < 0x100; i++ {
		m[win1252[i]] = byte(i)
	}
	return m
}()

// decodeWindows1252 returns b read as Windows-1252 (see win1252).
func decodeWindows1252(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/8)
	for _, c := range b {
		if c < utf8.RuneSelf {
			sb.WriteByte(c)
		} else {
			sb.WriteRune(win1252[c])
		}
	}
	return sb.String()
}

// decodeText returns s as valid UTF-8. Valid UTF-8 is returned as is. Input
// declared UTF-8 by a leading byte order mark (declared, or s starting with
// U+FEFF) keeps its encoding, with each invalid byte sequence replaced by
// U+FFFD. Anything else that is not valid UTF-8 is decoded as Windows-1252:
// files saved by Excel, Notepad or older systems in Latin-1 or
// Windows-1252 (what "ANSI" means on a Brazilian Windows) then keep their
// accents instead of turning them into U+FFFD.
func decodeText(s string, declared bool) string {
	if utf8.ValidString(s) {
		return s
	}
	if declared || strings.HasPrefix(s, "\ufeff") {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	return decodeWindows1252([]byte(s))
}

// decodeBytes is decodeText for bytes; valid input is returned unchanged.
func decodeBytes(b []byte, declared bool) []byte {
	if utf8.Valid(b) {
		return b
	}
	return []byte(decodeText(string(b), declared))
}

// repairMojibake repairs each line of s that is UTF-8 text once decoded as
// Windows-1252 or Latin-1 ("cafÃ©", "aÃ§Ãºcar", "â€“" for "café",
// "açúcar", "–"), the usual damage of a file exported as Windows-1252
// and read as UTF-8 somewhere along the way, and repeats while a line
// still reads that way (text mangled twice is repaired twice), so that
// repairing a repaired text changes nothing. It is conservative: a line is
// repaired only when the whole line round-trips, that is when every
// character of the line is ASCII or Windows-1252, the line's Windows-1252
// bytes are valid UTF-8, and every character those bytes spell is itself a
// printable Windows-1252 character (a Portuguese letter, "º", "€", a
// typographic quote or dash, ...). A line mixing "café" and "cafÃ©", or
// whose bytes would spell anything else, is left alone.
func repairMojibake(s string) string {
	// Every repairable line holds "Â".."ô", whose UTF-8 starts with 0xC3.
	if strings.IndexByte(s, 0xC3) < 0 {
		return s
	}
	var sb strings.Builder
	changed := false
	rest := s
	for {
		line, tail, more := strings.Cut(rest, "\n")
		fixed := line
		for {
			r, ok := repairLine(fixed)
			if !ok {
				break
			}
			fixed = r
		}
		if fixed != line && !changed {
			changed = true
			sb.Grow(len(s))
			sb.WriteString(s[:len(s)-len(rest)])
		}
		if changed {
			sb.WriteString(fixed)
			if more {
				sb.WriteByte('\n')
			}
		}
		if !more {
			break
		}
		rest = tail
	}
	if !changed {
		return s
	}
	return sb.String()
}

// repairLine undoes one round of UTF-8-read-as-Windows-1252 on line, if the
// whole line round-trips (see repairMojibake).
func repairLine(line string) (string, bool) {
	if strings.IndexByte(line, 0xC3) < 0 {
		return line, false
	}
	b := make([]byte, 0, len(line))
	need := 0 // continuation bytes the UTF-8 sequence being spelled still needs
	for _, r := range line {
		c := byte(r)
		if r >= utf8.RuneSelf {
			var ok bool
			if c, ok = win1252Bytes[r]; !ok {
				return line, false
			}
		}
		// Give up at the first byte that cannot continue valid UTF-8, so
		// that proper Portuguese ("é" then a letter) costs little.
		switch {
		case need > 0:
			if c&0xC0 != 0x80 {
				return line, false
			}
			need--
		case c < utf8.RuneSelf:
		case c >= 0xC2 && c <= 0xDF:
			need = 1
		case c >= 0xE0 && c <= 0xEF:
			need = 2
		case c >= 0xF0 && c <= 0xF4:
			need = 3
		default:
			return line, false
		}
		b = append(b, c)
	}
	if need > 0 || !utf8.Valid(b) {
		return line, false
	}
	for _, r := range string(b) {
		if r < utf8.RuneSelf {
			continue
		}
		if _, ok := win1252Bytes[r]; !ok || r < 0xA0 {
			return line, false
		}
	}
	return string(b), true
}
