// Package rag is the front door of hybridrag: the [Searcher] (hybrid
// search over catalog items, FAQs and documents, every hit with its
// evidence) and, built on it, the chat [Pipeline]. Records get into the
// store through package ingest; the chat components the Pipeline is wired
// with live in packages offline (no model) and llmchat (a chat model). The
// list at the end ("See also") names every sub-package.
//
// The main path — load, index, search, chat — offline and in memory
// (examples/minimal runs it):
//
//	src, err := ingest.LoadDir(ctx, "testdata", nil) // catalog.jsonl, faqs.jsonl, documents.jsonl, documents/
//	emb := offline.NewEmbedder()                      // or a model's: llm/openai
//	store, err := memory.New(memory.Options{Dimensions: emb.Dimensions()}).Tenant("acme")
//	_, err = ingest.NewIndexer(store, emb, ingest.IndexerOptions{}).Reindex(ctx, src)
//
//	s := rag.NewSearcher(store, emb, rag.SearcherOptions{})
//	res, err := s.SearchCatalog(ctx, rag.Query{Text: "fungicida para videira", Limit: 3})
//	// res.Hits: each with its record, its score's explanation and its Evidence
//
//	p, err := rag.NewPipeline(s, offline.KeywordClassifier{}, offline.ExtractiveAnswerer{}, rag.PipelineOptions{})
//	resp, err := p.Chat(ctx, rag.ChatRequest{Message: "tem fungicida para videira?"})
//	// resp.Answer; resp.Sources, each with the span it quotes; resp.Confidence
//
// # Searching
//
// A Searcher runs two legs concurrently:
//
//   - lexical: the query is tokenized (stopwords dropped, at most 24 tokens
//     with the default scorers)
//     and expanded with the synonym table ("videira" adds "uva"); the store
//     returns active records containing any term, ranked by terms matched;
//     unless the fusion is simple (vector hits first) every candidate
//     is scored with lexicalScore (field weights, subject/class
//     bonuses) and re-sorted;
//   - vector: the query is embedded (bounded by
//     [VectorOptions.EmbedTimeout], 2 s by default; the vector is checked
//     and normalized to unit length, vector.Checked), the store returns the
//     nearest chunks within the threshold (distance <#> <= -0.5), and
//     chunks are aggregated per owner with a snippet.
//
// Before both legs, the query is checked against the kind's vocabulary
// (built from the store's records by [Searcher.Warm], which reports a
// failed build, or else on the first search of each kind): a misspelled
// word no indexed word starts with, and whose stem under the kind's scorer
// starts none either (an inflection such as "entregar" of an indexed
// "entrega" is no typo), is corrected to the indexed word it sounds like
// (the most frequent of them: "ferujem" → "ferrugem"), else to the
// closest indexed word (then the most frequent)
// ("insetisida soja" → "inseticida soja"; [QueryAnalysis.Corrections]
// lists the changes; the word as typed still fetches candidates from the
// store, but terms and scores use the correction; a word of four letters
// only to one it sounds like: "huva" → "uva"), and each
// lexical term is weighted by its IDF, so rare words ("azoxistrobina")
// outweigh common ones ("produto", "soja"). The vocabularies follow the
// store by themselves (see Freshness below); [Off] in
// [LexicalOptions.TypoCorrection], [LexicalOptions.IDF] or
// [LexicalOptions.Vocabulary] turns these off. What they are worth on the
// project's evaluation sets is in BENCHMARKS.md ("Measurements behind
// defaults").
//
// The lists are fused by the query's method: simple (vector first, then
// lexical), weighted (the legs' scores weighted, plus a bonus for an
// owner both legs found: package scoring), RRF or relative
// score; an optional reranker (package rerank) reorders the head. Every
// [Hit] carries its lexical Signals and vector distance and a typed
// explanation of its score. A [Query] needs only Text; the zero value of
// every other field means the Searcher's default. Besides the store's
// filters (Query.Filters), [Query.ChunkFilters] (chunk metadata) and
// [Query.DocumentIDs] (a document search restricted to listed documents)
// restrict both legs; the store evaluates them over all of its chunks, so
// a matching chunk is found wherever it ranks.
//
// # Options
//
// Every options struct of the library follows one convention: the zero
// value of a field means its documented default, and a negative value
// switches the feature off — [Off] (-1) for a [Toggle], the library's one
// on/off type (a Searcher stage, [Query.Rerank], the Pipeline's
// [PipelineOptions.Fallback] and document search), any negative number
// for a numeric knob (scoring.Off for a fusion weight, lexical.Off for a
// lexical bonus, a negative cut, cache size or TTL). Pointers are used
// only where zero is itself a meaningful value (a vector threshold of 0).
// [SearcherOptions] groups its knobs by concern: Limits, Kinds (per record
// kind), Lexical, Vector, Fusion, Rerank, Evidence, Logger and Tracer.
//
// The number of hits of a search has one precedence, first set wins:
// [Query.Limit] (in a chat turn [ChatRequest.Limit]), then the kind's
// [KindOptions.Limit], then [LimitOptions.Default] (5); the result is
// clamped to [LimitOptions.Max] (50).
//
// # Evidence
//
// Every hit carries an [Evidence]: a calibrated relevance in [0, 1] and a
// typed decision (Relevant, Reason). It does not change the ranking; it
// says whether the hit answers the query at all. Lexical evidence is the
// IDF-weighted share of the query's content concepts the record holds
// (stopwords and request words such as "vendem" or "quanto custa" are not
// content; a synonym and the words it spans are one concept, and an alias
// — lexical.CategoryAlias, another language's words for a term: "stink
// bug" for "percevejo" — counts as the term itself). A concept
// weighs its IDF in the store (a fixed weight when no record holds it)
// times how specific its word is in the general language
// ([EvidenceOptions.Frequencies]; by default lexicon.DefaultFrequencies,
// the frequency ranks of Brazilian Portuguese and the function words of
// Portuguese and English): 0 for the 30 most common words, rising with the
// log of the rank to 1 at rank 5,000 and beyond (technical words, names),
// 0.3 for a function word; the store's own synonym-table concepts count
// fully, and an English word read through the preset's English table
// (lexical.DefaultSynonyms, lexical.Mention.Translation) weighs at most
// as its Portuguese translation, a phrase as its most specific word
// ("money" as "dinheiro": as little as the Portuguese question's word). So a word weighs by how much it says: a pest, an active
// ingredient or a product name fully, "sábado" (rank 1,853) 0.81, "preço"
// (1,250) 0.73, "carro" (217) 0.39, "vocês" (a function word) 0.3 —
// whether a record lacks it or happens to hold it. A chat abbreviation
// weighs what its word weighs ("qnd" as "quando", "tbm" as "também"),
// and a number, which the list does not rank, 0.5 ("15 km da cidade"
// describes the customer's situation); a unit of area a rate is given per
// ("por hectare") is no content at all. The ranks were chosen
// on the cross-domain evaluation (examples/eval -cross) with one store
// held out, and the upper one refitted with every evidence parameter on
// thirteen chat sets and -cross together. A word the record holds only as
// the word a typo was corrected to ("glifozato" → "glifosato") earns 0.75
// of a match. A verb no FAQ or document holds names nothing: missing from a
// FAQ or a document, a concept whose words are all forms only a verb has
// (an infinitive, a past, a plural, a gerund of the verbs of VERO, the
// LibreOffice pt-BR dictionary: "abrem", "mandei", "arrependi"; not the
// participles and present singulars nouns share, "usado", "entrega")
// counts 0.3 of its weight (the function words' factor), so "vocês abrem
// no sábado?" is the opening hours FAQ's. A word asking for a kind of
// value (the cues the passages read: "demora", "prazo", "quanto tempo" a
// duration, "que horas" a time of day, "que fase" a stage) is held, at the
// indirect credit, by a FAQ or a document section with a sentence holding
// a value of the kind beside another word of the question the record
// holds ("o boleto vence em 3 dias úteis" for "e no boleto demora
// mais?"; a refund FAQ's "o estorno leva até 10 dias" does not answer
// "qual o prazo pra pagar a fatura do cartão?"); when one relevant FAQ or
// document does, the Pipeline leaves out those holding no such value ("o
// vazio sanitário da soja é de quantos dias?" cites the section stating
// "pelo menos 60 dias", not the FAQ telling to respect it). Catalog
// items are judged without either rule: "quem criou o Ministério da
// Saúde?" is not about the items holding "Ministério da Saúde", and a
// leaflet holds durations of every kind. Such a word is the question's
// request, not its subject: a record holding only it, of a question
// about something else, is not relevant, of any kind ("o passaporte
// demora?", "qual o prazo do imposto de renda?" are not the delivery
// FAQ's), while a question that is only the request ("qual o horário de
// vocês?") is about what its word names, and a verb names nothing
// ("demora muito pra chegar?" stays the delivery FAQ's). The verb table is Portuguese: in another
// language a noun spelled like a Portuguese verb form ("mover") is read
// as one. Vector
// evidence compares the hit's similarity with the query's similarity to a
// fixed sample of the store's own chunks (median and robust spread), so it
// means the same for the hash embedder, whose relevant chunks sit near
// 0.3, and for a semantic model, whose relevant chunks sit near 0.8. The
// two are fused as 1 − (1 − lexical)(1 − vector), though a vector alone
// makes no record relevant that holds less than 0.3 of the query's
// content (the close vector of such a record is mostly the request's
// words: "quanto custa um carro usado?" against "Quanto custa o frete?"),
// nor one lacking a name no record holds and no dictionary knows ("prazo
// entrega IRPF 2024": the store does not know what IRPF is);
// a question whose content is one thing ("vocês vendem trator?") is not
// answered by a catalog item that holds it only in its attached files'
// prose ("pulverizadores tratorizados"), unless it is a concept of the
// synonym table (a crop, a class, a target) or in the item's metadata (its
// active ingredient); a query naming a subject
// and a class (lexical's paired synonym categories: in the agronomy
// preset a crop and a product class) caps records lacking the pair, and
// makes a record holding both relevant when it lacks no other subject or
// class the store knows and the rest it lacks is words no record of its
// kind holds ("o pulgão tá atacando as espigas do trigo") or words other
// records hold weighing at most a fifth of the question ("meu parreiral
// tá com oídio, aquele pó branco nas folhas"): the rest describes the
// problem. When the record holds the pest or disease by the question's own
// word and names it with the crop on one line ("Soja: percevejo-marrom …
// — 1,0 kg/ha"), it may lack anything else: a farmer's description
// of the symptoms ("meu cafezal ta cheio de mancha amarelada embaixo da
// folha … acho q é ferrugem"). Such a record is relevant whatever its
// coverage, but the Pipeline leaves it out of a turn where another hit
// is relevant on its own evidence ("qual volume de calda usar no
// fungicida pra ferrugem da soja?" is the application guide's, not every
// soybean fungicide's).
// A FAQ holding two of the message's own concepts that no other FAQ of
// the store holds is relevant however little of the rest it holds: a
// customer's story ("chegou o galão todo amassado e vazando, o motorista
// já foi embora") is the damaged-delivery FAQ's, the only one holding
// "amassado" and "vazando" (documents are too few for a word held by one
// of them to say as much, and catalog items are named by their names).
// A catalog item is named (Evidence.Named: relevant however little of a
// long question it holds) by a rare word of the question in its name (a
// crop only as a word of the name: "pasto" does not name "Pastoforte", and
// a product name beginning like a crop, "pastonet", is no mention of it), or
// in a metadata value when no dictionary knows the word (an active
// ingredient: "a azoxistrobina pertence a qual grupo FRAC?"); with an
// empty LexicalOptions.Lexicon or EvidenceOptions.Frequencies no word is
// taken for such a name, and metadata names nothing. When the question
// holds such a word and no relevant hit of the catalog search is named by
// it, the Pipeline searches the catalog again, deeper, and puts first the
// relevant items it names ("o cletox age como? qual o mecanismo dele":
// Cletox ranked eighth behind leaflets holding "mecanismo").
// For a problem asked (a pest, disease or weed the synonym table files
// under a treatment class) the Pipeline prefers what treats it: when a
// relevant item is of the problem's class, items that only mention the
// problem (a Bt seed "com proteção contra lagartas") are left out, and
// when a relevant item names the crop and the problem in one sentence or
// list item (the leaflet row that registers it: "Feijão: mosca-branca —
// 0,5 L/ha"), items
// holding them only apart (registered for the pest on other crops) are
// left out — unless the item is itself what is asked ("semente de
// capim", "o fosfito resolve ferrugem?").
// A record naming a group the subject belongs to (lexical.SynonymEntry
// Within: in the agronomy preset "Hortaliças" for "repolho", "Todas as
// culturas" for any crop) holds the subject with the indirect credit, and
// the pair with the class; a FAQ or a document naming the group of a
// class asked by its own word ("defensivos", "agrotóxicos" for
// "fungicida") holds the class with the indirect credit, but not the pair
// ("preciso de receita pra comprar fungicida?"); nor does one holding the
// crop and only the class of the pest asked ("inseticidas" in a note on
// the corn leafhopper, for "lagarta no cartucho do milho"). A catalog item
// lacking the subject asked is not
// relevant even without a class ("semente de girassol" is not answered by
// a braquiária seed), unless the query names the item ("o Fungiprot serve
// para uva?"): then it stays relevant at the threshold, so the turn's
// confidence is low and its crops answer; a FAQ or a document may answer
// for any subject.
// A turn that would abstain but names an inactive catalog item ("ainda
// tem o Vinhedo Cobre 350 WP?", or "o vinhedo cobre": the words before the
// concentration, when they name no other item and, one word, are no word
// of the language) answers that it is discontinued, with the substitute
// its description names.
// A document of several Markdown sections is judged by its best section
// (with its title and heading path), not its whole text, so words it holds
// only in different sections do not add up. The background sample is
// drawn by Warm or the first search of each kind (memory and Postgres give
// the same sample) and redrawn when the store changes; [EvidenceOptions]
// holds the knobs.
//
// # Freshness
//
// What the Searcher derives from the stored records (the vocabularies
// behind typo correction and IDF weights, the calibration samples, the
// Pipeline's index of discontinued items) follows the store by itself,
// whoever writes to it: another process, another replica on the same
// PostgreSQL, an Indexer beside this Searcher. A search reads the store's
// change marker (storage.Store.Version: an atomic counter in memory, one
// primary-key lookup in PostgreSQL) at most once a second; when it moved,
// one background rebuild reads the records again and swaps each part in
// when it is ready, while searches go on with the previous snapshot. So
// a write reaches typo correction within about a second plus the rebuild
// (a listing of the kind's records). Rebuilds are bounded: one at a time,
// and after one that took d none starts for 4d, so under a stream of
// writes (a bulk load) a Searcher spends at most a fifth of its time, and
// of one store connection, rebuilding. [Searcher.Refresh] drops the derived
// state at once instead, for a caller that needs its very next search to
// see its own write (the next search then rebuilds before answering).
//
// # The pipeline
//
// A [Pipeline] answers a chat turn: it validates the message, summarizes a
// long history (with a [Summarizer]), asks its [Classifier] for the
// intent, plans and runs the searches, builds the context and asks its
// [Answerer]. The intent decides the searches (a catalog question: the
// catalog and the FAQs; support: the FAQs and the documents; agronomy and
// anything else: all three); a turn whose plan leaves the documents out
// searches them after the others (not when an item or FAQ is fully
// relevant) and keeps the hits that answer better — all of them when its
// items and FAQs kept nothing and the question asks more than one thing,
// else those more relevant than every kept item and FAQ — so a misread
// intent does not turn a question a manual answers into an abstention or
// a product ("pra comprar adubo foliar precisa de receita
// do agrônomo?"); likewise a turn whose plan leaves the catalog out (support)
// searches it last when its FAQs and documents had candidates but kept
// none ("o filtro daquele respirador dura quanto tempo? de quanto em
// quanto troca"). Each search keeps its relevant hits only, in evidence order
// (of equally relevant hits, those holding more of the question's
// concepts in their name, category, tags or metadata first — what a
// record is before what its text mentions —, then FAQ priority), drops
// those more than 0.25 below the search's best (and the FAQs and documents
// more than 0.25 below the turn's best hit of any kind: the warranty FAQ
// does not join the sprayer asked about) and fits the retrieved
// sections into a
// 2,000-token budget ([PipelineOptions.ContextTokens]). A turn whose kept
// hits have a mean relevance below the low threshold of
// [PipelineOptions.Confidence] (0.60) has level none and abstains:
// [ChatResponse.Abstained] is set, no source is cited, and the Answerer is
// told ([AnswerRequest.Abstained]) to say the store has nothing on it;
// when the catalog has what was asked for other crops ("semente de
// girassol": the seeds it sells), those items are [ChatResponse.Related],
// never sources, and the context's "not-carried" section gives the thing
// asked in the customer's words, which the ExtractiveAnswerer says plainly
// ("Não temos semente de girassol no catálogo.").
// Before it abstains, a turn whose message has several clauses and is no
// follow-up searches again by the clause that asks (the last one ending in
// a question mark, else the last one), with the rest of the message as
// its context, whose words then weigh 0.5, as an earlier turn's do in a
// follow-up: a customer's story ("devolvi o pedido semana passada, o
// estorno no cartão cai quando?") no longer outweighs what is asked. A
// story naming an everyday thing no record holds (a word among the 5,000
// most common of [EvidenceOptions.Frequencies]: "meu filho quer um
// videogame, aceitam cartão?", "minha geladeira parou de gelar, tem
// garantia?") is another domain's, and the turn abstains without a second
// search; a rare word says nothing either way, so "meu notebook queimou,
// tem garantia?" or "my phone fell in the pool, is there a warranty?" can
// still answer, at low. A turn answered so has low confidence at most; its
// Debug.CatalogQuery and Debug.FAQQuery show the clause and its context,
// and Debug.Timings.Search counts both rounds. Streaming, the second
// round's tool calls and hits follow the first's (whose hits were empty)
// only when it is kept; a second round that finds nothing streams nothing
// (the "rag tool payload" records logged through [PipelineOptions.Logger]
// include its searches either way).
// The level of a turn that answers says how often such turns cite the
// right records, as measured on the chat and cross-domain evaluations
// (examples/eval prints the reliability table): high when it cites exactly
// one record of relevance ≥ 0.8 whose lexical evidence is at least 0.6
// (the default relevance threshold; a fixed figure, not
// [EvidenceOptions.Threshold]: the question's words are in it, not only
// near it) and is not a catalog item only mentioning the treatment asked
// (a bean seed "suscetível ao mofo-branco") nor a record relevant only by
// its name or a described problem (Evidence.Reason [ReasonNamed]: much of
// the question missing), nearly always right;
// medium when every record it cites has relevance ≥ 0.8; low otherwise
// (about half right). The measured rates are in BENCHMARKS.md ("Confidence
// that means what it says"). Recent turns join the searches only when [DetectFollowUp]
// (or [PipelineOptions.FollowUp]) takes the message for a follow-up; then
// the catalog and document searches also read the product names of the
// assistant's last answer (words at most two items, or 0.5% of them,
// hold), the referent of "e pro feijão, serve os mesmos?" or "e a dose do
// segundo?". A follow-up asking which of them is the cheapest or the
// dearest ("qual desses é mais barato?", "which one is cheaper?"), and
// nothing else, is answered from the prices of the items that answer named
// (of the category most of them share), in price order at medium
// confidence, with a "price-order" context section saying so (no
// relevance search finds "barato"); the extractive answerer then opens
// with "Dos produtos citados, o mais barato é …".
// [FormatContext] formats one search's hits as the Pipeline's context, so
// a search API can show what a chat turn would give the model.
//
// # What the model reads
//
// The context carries, for each hit it keeps, the passages of the record
// that answer the question, not only the hit's snippet: a model told to
// answer only from its context can state only what the context holds. A
// record's text is split into units — a line of a leaflet or a sentence of
// a long line, a table row written "Header: cell; Header: cell", a list
// with its opening sentence, a metadata value ("Ingrediente ativo:
// azoxistrobina 250 g/L"); a document by its Markdown sections — and each
// unit is scored by the question's content words it holds (stopwords and
// request words such as "qual", "vende", "preço" left out), each weighted by
// its rarity among the record's own units, ln(1+N/df): the word on every
// row of a leaflet ("dose") counts little and the crop asked ("café") much.
// Words of the record's own name do not count (every unit is about it),
// nor, for a catalog item, those of its category ("tem fungicida pra
// uva?" quotes a fungicide's "Uva: míldio …" row, not its description
// "Fungicida cúprico de contato…": the crop's row came first for 122 of
// the 255 crop lines of testdata's leaflets asked so, now 252) or of
// the one crop an item is registered for ("passei pastonet max no pasto,
// quanto tempo depois posso plantar feijão?" quotes the pasture herbicide's
// "Não plantar culturas de folha larga na área por 2 anos.", not its
// pasture dose row), and a question word also matches through the synonym table's canonical
// terms: "carência" reaches the leaflet's "INTERVALO DE SEGURANÇA" column
// and "coffee" the row "Café". Words are compared by their light and
// Snowball stems, so a verb finds its noun ("como armazenar?" →
// "Armazenamento: …"), and by the root an adjective's genders and numbers
// share ("frasco vazio" → "Embalagens vazias: …"); a crop finds the row of its group ("repolho" →
// "Na cultura das hortaliças, …") when no unit names the crop itself; and
// a question asking for a kind of value — a duration ("quanto tempo",
// "prazo", "qto tempo", "quando"), a time of day ("até que horas"), a count
// ("quantas vezes"), a stage ("até que fase"), a temperature
// ("temperatura") or an amount ("quantos litros"), or stating a value of
// the kind itself ("aguenta 35 graus?") — counts a unit holding
// such a value ("até 6 horas", "14h", "quatro aplicações", "estádio V8",
// "abaixo de 30 °C", "0,6 L/ha"; a time of day is no duration) as holding one more
// of its words, weighted by rarity like the others. A question asking
// yes or no (no interrogative word: "preciso de receita pra comprar
// glifosato?") is answered by a FAQ answer's verdict ("Sim. A venda …
// exige receituário agronômico"), which leads its passages. A question word also
// weighs how specific it is in the general language (as in the
// evidence: "certo", "colocar" count little), a follow-up's words from
// the previous turn count half and its crop gives way to the crop the
// message names ("e no café?"), a unit naming crops not asked counts
// less the more it names (the row "Feijão: …" beats a list of every
// crop), and a unit defining the term of a definitional question ("o que
// é …?", "Valor cultural (VC): …") leads. Up to three units scoring at
// least half the best are quoted, best first, each in guillemets — a
// document's from the section of the best one, which its citation
// names: an item's line reads
// "… | Trechos: «CULTURA: Café; …; DOSE: 400 mL/ha; INTERVALO DE
// SEGURANÇA: 30 dias» «…»", a document's "[1] Título › Seção: «…»"
// (the section its passages come from), a long FAQ answer (over 600
// characters) keeps its sentences that answer. A hit with no unit holding
// a question word keeps its snippet, and so does a question that names
// only the record. The one catalog item a question names ("como guardo o
// Trichovale?") also brings its attached files whole, up to 3,000
// characters (" | Bula: …"): what it asks in other words than its
// leaflet's ("guardo" for "Armazenamento") is then in the context too.
// The agentic tools return the same passages, chosen by
// the tool call's query, and the offline ExtractiveAnswerer states them
// too (its leaflet rows aside), so the offline answer says what a model
// reading the context could. Units are cached per record (by kind, ID and
// UpdatedAt). examples/eval -chat reports the share of expected facts the
// context holds (context fact recall) and its size per turn.
//
// Every [Citation] carries the span of its record it rests on
// ([Citation.Quote]: the field, the text exactly as stored and its byte
// offsets) — the passage the context carries for the question, else the
// start of the record's main text — so a reader or a test can check each
// claim against its source. A model is asked to quote the passages it
// states in guillemets («…», as the context writes them); the Pipeline
// checks each such quote of its answer against the context and the cited
// records (after lexical.Normalize) and lists those it cannot find in
// [ChatResponse.UnverifiedQuotes].
//
// [Pipeline.Chat] returns the whole response; [Pipeline.ChatStream] yields
// the same turn as [Event] values to range over: the intent, each search
// and its hits, the answer's tokens (as they are written when the Answerer
// is a [StreamAnswerer]), then done with the response.
//
// An [Agent] is the agentic mode, configured once like the Pipeline it
// is built on (NewAgent(pipeline, model, AgentOptions)): the model gets
// searchCatalog (with category, manufacturer and tag filters mapped to
// storage.Filter, never SQL), searchFaqs and searchDocuments as tools,
// each returning its hits as a pt-BR text, and loops through llm.RunTools
// for at most 5 model calls; past that the turn ends with the fallback
// message or, with [PipelineOptions.Fallback] Off, an error wrapping
// [ErrNoAnswer] and *llm.MaxIterationsExceededError. A search that fails
// is run once more before the model is told, and
// [AgentOptions.FallbackModel] names a model asked when a call fails
// with a retryable or server error.
// [Agent.ChatStream] yields the same events as ChatStream. Both modes
// speak [PipelineOptions.Language] (pt-BR by default): the Agent's
// prompts, the llmchat components' prompts and the confidence text.
//
// The two sides are apart: the search side (Searcher, Query, Hit,
// Result, Evidence and their options: searcher.go, search_types.go,
// search_options.go, evidence.go) depends on nothing of the chat side;
// the chat side (Pipeline and Agent, the chat types of pipeline_types.go,
// context building and citations) is built on a Searcher.
//
// # Confirmations
//
// [AgentOptions.Actions] offers tools with a side effect besides the
// searches (an llm.Tool, e.g. from llm.NewTypedTool, whose handler is the
// side effect; the demo server's is a quote request for large volumes).
// When the model calls one with
// llm.Tool.RequiresConfirmation, it is not executed: the
// turn ends with [ChatResponse.Confirmation] (an llm.PendingConfirmation:
// the tool, its arguments, the question in Summary, which is also the
// Answer) and, in a stream, an [EventConfirm] before done. The caller
// keeps it — server-side: it holds the transcript — and passes it back as
// [ChatRequest.Confirmation] with the user's reply. [AgentOptions.Decide]
// (llm.KeywordDecision by default, offline; llm.DetectDecision asks a
// model) reads the reply: a confirmation executes the call and the model
// answers with its result; a rejection does not execute it and the model
// says so; anything else is a correction ("não, 500 litros"): the call is
// answered as not executed, the reply goes to the model, which calls the
// tool again — and the user is asked again.
// [Debug.Decision] records which. A confirmation expires after 5 minutes
// ([AgentOptions.ConfirmationTTL]); an expired one starts a new turn.
//
// # Errors
//
// Any failure of the vector leg — no embedder, an embedder error or
// timeout, a store error — yields the lexical results with
// [Result.FallbackReason] set to "embedding-disabled",
// "embedding-generation-failed" or "vector-query-error"; it is not the
// search's error. The exception is the store's error in a vector-only
// search ([LegsVector]): with no lexical results to fall back on, it is
// returned wrapped, like the lexical leg's, so that an unreachable store
// is not reported as "no results" (an embedder failure still yields an
// empty result with its fallback reason). An empty query is [ErrEmptyQuery]; an impossible setting
// is [ErrInvalidQuery]; limits are clamped, over-long text truncated and
// invalid UTF-8 repaired. Store errors are returned wrapped. A chat turn
// with an empty message is [ErrEmptyMessage]; when the Answerer fails the
// turn answers with the fallback message, or returns an error wrapping
// ErrNoAnswer with Fallback Off. The fallback message depends on the
// failure ([PipelineOptions.FallbackMessages]):
// "Desculpe, não consegui gerar uma resposta. Pode tentar novamente?" for
// an empty answer, pt-BR texts for a timeout, a rate limit and an
// unavailable provider, and [DefaultFallbackMessage] for anything else
// (set all five for one text).
//
// # Concurrency
//
// Searcher and Pipeline are safe for concurrent use; their configuration
// is fixed at construction. A Searcher runs at most one goroutine of its
// own: the background rebuild of Freshness, which ends with the rebuild
// (bounded by five minutes) and whose errors leave the previous state in
// place, to be retried at the next check. Timings and counts are returned as data
// ([Result.Timings], [ChatResponse.Debug]); nothing is logged unless a
// logger is given: the Searcher writes one record per search to
// [SearcherOptions.Logger] (each leg's count,
// the fallback reason, the timings), the Pipeline its audit records to
// [PipelineOptions.Logger].
//
// # Tracing
//
// [SearcherOptions.Tracer], [PipelineOptions.Tracer] and the Indexer's
// IndexerOptions.Tracer take the tracers of package
// [github.com/hybridrag/hybridrag/rag/trace]: Start/End pairs with typed
// data around each search (and each retrieval leg), query and batch
// embedding, model call (summary, classification, answer, agentic calls)
// and ingestion group, so that OpenTelemetry or metrics can be attached
// without hybridrag depending on them; trace.NewMulti combines tracers,
// and the module github.com/hybridrag/hybridrag/otelrag turns them into
// OpenTelemetry spans. The context budget
// ([PipelineOptions.ContextTokens]) counts tokens with
// [PipelineOptions.TokenCounter] (llm.EstimateTokens, runes / 4, by
// default); [Debug.ContextTokens] reports the context's size.
//
// # See also
//
//   - [github.com/hybridrag/hybridrag/rag/ingest]: the Indexer — chunking,
//     SHA-256 change detection, batched embedding and atomic writes of
//     items, FAQs and documents.
//   - [github.com/hybridrag/hybridrag/rag/offline]: the keyword classifier
//     and the extractive answerer, which need no model.
//   - [github.com/hybridrag/hybridrag/rag/llmchat]: the classifier,
//     summarizer and answerer on an llm.ChatModel.
//   - [github.com/hybridrag/hybridrag/rag/trace]: the tracer interfaces.
//   - [github.com/hybridrag/hybridrag/rag/load],
//     [github.com/hybridrag/hybridrag/rag/chunk],
//     [github.com/hybridrag/hybridrag/rag/rerank] and
//     [github.com/hybridrag/hybridrag/rag/fields]: loaders, splitters,
//     rerankers and the field weights of each record kind.
package rag
