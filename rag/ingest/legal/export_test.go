package legal

// Aliases of unexported names for the external tests.
const Constituicao = constituicao
const ConsultaArtigo = consultaArtigo
const ConsultaJurisprudencia = consultaJurisprudencia
const ConsultaNota = consultaNota
const ConsultaQuestao = consultaQuestao
const ConsultaTodos = consultaTodos
const Decreto = decreto
const DecretoLei = decretoLei

var DocumentType = documentType

const EmendaConstitucional = emendaConstitucional
const InstrucaoNormativa = instrucaoNormativa

const Lei = lei

const LeiComplementar = leiComplementar
const MarcaAcaoPenal = marcaAcaoPenal
const MarcaAtencao = marcaAtencao
const MarcaConcurso = marcaConcurso
const MarcaCrime = marcaCrime
const MarcaHediondo = marcaHediondo
const MarcaMilitar = marcaMilitar
const MarcaPena = marcaPena
const MarcaSTF = marcaSTF
const MarcaSTJ = marcaSTJ
const MedidaProvisoria = medidaProvisoria
const Portaria = portaria
const Resolucao = resolucao

var Sections = sections

const Sumula = sumula

// Metadata keys, for the external tests.
const (
	KeyDocumentType     = keyDocumentType
	KeyDocumentNumber   = keyDocumentNumber
	KeyDocumentYear     = keyDocumentYear
	KeyTitulo           = keyTitulo
	KeyCapitulo         = keyCapitulo
	KeySecao            = keySecao
	KeyArtigo           = keyArtigo
	KeyParagrafo        = keyParagrafo
	KeyInciso           = keyInciso
	KeyAlinea           = keyAlinea
	KeyTipo             = keyTipo
	KeyBanca            = keyBanca
	KeyAno              = keyAno
	MarcaJurisprudencia = marcaJurisprudencia
)
