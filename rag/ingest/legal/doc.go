// Package legal is a metadata extractor for Brazilian legal texts (leis,
// decretos, portarias, instruções normativas, resoluções…), the built-in
// example of an ingest.Extractor.
//
// Run by an ingest.Indexer (IndexerOptions.Extractors), an [Extractor]
// writes metadata a search filters on by key:
//
//	document  tipo_documento    the kind of act: constituicao,
//	                            emenda_constitucional, lei_complementar,
//	                            decreto_lei, lei, decreto,
//	                            medida_provisoria, portaria,
//	                            instrucao_normativa, resolucao or sumula
//	          numero_documento  the act's number ("Lei nº 8.072": "8072")
//	          ano_documento     the year of its date ("1990")
//	chunk     titulo, capitulo, secao, artigo, paragrafo, inciso, alinea
//	                            the unit the chunk's own text starts in
//	          tipo              what that text starts in: caput (an
//	                            article's head text), paragrafo, inciso,
//	                            alinea, heading (a Título, Capítulo or
//	                            Seção heading) or content (anything else)
//	          marca_*           nine markers, each "true" or "false":
//	                            marca_atencao ("#Atenção:"), marca_stf,
//	                            marca_stj, marca_concurso, marca_crime,
//	                            marca_pena, marca_hediondo,
//	                            marca_acao_penal, marca_militar
//	                            ([DefaultMarkers]; Options.Markers
//	                            replaces them)
//	          marca_jurisprudencia  "true" when marca_stf or marca_stj is
//	          banca, ano        the examining board a chunk cites
//	                            (CEBRASPE, CESPE, FCC, VUNESP, FGV, upper
//	                            case) and the year after it
//
// The document keys are read from the title or the first lines. The
// structure is followed across the chunks of the document through their
// byte offsets, so a chunk inside Art. 5º § 2º inciso III carries
// artigo=5, paragrafo=2, inciso=III although its text has no header of its
// own. Values are plain text: article "5" (Art. 5º), "1000" (Art. 1.000),
// "5-A" (Art. 5º-A); paragraph "2" or "único"; inciso "III"; alínea "a".
// The markers are matched by regular expressions on the normalized text.
//
// Document keys are filters like any document metadata
// (storage.FieldMetadata, with the key in the store's allowlist); chunk
// keys are filters of rag's Query.ChunkFilters
// (storage.ChunkFilter{Key: "artigo", Value: "5"}), which keep the chunks
// having them, and the documents having such chunks. [ConsultaFilters]
// gives the filters of the usual kinds of consultation of a statute
// (artigo, jurisprudencia, questao, nota, todos).
//
// An Extractor is also an ingest.Sectioner: an Indexer running it asks
// [Extractor.DocumentSections] for a document's sections before chunking,
// and a statute (an act named in its title or first lines, or two article
// lines) gets one section per article, so that the
// structural splitter never lets a chunk span two articles, never merges
// short ones, and cuts a long article within itself. Chunk filters on
// artigo then find every article with the default chunk sizes. Wrap
// Extract in an ingest.ExtractorFunc to keep the metadata and the
// loader's chunking.
//
// Structure is recognised line by line, as statutes are written: a line
// starting "Art. 5º", "§ 2º", "Parágrafo único", "III –" (an upper-case
// Roman numeral and a dash), "a)", or "TÍTULO I", "CAPÍTULO II", "Seção
// III", after any Markdown heading marker, emphasis or quote ("## CAPÍTULO
// II", "**Art. 5º**"); a Markdown heading naming no unit ("## Notas") ends
// the article before it. Text that does not follow that layout gets
// tipo=content and no unit.
//
// # Concurrency
//
// An Extractor is immutable and safe for concurrent use.
package legal
