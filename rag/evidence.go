package rag

import (
	"cmp"
	"context"
	"github.com/hybridrag/hybridrag/internal/morph"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/hybridrag/hybridrag/internal/textutil"
	"github.com/hybridrag/hybridrag/lexical"
	"github.com/hybridrag/hybridrag/lexical/lexicon"
	"github.com/hybridrag/hybridrag/rag/internal/fieldname"
	"github.com/hybridrag/hybridrag/rag/internal/passage"
	"github.com/hybridrag/hybridrag/scoring"
	"github.com/hybridrag/hybridrag/storage"
	"github.com/hybridrag/hybridrag/vector"
)

// Constants of the evidence, and the defaults of EvidenceOptions.
const (
	// defaultRelevanceThreshold is the relevance from which a hit is
	// Relevant: the lowest confidence level (0.60), so that a turn
	// whose hits are all below it has confidence none and abstains.
	defaultRelevanceThreshold = scoring.DefaultLowThreshold
	// defaultVectorMidpoint is the calibrated vector distance z at which
	// vector evidence is 0.5: the hit's similarity is three times as far
	// above the median of the query's similarities to random stored
	// chunks as their 95th percentile is. Chosen on the tune half of
	// testdata/chat_eval.jsonl, where the 95th-percentile scale separated
	// relevant from other hits better than a MAD-based one (F1 of the
	// decision 0.81 against 0.73).
	defaultVectorMidpoint = 3.0
	// minVectorCoverage is the coverage below which a hit's vector alone
	// does not make it relevant: its relevance is capped below the
	// threshold however close the vector. The calibrated vector of a
	// record that holds almost none of the question's content words is,
	// more often than not, the request's words or one generic word shared
	// ("quanto custa um carro usado?" against "Quanto custa o frete?");
	// over the cross-domain evaluation such turns answered 12 times, never
	// with a judged record. Chosen on examples/eval -cross (agro store,
	// IRPF, FaQuAD) with the tune half of chat_eval.jsonl: 0 → 0.3 took
	// the objective (own recall plus other-domain abstention, halved, per
	// store, averaged with the tune half's) from 0.9136 to 0.9204 and the
	// other-domain abstention from 0.894 to 0.926 (IRPF's own recall 22 →
	// 21 of 45); 0.35 scored 0.9216 but lost 2 of 78 answers on AGROFIT,
	// held out of that choice, where 0.3 lost none.
	minVectorCoverage = 0.3
	// defaultVectorWidth is the logistic width of the vector evidence, in
	// units of z.
	defaultVectorWidth = 0.75
	// defaultCalibrationOwners is how many owners of a kind lend their
	// chunk vectors to the background sample.
	defaultCalibrationOwners = 64
	// coverageExponent discounts partial coverage: lexical evidence is
	// coverage^1.5, so a record holding one of two equally rare concepts
	// (0.5 → 0.35) is not relevant on its own, while one missing a minor
	// concept of four (0.75 → 0.65) is.
	coverageExponent = 1.5
	// namedMaxShare is the largest share of a kind's records (but at
	// least namedMinRecords records) that may hold a concept naming a
	// catalog item: a brand or product name is (nearly) unique to its
	// items.
	namedMaxShare = 0.005
	// namedMinRecords: in a small catalog a product's name is also in
	// another item's leaflet ("alternar com Clorantran"), so up to two
	// records may hold it. namedWeightShare: the name holds a rare concept
	// weighing at least half the query's heaviest concept (it had to be
	// the heaviest: "quanto vai de clorantran por hectare na soja?" named
	// nothing, "hectare" being rarer in the catalog). Both chosen on
	// testdata/chat_eval_dev4.jsonl, blind2, blind, fresh and chat_eval
	// (records 1, 2, 3; shares 0.3, 0.5, 0.7, 1): dev4 .807/.732/.817 →
	// .825/.753/.833, blind2 .807/.833/.859 → .798/.852/.875, blind
	// precision .797 → .816, chat_eval tune precision .806 → .817; the
	// cross-domain objective and AGROFIT unchanged.
	namedMinRecords  = 2
	namedWeightShare = 0.5
	// contextWeight multiplies the weight of a concept named only by the
	// query's context (Query.Context: the earlier turns of a follow-up),
	// so the message's own concepts count most.
	contextWeight = 0.5
	// unknownWeight is the weight of a concept no record of the kind
	// holds: the reference weight (a term found in one record in ten),
	// not the IDF cap. Such a word is either something the store lacks
	// ("ração") or a paraphrase ("carência" for "intervalo de segurança");
	// at the cap, one paraphrase would sink a record that answers.
	unknownWeight = 1.0
	// generalCommonRank and generalRareRank weigh a query concept by how
	// specific its word is in the general language (see generality): a
	// word among the 30 most common of Brazilian Portuguese counts
	// nothing, one ranked 5,000 or rarer (or absent) fully, log-linearly
	// between, a function word (of Portuguese or English) 0.3. First
	// chosen on the cross-domain evaluation (examples/eval -cross: the
	// agro-store, IRPF and FaQuAD stores, each asked its own and the other
	// domains' questions) and the tune half of testdata/chat_eval.jsonl,
	// from lower ranks 10–300, upper ranks 1,000–30,000 and function-word
	// weights 0 and 0.3 (AGROFIT held out): 30 and 10,000. Refitted with
	// every evidence and pipeline parameter by coordinate descent on
	// thirteen chat sets and -cross together (BENCHMARKS.md, tenth pass;
	// chat_eval_blind11 and blind12 held out): the upper rank 10,000 →
	// 5,000 took the chat sets' mean of precision, recall, abstention and
	// fact recall from .8515 to .8545 and the cross-domain objective
	// from .9248 to .9242 (the IRPF store's own recall 23 → 22 of 45, its
	// other-domain abstention .822 → .827); no other parameter moved the
	// combined objective by .001.
	generalCommonRank = 30.0
	generalRareRank   = 5000.0
	stopWeight        = 0.3
	// numberGenerality is the generality of a number ("15 km da cidade",
	// "200 litros"), which the word list (letters only) does not rank: a
	// figure of the customer's situation, not the subject asked, so a
	// record lacking it loses less than one lacking a rare word. Chosen
	// over 0, 0.3, 0.5, 0.7 and 1 on the cross-domain evaluation with the
	// tune half of testdata/chat_eval.jsonl (objective 0.9222 at 1,
	// 0.9241 at 0.7 and below: the IRPF store's own recall .489 → .511);
	// 0.3 and 0 cost precision on chat_eval.jsonl (.786 → .781), 0.5 and
	// 0.7 tied everywhere.
	numberGenerality = 0.5
	// pairDescriptionShare is the largest weight share of a question's
	// concepts that other records hold which a record holding the
	// culture and the treatment asked may lack and still answer (see
	// recordEvidence): a described problem ("meu parreiral tá com oídio,
	// aquele pó branco nas folhas") is answered by the grape fungicides,
	// while "qual volume de calda usar no fungicida pra ferrugem da soja?"
	// (volume and calda: 0.5 of its weight) asks the application guide,
	// not a soybean fungicide. Chosen over 0, 0.1, 0.2, 0.25, 0.3, 0.5 on
	// testdata/chat_eval_blind2.jsonl, chat_eval_blind.jsonl,
	// chat_eval_fresh.jsonl and chat_eval.jsonl (long, described
	// questions; the cross-domain objective tied at every value): blind2
	// recall 0.778 → 0.833 and abstention 0.797 → 0.844 at 0.2, precision
	// 0.780 → 0.791; 0.3 and above cost precision on chat_eval and blind2.
	pairDescriptionShare = 0.2
	// faqOwnConcepts: a FAQ holding this many of the message's own
	// concepts that no other FAQ of the store holds (document frequency
	// 1 in the FAQ kind) is relevant (lexical evidence at the threshold),
	// whatever else the question says: customers describe their situation
	// in words no record holds ("o galão chegou amassado e vazando, o
	// motorista já foi embora", "moro num sítio, estrada de chão, entrega
	// chega lá?"), and two words only one FAQ holds are rarely shared by
	// chance. FAQs only: a store's few documents make every word rare, and
	// catalog items are named by their names (namedMaxShare). Chosen over
	// 2 and 3 concepts held by at most 1, 2 or 3 FAQs, with minimum
	// concept weights 0–0.8, on the cross-domain evaluation (unchanged at
	// 2 of df 1: objective 0.9241, agro store other-domain abstention .972;
	// df ≤ 2 answered more other-domain questions, and applied to
	// documents too it answered FaQuAD's) and the chat sets, all seen
	// (blind2 recall .870 → .907, abstention .875 → .906, facts .783 →
	// .870; blind5 .776/.833 → .803/.867; blind6 .776/.856 → .803/.878;
	// blind7 .792/.856 → .818/.889; chat_eval unchanged; precision −.005
	// to −.008 on dev4, blind4, blind5, blind7).
	faqOwnConcepts = 2
	// defaultIndirectCredit is the credit of a query concept found only
	// through the class it belongs to: "ferrugem" matched by "fungicida".
	defaultIndirectCredit = 0.5
	// correctedCredit is the credit of a query word a record holds only
	// as the word a typo was corrected to ("glifozato" → "glifosato"):
	// typo correction rewrites only words no dictionary knows, so it is
	// seldom wrong, but a wrong one must not count as a full match.
	// Chosen over 0.5 (the indirect credit, before), 0.75 and 1 on the
	// thirteen chat sets and -cross: 0.75 raised the chat sets' mean by
	// .0006 with -cross unchanged; 1 by .0012 with the IRPF store's
	// other-domain abstention .827 → .822.
	correctedCredit = 0.75
)

// defaultFrameWords are query words that frame a request without naming
// its content ("vocês vendem …", "quanto custa …", "do you sell …"):
// they are not counted as content a hit must cover. They are compared
// after lexical.Normalize and lexical.Stem.
var defaultFrameWords = []string{
	"vende", "vendem", "vender", "venda", "compra", "comprar", "compro", "produto", "produtos", "loja",
	"indica", "indicar", "indicado", "indicacao", "recomenda", "recomendar", "recomendado", "recomendacao",
	"opcao", "opcoes", "melhor", "bom", "boa", "usar", "uso", "utilizar", "serve", "servir", "funciona",
	"quanto", "custa", "preco", "valor", "informacao", "informacoes", "saber", "dizer", "ajuda", "ajudar",
	"duvida", "pergunta", "tipo", "algum", "alguma", "aplicar", "mim", "minha", "meu",
	"significa", "significado", "quer", "dizer", "define", "definicao", "explica", "explicar", "vai",
	"controlar", "combater", "matar", "eliminar", "acabar", "resolver", "devo", "deve", "devemos", "consigo",
	"fazer", "faco", "faz", "pegar", "pega",
	"sell", "sells", "selling", "sold", "buy", "buys", "buying", "bought", "product", "products", "price", "cost", "costs", "much", "have", "need", "want",
	"recommend", "best", "good", "use", "tell", "please", "store", "shop", "any", "kind", "know",
	"mean", "means", "meaning", "what", "explain", "control", "kill", "work", "works",
}

// requestWords are the frame words evidence does not count as content:
// defaultFrameWords without "informação(ões)", which the general-language
// weights discount well enough (removing them gained on the cross-domain
// evaluation: objective 0.9130 → 0.9136, "Como pode ser definido um
// sistema de informação?" no longer reduces to "sistema"). A shorter list
// of 36 words, which tied on that objective, lost two answers and two
// abstentions on testdata/chat_eval_blind.jsonl and was not kept.
var requestWords = slices.DeleteFunc(slices.Clone(defaultFrameWords), func(w string) bool {
	return w == "informacao" || w == "informacoes"
})

// areaUnits are the units of area a rate is given per: in "a dose do
// glifosato por hectare" the unit is the basis of the value asked, no
// subject, and counts as a frame word (rateBasis); elsewhere ("terreno de
// dois hectares") it is content. As content, "hectare" (rare in a catalog
// whose leaflets write "L/ha") outweighed "glifosato", and the
// sprayer-calibration FAQ answered. Units of volume and mass were tried
// too and left out (BENCHMARKS.md, seventh pass).
var areaUnits = []string{"hectare", "hectares", "alqueire", "alqueires"}

// rateBasis matches a rate per unit of area: "por hectare", "per
// hectare", "por alqueire", "/ha".
var rateBasis = regexp.MustCompile(`\b(?:por|per|cada|each|a)\s+(?:hectares?|alqueires?|ha)\b|/\s*(?:ha|hectare)\b`)

// EvidenceOptions shape the per-hit evidence (Hit.Evidence). The zero
// value gives the defaults.
type EvidenceOptions struct {
	// Threshold is the relevance from which a hit is Relevant (default
	// 0.60, defaultRelevanceThreshold).
	Threshold float64
	// indirectCredit is the credit of a concept matched only through its
	// class (zero:
	// defaultIndirectCredit; negative means none). Only the package's
	// tests set it.
	indirectCredit float64
	// FrameWords are the request words (nil: about a hundred built-in
	// words such as "vendem", "quanto custa", "recomenda", "sell"); an
	// empty non-nil slice counts every token as content. (DetectFollowUp
	// and the ExtractiveAnswerer use the built-in list with "informação".)
	// For a rate asked per unit of area ("por hectare") the units of area
	// are frame words too, whatever the list.
	FrameWords []string
	// Frequencies says how common each word is in the general language: a
	// query concept weighs its IDF in the store times how specific its
	// word is (see the package doc, "Evidence"). Nil means
	// lexicon.DefaultFrequencies() (Brazilian Portuguese ranks, Portuguese
	// and English function words); lexicon.NewFrequencies(nil, nil) weighs
	// every word as specific.
	Frequencies *lexicon.Frequencies
	// Calibration is the background sample (default On). Off skips it:
	// vector evidence then maps the raw similarity through the default
	// confidence levels (0.60 → 0.5, 0.85 → 0.9), which suits real
	// embedding models only.
	Calibration Toggle
}

func (o EvidenceOptions) withDefaults() EvidenceOptions {
	if !(o.Threshold > 0 && o.Threshold <= 1) {
		o.Threshold = defaultRelevanceThreshold
	}
	switch {
	case o.indirectCredit == 0 || o.indirectCredit > 1 || math.IsNaN(o.indirectCredit):
		o.indirectCredit = defaultIndirectCredit
	case o.indirectCredit < 0:
		o.indirectCredit = 0
	}
	if o.FrameWords == nil {
		o.FrameWords = requestWords
	}
	if o.Frequencies == nil {
		o.Frequencies = lexicon.DefaultFrequencies()
	}
	return o
}

// EvidenceReason says why a hit was judged relevant or not.
type EvidenceReason string

// Evidence reasons.
const (
	// ReasonCovered: the record contains the query's content (coverage
	// at least the threshold), or, a FAQ, two of the message's own
	// concepts no other FAQ holds.
	ReasonCovered EvidenceReason = "covered"
	// ReasonNamed: the catalog item's name holds a rare concept of the
	// query (namedMaxShare) among its heaviest: the query names it.
	ReasonNamed EvidenceReason = "named"
	// ReasonVector: the record's vector is far closer to the query than
	// random stored chunks are.
	ReasonVector EvidenceReason = "vector"
	// ReasonCombined: neither leg alone, but both together, reach the
	// threshold.
	ReasonCombined EvidenceReason = "combined"
	// ReasonPartial: some of the query's content is missing and the
	// vector is not close enough to make up for it (or the record holds
	// too little of the content, under 0.3, for a vector to count).
	ReasonPartial EvidenceReason = "partial"
	// ReasonMissingPair: the query names a subject and a class and
	// the record does not hold both.
	ReasonMissingPair EvidenceReason = "missing-pair"
	// ReasonFilesOnly: the query asks for one thing, which the catalog
	// item holds only in its attached files' prose, neither as a concept
	// of the synonym table nor in its metadata: the leaflet mentions it
	// ("pulverizadores tratorizados" for "vocês vendem trator?"); the
	// item is not it.
	ReasonFilesOnly EvidenceReason = "files-only"
	// ReasonContextOnly: in a follow-up, the record holds only the
	// earlier turn's words, none of the message's own.
	ReasonContextOnly EvidenceReason = "context-only"
	// ReasonUnknownWords: no record of the kind holds any of the query's
	// content words; the store does not know what is asked.
	ReasonUnknownWords EvidenceReason = "unknown-words"
	// ReasonNoEvidence: nothing of the query's content is in the record
	// and its vector is not close.
	ReasonNoEvidence EvidenceReason = "no-evidence"
)

// Evidence is a hit's calibrated relevance: how much of the query's
// content the record covers, and how close its vector is relative to the
// embedder's own similarity distribution, fused into one number in
// [0, 1] and a decision. It does not change the ranking (Score); the
// Pipeline uses it to choose what to cite, whether to abstain and the
// confidence level.
//
// Lexical evidence is the coverage: the query's content words (tokens
// less stopwords and the frame words), grouped by concept (a synonym
// mention and the tokens it spans are one concept: "cana-de-açúcar",
// "videira" with its canonical "uva"), each weighted by its IDF in the
// kind's vocabulary; coverage is the weighted share of concepts found in
// the record (a concept found only through its class — "ferrugem" through
// "fungicida" — earns defaultIndirectCredit). Lexical evidence is
// coverage^1.5 (coverageExponent). A concept no record of the kind
// holds weighs unknownWeight. When a catalog item's name holds a rare
// concept of the query (at most two records or 0.5% of them hold it)
// weighing at least half the query's heaviest, the query names the item
// and its lexical evidence is at least the threshold.
//
// Vector evidence is calibrated per query: the query vector's
// similarities to a fixed sample of the store's chunks (random with
// respect to the query) give a median m and a 95th percentile p; the
// hit's similarity x becomes z = (x − m)/(p − m) and the evidence
// 1/(1+exp(−(z − 3)/0.75)): a hit must stand three times as far above
// the typical chunk as the top 5% of random chunks do. So a hash embedder
// whose relevant chunks sit at 0.3 and a semantic model whose relevant
// chunks sit at 0.8 are judged on the same scale.
//
// Relevance is 1 − (1 − lexical)(1 − vector): either kind of evidence
// alone can make a hit relevant, and both together reinforce, except that
// a record holding less than 0.3 of the query's content (coverage) is
// capped at 0.75 × the threshold however close its vector: what such a
// record shares with the query is mostly request words. When the
// query names both a subject and a class and the
// record does not hold both, relevance is capped at 0.75 × the threshold:
// a soybean fungicide is not an answer to "fungicida para videira",
// however close its text. So is a catalog item that holds the one thing
// a question asks for only in its attached files' prose, neither as a
// concept of the synonym table nor in its metadata (ReasonFilesOnly):
// its leaflet mentions it ("pulverizadores tratorizados" for "vocês
// vendem trator?").
//
// Worked example (catalog, hash embedder, testdata): "tem fungicida para
// videira?" has the content concepts fungicida and videira (with its
// canonical uva). Fosetal 800 WG contains both: coverage 1, relevance 1,
// ReasonCovered. The FAQ "Como escolher um fungicida para ferrugem-asiática
// da soja?" holds only fungicida: its vector is 13.9 spreads above the
// background (evidence 0.98), but the pair is missing, so its relevance is
// capped at 0.45: ReasonMissingPair.
type Evidence struct {
	// Relevance is the fused evidence in [0, 1].
	Relevance float64 `json:"relevance"`
	// Relevant is Relevance >= the threshold (EvidenceOptions.Threshold).
	Relevant bool `json:"relevant"`
	// Reason explains the decision.
	Reason EvidenceReason `json:"reason"`
	// Lexical is the lexical evidence in [0, 1]: Coverage^1.5, raised to
	// the threshold for a named record.
	Lexical float64 `json:"lexical"`
	// Coverage is the IDF-weighted share of the query's content concepts
	// found in the record.
	Coverage float64 `json:"coverage"`
	// Covered and Missing are the query's content concepts (the query
	// words, normalized) found and not found in the record.
	Covered []string `json:"covered,omitempty"`
	Missing []string `json:"missing,omitempty"`
	// Fields are the record fields the covered concepts were found in.
	Fields []string `json:"fields,omitempty"`
	// Named reports that the item's name holds a rare concept of the
	// query among its heaviest (namedMaxShare), or one of its metadata
	// values holds one that is no word of the language (an active
	// ingredient, "azoxistrobina"; any metadata key counts); Name is that
	// concept (the query word, normalized).
	Named bool   `json:"named,omitempty"`
	Name  string `json:"name,omitempty"`
	// PairAsked reports that the query names a subject and a class;
	// Pair that the record holds both.
	PairAsked bool `json:"pair_asked,omitempty"`
	Pair      bool `json:"pair,omitempty"`
	// Vector is the calibrated vector evidence in [0, 1]; 0 when the hit
	// has no vector evidence.
	Vector float64 `json:"vector"`
	// VectorZ is the hit's calibrated similarity, (x − Median)/Scale of
	// the Background.
	VectorZ float64 `json:"vector_z,omitempty"`
	// Background is the query's similarity to the background sample;
	// nil when uncalibrated.
	Background *Background `json:"background,omitempty"`
	// identity is the number of covered concepts the record holds in its
	// name, category, tags or (a catalog item's) metadata: what the record
	// is, not what its text mentions. It orders equally relevant hits
	// (byEvidence): for "vocês vendem azoxistrobina?" the items whose
	// active ingredient it is come before those whose description cites it.
	identity int
	// otherSubject reports that the record is a catalog item holding
	// what the query asks except its subject (a crop): for "semente de
	// girassol" a braquiária seed, for "fungicida para girassol" a soybean
	// fungicide. Not relevant; the Pipeline lists such items as related
	// when the turn abstains (nearMisses).
	otherSubject bool
	// nameAsked is the first of the query's concepts that could name a
	// catalog item (Named: a rare word some record holds and no dictionary
	// knows, among the query's heaviest — a product's name, "cletox"),
	// whatever this record holds; "" when there is none. See lookForNamed.
	nameAsked string
	// described reports that the record is relevant as the answer to a
	// described problem only (recordEvidence: it holds the culture and the
	// treatment asked and lacks words other records hold), not by its
	// coverage: the Pipeline leaves it out when another hit of the turn
	// answers on its own evidence (focusOnOwnEvidence).
	described bool
	// treats and mentionsOnly read a treatment asked: a class
	// ("inseticida") or a problem (a pest, disease or weed the synonym
	// table files under a class: "lagarta" under "inseticida"). treats:
	// the record is of that class (its name, category or tags hold it);
	// mentionsOnly: the record holds the treatment asked in its text but is
	// of no such class (a Bt seed "com proteção contra lagartas"). See
	// focusOnTreatment.
	treats, mentionsOnly bool
	// treated and mentioned are the treatments asked (concept labels) the
	// record is of the class of, and those it only mentions.
	treated, mentioned []string
	// problem: the question asks a problem (a pest, disease or weed).
	problem bool
	// apart: a catalog item holding the crop and the problem asked never
	// on one line (a leaflet registering the pest for another crop); see
	// focusOnRegistered.
	apart bool
	// kindAsked: the record is what the question asks for besides a crop
	// or a problem (its name, category or tags hold another concept asked:
	// "semente", "fosfito").
	kindAsked bool
	// content is how many of the query's concepts are no function word
	// (evidenceQuery.content): what the question asks for.
	content int
	// valueAsked: the question asks a FAQ or a document section for a kind
	// of value (a duration, a time of day, a stage); valueHeld: the record
	// holds one in a sentence beside the question's words it holds;
	// valueAnywhere: it holds one somewhere (a FAQ's answer states the
	// delivery time without repeating the question's "pedido").
	valueAsked, valueHeld, valueAnywhere bool
}

// Background summarizes a query vector's similarities to the store's
// background sample of chunks.
type Background struct {
	// Median and P95 are the median and the 95th percentile (nearest
	// rank) of the similarities.
	Median float64 `json:"median"`
	P95    float64 `json:"p95"`
	// Samples is the number of chunks compared.
	Samples int `json:"samples"`
}

// Scale is P95 − Median, at least 0.01: the unit of Evidence.VectorZ.
func (b *Background) Scale() float64 { return max(b.P95-b.Median, minScale) }

// FilesOnly reports that every covered concept was found only in the
// item's attached files (Fields is ["files"]).
func (e *Evidence) FilesOnly() bool {
	return len(e.Covered) > 0 && len(e.Fields) == 1 && e.Fields[0] == fieldname.Files
}

// minScale keeps z finite when the sample's similarities are all equal.
const minScale = 0.01

// backgroundOf compares q with the sample's rows.
func backgroundOf(q []float32, sample *calibration) *Background {
	if sample == nil || sample.n == 0 || len(q) != sample.dims {
		return nil
	}
	sims := make([]float32, sample.n)
	vector.DotRows(sims, sample.rows, q)
	xs := make([]float64, len(sims))
	for i, s := range sims {
		xs[i] = float64(s)
	}
	slices.Sort(xs)
	if math.IsNaN(xs[0]) || math.IsInf(xs[0], 0) || math.IsNaN(xs[len(xs)-1]) || math.IsInf(xs[len(xs)-1], 0) {
		return nil // a non-finite query vector has no background
	}
	med := median(xs)
	p95 := xs[max(int(math.Ceil(0.95*float64(len(xs))))-1, 0)]
	return &Background{Median: med, P95: p95, Samples: len(xs)}
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// calibration is one kind's background sample: chunk vectors of owners
// spread over the kind's records, row-major.
type calibration struct {
	rows []float32
	dims int
	n    int
}

// chunkReader reads the chunks of one owner with their embeddings
// (storage.Store's Chunks).
type chunkReader interface {
	Chunks(ctx context.Context, owner storage.OwnerRef) ([]storage.Chunk, error)
}

// calibrations caches the per-kind background samples.
type calibrations struct {
	mu    sync.Mutex
	kinds [3]atomic.Pointer[calibration]
}

// calibrationPage is how many records are listed to choose the sample
// owners from.
const calibrationPage = 1000

// calibrationOf returns the kind's background sample, building it on
// first use from the store (a failed build is retried by the next
// search). nil when the store cannot provide one.
func (s *Searcher) calibrationOf(ctx context.Context, kind storage.OwnerKind) *calibration {
	c, err := s.buildCalibration(ctx, kind)
	if err != nil || c == nil {
		return nil // retried by the next search
	}
	return c.usable()
}

// buildCalibration returns the kind's calibration sample, building it on
// first use; nil without an error when calibration is off or the store
// cannot list records and read chunks.
func (s *Searcher) buildCalibration(ctx context.Context, kind storage.OwnerKind) (*calibration, error) {
	if !s.evidence.Calibration.enabled(true) {
		return nil, nil
	}
	slot := &s.calib.kinds[kindIndex(kind)]
	if c := slot.Load(); c != nil {
		return c, nil
	}
	s.calib.mu.Lock()
	defer s.calib.mu.Unlock()
	if c := slot.Load(); c != nil {
		return c, nil
	}
	c, err := buildCalibrationSample(ctx, s.store, kind, defaultCalibrationOwners)
	if err != nil {
		return nil, err
	}
	// An empty sample (no embedded chunks) is kept, so searches do not
	// rebuild it each time; Refresh drops it.
	slot.Store(c)
	return c, nil
}

// usable returns c, or nil when the sample is empty.
func (c *calibration) usable() *calibration {
	if c.n == 0 {
		return nil
	}
	return c
}

// buildCalibrationSample lists up to calibrationPage records of kind (the first
// by ID), takes owners evenly spaced among them, and keeps up to four
// chunk vectors of each (every k-th of its chunks in source and sequence
// order).
func buildCalibrationSample(ctx context.Context, store storage.Store, kind storage.OwnerKind, owners int) (*calibration, error) {
	k := kindOf(kind)
	if k == nil {
		return &calibration{}, nil // no such kind: an empty sample
	}
	ids, err := k.listIDs(ctx, store, calibrationPage)
	if err != nil {
		return nil, err
	}
	c := &calibration{}
	step := max(float64(len(ids))/float64(owners), 1)
	const perOwner = 4
	for f := 0.0; int(f) < len(ids); f += step {
		chunks, err := store.Chunks(ctx, storage.OwnerRef{Kind: kind, ID: ids[int(f)]})
		if err != nil {
			return nil, err
		}
		// Stores may return an owner's chunks in different orders; sort
		// them so every store yields the same sample. Then spread the
		// owner's chunks: every k-th, at most perOwner.
		slices.SortFunc(chunks, func(a, b storage.Chunk) int {
			return cmp.Or(cmp.Compare(a.Source, b.Source), cmp.Compare(a.Seq, b.Seq))
		})
		k := max(len(chunks)/perOwner, 1)
		for i := 0; i < len(chunks) && i/k < perOwner; i += k {
			e := chunks[i].Embedding
			if len(e) == 0 || (c.dims != 0 && len(e) != c.dims) {
				continue
			}
			c.dims = len(e)
			c.rows = append(c.rows, e...)
			c.n++
		}
	}
	return c, nil
}

// queryConcept is one content concept of a query: the query terms that
// stand for it (a token, its synonym's canonical term, the tokens of a
// multi-word mention).
type queryConcept struct {
	label  string
	direct []string // the query's own tokens
	// class are the canonical terms the concept was expanded with.
	class []string
	// culture, treatment: the concept is the mention of one.
	culture, treatment bool
	// within are the groups a record may name instead of the culture or
	// the class ("hortalicas" for "repolho", "defensivo" for "fungicida";
	// lexical.Synonyms.Within).
	within []string
	// corrected: the query word was replaced by typo correction; a match
	// earns correctedCredit, as the correction may be wrong.
	corrected bool
	// indirect: the class is a hypernym (a treatment class for a pest),
	// worth indirectCredit alone.
	indirect bool
	// weight counts in coverage; raw is the weight before contextWeight.
	weight, raw float64
	// rare: at most namedMaxShare of the records (or namedMinRecords)
	// hold it.
	rare bool
	// own: the message itself names it (not only the context);
	// unknown: no record of the kind holds it.
	own, unknown bool
	// name: no record of the kind holds it and its word is no word of the
	// general lexicon (an acronym, a brand: "IRPF", "ULA").
	name bool
	// coined: some record holds it and its word is no word of the general
	// lexicon (a brand, an active ingredient: "azoxistrobina", "diquat").
	coined bool
	// df is how many records of the kind hold the concept (its rarest
	// term); 0 when no record does or unknown.
	df int
	// verb: each query word of the concept is a form only a verb has
	// (morph.VerbForm: "abrem", "mandei", "arrependi"); see recordEvidence.
	verb bool
	// function: every word of the concept is a function word of the
	// general list (weighGenerality), which says nothing of the subject.
	function bool
	// translated: the concept is an everyday English word read through
	// the preset's English table (lexical.Mention.Translation).
	translated bool
	// asks is the kind of value the concept's word asks for (an
	// answerKinds pseudo-word: "demora", "prazo", the "tempo" of "quanto
	// tempo" ask for a "#duration"); "" when it asks for none.
	asks string
}

// evidenceQuery is a query analyzed for evidence.
type evidenceQuery struct {
	concepts  []queryConcept
	pairAsked bool
	// groups: some culture or class asked has groups
	// (queryConcept.within).
	groups bool
	// hasContext: some concepts come from the context only.
	hasContext bool
	// maxRaw is the largest raw weight of a concept some record holds.
	maxRaw float64
	// content is how many concepts are no function word (queryConcept.
	// function; weighGenerality tells): what the question asks for.
	content int
	bg      *Background
	// aliasWords are the query tokens of another language's words for a
	// term (lexical.CategoryAlias: "asian soybean rust"): they are found in
	// a record as whole words only, as the term itself stands for them,
	// not as the start of a longer word ("rust" in "rústico").
	aliasWords map[string]bool
	// strictPair disables the described-problem relaxation
	// (recordEvidence) for one record: its lines never hold the culture
	// and the treatment asked together.
	strictPair bool
	// valueHeld reports whether the FAQ or document section being judged
	// holds a value of a kind beside one of terms (valuesNear); set per
	// record by addEvidence and sectionEvidence, nil otherwise.
	valueHeld func(kind string, terms []string) bool
	// nameHolds reports whether the catalog item being judged holds a
	// token as a word of its name (nameHoldsWord); nil for other kinds.
	nameHolds func(string) bool
}

// analyzeEvidence groups the query's content tokens into concepts.
func analyzeEvidence(pq *lexical.PreparedQuery, syn *lexical.Synonyms, filters []lexical.TokenFilter, idf func(string) float64, df func(string) int, docs int, frame map[string]bool, corrections []lexical.Correction) *evidenceQuery {
	eq := &evidenceQuery{}
	tokens := pq.Tokens()
	owner := make([]int, len(tokens)) // concept index per token, -1 frame
	for i := range owner {
		owner[i] = -2
	}
	for i, t := range tokens {
		if !pq.Fallback() && (frame[t] || frame[lexical.Stem(t)] || isShortWord(t)) {
			owner[i] = -1
		}
		for _, cr := range corrections {
			// A frame word the vocabulary "corrected" ("controlar" →
			// "controle") is still a frame word.
			if (t == cr.To || strings.HasPrefix(cr.To, t)) && (frame[cr.From] || frame[lexical.Stem(cr.From)]) {
				owner[i] = -1
			}
		}
	}
	if !pq.Fallback() {
		// An English word whose translation frames a request ("sell" as
		// "vender", "store" as "loja", "kill" as "matar") frames it too.
		for _, m := range pq.Mentions() {
			if m.Translation && (frame[m.Term] || frame[lexical.Stem(m.Term)]) {
				for i, t := range tokens {
					if owner[i] == -2 && spans(strings.Fields(m.Text), t) {
						owner[i] = -1
					}
				}
			}
		}
	}
	var cultures, treatments int
	terms := pq.Terms()
	for _, m := range pq.Mentions() {
		words := strings.Fields(strings.NewReplacer("-", " ").Replace(m.Text))
		ci := -1
		for i, t := range tokens {
			if owner[i] == -1 {
				continue
			}
			if spans(words, t) {
				if m.Category == lexical.CategoryAlias {
					if eq.aliasWords == nil {
						eq.aliasWords = map[string]bool{}
					}
					eq.aliasWords[t] = true
				}
				if owner[i] >= 0 {
					ci = owner[i]
					continue
				}
				if ci < 0 {
					eq.concepts = append(eq.concepts, queryConcept{label: t})
					ci = len(eq.concepts) - 1
				}
				owner[i] = ci
				eq.concepts[ci].direct = append(eq.concepts[ci].direct, t)
			}
		}
		if ci < 0 {
			continue
		}
		c := &eq.concepts[ci]
		// A diminutive the scorer searched by its base ("lagartinha" →
		// "lagarta", lexical.Scorer.Prepare) is found by the base.
		for _, w := range words {
			for _, b := range morph.Undiminish(w) {
				if t := stemWith(filters, b); slices.Contains(terms, t) && !slices.Contains(c.direct, t) {
					c.direct = append(c.direct, t)
				}
			}
		}
		// An alias is a translation: its term stands for the words asked
		// ("stink bug" is "percevejo"), found with full credit.
		c.translated = c.translated || m.Translation
		dst := &c.class
		if m.Category == lexical.CategoryAlias {
			dst = &c.direct
		}
		if !slices.Contains(c.class, m.Term) && !slices.Contains(c.direct, m.Term) {
			*dst = append(*dst, m.Term)
		}
		// The term as the scorer expanded it: a stemming scorer (FAQs,
		// documents) matches "praz", not the canonical "prazo".
		if st := stemWith(filters, m.Term); st != m.Term && !slices.Contains(c.class, st) && !slices.Contains(c.direct, st) {
			*dst = append(*dst, st)
		}
		// An alias phrase is also found hyphenated, as the scorer searches
		// it (lexical.Scorer.Prepare): "ferrugem-asiatica".
		if h := strings.ReplaceAll(m.Term, " ", "-"); m.Category == lexical.CategoryAlias && h != m.Term && !slices.Contains(c.direct, h) {
			c.direct = append(c.direct, h)
		}
		switch m.Category {
		case lexical.CategorySubject:
			c.culture = true
			cultures++
			for _, g := range syn.Within(m.Term) {
				if !slices.Contains(c.within, g) {
					c.within = append(c.within, g)
				}
			}
		case lexical.CategoryClass:
			c.treatment = true
			treatments++
			// A pest or disease stands for its class; the class word
			// itself ("fungicida", "fungicide") is not indirect.
			if !slices.Contains(c.direct, m.Term) && !strings.HasPrefix(m.Term, lexical.Stem(c.label)) && !samePrefix(m.Term, c.label, 6) {
				c.indirect = true
			}
			// The class asked by its own word is within its groups ("defensivo"
			// for "fungicida"); a pest is not, two steps away.
			if !c.indirect {
				for _, g := range syn.Within(m.Term) {
					if !slices.Contains(c.within, g) {
						c.within = append(c.within, g)
					}
				}
			}
		}
	}
	eq.pairAsked = cultures > 0 && treatments > 0
	eq.groups = slices.ContainsFunc(eq.concepts, func(c queryConcept) bool { return len(c.within) > 0 })
	// A second variant of a class already mentioned ("fungicide … rust":
	// Detect reports one mention per class) joins that class's concept.
	for i, t := range tokens {
		if owner[i] != -2 || syn == nil {
			continue
		}
		for _, m := range syn.Detect(t) {
			for ci := range eq.concepts {
				if slices.Contains(eq.concepts[ci].class, m.Term) {
					owner[i] = ci
					eq.concepts[ci].direct = append(eq.concepts[ci].direct, t)
				}
			}
		}
		if owner[i] != -2 || len(filters) == 0 || len(t) < 4 {
			continue
		}
		// A stemming scorer's token ("demor") is no word Detect knows:
		// it joins the class of a one-word variant it is the stem of
		// ("demora" of "prazo").
		variants := synonymVariants(syn)
	join:
		for ci := range eq.concepts {
			for _, cls := range eq.concepts[ci].class {
				if slices.ContainsFunc(variants[cls], func(v string) bool { return strings.HasPrefix(v, t) }) {
					owner[i] = ci
					eq.concepts[ci].direct = append(eq.concepts[ci].direct, t)
					break join
				}
			}
		}
	}
	for i, t := range tokens {
		if owner[i] == -2 {
			c := queryConcept{label: t, direct: []string{t}}
			// A code searched hyphenated too ("2,4d" as "2,4-d",
			// lexical.Scorer.Prepare) is found by either form.
			for _, term := range terms {
				if term != t && strings.Contains(term, "-") && strings.ReplaceAll(term, "-", "") == t {
					c.direct = append(c.direct, term)
				}
			}
			eq.concepts = append(eq.concepts, c)
			owner[i] = len(eq.concepts) - 1
		}
	}
	for i := range eq.concepts {
		c := &eq.concepts[i]
		for _, cr := range corrections {
			if slices.ContainsFunc(c.direct, func(t string) bool { return strings.HasPrefix(cr.To, t) || t == cr.To }) {
				c.corrected = true
			}
		}
		w := math.Inf(1)
		terms := slices.Concat(c.direct, c.class)
		for _, t := range terms {
			w = min(w, idf(t))
		}
		if math.IsInf(w, 0) || !(w > 0) {
			w = 1
		}
		minDF := -1
		if df != nil {
			for _, t := range terms {
				if n := df(t); minDF < 0 || n < minDF {
					minDF = n
				}
			}
		}
		unknown := minDF == 0
		c.unknown = unknown
		c.df = max(minDF, 0)
		c.own = true
		// A number ("720", "250") is shared by unrelated products; only a
		// word names one.
		c.rare = minDF > 0 && float64(minDF) <= max(namedMinRecords, namedMaxShare*float64(docs)) &&
			strings.ContainsFunc(c.label, unicode.IsLetter)
		switch {
		case unknown:
			w = unknownWeight
		case c.corrected:
			// The user typed no word the store holds: weigh it as a
			// common term, not as the rare word it was corrected to.
			w = min(w, unknownWeight)
		default:
			eq.maxRaw = max(eq.maxRaw, w)
		}
		c.weight, c.raw = w, w
	}
	return eq
}

// markNames marks the concepts that are names the store lacks: one
// query word, which no record of the kind holds, neither a word of lex
// (nil: lexicon.Default()) nor of the general-language list, nor a
// number, a chat abbreviation or a concept of the synonym table ("IRPF",
// "ULA", "Netflix"). Chosen on the cross-domain evaluation (objective
// 0.9241 → 0.9246, the agro store's other-domain abstention .972 → .979)
// and the chat sets (precision blind2 .846 → .856, blind6 .826 → .833,
// blind5 .871 → .879; blind5 lost one answer, "non-GMO soybean seed", GMO
// being neither in the English dictionary nor in the records, which say
// OGM).
func (eq *evidenceQuery) markNames(lex *lexicon.Lexicon, gen *generalTable) {
	if lex == nil {
		lex = lexicon.Default()
	}
	if lex.Len() == 0 || gen == nil {
		// No dictionary or no word list (a store in another language
		// passing empty ones): every word would be a name.
		return
	}
	for i := range eq.concepts {
		c := &eq.concepts[i]
		if len(c.direct) != 1 || c.culture || c.treatment || len(c.class) > 0 || isNumber(c.label) || chatSpelling[c.label] != "" {
			continue
		}
		word := lex.Known(c.label) || gen.rank(c.label) != 0 || gen.function[c.label]
		c.name = c.unknown && !word
		c.coined = !c.unknown && !word
	}
}

// markVerbs marks the concepts each of whose query words (the words of
// text giving its tokens) is a verb form (morph.VerbForm). A concept of
// the synonym table (a culture, a treatment, a class) is a subject
// whatever its form.
func (eq *evidenceQuery) markVerbs(text string, filters []lexical.TokenFilter) {
	words := map[string][]string{} // token → the words giving it
	for _, w := range strings.FieldsFunc(lexical.Normalize(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		for _, t := range textutil.Filter(w, filters) {
			if !slices.Contains(words[t], w) {
				words[t] = append(words[t], w)
			}
		}
	}
	notVerb := func(w string) bool { return !morph.VerbForm(w) }
	for i := range eq.concepts {
		c := &eq.concepts[i]
		if c.culture || c.treatment || len(c.class) > 0 || len(c.direct) == 0 {
			continue
		}
		c.verb = true
		for _, t := range c.direct {
			if len(words[t]) == 0 || slices.ContainsFunc(words[t], notVerb) {
				c.verb = false
				break
			}
		}
	}
}

// askedValueKinds are the kinds of value (answerKinds) a question word
// may ask for in evidence (markAsks): a duration, a time of day, a stage.
// The others' cues are request words the records share ("quantas
// vezes", "how much").
var askedValueKinds = map[string]bool{"#duration": true, "#clock": true, "#stage": true}

// markAsks marks the concepts whose words are a cue of a kind of value
// the question asks for (answerKinds: "demora", "prazo", the "tempo" of
// "quanto tempo"; askedValueKinds), as the quoter reads them.
func (eq *evidenceQuery) markAsks(text string, filters []lexical.TokenFilter) {
	n := chatText(text)
	asks := map[string]string{} // a cue word's token → the kind it asks
	for _, k := range answerKinds {
		if !askedValueKinds[k.word] {
			continue
		}
		for _, cue := range k.cues {
			if !strings.Contains(n, " "+cue+" ") {
				continue
			}
			for _, w := range strings.Fields(cue) {
				for _, t := range textutil.Filter(w, filters) {
					if _, ok := asks[t]; !ok {
						asks[t] = k.word
					}
				}
			}
		}
	}
	for i := range eq.concepts {
		c := &eq.concepts[i]
		for _, t := range c.direct {
			if k, ok := asks[t]; ok {
				c.asks = k
				break
			}
		}
	}
}

// maxValueSentences bounds the sentences valuesNear reads in one record
// (a FAQ or a document section): a value beside the question's words sits
// in the first few of a section that holds them, and a huge section
// holding a common word in every sentence is read no further.
const maxValueSentences = 64

// clockTime is a time of day written with an "h" ("14h", "8h30"), which
// the duration pattern matches too.
var clockTime = regexp.MustCompile(`^\d{1,2}\s*h(?:\d{2})?$`)

// valuesNear returns a lookup for recordEvidence: whether one sentence of
// rec's fields holds a value of a kind (answerKinds) beside a word
// starting with one of terms (the question's other words the record
// holds): "o boleto vence em 3 dias úteis" holds the duration "demora"
// asks for beside "boleto", while a FAQ whose durations are about
// something else ("o estorno leva até 10 dias") does not answer "qual o
// prazo pra pagar a fatura do cartão?". Only the sentences holding a term
// are matched against the kind's pattern, at most maxValueSentences; nil
// terms match every sentence (a value of the kind anywhere in rec).
func valuesNear(rec lexical.Record) func(kind string, terms []string) bool {
	return func(kind string, terms []string) bool {
		i := slices.IndexFunc(answerKinds, func(k answerKind) bool { return k.word == kind })
		if i < 0 || terms != nil && len(terms) == 0 {
			return false
		}
		read := 0
		for f := range rec.NumFields() {
			n := lexical.Normalize(rec.Field(f).Text)
			if terms != nil && !slices.ContainsFunc(terms, func(t string) bool { return strings.Contains(n, t) }) {
				continue
			}
			for line := range strings.SplitSeq(n, "\n") {
				for _, sen := range sentences(line) {
					held := terms == nil || slices.ContainsFunc(terms, func(t string) bool {
						return anyIndex(sen, t, func(at int) bool { return wordStart(sen, at) })
					})
					if !held {
						continue
					}
					if read++; read > maxValueSentences {
						return false
					}
					if holdsKind(answerKinds[i], sen) {
						return true
					}
				}
			}
		}
		return false
	}
}

// nameHoldsWord reports whether name holds token t as a word of its own
// (the word or its stem), not as the start of a longer word: "Pasto" is
// no word of "Pastoforte 806 SL".
func nameHoldsWord(name, t string) bool {
	st := lexical.Stem(t)
	for _, w := range strings.FieldsFunc(lexical.Normalize(name), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if w == t || lexical.Stem(w) == st {
			return true
		}
	}
	return false
}

// spans reports whether token t is one of the mention's words (or a stem
// prefix of one, or one's stem).
func spans(words []string, t string) bool {
	for _, w := range words {
		if w == t || (len(t) >= 3 && strings.HasPrefix(w, t)) {
			return true
		}
		// A longer token is another word ("pastonet" is no "pasto"),
		// unless it is the word hyphenated to the next ("ferrugem-asiatica").
		if len(w) >= 3 && strings.HasPrefix(t, lexical.Stem(w)) && (len(t) <= len(w) || strings.HasPrefix(t, w+"-")) {
			return true
		}
	}
	return false
}

// evidenceFor judges one hit from its lexical signals and vector
// similarity.
func (eq *evidenceQuery) evidenceFor(sig *lexical.Signals, vec *VectorEvidence, titleField string, o *EvidenceOptions) *Evidence {
	return eq.recordEvidence(sig, vec, titleField, o, nil, nil, nil)
}

// recordEvidence is evidenceFor with holds, which reports whether the
// record names a group phrase (nil: no group is looked for): a record
// naming a group of the culture asked ("Hortaliças" for "repolho") holds
// the culture with indirectCredit, and with the treatment asked, the
// pair; and inside, which reports whether a matched query term (a query
// word or the canonical term it stands for) sits only inside longer
// words of the record (nil: never): no credit, as "rato" inside
// "respiratória" names no rat, nor "uva" (for "videira") inside "chuva";
// and described, which reports whether a catalog item's metadata holds a
// query term at a word start (nil: never), so a term the item's leaflet
// and metadata hold (its active ingredient) is what the item is, not a
// word of its leaflet's prose.
func (eq *evidenceQuery) recordEvidence(sig *lexical.Signals, vec *VectorEvidence, titleField string, o *EvidenceOptions, holds, inside, described func(string) bool) *Evidence {
	ev := &Evidence{PairAsked: eq.pairAsked, Background: eq.bg, content: eq.content}
	groupHeld, treatmentHeld := false, false
	subjectAsked, subjectHeld := false, false
	matched := map[string][]string{}
	if sig != nil {
		for _, m := range sig.Matched {
			matched[m.Term] = m.Fields
		}
		ev.Pair = sig.Pair
	}
	var total, got float64
	// pestByClass: a pest asked is held only through its class
	// ("inseticida" for "lagarta"); pestHeld: one is held by its own word.
	pestByClass, pestHeld := false, false
	seen := map[string]bool{}
	synCovered := false
	ownAsked, ownCovered := false, false
	// subjectCovered: a concept covered asks for no kind of value;
	// otherMissing: one of the message's own concepts asking for none,
	// and no verb, is missing (a verb names nothing: "demora muito pra
	// chegar?" is the delivery FAQ's).
	subjectCovered, otherMissing := false, false
	known := false
	missingTable, missingKnownW := 0, 0.0
	missingOnlySubject := true
	treatmentFull := false
	problemOnly, kindAsked := false, false
	var nounTotal, nounGot float64 // the weights of concepts no verb
	distinct := 0                  // own concepts no other record of the kind holds
	missingName := false
	// heldTerms are the record's matched terms of the concepts asking for
	// no kind of value (the words a value must sit beside); computed on
	// first use.
	var held []string
	heldTerms := func() []string {
		if held == nil {
			held = []string{}
			for _, c := range eq.concepts {
				if c.asks != "" {
					continue
				}
				for _, t := range slices.Concat(c.direct, c.class) {
					if _, ok := matched[t]; ok && (inside == nil || !inside(t)) {
						held = append(held, t)
					}
				}
			}
		}
		return held
	}
	for _, c := range eq.concepts {
		if !c.verb {
			nounTotal += c.weight
		}
		known = known || !c.unknown
		ownAsked = ownAsked || c.own
		total += c.weight
		credit := 0.0
		var where []string
		// A term found only inside longer words of the record ("rato" in
		// "respiratória", the canonical "uva" of "videira" in "chuva") is
		// no match.
		found := func(t string) ([]string, bool) {
			f, ok := matched[t]
			return f, ok && (inside == nil || !inside(t))
		}
		inIdentityField := func(t string) bool {
			f, ok := found(t)
			return ok && (slices.Contains(f, lexical.FieldName) || slices.Contains(f, lexical.FieldCategory) || slices.Contains(f, lexical.FieldTags))
		}
		for _, t := range c.direct {
			if f, ok := found(t); ok {
				credit = 1
				if c.corrected {
					credit = correctedCredit
				}
				where = append(where, f...)
			}
		}
		if credit == 0 {
			for _, t := range c.class {
				if f, ok := found(t); ok {
					credit = 1
					if c.indirect {
						credit = o.indirectCredit
						pestByClass = pestByClass || c.treatment && c.own
					}
					where = append(where, f...)
				}
			}
		} else if c.treatment && c.own {
			pestHeld = true
		}
		if credit == 0 && c.asks != "" && titleField != lexical.FieldName && eq.valueHeld != nil && eq.valueHeld(c.asks, heldTerms()) {
			// A word asking for a kind of value ("demora", "quanto
			// tempo") is answered by a record holding a value of the
			// kind ("leva até 2 dias úteis") beside another word of the
			// question it holds ("boleto").
			credit = o.indirectCredit
		}
		if credit == 0 && sig != nil && (c.culture || c.treatment) {
			// The detector matches stemmed variants the term scan misses
			// ("fungicidas" for "fungicida").
			for _, t := range c.class {
				if slices.ContainsFunc(sig.Subjects, func(s string) bool { return lexical.Normalize(s) == t }) ||
					slices.ContainsFunc(sig.Classes, func(s string) bool { return lexical.Normalize(s) == t }) {
					credit = 1
					if c.indirect {
						credit = o.indirectCredit
					}
				}
			}
		}
		// A record naming a group of the culture holds it indirectly (and
		// the pair with the class); a FAQ or a document naming the class's
		// group holds the class indirectly ("preciso de receita pra
		// comprar fungicida?" and "…receituário agronômico para comprar
		// defensivos?") but does not treat it: no pair, no problem
		// mentioned. Catalog items are of their own class.
		classGroup := false
		if credit == 0 && holds != nil && o.indirectCredit > 0 && (c.culture || c.treatment && titleField != lexical.FieldName) &&
			slices.ContainsFunc(c.within, holds) {
			credit = o.indirectCredit
			groupHeld = groupHeld || c.culture
			classGroup = c.treatment
		}
		if c.treatment && c.own {
			ev.problem = ev.problem || c.indirect
			// The class a pest is filed under, or the class asked by
			// name ("fungicida": its own word), in the category.
			if slices.ContainsFunc(c.class, inIdentityField) || !c.indirect && slices.ContainsFunc(c.direct, inIdentityField) {
				ev.treats = true
				ev.treated = append(ev.treated, c.label)
			} else if credit > 0 && !classGroup {
				problemOnly = true
				ev.mentioned = append(ev.mentioned, c.label)
			}
		}
		subjectAsked = subjectAsked || (c.culture && c.own)
		if titleField == lexical.FieldName && c.own && c.rare && c.coined && c.raw > 0 && c.raw >= namedWeightShare*eq.maxRaw && ev.nameAsked == "" {
			ev.nameAsked = c.label
		}
		if credit == 0 {
			ev.Missing = append(ev.Missing, c.label)
			missingName = missingName || c.name && c.own
			if c.verb && c.unknown && titleField != lexical.FieldName {
				// A verb no FAQ or document holds names nothing the
				// store lacks ("vocês abrem no sábado?", "mandei devolver
				// o produto, quando o dinheiro volta?"): missing, it
				// counts stopWeight of its weight. Not for catalog items:
				// "quem criou o Ministério da Saúde?" would be about the
				// items holding "Ministério da Saúde".
				total -= (1 - stopWeight) * c.weight
			}
			if !c.unknown {
				missingKnownW += c.weight
			}
			missingOnlySubject = missingOnlySubject && c.culture
			otherMissing = otherMissing || c.own && c.asks == "" && !c.verb
			if !c.unknown && (c.culture || c.treatment) {
				missingTable++
			}
			continue
		}
		got += credit * c.weight
		if !c.verb {
			nounGot += credit * c.weight
		}
		if credit == 1 && c.own && c.df == 1 {
			distinct++
		}
		treatmentHeld = treatmentHeld || c.treatment && !classGroup
		treatmentFull = treatmentFull || (c.treatment && credit == 1)
		// The subject asked is the message's own: in a follow-up, the
		// earlier turn's crop held ("uva") is not the one asked ("soja").
		subjectHeld = subjectHeld || (c.culture && c.own)
		ownCovered = ownCovered || c.own
		subjectCovered = subjectCovered || c.asks == ""
		ev.Covered = append(ev.Covered, c.label)
		// What the record is: any term of the concept in its name,
		// category or tags, wherever its credit came from ("videira" in a
		// description and its canonical "uva" in the tags is an item for
		// grapes), else in its metadata (looked up only when it decides
		// something: it normalizes the metadata).
		synConcept := c.culture || c.treatment || len(c.class) > 0
		isIdentity := slices.ContainsFunc(c.direct, inIdentityField) || slices.ContainsFunc(c.class, inIdentityField)
		inMetadata := false
		if described != nil && !(isIdentity && synConcept) {
			for _, t := range c.direct {
				if described(t) {
					isIdentity, synConcept, inMetadata = true, true, true
					break
				}
			}
		}
		synCovered = synCovered || synConcept
		if isIdentity {
			ev.identity++
			// What the question asks for is what the record is ("semente
			// de capim": a seed, though capim is a weed).
			kindAsked = kindAsked || !c.culture && !c.treatment
		}
		for _, f := range where {
			seen[f] = true
		}
		// Only an item's name names it: a product or brand word is (nearly)
		// unique to its items, while a word found in one FAQ's question or
		// one document's title ("período", "garantia") is a topic, which
		// other questions share without being about that record. An item's
		// metadata names it too with a rare word no dictionary knows (its
		// active ingredient: "a azoxistrobina pertence a qual grupo
		// FRAC?", "quando passar o diquat pra secar a soja?"), not with a
		// word of the language (a formulation, a hazard class: in a 4,220
		// item catalog many are rare). Decided while looking at
		// chat_eval_blind9.jsonl after its one blind run (four questions
		// naming an active ingredient abstained), checked on every seen set
		// (blind5 recall .842 → .855; precision chat_eval .786 → .781) and
		// on -cross (unchanged; without the dictionary condition the
		// AGROFIT store answered six more tax and FaQuAD questions).
		if titleField == lexical.FieldName && c.rare && c.raw > 0 && (!c.culture || eq.nameHolds == nil || slices.ContainsFunc(c.direct, eq.nameHolds)) && c.raw >= namedWeightShare*eq.maxRaw && (slices.Contains(where, titleField) || inMetadata && c.coined) {
			ev.Named, ev.Name = true, c.label
		}
	}
	// Only a catalog item is of a class (its category); a FAQ or a
	// document holding the pest is about it.
	ev.mentionsOnly = titleField == lexical.FieldName && problemOnly && !ev.treats && !kindAsked
	ev.kindAsked = kindAsked
	// A FAQ or a document section asked for a kind of value ("quantos
	// dias") holds one beside the question's words, or does not
	// (focusOnValue).
	if titleField != lexical.FieldName && eq.valueHeld != nil {
		for _, c := range eq.concepts {
			if c.asks != "" && c.own {
				ev.valueAsked = true
				ev.valueHeld = ev.valueHeld || eq.valueHeld(c.asks, heldTerms())
				ev.valueAnywhere = ev.valueAnywhere || ev.valueHeld || eq.valueHeld(c.asks, nil)
			}
		}
	}
	if total > 0 {
		ev.Coverage = got / total
	}
	for f := range seen {
		ev.Fields = append(ev.Fields, f)
	}
	slices.Sort(ev.Fields)

	ev.Lexical = math.Pow(ev.Coverage, coverageExponent)
	if titleField != lexical.FieldName && pestByClass && !pestHeld {
		// A FAQ or a document holding the crop and only the class of the
		// pest asked ("inseticidas" in a note on the corn leafhopper, for
		// "lagarta no cartucho do milho") is not about the pest: the
		// lexical scorer's subject-and-class pair is no pair here. A
		// catalog item's class is what it is, and keeps it.
		ev.Pair = false
	}
	if groupHeld && treatmentHeld {
		ev.Pair = true
	}
	missingPair := eq.pairAsked && !ev.Pair
	if ev.Named && !missingPair {
		ev.Lexical = max(ev.Lexical, o.Threshold)
	}
	// A record holding the culture and the treatment asked, and lacking
	// no other culture or treatment the store knows, only words no record
	// holds ("o pulgão tá atacando as espigas do trigo": "atacando",
	// "espigas") or words other records hold weighing at most
	// pairDescriptionShare of the question ("aquele pó branco nas folhas"
	// after "meu parreiral tá com oídio"), answers what the store can
	// answer: the rest describes the problem. When the record holds the
	// pest or disease by the question's own word (not only its class)
	// and names it with the crop on one line of a field ("Soja:
	// percevejo-marrom … — 1,0 kg/ha"; strictPair is unset), the rest is
	// the farmer's account of it, however long: "percevejo marrom
	// chupando a soja na fase de enchimento", "o café tá cheio de
	// manchinha amarelada embaixo da folha, solta um pó alaranjado, acho
	// q é ferrugem" hold words other records hold (fase, enchimento,
	// amarelada, alaranjado) well beyond a fifth of their weight. The
	// limit was half of the question (chosen on dev4, blind2, blind,
	// fresh and chat_eval); lifted on every chat set seen (blind3–blind8:
	// nine product questions answered instead of abstained, seven turns
	// citing one more item: precision fell on blind2, dev4 and blind6),
	// the cross-domain objective unchanged. A question naming a crop and
	// a pest that asks something else ("vocês contratam agrônomo pra
	// visitar lavoura de café com ferrugem?") now cites the crop's
	// products for the pest too.
	// A FAQ holding faqOwnConcepts of the message's own concepts that no
	// other FAQ holds is what the customer describes, however much of the
	// rest of their story it lacks ("chegou o galão todo amassado e
	// vazando, o motorista já foi embora": amassado and vazando are the
	// damaged-delivery FAQ's alone).
	if titleField == fieldname.Question && distinct >= faqOwnConcepts && ev.Lexical < o.Threshold {
		ev.Lexical = o.Threshold
	}
	pairAnswers := eq.pairAsked && ev.Pair && missingTable == 0 && (missingKnownW <= pairDescriptionShare*total || treatmentFull && !eq.strictPair)
	if pairAnswers && ev.Lexical < o.Threshold {
		ev.Lexical = o.Threshold
		ev.described = missingKnownW > 0
	}

	if vec != nil {
		if eq.bg != nil {
			ev.VectorZ = (vec.Similarity - eq.bg.Median) / eq.bg.Scale()
			ev.Vector = logistic((ev.VectorZ - defaultVectorMidpoint) / defaultVectorWidth)
		} else {
			// Uncalibrated: the default levels, 0.60 → 0.5 and 0.85 → 0.9.
			ev.Vector = logistic((vec.Similarity - 0.60) / 0.114)
		}
	}
	ev.Relevance = 1 - (1-ev.Lexical)*(1-ev.Vector)
	// Caps below the threshold: a culture+treatment pair asked and not
	// held; a catalog item lacking the subject asked; a follow-up hit that holds none of the message's own words,
	// only the earlier turn's ("e como faço pra devolver um produto?"
	// after a grape question is not about grapes); a question none of
	// whose words any record holds ("vocês vendem Roundup?"), where only
	// request words can be close.
	contextOnly := eq.hasContext && ownAsked && !ownCovered
	// A word the record holds is not unknown, whatever a stale vocabulary
	// says (an item added after the vocabulary was built).
	unknownOnly := len(eq.concepts) > 0 && !known && len(ev.Covered) == 0
	// A catalog item for other crops than the one asked ("semente de
	// girassol": a braquiária seed) is no answer, whatever else it holds;
	// a FAQ or a document may answer for every crop.
	missingSubject := titleField == lexical.FieldName && subjectAsked && !subjectHeld
	ev.otherSubject = missingSubject && missingOnlySubject && len(ev.Covered) > 0 && ownCovered && !ev.Named
	// A question whose content is one thing ("vocês vendem trator?",
	// "quero comprar um celular") asks for that thing: a catalog item
	// holding it only in its attached files, and not as a concept of the
	// synonym table (a crop, a class, a target) nor in its metadata (its
	// active ingredient), mentions it in its leaflet's prose — "trator" in
	// a nozzle's "barras de pulverizadores tratorizados", "celular" in a
	// fertilizer's "parede celular" — and is no answer. Questions of
	// several words a leaflet holds together ("a ordem de colocar os
	// produtos no tanque") are answered by the leaflet as before.
	leafletOnly := titleField == lexical.FieldName && eq.content == 1 && ev.FilesOnly() && !synCovered && !ev.Named
	// A verb the record shares ("vocês fazem seguro de vida?" and "vocês
	// fazem cotação…?") is the request, not what it asks: the vector
	// alone needs the record to hold minVectorCoverage of the question
	// with and without its verbs.
	nounCoverage := ev.Coverage
	if nounTotal > 0 {
		nounCoverage = min(ev.Coverage, nounGot/nounTotal)
	}
	// A record holding, of a question about something, only the words
	// that ask for a kind of value ("demora", "prazo", "quanto tempo")
	// holds the request, not what it is about: "o passaporte demora?",
	// "qual o prazo do imposto de renda?" are not the delivery FAQ's. A
	// question that is nothing but the request ("qual o horário de
	// vocês?") is about what the word names.
	requestOnly := len(ev.Covered) > 0 && !subjectCovered && otherMissing
	// A name no record holds and no dictionary knows ("prazo entrega IRPF
	// 2024", "o que a unidade de controle informa à ULA?") is what the
	// store lacks: a close vector does not make up for it.
	vectorAlone := len(eq.concepts) > 0 && (nounCoverage < minVectorCoverage || missingName && ev.Lexical < o.Threshold) && !ev.Named && !pairAnswers
	switch {
	case missingPair || contextOnly || unknownOnly || missingSubject && !ev.Named || vectorAlone || leafletOnly || requestOnly:
		ev.Relevance = min(ev.Relevance, o.Threshold*0.75)
	case missingSubject:
		// The item the query names, asked about a crop it lacks ("o
		// Fungiprot serve para uva?"): it stays the answer (its crops say
		// no), at the threshold, so the turn's confidence is low; dropping
		// it said the store knew nothing of the product.
		ev.Relevance = min(ev.Relevance, o.Threshold)
	}
	ev.Relevance = math.Round(ev.Relevance*1e6) / 1e6
	ev.Relevant = ev.Relevance >= o.Threshold
	switch {
	case ev.Relevant && ev.Named && ev.Lexical >= o.Threshold && ev.Coverage < o.Threshold:
		ev.Reason = ReasonNamed
	case ev.Relevant && ev.Lexical >= o.Threshold:
		ev.Reason = ReasonCovered
	case ev.Relevant && ev.Vector >= o.Threshold:
		ev.Reason = ReasonVector
	case ev.Relevant:
		ev.Reason = ReasonCombined
	case unknownOnly:
		ev.Reason = ReasonUnknownWords
	case contextOnly:
		ev.Reason = ReasonContextOnly
	case missingPair && ev.Coverage > 0:
		ev.Reason = ReasonMissingPair
	case leafletOnly:
		ev.Reason = ReasonFilesOnly
	case ev.Coverage > 0:
		ev.Reason = ReasonPartial
	default:
		ev.Reason = ReasonNoEvidence
	}
	return ev
}

func logistic(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// kindWords is what evidence reads of one kind's words beside its
// vocabulary: the frame words and the general-language table as the
// kind's scorer writes them. Built once per Searcher (the scorers of a
// kind share their tokenizer, so a refresh's new scorer changes neither).
type kindWords struct {
	once   sync.Once
	frames map[string]bool
	// rateFrames are frames with the units of area, for a query asking a
	// rate per area (rateBasis).
	rateFrames map[string]bool
	general    *generalTable
}

// wordsFor returns kind's frame words and general-language table.
func (s *Searcher) wordsFor(kind storage.OwnerKind, sc *lexical.Scorer) *kindWords {
	w := &s.words[kindIndex(kind)]
	w.once.Do(func() {
		filters := sc.Tokenizer().Filters
		w.frames = textutil.FrameSet(s.evidence.FrameWords, filters...)
		w.rateFrames = textutil.FrameSet(append(slices.Clone(s.evidence.FrameWords), areaUnits...), filters...)
		w.general = newGeneralTable(s.evidence.Frequencies, filters)
	})
	return w
}

// generalTable is a frequency list as the scorer of one kind reads it:
// each ranked word and function word of the list passed through the
// scorer's token filters (a stemming scorer's "sabad" for "sábado"),
// keyed by the token, with the best rank of the words giving it; and, keyed
// "~" + lexical.Stem(word), the best rank of the words sharing that stem,
// for inflections the list lacks.
type generalTable struct {
	ranks    map[string]int
	function map[string]bool
}

func newGeneralTable(f *lexicon.Frequencies, filters []lexical.TokenFilter) *generalTable {
	t := &generalTable{ranks: make(map[string]int, 2*f.Len()), function: map[string]bool{}}
	better := func(k string, r int) {
		if old, ok := t.ranks[k]; !ok || r < old {
			t.ranks[k] = r
		}
	}
	for w, r := range f.All() {
		for _, tok := range textutil.Filter(w, filters) {
			better(tok, r)
		}
		better("~"+lexical.Stem(w), r)
	}
	for w := range f.Functions() {
		for _, tok := range textutil.Filter(w, filters) {
			t.function[tok] = true
		}
	}
	if len(t.ranks) == 0 && len(t.function) == 0 {
		return nil
	}
	// A chat abbreviation weighs what its word weighs: "qnd" as "quando".
	for abbr, full := range chatSpelling {
		fr, ff := f.Rank(full), f.Function(full)
		for _, tok := range textutil.Filter(abbr, filters) {
			if _, ok := t.ranks[tok]; !ok && fr > 0 {
				t.ranks[tok] = fr
			}
			if ff {
				t.function[tok] = true
			}
		}
	}
	return t
}

// rank returns the general rank of a scorer token, else of its stem; 0
// when the list does not know it.
func (t *generalTable) rank(token string) int {
	if r := t.ranks[token]; r > 0 {
		return r
	}
	return t.ranks["~"+lexical.Stem(token)]
}

// byEvidence orders hits by relevance (rounded to 0.01, so that equally
// relevant hits tie), then by how many of the covered concepts the record
// holds in its name, category, tags or metadata (Evidence.identity), then
// by tie (FAQ priority, higher first), then by their search order.
func byEvidence[T any](hits []Hit[T], tie func(*T) int) []Hit[T] {
	out := slices.Clone(hits)
	rel := func(h *Hit[T]) float64 {
		if h.Evidence == nil {
			return 0
		}
		return math.Round(h.Evidence.Relevance * 100)
	}
	// A hit without evidence holds nothing: identity 0, so the order
	// stays a strict weak order among judged and unjudged hits.
	identity := func(h *Hit[T]) int {
		if h.Evidence == nil {
			return 0
		}
		return h.Evidence.identity
	}
	slices.SortStableFunc(out, func(a, b Hit[T]) int {
		if c := cmp.Compare(rel(&b), rel(&a)); c != 0 {
			return c
		}
		if c := cmp.Compare(identity(&b), identity(&a)); c != 0 {
			return c
		}
		if tie != nil {
			return cmp.Compare(tie(&b.Record), tie(&a.Record))
		}
		return 0
	})
	return out
}

// addEvidence sets the Evidence of the final hits. Hits without lexical
// signals (simple mode, vector-only hits) are scored first, so every hit
// is judged on the same terms.
func addEvidence[T any](ctx context.Context, s *Searcher, ops kindOps[T], text string, pq *lexical.PreparedQuery, lx *kindLexicon, corrections []lexical.Correction, own []string, qvec []float32, hits []Hit[T]) {
	if len(hits) == 0 {
		return
	}
	idf := lx.idf
	if idf == nil {
		idf = func(string) float64 { return 1 }
	}
	words := s.wordsFor(ops.kind, lx.scorer)
	frames := words.frames
	if rateBasis.MatchString(lexical.Normalize(text)) {
		frames = words.rateFrames
	}
	eq := analyzeEvidence(pq, lx.scorer.Synonyms(), lx.scorer.Tokenizer().Filters, idf, lx.df, lx.docs, frames, corrections)
	eq.weighGenerality(words.general)
	if ops.titleField != lexical.FieldName {
		// Catalog items are judged without it (recordEvidence).
		eq.markVerbs(text, lx.scorer.Tokenizer().Filters)
	}
	if own != nil {
		eq.contextOnly(own)
	}
	eq.markNames(s.opts.Lexical.Lexicon, words.general)
	eq.markAsks(text, lx.scorer.Tokenizer().Filters)
	if qvec != nil {
		eq.bg = backgroundOf(qvec, s.calibrationOf(ctx, ops.kind))
	}
	for i := range hits {
		h := &hits[i]
		var sig *lexical.Signals
		if h.Lexical != nil && h.Lexical.Signals != nil {
			sig = h.Lexical.Signals
		} else {
			_, sg := pq.Score(ops.record(&h.Record))
			sig = &sg
		}
		var holds, inside, described func(string) bool
		// The catalog scorer matches substrings (FAQ and document scorers
		// match word starts only), so a catalog term may sit inside a word.
		if substrings := ops.titleField == lexical.FieldName; eq.groups || substrings {
			rec := ops.record(&h.Record)
			holds = func(phrase string) bool { return recordNames(rec, phrase) }
			if it, ok := any(&h.Record).(*storage.CatalogItem); ok && substrings && isTreatment(it, lx.scorer.Synonyms()) {
				// A pesticide is registered for the crops its tags
				// name: a group its description names in passing
				// ("fungicida … para cereais, soja, feijão", a leaflet
				// registering wheat alone) registers no crop of the group
				// ("ferrugem na aveia"). Its name, category and metadata
				// still do; and a fertilizer's description ("adubo
				// foliar … para cereais") says what it serves.
				holds = func(phrase string) bool { return recordNames(rec, phrase, lexical.FieldDescription) }
			}
			if substrings {
				inside = func(term string) bool {
					if eq.aliasWords[term] {
						return !recordNames(rec, term)
					}
					return !startsWord(rec, term)
				}
			}
		}
		if it, ok := any(&h.Record).(*storage.CatalogItem); ok && len(it.Metadata) > 0 {
			var meta metadataRecord // normalized once, on first use
			described = func(term string) bool {
				if meta == nil {
					meta = newMetadataRecord(it.Metadata)
				}
				return startsWord(meta, term)
			}
		}
		eq.nameHolds = nil
		if it, ok := any(&h.Record).(*storage.CatalogItem); ok {
			eq.nameHolds = func(t string) bool { return nameHoldsWord(it.Name, t) }
		}
		eq.valueHeld = nil
		if ops.titleField == fieldname.Question {
			// A document is judged by its sections (sectionEvidence).
			eq.valueHeld = valuesNear(ops.record(&h.Record))
		}
		h.Evidence = eq.recordEvidence(sig, h.Vector, ops.titleField, &s.evidence, holds, inside, described)
		if h.Evidence.described && !eq.pairTogether(ops.record(&h.Record)) {
			eq.strictPair = true
			h.Evidence = eq.recordEvidence(sig, h.Vector, ops.titleField, &s.evidence, holds, inside, described)
			eq.strictPair = false
		}
		if e := h.Evidence; e.Relevant && e.problem && e.Pair && !e.kindAsked && ops.titleField == lexical.FieldName {
			e.apart = !eq.problemTogether(ops.record(&h.Record))
		}
		// A section holds less than its document, so when the whole
		// document is not relevant no section is.
		if d, ok := any(&h.Record).(*storage.Document); ok && h.Evidence.Relevant {
			secs := s.norm.sections(d.ID, d.UpdatedAt, func() []lexical.NormalizedFields { return documentSections(d) })
			if ev := sectionEvidence(eq, pq, secs, h.Vector, ops.titleField, &s.evidence); ev != nil {
				h.Evidence = ev
			}
		}
	}
	eq.valueHeld = nil
}

// sectionEvidence judges a document of several Markdown sections by its
// best section (with the title and the section's heading path) instead of
// its whole text: a long document holds, somewhere, most words of many
// questions, while the section that answers holds the question's words
// together. Nil when the document has fewer than two sections.
func sectionEvidence(eq *evidenceQuery, pq *lexical.PreparedQuery, secs []lexical.NormalizedFields, vec *VectorEvidence, titleField string, o *EvidenceOptions) *Evidence {
	if len(secs) < 2 {
		return nil
	}
	var best *Evidence
	for _, rec := range secs {
		_, sig := pq.Score(rec)
		var holds func(string) bool
		if eq.groups {
			// A section naming a group of the crop asked holds it, as
			// the whole document did.
			holds = func(phrase string) bool { return recordNames(rec, phrase) }
		}
		eq.valueHeld = valuesNear(rec)
		ev := eq.recordEvidence(&sig, vec, titleField, o, holds, nil, nil)
		if best == nil || ev.Relevance > best.Relevance {
			best = ev
		}
		if ev.Coverage >= 1 {
			break // no section can do better
		}
	}
	eq.valueHeld = nil
	return best
}

// documentSections returns d's Markdown sections as normalized records of
// its title, source and the section (heading path and text), as docRecord
// gives the whole document; nil for fewer than two sections.
func documentSections(d *storage.Document) []lexical.NormalizedFields {
	secs := passage.MarkdownSections(d.Content)
	if len(secs) < 2 {
		return nil
	}
	out := make([]lexical.NormalizedFields, len(secs))
	for i, sec := range secs {
		out[i] = lexical.NormalizeRecord(lexical.Fields{
			{Name: fieldname.Title, Text: d.Title},
			{Name: fieldname.Source, Text: d.Source},
			{Name: fieldname.Content, Text: strings.Join(sec.Path, " ") + "\n" + sec.Text},
		})
	}
	return out
}

// isShortWord reports a token of fewer than three letters and no digit
// ("tá", "sc"): matched as a substring it is found almost everywhere, so
// it is not counted as content.
func isShortWord(t string) bool {
	if len(t) >= 3 {
		return false
	}
	return !strings.ContainsFunc(t, func(r rune) bool { return r >= '0' && r <= '9' })
}

// contextOnly down-weights the concepts none of whose query words is one
// of own, the message's own tokens: they come from the context.
func (eq *evidenceQuery) contextOnly(own []string) {
	for i := range eq.concepts {
		c := &eq.concepts[i]
		if !slices.ContainsFunc(c.direct, func(t string) bool { return slices.Contains(own, t) }) {
			c.weight *= contextWeight
			c.own = false
			eq.hasContext = true
		}
	}
}

// samePrefix reports whether a and b share their first n bytes.
func samePrefix(a, b string, n int) bool {
	return len(a) >= n && len(b) >= n && a[:n] == b[:n]
}

var synVariantsCache sync.Map // *lexical.Synonyms → map[string][]string

// synonymVariants returns the one-word variants of syn by normalized
// canonical term.
func synonymVariants(syn *lexical.Synonyms) map[string][]string {
	if m, ok := synVariantsCache.Load(syn); ok {
		return m.(map[string][]string)
	}
	m := map[string][]string{}
	for _, e := range syn.Entries() {
		c := lexical.Normalize(e.Canonical)
		for _, v := range e.Variants {
			if v = lexical.Normalize(v); !strings.ContainsAny(v, " -") {
				m[c] = append(m[c], v)
			}
		}
	}
	synVariantsCache.Store(syn, m)
	return m
}

// generality is how much a token names something specific, from the
// general language: stopWeight for a function word, 1 for a word outside
// the list (a technical word, a name), ln(rank/generalCommonRank) /
// ln(generalRareRank/generalCommonRank) for a common word, so 0 for the
// generalCommonRank most common.
func generality(t *generalTable, token string) float64 {
	if t.function[token] {
		return stopWeight
	}
	r := t.rank(token)
	if r == 0 {
		if isNumber(token) {
			return numberGenerality
		}
		return 1
	}
	g := math.Log(float64(r)/generalCommonRank) / math.Log(generalRareRank/generalCommonRank)
	return min(1, max(0, g))
}

// weighGenerality scales each concept's weight by its generality; the
// store's own categories (cultures, treatments) are subjects whatever
// their frequency, and so is every concept of its synonym table.
func (eq *evidenceQuery) weighGenerality(gen *generalTable) {
	eq.content = len(eq.concepts)
	if gen == nil {
		return
	}
	eq.maxRaw = 0
	for i := range eq.concepts {
		c := &eq.concepts[i]
		if !(c.culture || c.treatment || len(c.class) > 0) {
			g := 0.0
			for _, t := range c.direct {
				if !c.translated || eq.aliasWords[t] {
					g = max(g, generality(gen, t))
				}
			}
			if c.translated {
				// An English word read through the English table weighs
				// at most as its translation, a phrase as its most
				// specific word ("money" as "dinheiro").
				tg := 0.0
				for _, t := range c.direct {
					if !eq.aliasWords[t] {
						for _, w := range strings.FieldsFunc(t, func(r rune) bool { return r == ' ' || r == '-' }) {
							tg = max(tg, generality(gen, w))
						}
					}
				}
				g = min(g, tg)
			}
			c.function = !slices.ContainsFunc(c.direct, func(t string) bool { return !gen.function[t] })
			c.weight *= g
			c.raw *= g
		}
		if !c.unknown && !c.corrected {
			eq.maxRaw = max(eq.maxRaw, c.raw)
		}
	}
	eq.content = 0
	for _, c := range eq.concepts {
		if !c.function {
			eq.content++
		}
	}
}

// isTreatment reports whether an item's category names a class of the
// synonym table ("Fungicida", "Acaricida/Inseticida", "Inseticida
// Microbiológico"): a pesticide, registered per crop.
func isTreatment(it *storage.CatalogItem, syn *lexical.Synonyms) bool {
	return len(categoryClasses(it.Category, syn)) > 0
}

// categoryClasses are the synonym table classes a category names
// ("Acaricida/Inseticida": acaricida, inseticida; "EPI": none).
func categoryClasses(category string, syn *lexical.Synonyms) []string {
	var out []string
	for _, m := range syn.Detect(category) {
		if m.Category == lexical.CategoryClass && !slices.Contains(out, m.Term) {
			out = append(out, m.Term)
		}
	}
	return out
}

// recordNames reports whether a field of rec other than attached files
// and the fields skipped holds phrase (normalized words) as consecutive
// words, compared stemmed: "hortalicas" in "Soja, Milho, Hortaliças".
// Only the words where the phrase's first stem occurs at a word start are
// read (lexical.Stem returns a prefix of its word), so a long document
// costs a scan, not a stemming of every word.
func recordNames(rec lexical.Record, phrase string, skip ...string) bool {
	want := strings.Fields(phrase)
	if len(want) == 0 {
		return false
	}
	for i, w := range want {
		want[i] = lexical.Stem(w)
	}
	for i := range rec.NumFields() {
		f := rec.Field(i)
		if f.Name == fieldname.Files || slices.Contains(skip, f.Name) {
			continue
		}
		text := lexical.Normalize(f.Text)
		if anyIndex(text, want[0], func(at int) bool { return wordStart(text, at) && wordsFrom(text[at:], want) }) {
			return true
		}
	}
	return false
}

// anyIndex reports whether ok holds at some index of s in text.
func anyIndex(text, s string, ok func(at int) bool) bool {
	for off := 0; ; {
		j := strings.Index(text[off:], s)
		if j < 0 {
			return false
		}
		if ok(off + j) {
			return true
		}
		off += j + 1
	}
}

// wordsFrom reports whether the words text starts with (split at anything
// but letters and digits) are, stemmed, want.
func wordsFrom(text string, want []string) bool {
	isSep := func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }
	for _, w := range want {
		text = strings.TrimLeftFunc(text, isSep)
		end := strings.IndexFunc(text, isSep)
		if end < 0 {
			end = len(text)
		}
		if end == 0 || lexical.Stem(text[:end]) != w {
			return false
		}
		text = text[end:]
	}
	return true
}

// pairTogether reports whether one line of some field of rec holds a
// culture asked (its word or canonical term) and a treatment asked (the
// query's own word for it, not its class) at word starts: "Soja:
// percevejo-marrom (Euschistus heros) — 1,0 kg/ha" in a leaflet.
func (eq *evidenceQuery) pairTogether(rec lexical.Record) bool {
	return eq.together(rec, func(c *queryConcept) bool { return c.treatment }, false)
}

// problemTogether reports whether one sentence or list item of a field of
// rec holds a culture asked and a problem asked (a pest, disease or weed:
// a treatment concept reaching its class indirectly) by the query's own
// words at word starts. A leaflet written as prose registers a crop per
// sentence ("Na cultura do feijão, controla vaquinha e tripes."), a list
// per item ("• Algodão: … mosca-branca"). True when the query asks no
// such pair.
func (eq *evidenceQuery) problemTogether(rec lexical.Record) bool {
	if !slices.ContainsFunc(eq.concepts, func(c queryConcept) bool { return c.culture }) ||
		!slices.ContainsFunc(eq.concepts, func(c queryConcept) bool { return c.treatment && c.indirect }) {
		return true
	}
	return eq.together(rec, func(c *queryConcept) bool { return c.treatment && c.indirect }, true)
}

// together reports whether one line of some field of rec (one sentence or
// list item of it, with sentences) holds a culture asked (its word or
// canonical term) and the words of a concept pest selects at word starts.
func (eq *evidenceQuery) together(rec lexical.Record, pest func(*queryConcept) bool, bySentence bool) bool {
	var crops, pests []string
	for i := range eq.concepts {
		c := &eq.concepts[i]
		switch {
		case c.culture:
			crops = append(crops, c.direct...)
			crops = append(crops, c.class...)
		case pest(c):
			pests = append(pests, c.direct...)
		}
	}
	if len(crops) == 0 || len(pests) == 0 {
		return false
	}
	atWord := func(line string, terms []string) bool {
		return slices.ContainsFunc(terms, func(t string) bool {
			return t != "" && anyIndex(line, t, func(at int) bool { return wordStart(line, at) })
		})
	}
	both := func(s string) bool { return atWord(s, crops) && atWord(s, pests) }
	for i := range rec.NumFields() {
		for line := range strings.SplitSeq(rec.Field(i).Text, "\n") {
			if line = lexical.Normalize(line); !both(line) {
				continue
			}
			if !bySentence {
				return true
			}
			for _, s := range sentences(line) {
				if both(s) {
					return true
				}
			}
		}
	}
	return false
}

// sentences splits a normalized line at the ends of its sentences (a
// period followed by a space or the end, not after a digit or an
// abbreviation: "spp.", "L.", "f. sp."), at semicolons and at bullets.
func sentences(line string) []string {
	var out []string
	start := 0
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == ';' || strings.HasPrefix(line[i:], "•"):
		case c == '.' && (i+1 == len(line) || line[i+1] == ' ') && !abbreviationEnd(line[start:i]):
		default:
			continue
		}
		out = append(out, line[start:i])
		if strings.HasPrefix(line[i:], "•") {
			i += len("•") - 1
		}
		start = i + 1
	}
	return append(out, line[start:])
}

// abbreviationEnd reports whether text ends with a number or a word a
// period there abbreviates: a letter or two ("L.", "f.", "cv."), "spp",
// "var".
func abbreviationEnd(text string) bool {
	j := strings.LastIndexAny(text, " (")
	w := text[j+1:]
	if w == "" {
		return false
	}
	if c := w[len(w)-1]; c >= '0' && c <= '9' {
		return true
	}
	return len(w) <= 2 || w == "spp" || w == "var" || w == "subsp"
}

// startsWord reports whether some field of rec holds term at the start
// of a word (not only inside one: "rato" in "respiratória"), or after a
// compounding prefix that starts the word (compoundPrefixes:
// "inseticida" in "bioinseticida", "nutriente" in "micronutrientes").
func startsWord(rec lexical.Record, term string) bool {
	if term == "" {
		return false
	}
	for i := range rec.NumFields() {
		text := lexical.Normalize(rec.Field(i).Text)
		if anyIndex(text, term, func(at int) bool {
			return wordStart(text, at) || slices.ContainsFunc(compoundPrefixes, func(p string) bool {
				return strings.HasSuffix(text[:at], p) && wordStart(text, at-len(p))
			})
		}) {
			return true
		}
	}
	return false
}

// compoundPrefixes are the prefixes that form one word with the name of a
// product class or nutrient ("bioinseticida", "biofertilizante",
// "micronutriente", "organomineral", "superfosfato"), in Normalize form.
var compoundPrefixes = []string{"bio", "micro", "macro", "organo", "fito", "agro", "multi", "super"}

// wordStart reports whether text[at:] starts a word.
func wordStart(text string, at int) bool {
	if at == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(text[:at])
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// metadataRecord is a catalog item's metadata values, normalized, in key order, read
// as the fields of a lexical.Record for the evidence's word-start checks.
type metadataRecord []string

func newMetadataRecord(m map[string]string) metadataRecord {
	keys := slices.Sorted(maps.Keys(m))
	r := make(metadataRecord, len(keys))
	for i, k := range keys {
		r[i] = lexical.Normalize(m[k])
	}
	return r
}

func (m metadataRecord) NumFields() int { return len(m) }
func (m metadataRecord) Field(i int) lexical.Field {
	return lexical.Field{Name: "metadata", Text: m[i]}
}

// isNumber reports whether a token is a figure: digits ("15", "200"),
// or digits with a unit glued on ("30km").
func isNumber(t string) bool {
	unit := strings.TrimLeft(t, "0123456789")
	if len(unit) == len(t) {
		return false
	}
	// A figure written with its unit glued on ("30km", "50kg", "100ml",
	// "14h") is a figure too, not a name the store lacks ("uns 30km da
	// cidade, vcs entregam la?" abstained where "30 km" answered: the
	// newcomer walk; on the development sets two such delivery stories
	// answered, nothing else moved). A code is not ("2,4d", "480sl").
	return unit == "" || glued[strings.TrimLeft(unit, ",.0123456789")]
}

// glued are the units a customer glues to a figure, normalized.
var glued = map[string]bool{
	"km": true, "m": true, "cm": true, "mm": true, "ha": true, "alq": true, "t": true, "kg": true, "g": true, "mg": true,
	"l": true, "lt": true, "lts": true, "ml": true, "h": true, "hs": true, "hr": true, "hrs": true, "min": true, "x": true,
}
