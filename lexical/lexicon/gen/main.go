// Command gen builds the general-language word list of package lexicon
// from Hunspell dictionaries: every word of a .dic file with the forms its
// affix flags give (prefixes and suffixes of the .aff file, one level, and
// the cross product of a prefix and a suffix that both allow it),
// normalized with lexical.Normalize, kept when made of letters and
// hyphens, and written sorted, one a line, gzip-compressed.
//
//	npm pack dictionary-pt dictionary-en   # VERO (pt-BR, LGPL-3.0 or MPL-2.0) and SCOWL (en-US, MIT and BSD)
//	go run ./lexical/lexicon/gen -dic pt/index.dic -aff pt/index.aff -dic en/index.dic -aff en/index.aff -out lexical/lexicon/words.txt.gz
//
// With -verbs FILE it also writes the verb rules and verbs of the first
// dictionary (VERO) for internal/morph.VerbForm:
//
//	go run ./lexical/lexicon/gen -lemmas -verbs internal/morph/verbs.txt.gz -dic pt/index.dic -aff pt/index.aff -out /dev/null
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hybridrag/hybridrag/internal/morph"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/lexical/snowball"
)

type rule struct {
	strip, add string
	cond       *regexp.Regexp
}

type affix struct {
	prefix, cross bool
	rules         []rule
}

// prefixes expands prefix rules too (re-, anti-, des-…: ten million
// forms for pt-BR, most of them rare).
var prefixes = flag.Bool("prefixes", false, "expand prefix rules too")

// verbsOut, when set, names a second output: the verb conjugation rules
// of a VERO-style .aff (its lower-case flags but the enclitic ones) and
// the .dic words carrying them, normalized, for internal/morph.VerbForm.
var verbsOut = flag.String("verbs", "", "also write the verb rules and verbs of the first -dic/-aff to this `file`")

// verbFlags are VERO's conjugation flags ("VERBOS - Representados pelo
// alfabeto minúsculo"): a–i, t, u and w; j gives agent nouns
// ("pulverizador") and k–s and v enclitic forms ("mandei-lhe").
const verbFlags = "abcdefghituw"

// lemmasOnly keeps the .dic words without expanding their affixes.
var lemmasOnly = flag.Bool("lemmas", false, "keep the dictionary's words without their affix forms")

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func main() {
	var dics, affs listFlag
	flag.Var(&dics, "dic", "Hunspell .dic `file` (repeat, in the order of -aff)")
	flag.Var(&affs, "aff", "Hunspell .aff `file` of the -dic at the same position")
	out := flag.String("out", "words.txt.gz", "output `file`")
	flag.Bool("stems", false, "write the Snowball stems of the forms instead of the forms")
	flag.Parse()
	if len(dics) == 0 || len(dics) != len(affs) {
		fmt.Fprintln(os.Stderr, "gen: give one -aff per -dic")
		os.Exit(2)
	}
	if *verbsOut != "" {
		if err := writeVerbs(dics[0], affs[0], *verbsOut); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
	stems := flag.Lookup("stems").Value.(flag.Getter).Get().(bool)
	words := map[string]bool{}
	for i := range dics {
		n, err := expand(dics[i], affs[i], words)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "%s: %d entries\n", dics[i], n)
	}
	if stems {
		st := map[string]bool{}
		for w := range words {
			st[snowball.Stem(w)] = true
		}
		words = st
	}
	list := make([]string, 0, len(words))
	for w := range words {
		list = append(list, w)
	}
	slices.Sort(list)
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	bw := bufio.NewWriter(zw)
	for _, w := range list {
		bw.WriteString(w)
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err == nil {
		err = zw.Close()
	}
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "%s: %d words\n", *out, len(list))
}

// expand adds the normalized forms of dic's words to words.
func expand(dicPath, affPath string, words map[string]bool) (int, error) {
	affixes, err := readAff(affPath)
	if err != nil {
		return 0, err
	}
	data, err := os.ReadFile(dicPath)
	if err != nil {
		return 0, err
	}
	lines := strings.Split(string(data), "\n")
	n := 0
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if i == 0 || line == "" {
			continue // the count
		}
		word, flags, _ := strings.Cut(line, "/")
		if j := strings.IndexAny(flags, " \t"); j >= 0 {
			flags = flags[:j]
		}
		if j := strings.IndexAny(word, " \t"); j >= 0 {
			word = word[:j]
		}
		n++
		add(words, word)
		if *lemmasOnly {
			continue
		}
		var sfx, pfx []string
		for _, fl := range flags {
			a, ok := affixes[string(fl)]
			if !ok || a.prefix && !*prefixes {
				continue
			}
			var forms []string
			for _, r := range a.rules {
				if f, ok := apply(word, r, a.prefix); ok {
					forms = append(forms, f)
					add(words, f)
				}
			}
			if a.cross {
				if a.prefix {
					pfx = append(pfx, string(fl))
				} else {
					sfx = append(sfx, string(fl))
				}
			}
		}
		// A prefix and a suffix that both allow it combine.
		for _, p := range pfx {
			if !*prefixes {
				break
			}
			for _, s := range sfx {
				for _, rs := range affixes[s].rules {
					f, ok := apply(word, rs, false)
					if !ok {
						continue
					}
					for _, rp := range affixes[p].rules {
						if g, ok := apply(f, rp, true); ok {
							add(words, g)
						}
					}
				}
			}
		}
	}
	return n, nil
}

// add records w normalized when it is letters and hyphens.
func add(words map[string]bool, w string) {
	n := lexical.Normalize(w)
	if n == "" || strings.IndexFunc(n, func(r rune) bool { return !(r >= 'a' && r <= 'z') }) >= 0 {
		return
	}
	words[n] = true
}

// apply returns word with the rule's affix, when its condition holds.
func apply(word string, r rule, prefix bool) (string, bool) {
	if !r.cond.MatchString(word) {
		return "", false
	}
	if prefix {
		if !strings.HasPrefix(word, r.strip) {
			return "", false
		}
		return r.add + word[len(r.strip):], true
	}
	if !strings.HasSuffix(word, r.strip) {
		return "", false
	}
	return word[:len(word)-len(r.strip)] + r.add, true
}

// readAff reads the PFX and SFX rules of an .aff file by flag.
func readAff(path string) (map[string]*affix, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]*affix{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || (f[0] != "PFX" && f[0] != "SFX") {
			continue
		}
		a, ok := out[f[1]]
		if !ok {
			// The header: PFX flag cross count.
			if _, err := strconv.Atoi(f[3]); err != nil {
				continue
			}
			out[f[1]] = &affix{prefix: f[0] == "PFX", cross: f[2] == "Y"}
			continue
		}
		if len(f) < 5 {
			continue
		}
		strip, add, cond := f[2], f[3], f[4]
		if strip == "0" {
			strip = ""
		}
		if i := strings.IndexByte(add, '/'); i >= 0 {
			add = add[:i] // continuation flags: one level only
		}
		if add == "0" {
			add = ""
		}
		expr := cond + "$"
		if a.prefix {
			expr = "^" + cond
		}
		if cond == "." {
			expr = "."
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			continue
		}
		a.rules = append(a.rules, rule{strip: strip, add: add, cond: re})
	}
	return out, nil
}

// writeVerbs writes out, gzip-compressed, the suffix rules of verbFlags as
// "SFX flag strip add condition" lines, then every .dic word holding one
// of those flags as "word/flags" (the verb flags only), all normalized with
// lexical.Normalize ("0" for an empty strip or add).
func writeVerbs(dicPath, affPath, out string) error {
	aff, err := os.ReadFile(affPath)
	if err != nil {
		return err
	}
	dic, err := os.ReadFile(dicPath)
	if err != nil {
		return err
	}
	var lines []string
	for _, line := range strings.Split(string(aff), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || f[0] != "SFX" || !strings.Contains(verbFlags, f[1]) || len(f[1]) != 1 {
			continue
		}
		add, _, _ := strings.Cut(f[3], "/")
		lines = append(lines, strings.Join([]string{"SFX", f[1], norm0(f[2]), norm0(add), normCond(f[4])}, " "))
	}
	rules := len(lines)
	affixes, err := readAff(affPath)
	if err != nil {
		return err
	}
	for i, line := range strings.Split(string(dic), "\n") {
		word, flags, ok := strings.Cut(strings.TrimSpace(line), "/")
		if i == 0 || !ok {
			continue
		}
		flags, _, _ = strings.Cut(flags, " ")
		var vf []rune
		for _, r := range flags {
			if strings.ContainsRune(verbFlags, r) {
				vf = append(vf, r)
			}
		}
		w := lexical.Normalize(word)
		if len(vf) == 0 || w == "" || strings.ContainsFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) {
			continue
		}
		lines = append(lines, w+"/"+string(vf))
	}
	nverbs := len(lines) - rules
	lines = append(lines, verbHomographs(string(dic), affixes)...)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	bw := bufio.NewWriter(zw)
	for _, l := range lines {
		bw.WriteString(l)
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%s: %d rules, %d verbs, %d homographs\n", out, rules, nverbs, len(lines)-rules-nverbs)
	return f.Close()
}

// norm0 normalizes an affix ("0" stays "0").
func norm0(s string) string {
	if s == "0" {
		return s
	}
	return lexical.Normalize(s)
}

// normCond normalizes a Hunspell condition ("[^aáâ]r" → "[^aaa]r").
func normCond(c string) string {
	var b strings.Builder
	for _, r := range c {
		switch r {
		case '[', ']', '^', '.':
			b.WriteRune(r)
		default:
			b.WriteString(lexical.Normalize(string(r)))
		}
	}
	return b.String()
}

// verbHomographs returns, as "!word" lines, the forms the verb rules give
// (participles and the present singular aside, which morph.VerbForm
// refuses anyway) that the dictionary also gives as another word or by
// another rule: nouns and adjectives spelled like a verb form ("areia",
// "ataque", "cheque").
func verbHomographs(dic string, affixes map[string]*affix) []string {
	verb, other := map[string]bool{}, map[string]bool{}
	for i, line := range strings.Split(dic, "\n") {
		word, flags, _ := strings.Cut(strings.TrimSpace(line), "/")
		flags, _, _ = strings.Cut(flags, " ")
		if i == 0 || word == "" {
			continue
		}
		lemma := lexical.Normalize(word)
		if strings.ContainsAny(flags, verbFlags) {
			add(verb, word)
		} else {
			add(other, word)
		}
		for _, fl := range flags {
			a, ok := affixes[string(fl)]
			if !ok || a.prefix {
				continue
			}
			isVerb := strings.ContainsRune(verbFlags, fl)
			for _, r := range a.rules {
				f, ok := apply(word, r, false)
				if !ok {
					continue
				}
				n := lexical.Normalize(f)
				switch {
				case !isVerb:
					add(other, f)
				case !morph.Participle(n) && !morph.PresentSingular(lemma, n):
					add(verb, f)
				}
			}
		}
	}
	var out []string
	for w := range verb {
		if other[w] {
			out = append(out, "!"+w)
		}
	}
	slices.Sort(out)
	return out
}
