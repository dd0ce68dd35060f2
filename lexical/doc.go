// Package lexical is the model-free half of hybrid search: accent-insensitive
// normalization, Portuguese-aware tokenization and stemming, synonym tables
// and a field-weighted term score with bonuses for the paired synonym
// categories (a subject, a class, both together), plus BM25F for FAQs and
// documents.
//
// # Normalization
//
// [Normalize] is the one definition of "same text" used on both sides:
// lower case, Unicode NFD with combining marks dropped (so "Café" in NFC,
// "Cafe\u0301" in NFD and "cafe" are equal), invisible format characters
// dropped, white space collapsed, invalid UTF-8 repaired. It is idempotent
// and returns already normalized ASCII without allocating, so stores should
// keep a normalized copy of their text (storage does) and scoring stays
// cheap.
//
// # Tokenization
//
// [Tokens] turns a query or a text into search tokens; a [Tokenizer]
// configures it.
// Text is normalized and split on every rune that is not a letter, digit or
// mark, with two exceptions decided for catalog search:
//
//   - A hyphen between letters joins a compound. By default the compound
//     and its parts are both emitted: "cana-de-açúcar" → "cana-de-acucar",
//     "cana", "acucar" (the stopword "de" is dropped). The parts give
//     recall, the compound gives a record holding the exact compound a
//     higher score than one with the words scattered. [CompoundsOnly] and
//     [PartsOnly] select one side.
//   - A compound holding a digit is one token and is never split, and a
//     comma or period between digits joins a number: "2,4-D" → "2,4-d",
//     "10-10-10" and "0,5" stay whole, so the herbicide and NPK formulas
//     remain findable.
//
// Then stopwords (embedded pt-BR and English lists, [DefaultStopwords]) and
// tokens shorter than 2 runes are dropped, optional [TokenFilter]s run (the
// analyzer shape of bleve, without its global registry), duplicates are
// removed keeping the first, at most 8 tokens are kept, and when nothing
// survives the whole normalized text becomes the only token.
//
// # Stemming
//
// [Stem] is a light Portuguese stemmer (plural and gender endings, in the
// spirit of RSLP): "fungicidas" → "fungicida", "pulgões" and "pulgão" →
// "pulg". It only removes suffixes, so a stem is a prefix of every form it
// comes from; with substring matching (a term matches the stored words it
// is a part of), stemming the query
// ([StemFilter]) is therefore enough to match every inflection in stored
// text, which needs no stemming. It is off by default.
//
// The Snowball Portuguese stemmer of Lucene and bleve, adjusted to folded
// text and to the same prefix property, is in the leaf package
// lexical/snowball: snowball.Stem conflates verbs with their nouns
// ("declarar", "declaração" → "declar"), which questions phrased in other
// words need, and snowball.Filter is the [TokenFilter] that applies it to
// query tokens; package rag's FAQ and document scorers use it.
//
// # Synonyms
//
// A [Synonyms] table maps variants to canonical terms in four categories:
// subject (what a record is for or about), class (what kind of record it
// is), generic, and alias (another language's words for a term, or the
// customers' everyday name for it: only the variants are matched, so a
// query naming the term itself is unchanged);
// a record holding the subject and the class a query names earns the pair
// bonus. Matching is on normalized, stemmed whole
// words, multi-word variants included ("erva daninha", "doença fúngica"),
// longest first. [DefaultSynonyms] is the agronomy preset, an embedded
// pt-BR table (synonyms_ptbr.json) whose subjects are crops and whose
// classes are product classes; its aliases include what customers see of
// a pest or disease, in phrases of two words or more that name no
// other thing on a farm ("pó branco" for oídio, "pó laranja" for
// ferrugem, "mosquitinho branco" for mosca-branca, "fede-fede" for
// percevejo), a leaflet's sections by the words customers ask them
// with ("intoxicação" or "antídoto" for primeiros socorros, "grupo químico"
// for mecanismo de ação), and what customers' stories name by the store's
// words ("galão" for embalagem, "estrada de chão" for zona rural,
// "paraguai" for exportação), and, for English questions only, an
// embedded table of about 6,000 common English words read as their
// Portuguese translations ("money" as "dinheiro"; see
// [DefaultSynonyms]); another store loads its own table
// (devices and accessory kinds, areas of law and document kinds). Tables are loaded
// from JSON, one object per category mapping a canonical term to its
// variants:
//
//	{
//	  "subject": {"uva": ["videira", "parreira"], "café": ["cafeeiro", "cafezal"]},
//	  "class":   {"fungicida": ["fungo", "doença fúngica", "míldio"]},
//	  "generic": {"fertilizante": ["adubo", "nutrição foliar"]},
//	  "alias":   {"percevejo": ["stink bug"], "entrega": ["delivery"]}
//	}
//
// and combined with [Synonyms.Merge], where later tables extend and
// override earlier ones.
//
// # Scoring
//
// A [Scorer] computes the field-weighted score for any record with named
// text fields ([Record], [Fields]): per query term, the
// weights of the fields that contain it (name 3.5, description 2.5,
// category 2, manufacturer 1.5, tags 4 by default) plus 0.5, then +2 for a
// subject of the query found in the record, +2 for a class, +5 for
// both, +1 for the subject found in a tag. [Scorer.Prepare] analyzes the
// query once; [PreparedQuery.Score] returns the score with typed
// [Signals] explaining it, and [PreparedQuery.ScoreOnly] the score alone
// without allocating. All weights, the match mode and an optional IDF hook
// are in [ScorerOptions].
//
// With [ScorerOptions].BM25 the field component becomes BM25F: a term's
// occurrences are counted per field, weighted, normalized by the field's
// length against the collection's average ([Vocabulary.AvgFieldWordsAll])
// and saturated, and pairs of consecutive query tokens found together earn
// a proximity score. A term found once in the heaviest field of average
// length still earns that field's weight, so the two scorings stay on one
// scale. Long FAQ answers and documents no longer win by collecting every
// common word.
//
// # Vocabulary: typo correction and IDF
//
// A [Vocabulary] holds the words of a collection with their document
// frequencies ([VocabularyBuilder]). [Vocabulary.Correct]
// maps a misspelled query word to the indexed word within one edit (two
// from 8 letters) found in the most documents ("fungisida" → "fungicida",
// "aglodao" → "algodao"), and leaves known words alone;
// [Vocabulary.CorrectText] applies it to a whole query.
// [Vocabulary.IDFWeights] turns BM25 inverse document frequencies into a
// term weight for [Scorer.WithIDF] (1 for a term in one document of
// ten, more for rarer terms, bounded); [Scorer.WithIDF] returns a scorer
// using one. Both read terms as word prefixes, the semantics of stemmed
// query tokens.
//
// # Errors
//
// Parsing and building synonym tables fail with errors wrapping
// [ErrInvalidSynonyms]; [ScorerOptions.Validate] with errors wrapping
// [ErrInvalidOptions]. Nothing else in the package returns errors or
// panics: bad input is repaired (invalid UTF-8) or ignored (unknown field
// names).
//
// # Concurrency
//
// Every function is safe for concurrent use. [StopwordSet], [Synonyms],
// [Scorer] and [PreparedQuery] are immutable after construction and may be
// shared between goroutines; [Tokenizer] is a value and is safe to share
// when its Filters are.
//
// # Dependencies
//
// lexical belongs to the computing core: it imports the standard library
// and golang.org/x/text only (the pt-BR and English stopword lists and the
// synonym table are embedded files). Code with third-party dependencies
// lives in leaf packages beneath it: lexical/snowball, the only importer
// of github.com/blevesearch/snowballstem.
package lexical
