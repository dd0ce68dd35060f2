package main

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/examples/internal/eval"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/storage"
)

// Query types.
const (
	typeClassCrop    = "class_crop"
	typePestCrop     = "pest_crop"
	typeIngredient   = "ingredient"
	typeCompanyClass = "company_class"
	typeColloquial   = "colloquial"
	typeNoAccent     = "no_accent"
	typeTypo         = "typo"
)

// counts are how many queries of each type are generated, in this order.
var counts = []struct {
	typ string
	n   int
}{
	{typeClassCrop, 60},
	{typePestCrop, 50},
	{typeIngredient, 40},
	{typeCompanyClass, 30},
	{typeColloquial, 50},
	{typeNoAccent, 40},
	{typeTypo, 40},
}

// minRelevant is the least number of grade-2 items a query must have.
const minRelevant = 3

// Grades of the judgements.
const (
	gradeExact   = 2 // what was asked: class and crop, pest and crop, ...
	gradePartial = 1 // registered for "Todas as culturas" instead of the crop
)

// allCrops is the registry's tag for products registered for every crop.
const allCrops = "todas as culturas"

// item is what the generator knows about a registry item.
type item struct {
	id           string
	classes      map[string]bool // class families: "fungicida", ...
	crops        map[string]bool // normalized tags
	manufacturer string          // normalized
	ingredients  string          // normalized
	pests        []pest
}

// pest is one biological target of an item.
type pest struct {
	common, sci string // normalized
	display     string // common name in lower case, with its accents
}

var (
	targetsRE = regexp.MustCompile(`(?m)Alvos biológicos \(pragas, doenças e plantas daninhas\): (.*?)\.?$`)
	targetRE  = regexp.MustCompile(`^(.*?) \((.*)\)$`)
)

// parseItem extracts classes, crops, manufacturer, ingredients and pests.
func parseItem(it *storage.CatalogItem) item {
	x := item{id: it.ID, classes: map[string]bool{}, crops: map[string]bool{}}
	for _, c := range strings.Split(it.Category, "/") {
		if f := strings.Fields(lexical.Normalize(c)); len(f) > 0 {
			x.classes[f[0]] = true
		}
	}
	for _, t := range it.Tags {
		x.crops[lexical.Normalize(t)] = true
	}
	x.manufacturer = lexical.Normalize(it.Manufacturer)
	x.ingredients = lexical.Normalize(it.Metadata["ingredientes"])
	for _, f := range it.Files {
		for _, m := range targetsRE.FindAllStringSubmatch(strings.ReplaceAll(f.Text, "\r", ""), -1) {
			for _, t := range strings.Split(m[1], "; ") {
				t = strings.TrimSpace(t)
				if t == "" {
					continue
				}
				p := pest{common: lexical.Normalize(t), display: strings.ToLower(t)}
				if mm := targetRE.FindStringSubmatch(t); mm != nil {
					p = pest{common: lexical.Normalize(mm[1]), sci: lexical.Normalize(mm[2]), display: strings.ToLower(mm[1])}
				}
				x.pests = append(x.pests, p)
			}
		}
	}
	return x
}

// hasCrop reports a crop tag equal to tag or starting with it as a word
// ("Arroz irrigado" for "Arroz", "Soja OGM" for "Soja").
func (x *item) hasCrop(tag string) bool {
	tag = lexical.Normalize(tag)
	for c := range x.crops {
		if c == tag || strings.HasPrefix(c, tag+" ") {
			return true
		}
	}
	return false
}

func (x *item) targets(common, sci string) bool {
	for _, p := range x.pests {
		if (sci != "" && p.sci == sci) || (common != "" && p.common == common) {
			return true
		}
	}
	return false
}

// judge returns the judgements of a query: grade 2 where exact holds,
// grade 1 where partial holds (and exact does not), sorted by ID.
func judge(items []item, exact, partial func(*item) bool) map[string]int {
	out := map[string]int{}
	for i := range items {
		x := &items[i]
		switch {
		case exact(x):
			out[x.id] = gradeExact
		case partial != nil && partial(x):
			out[x.id] = gradePartial
		}
	}
	return out
}

func countGrade(j map[string]int, g int) int {
	n := 0
	for _, v := range j {
		if v == g {
			n++
		}
	}
	return n
}

// classCrop is a (class, crop) question with its judgements.
type classCrop struct {
	class  string
	crop   crop
	judged map[string]int
}

// judgeClassCrop: grade 2 for the class registered for the crop, grade 1
// for the class registered for "Todas as culturas".
func judgeClassCrop(items []item, class string, c crop) map[string]int {
	return judge(items,
		func(x *item) bool { return x.classes[class] && x.hasCrop(c.tag) },
		func(x *item) bool { return x.classes[class] && x.crops[allCrops] })
}

// generator builds the query set.
type generator struct {
	items   []item
	rng     *rand.Rand
	queries []eval.Query
	qrels   []eval.Judgement
	texts   map[string]bool
	perType map[string]int
	// Memoized per-crop pest names and ingredient base names.
	pestNames   map[string]map[string]map[string]int
	ingredients map[string]int
}

func newGenerator(items []storage.CatalogItem, seed uint64) *generator {
	g := &generator{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), texts: map[string]bool{}, perType: map[string]int{}}
	for i := range items {
		if !items[i].Status.Active() {
			continue // inactive items are never relevant
		}
		g.items = append(g.items, parseItem(&items[i]))
	}
	return g
}

// add records a query unless its text was already generated; it reports
// whether it was added.
func (g *generator) add(typ, text string, judged map[string]int) bool {
	text = strings.Join(strings.Fields(text), " ")
	key := lexical.Normalize(text)
	if g.texts[key] || countGrade(judged, gradeExact) < minRelevant {
		return false
	}
	g.texts[key] = true
	g.perType[typ]++
	id := fmt.Sprintf("agro-%s-%03d", strings.ReplaceAll(typ, "_", ""), g.perType[typ])
	g.queries = append(g.queries, eval.Query{ID: id, Text: text, Type: typ, Split: eval.SplitOf(id)})
	docs := make([]string, 0, len(judged))
	for d := range judged {
		docs = append(docs, d)
	}
	slices.SortFunc(docs, func(a, b string) int {
		return cmp.Or(cmp.Compare(judged[b], judged[a]), cmp.Compare(a, b))
	})
	for _, d := range docs {
		g.qrels = append(g.qrels, eval.Judgement{QueryID: id, DocID: d, Grade: judged[d]})
	}
	return true
}

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

// pickWeighted picks xs[i] with probability weight(i) / Σ weight.
func pickWeighted[T any](rng *rand.Rand, xs []T, weight func(int) float64) T {
	var total float64
	for i := range xs {
		total += weight(i)
	}
	r := rng.Float64() * total
	for i := range xs {
		if r -= weight(i); r < 0 {
			return xs[i]
		}
	}
	return xs[len(xs)-1]
}

// classWeight is how often growers ask for a class, relative to the rare
// ones: the three big classes dominate store questions.
func classWeight(class string) float64 {
	switch class {
	case "fungicida", "herbicida", "inseticida":
		return 4
	case "acaricida":
		return 2
	}
	return 1
}

// pickPair picks a (class, crop) pair, the class by classWeight, the crop
// by the square root of its number of exact items (popular crops first).
func pickPair(rng *rand.Rand, pairs []classCrop) classCrop {
	return pickWeighted(rng, pairs, func(i int) float64 {
		n := 0
		for _, g := range pairs[i].judged {
			if g == gradeExact {
				n++
			}
		}
		return classWeight(pairs[i].class) * math.Sqrt(float64(n))
	})
}

// prep returns "em" contracted with the article: na, no, nas, nos.
func prep(art string) string { return "n" + art }

// run generates every type in order.
func (g *generator) run() {
	pairs := g.classCropPairs()
	for _, c := range counts {
		gen := map[string]func() (string, map[string]int){
			typeClassCrop:    func() (string, map[string]int) { return g.classCropQuery(pairs) },
			typePestCrop:     g.pestCropQuery,
			typeIngredient:   g.ingredientQuery,
			typeCompanyClass: g.companyClassQuery,
			typeColloquial:   func() (string, map[string]int) { return g.colloquialQuery(pairs) },
			typeNoAccent:     func() (string, map[string]int) { return g.noAccentQuery(pairs) },
			typeTypo:         func() (string, map[string]int) { return g.typoQuery(pairs) },
		}[c.typ]
		for tries := 0; g.perType[c.typ] < c.n && tries < 200*c.n; tries++ {
			if text, judged := gen(); text != "" {
				g.add(c.typ, text, judged)
			}
		}
	}
}

// classCropPairs returns every (class, crop) with at least minRelevant
// exact items, in a fixed order.
func (g *generator) classCropPairs() []classCrop {
	var out []classCrop
	for _, cl := range classes {
		for _, c := range crops {
			j := judgeClassCrop(g.items, cl.name, c)
			if countGrade(j, gradeExact) >= minRelevant {
				out = append(out, classCrop{class: cl.name, crop: c, judged: j})
			}
		}
	}
	return out
}

func (g *generator) classCropQuery(pairs []classCrop) (string, map[string]int) {
	p := pickPair(g.rng, pairs)
	templates := []string{
		"%[1]s para %[2]s", "%[1]s %[2]s", "%[1]ss para %[2]s", "%[1]s registrado para %[2]s",
		"qual %[1]s usar %[3]s %[2]s", "%[1]ss %[3]s %[2]s",
	}
	return fmt.Sprintf(pick(g.rng, templates), p.class, p.crop.name, prep(p.crop.art)), p.judged
}

// cropPests returns, for the items registered for c, the count of each
// common name per pest group (scientific name, or common name when there
// is none), memoized.
func (g *generator) cropPests(c crop) map[string]map[string]int {
	names := map[string]map[string]int{}
	for i := range g.items {
		x := &g.items[i]
		if !x.hasCrop(c.tag) {
			continue
		}
		for _, p := range x.pests {
			k := cmp.Or(p.sci, p.common)
			if names[k] == nil {
				names[k] = map[string]int{}
			}
			names[k][p.display]++
		}
	}
	if g.pestNames == nil {
		g.pestNames = map[string]map[string]map[string]int{}
	}
	g.pestNames[c.tag] = names
	return names
}

// pestCropQuery asks for a pest on a crop: grade 2 for items targeting the
// pest (same scientific name, or same common name) registered for the
// crop, grade 1 for items targeting it registered for all crops.
func (g *generator) pestCropQuery() (string, map[string]int) {
	c := pick(g.rng, crops)
	// Pests targeted by at least one item registered for the crop, by
	// scientific name (or common name when there is none).
	names := g.pestNames[c.tag] // group → common name → count
	if names == nil {
		names = g.cropPests(c)
	}
	groups := make([]string, 0, len(names))
	for k := range names {
		groups = append(groups, k)
	}
	if len(groups) == 0 {
		return "", nil
	}
	slices.Sort(groups)
	total := func(k string) int {
		n := 0
		for _, c := range names[k] {
			n += c
		}
		return n
	}
	sci := pickWeighted(g.rng, groups, func(i int) float64 { return float64(total(groups[i])) })
	display, best := "", 0
	for n, cnt := range names[sci] {
		if cnt > best || (cnt == best && n < display) {
			display, best = n, cnt
		}
	}
	common := lexical.Normalize(display)
	judged := judge(g.items,
		func(x *item) bool { return x.targets(common, sci) && x.hasCrop(c.tag) },
		func(x *item) bool { return x.targets(common, sci) && x.crops[allCrops] })
	// The query names the pest as a grower would: the registry's common
	// name, a popular alias, or (sometimes) the scientific name.
	name := display
	if alias, ok := pestAliases[sci]; ok && g.rng.IntN(2) == 0 {
		name = alias
	} else if sci != common && g.rng.IntN(10) == 0 {
		name = sci
	}
	if utf8.RuneCountInString(name) < 4 {
		return "", nil
	}
	templates := []string{"%[1]s %[3]s %[2]s", "como controlar %[1]s %[3]s %[2]s", "%[1]s em %[2]s", "produto para %[1]s %[2]s"}
	return fmt.Sprintf(pick(g.rng, templates), name, c.name, prep(c.art)), judged
}

func (g *generator) ingredientQuery() (string, map[string]int) {
	// Ingredient base names: the name before a comma, " - " or "-sal".
	bases := g.ingredients
	if bases == nil {
		bases = map[string]int{}
		for i := range g.items {
			for _, ing := range strings.Split(g.items[i].ingredients, " + ") {
				b := ingredientBase(ing)
				if utf8.RuneCountInString(b) >= 6 && !strings.HasSuffix(b, " de") && isLetter(b[0]) {
					bases[b]++
				}
			}
		}
		g.ingredients = bases
	}
	list := make([]string, 0, len(bases))
	for b := range bases {
		list = append(list, b)
	}
	slices.Sort(list)
	b := pickWeighted(g.rng, list, func(i int) float64 { return math.Sqrt(float64(bases[list[i]])) })
	judged := judge(g.items, func(x *item) bool { return containsWordPrefix(x.ingredients, b) }, nil)
	templates := []string{"%s", "%s", "produto com %s", "qual produto tem %s"}
	return fmt.Sprintf(pick(g.rng, templates), b), judged
}

// ingredientBase cuts an ingredient to its base name:
// "glifosato-sal de isopropilamina (...)" → "glifosato".
func ingredientBase(s string) string {
	s = strings.TrimSpace(s)
	for _, sep := range []string{" (", ",", " - ", "-sal", "*", " cepa", " isolado", " linhagem"} {
		if i := strings.Index(s, sep); i >= 0 {
			s = s[:i]
		}
	}
	return strings.TrimSpace(s)
}

// containsWordPrefix reports whether sub occurs in s at the start of a
// word.
func containsWordPrefix(s, sub string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], sub)
		if i < 0 {
			return false
		}
		i += from
		if i == 0 || !isLetter(s[i-1]) {
			return true
		}
		from = i + 1
	}
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' }

// companyClassQuery asks for a class from a company: grade 2 for the
// class made by the company; no partial grade.
func (g *generator) companyClassQuery() (string, map[string]int) {
	co := pick(g.rng, companies)
	cl := pickWeighted(g.rng, classes, func(i int) float64 { return classWeight(classes[i].name) }).name
	norm := lexical.Normalize(co)
	judged := judge(g.items, func(x *item) bool { return x.classes[cl] && strings.Contains(x.manufacturer, norm) }, nil)
	templates := []string{"%[1]s da %[2]s", "%[1]s %[2]s", "%[1]ss da %[2]s", "%[2]s %[1]s"}
	return fmt.Sprintf(pick(g.rng, templates), cl, co), judged
}

// colloquialQuery asks for a class on a crop in a grower's words; the
// judgements are those of the class and crop.
func (g *generator) colloquialQuery(pairs []classCrop) (string, map[string]int) {
	p := pickPair(g.rng, pairs)
	var lay []string
	for _, cl := range classes {
		if cl.name == p.class {
			lay = cl.lay
		}
	}
	cropName, art := p.crop.name, p.crop.art
	if len(p.crop.lay) > 0 && g.rng.IntN(4) != 0 {
		l := pick(g.rng, p.crop.lay)
		cropName, art = l.text, l.art
	}
	templates := []string{"%[1]s %[3]s %[2]s", "%[1]s pra %[2]s", "preciso de %[1]s %[3]s %[2]s", "o que passar %[3]s %[2]s, %[1]s"}
	return fmt.Sprintf(pick(g.rng, templates), pick(g.rng, lay), cropName, prep(art)), p.judged
}

// noAccentQuery is a class×crop, pest×crop or colloquial query typed
// without accents; only texts that had accents qualify.
func (g *generator) noAccentQuery(pairs []classCrop) (string, map[string]int) {
	var text string
	var judged map[string]int
	switch g.rng.IntN(3) {
	case 0:
		text, judged = g.classCropQuery(pairs)
	case 1:
		text, judged = g.pestCropQuery()
	default:
		text, judged = g.colloquialQuery(pairs)
	}
	if text == "" || lexical.Normalize(text) == strings.ToLower(text) {
		return "", nil
	}
	return lexical.Normalize(text), judged
}

// typoQuery is a class×crop or colloquial query with one typing or
// spelling mistake in a word of at least 5 letters, sometimes also
// without accents.
func (g *generator) typoQuery(pairs []classCrop) (string, map[string]int) {
	var text string
	var judged map[string]int
	if g.rng.IntN(3) == 0 {
		text, judged = g.colloquialQuery(pairs)
	} else {
		text, judged = g.classCropQuery(pairs)
	}
	words := strings.Fields(text)
	var cands []int
	for i, w := range words {
		if utf8.RuneCountInString(w) >= 5 && !strings.ContainsAny(w, ",") {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return "", nil
	}
	// Prefer the class word, the most frequent victim ("fungisida").
	i := pick(g.rng, cands)
	for _, j := range cands {
		if strings.HasSuffix(strings.TrimSuffix(words[j], "s"), "cida") && g.rng.IntN(3) != 0 {
			i = j
		}
	}
	w := typo(g.rng, words[i])
	if w == words[i] {
		return "", nil
	}
	words[i] = w
	text = strings.Join(words, " ")
	if g.rng.IntN(3) == 0 {
		text = lexical.Normalize(text)
	}
	return text, judged
}

// typo returns w with one mistake of the kinds Brazilian typists make:
// "c" written "s" before e/i ("fungisida"), "ss"/"ç" confusion, a silent
// "h" dropped, a letter dropped, doubled or two letters swapped.
func typo(rng *rand.Rand, w string) string {
	r := []rune(w)
	type edit func() string
	var edits []edit
	for i := 1; i+1 < len(r); i++ {
		if r[i] == 'c' && (r[i+1] == 'i' || r[i+1] == 'e') {
			edits = append(edits, func() string { return string(r[:i]) + "s" + string(r[i+1:]) })
		}
	}
	if idx := strings.Index(w, "ç"); idx >= 0 {
		edits = append(edits, func() string { return strings.Replace(w, "ç", "ss", 1) })
	}
	if r[0] == 'h' {
		edits = append(edits, func() string { return string(r[1:]) })
	}
	inner := func() int { return 1 + rng.IntN(len(r)-2) }
	edits = append(edits,
		func() string { i := inner(); return string(r[:i]) + string(r[i+1:]) },
		func() string { i := inner(); return string(r[:i+1]) + string(r[i:]) },
		func() string {
			i := inner()
			if i+1 >= len(r) || r[i] == r[i+1] {
				return w
			}
			s := slices.Clone(r)
			s[i], s[i+1] = s[i+1], s[i]
			return string(s)
		},
	)
	// The phonetic edits first: they are the common ones.
	if len(edits) > 3 && rng.IntN(3) != 0 {
		return edits[rng.IntN(len(edits)-3)]()
	}
	return pick(rng, edits)()
}
