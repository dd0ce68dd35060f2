package chunkagg

import "testing"

func TestTruncate(t *testing.T) {
	for _, tt := range []struct {
		in   string
		max  int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"ação", 3, "aç…"},
		{"a b c", 3, "a…"},
		{"abc", 0, ""},
		{"abc", 1, "…"},
	} {
		t.Run(tt.in, func(t *testing.T) {
			if got := Truncate(tt.in, tt.max); got != tt.want {
				t.Errorf("Truncate(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
		})
	}
}
