package lexical

import (
	"bufio"
	"os"
	"strings"
	"sync"
	"testing"
)

func TestSoundKey(t *testing.T) {
	for _, pair := range [][2]string{
		{"ferujem", "ferrugem"}, {"cartuxo", "cartucho"}, {"insetisida", "inseticida"}, {"erbisida", "herbicida"},
		{"pesego", "pessego"}, {"kiabo", "quiabo"}, {"fosfyto", "fosfito"}, {"brancu", "branco"},
		{"nasente", "nascente"}, {"paliada", "palhada"},
	} {
		if a, b := soundKey(pair[0]), soundKey(pair[1]); a != b {
			t.Errorf("soundKey(%q) = %q, soundKey(%q) = %q: want equal", pair[0], a, pair[1], b)
		}
	}
	for _, pair := range [][2]string{{"casa", "caca"}, {"soja", "sola"}, {"milho", "mil"}, {"pera", "perca"}} {
		if soundKey(pair[0]) == soundKey(pair[1]) {
			t.Errorf("soundKey(%q) = soundKey(%q) = %q: want different", pair[0], pair[1], soundKey(pair[0]))
		}
	}
}

func TestCorrectSpelledAsItSounds(t *testing.T) {
	b := &VocabularyBuilder{}
	b.Add("ferrugem asiática da soja, fungicida")
	b.Add("lagarta-do-cartucho no milho, inseticida")
	b.Add("ferragem e ferramentas")
	v := b.Build()
	for typed, want := range map[string]string{
		"ferujem":    "ferrugem", // two edits at 7 letters: only by sound
		"cartuxo":    "cartucho", // ditto
		"fungisida":  "fungicida",
		"insetisida": "inseticida",
	} {
		if got, ok := v.Correct(typed, 1); !ok || got != want {
			t.Errorf("Correct(%q) = %q, %v; want %q", typed, got, ok, want)
		}
	}
	// A four-letter token is corrected only by sound: "huva" (a silent h)
	// is "uva", "oido" is not corrected to "oidio" by an edit.
	b.Add("oídio na uva e no milho")
	v = b.Build()
	if got, ok := v.Correct("huva", 1); !ok || got != "uva" {
		t.Errorf("Correct(huva) = %q, %v; want uva", got, ok)
	}
	if got, ok := v.Correct("huvas", 1); !ok || got != "uva" {
		t.Errorf("Correct(huvas) = %q, %v; want uva (a plural spelled as it sounds)", got, ok)
	}
	// The plural of an indexed word is not another word its singular
	// sounds like.
	b.Add("Diquavale 200 SL, dessecante; Dicavale 480 SL, herbicida")
	v = b.Build()
	if got, ok := v.Correct("diquavales", 1); ok && got != "diquavale" {
		t.Errorf("Correct(diquavales) = %q: the plural of diquavale corrected to another word", got)
	}
	if got, ok := v.Correct("oido", 1); ok {
		t.Errorf("Correct(oido) = %q: a four-letter token corrected by an edit", got)
	}
	// A word that sounds like no indexed word is left to the edit
	// distance ("ferragen" is one edit from "ferragem").
	if got, ok := v.Correct("ferragen", 1); !ok || got != "ferragem" {
		t.Errorf("Correct(ferragen) = %q, %v", got, ok)
	}
}

// respell writes w as a customer may spell it by ear: each rule turns one
// spelling of a sound into another.
func respell(w string) []string {
	rules := [][2]string{{"ch", "x"}, {"rr", "r"}, {"ss", "s"}, {"ce", "se"}, {"ci", "si"}, {"ge", "je"}, {"gi", "ji"}, {"qu", "k"}, {"lh", "li"}, {"nh", "ni"}, {"sc", "s"}, {"z", "s"}, {"x", "ch"}, {"s", "z"}}
	var out []string
	for _, r := range rules {
		if i := strings.Index(w, r[0]); i >= 0 {
			out = append(out, w[:i]+r[1]+w[i+len(r[0]):])
		}
	}
	if strings.HasPrefix(w, "h") {
		out = append(out, w[1:])
	}
	return out
}

// TestCorrectRespelledAgrofit respells every word of six letters or more
// found in five AGROFIT products or more by two of respell's rules and
// checks the corrections: by edit distance alone 918 of 1,484 (0.619) came
// back right and 28 wrong; with the sound key 1,460 (0.984) and 9.
func TestCorrectRespelledAgrofit(t *testing.T) {
	f, err := os.Open("../../shared/data/agrofit/catalog.jsonl")
	if err != nil {
		t.Skipf("AGROFIT catalog not found (the shared data sets sit beside the repository): %v", err)
	}
	defer f.Close()
	b := &VocabularyBuilder{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		b.Add(sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	v := b.Build()
	n, right, wrong := 0, 0, 0
	for wi, w := range v.words {
		if v.df[wi] < 5 || len(w) < 6 {
			continue
		}
		for _, m1 := range respell(w) {
			for _, m := range respell(m1) {
				if m == w || m == m1 || len(m) < 5 || v.Known(m) {
					continue
				}
				n++
				switch got, ok := v.Correct(m, 1); {
				case ok && got == w:
					right++
				case ok:
					wrong++
				}
			}
		}
	}
	t.Logf("respelled %d: corrected right %d (%.3f), wrong %d", n, right, float64(right)/float64(n), wrong)
	if n < 1000 || float64(right) < 0.95*float64(n) || float64(wrong) > 0.02*float64(n) {
		t.Errorf("respelled %d: right %d, wrong %d; want at least 95%% right and at most 2%% wrong", n, right, wrong)
	}
}

// TestCorrectBySoundConcurrent builds the sound index from many goroutines
// at once (run with -race).
func TestCorrectBySoundConcurrent(t *testing.T) {
	b := &VocabularyBuilder{}
	b.Add("ferrugem asiática, lagarta-do-cartucho, inseticida")
	v := b.Build()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got, ok := v.Correct("ferujem", 1); !ok || got != "ferrugem" {
				t.Errorf("Correct(ferujem) = %q, %v", got, ok)
			}
		}()
	}
	wg.Wait()
}
