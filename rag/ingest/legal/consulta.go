package legal

import (
	"errors"
	"fmt"

	"github.com/hybridrag/hybridrag/rag"
)

// Kinds of consultation of a legal text, for ConsultaFilters: the act's
// own provisions, the case law it cites, exam questions, notes, or all.
const (
	ConsultaArtigo         = "artigo"         // the act's provisions: caput and incisos
	ConsultaJurisprudencia = "jurisprudencia" // chunks citing the STF or the STJ
	ConsultaQuestao        = "questao"        // chunks relevant to public exams
	ConsultaNota           = "nota"           // other text carrying no marker
	ConsultaTodos          = "todos"          // no filter
)

// ErrUnknownConsulta is returned by ConsultaFilters for a value that is not
// one of the Consulta constants.
var ErrUnknownConsulta = errors.New("legal: unknown consulta")

// ConsultaFilters returns the chunk filters of one kind of consultation,
// for rag.Query.ChunkFilters:
//
//	artigo          tipo = caput or tipo = inciso
//	jurisprudencia  marca_jurisprudencia = true (marca_stf or marca_stj)
//	questao         marca_concurso = true
//	nota            tipo = content and every default marker false
//	todos           none (nil)
//
// Anything else is an error wrapping ErrUnknownConsulta.
func ConsultaFilters(consulta string) ([]rag.ChunkFilter, error) {
	switch consulta {
	case ConsultaArtigo:
		return []rag.ChunkFilter{{Key: KeyTipo, Value: TipoCaput}, {Key: KeyTipo, Value: TipoInciso}}, nil
	case ConsultaJurisprudencia:
		return []rag.ChunkFilter{{Key: MarcaJurisprudencia, Value: "true"}}, nil
	case ConsultaQuestao:
		return []rag.ChunkFilter{{Key: MarcaConcurso, Value: "true"}}, nil
	case ConsultaNota:
		out := []rag.ChunkFilter{{Key: KeyTipo, Value: TipoContent}}
		for _, m := range DefaultMarkers() {
			out = append(out, rag.ChunkFilter{Key: m.Key, Value: "false"})
		}
		return out, nil
	case ConsultaTodos:
		return nil, nil
	}
	return nil, fmt.Errorf("%w %q (want artigo, jurisprudencia, questao, nota or todos)", ErrUnknownConsulta, consulta)
}
