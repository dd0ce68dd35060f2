package legal

import (
	"errors"
	"fmt"

	"github.com/hybridrag/hybridrag/storage"
)

// Kinds of consultation of a legal text, the values ConsultaFilters takes:
// the act's own provisions, the case law it cites, exam questions, notes,
// or all.
const (
	consultaArtigo         = "artigo"         // the act's provisions: caput and incisos
	consultaJurisprudencia = "jurisprudencia" // chunks citing the STF or the STJ
	consultaQuestao        = "questao"        // chunks relevant to public exams
	consultaNota           = "nota"           // other text carrying no marker
	consultaTodos          = "todos"          // no filter
)

// ErrUnknownConsulta is returned by ConsultaFilters for a value that is not
// artigo, jurisprudencia, questao, nota or todos.
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
func ConsultaFilters(consulta string) ([]storage.ChunkFilter, error) {
	switch consulta {
	case consultaArtigo:
		return []storage.ChunkFilter{{Key: keyTipo, Value: tipoCaput}, {Key: keyTipo, Value: tipoInciso}}, nil
	case consultaJurisprudencia:
		return []storage.ChunkFilter{{Key: marcaJurisprudencia, Value: "true"}}, nil
	case consultaQuestao:
		return []storage.ChunkFilter{{Key: marcaConcurso, Value: "true"}}, nil
	case consultaNota:
		out := []storage.ChunkFilter{{Key: keyTipo, Value: tipoContent}}
		for _, m := range DefaultMarkers() {
			out = append(out, storage.ChunkFilter{Key: m.Key, Value: "false"})
		}
		return out, nil
	case consultaTodos:
		return nil, nil
	}
	return nil, fmt.Errorf("%w %q (want artigo, jurisprudencia, questao, nota or todos)", ErrUnknownConsulta, consulta)
}
