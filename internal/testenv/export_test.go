package testenv

import (
	"io"
	"testing"
)

// SetAnnounce sends Announce's lines to w and forgets what was announced,
// until the test ends.
func SetAnnounce(t *testing.T, w io.Writer) {
	announceMu.Lock()
	prev := announceTo
	announceTo = func() (io.Writer, func()) { return w, func() {} }
	announced = map[Family]bool{}
	announceMu.Unlock()
	t.Cleanup(func() {
		announceMu.Lock()
		announceTo = prev
		announced = map[Family]bool{}
		announceMu.Unlock()
	})
}
