package actions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hybridrag/hybridrag/llm"
	"github.com/hybridrag/hybridrag/rag"
)

// QuoteToolName is the name the model calls the quote request by.
const QuoteToolName = "requestQuote"

// ErrInvalidQuote reports quote arguments the handler refuses: a blank
// product, unit or contact, or a quantity that is not a positive number.
var ErrInvalidQuote = errors.New("actions: invalid quote request")

// Quote is a request for a quote for a large volume (FAQ 031: products,
// quantities and delivery city), as the model filled it in and the user
// confirmed it. Strings are trimmed.
type Quote struct {
	// Product names the product, as in the catalog when possible.
	Product string `json:"product"`
	// Quantity is how much of Unit is wanted; positive.
	Quantity float64 `json:"quantity"`
	// Unit is the unit of Quantity: "L", "kg", "t", "sacas", "unidades".
	Unit string `json:"unit"`
	// Contact is how the sales team reaches the customer: an e-mail or a
	// phone number.
	Contact string `json:"contact"`
	// City is the delivery city; optional.
	City string `json:"city,omitempty"`
	// Notes are anything else the customer said (crop, area, deadline);
	// optional.
	Notes string `json:"notes,omitempty"`
}

// QuoteOptions configures NewQuoteTool. The zero value describes the tool
// in pt-BR.
type QuoteOptions struct {
	// Language of the tool's description and confirmation question
	// (default pt-BR).
	Language rag.Language
}

// quoteSchema is the tool's JSON schema; descriptions are in English, as
// the model reads them in either language.
var quoteSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "product": {"type": "string", "minLength": 1, "maxLength": 200, "description": "the product, named as in the catalog when known"},
    "quantity": {"type": "number", "exclusiveMinimum": 0, "description": "how much of unit the customer wants"},
    "unit": {"type": "string", "minLength": 1, "maxLength": 30, "description": "unit of quantity: L, kg, t, sacas, unidades"},
    "contact": {"type": "string", "minLength": 3, "maxLength": 200, "description": "the customer's e-mail or phone number"},
    "city": {"type": "string", "maxLength": 120, "description": "delivery city, when given"},
    "notes": {"type": "string", "maxLength": 500, "description": "anything else the customer said: crop, area, deadline"}
  },
  "required": ["product", "quantity", "unit", "contact"],
  "additionalProperties": false
}`)

var quoteExamples = []json.RawMessage{
	json.RawMessage(`{"product":"Glifosato 480 SL","quantity":500,"unit":"L","contact":"compras@fazenda.com.br","city":"Rio Verde - GO"}`),
	json.RawMessage(`{"product":"Calcário Dolomítico PRNT 90","quantity":40,"unit":"t","contact":"(64) 99999-0000","notes":"entrega até setembro"}`),
}

var quoteDescriptions = map[rag.Language]string{
	rag.LanguagePortuguese: "Solicita ao time comercial uma cotação para compra em grande volume (revenda, cooperativa, lavoura grande). " +
		"Use só quando o cliente pedir cotação ou orçamento e já tiver dito produto, quantidade, unidade e um contato (e-mail ou telefone); " +
		"se faltar algo, pergunte antes de chamar. O cliente confirma antes do envio; depois, informe o protocolo retornado.",
	rag.LanguageEnglish: "Asks the sales team for a quote for a large-volume purchase (resellers, cooperatives, large farms). " +
		"Use it only when the customer asks for a quote and has given the product, quantity, unit and a contact (e-mail or phone); " +
		"ask for anything missing first. The customer confirms before it is sent; then give them the protocol returned.",
}

// NewQuoteTool returns the quote request tool (QuoteToolName) with
// RequiresConfirmation set: the pipeline asks the user before the handler
// runs. The handler calls submit with the confirmed Quote and answers the
// model with {"status":"submitted","protocol":...,"quote":{...}}; submit
// returns the protocol (any reference the customer can quote back) or an
// error, which the model is told. The confirmation question lists the
// quote (Tool.Summarize). It does no I/O.
func NewQuoteTool(submit func(ctx context.Context, q Quote) (protocol string, err error), opts QuoteOptions) (llm.Tool, error) {
	if submit == nil {
		return llm.Tool{}, errors.New("actions: NewQuoteTool: nil submit function")
	}
	lang, err := rag.ParseLanguage(string(opts.Language))
	if err != nil {
		return llm.Tool{}, err
	}
	t := llm.Tool{
		ToolDefinition: llm.ToolDefinition{
			Name:          QuoteToolName,
			Description:   quoteDescriptions[lang],
			Parameters:    quoteSchema,
			InputExamples: quoteExamples,
		},
		RequiresConfirmation: true,
		Summarize: func(args json.RawMessage) string {
			q, err := decodeQuote(args)
			if err != nil {
				return "" // the generic summary lists the arguments
			}
			return quoteSummary(q, lang)
		},
		Handler: func(ctx context.Context, args json.RawMessage) (string, error) {
			q, err := decodeQuote(args)
			if err != nil {
				return "", err
			}
			protocol, err := submit(ctx, q)
			if err != nil {
				return "", fmt.Errorf("the quote request was not sent: %w", err)
			}
			out, err := json.Marshal(struct {
				Status   string `json:"status"`
				Protocol string `json:"protocol"`
				Quote    Quote  `json:"quote"`
			}{"submitted", protocol, q})
			if err != nil {
				return "", err
			}
			return string(out), nil
		},
	}
	return t, llm.ValidateTools([]llm.Tool{t})
}

// decodeQuote decodes and checks the arguments.
func decodeQuote(args json.RawMessage) (Quote, error) {
	var q Quote
	if err := json.Unmarshal(args, &q); err != nil {
		return Quote{}, fmt.Errorf("%w: %w", ErrInvalidQuote, err)
	}
	q.Product, q.Unit, q.Contact = strings.TrimSpace(q.Product), strings.TrimSpace(q.Unit), strings.TrimSpace(q.Contact)
	q.City, q.Notes = strings.TrimSpace(q.City), strings.TrimSpace(q.Notes)
	switch {
	case q.Product == "", q.Unit == "", q.Contact == "":
		return Quote{}, fmt.Errorf("%w: product, unit and contact are required", ErrInvalidQuote)
	case !(q.Quantity > 0) || math.IsInf(q.Quantity, 0):
		return Quote{}, fmt.Errorf("%w: the quantity must be a positive number", ErrInvalidQuote)
	}
	return q, nil
}

// quoteSummary is the confirmation question for q:
//
//	Confirma a solicitação de cotação de 500 L de Glifosato 480 SL, entrega em Rio Verde - GO, contato compras@fazenda.com.br?
//	Request a quote for 500 L of Glifosato 480 SL, delivery to Rio Verde - GO, contact compras@fazenda.com.br?
//
// The quantity is written with the language's decimal separator (82,5 in
// pt-BR); the city and notes appear when set.
func quoteSummary(q Quote, lang rag.Language) string {
	qty := strconv.FormatFloat(q.Quantity, 'f', -1, 64)
	p := quotePhrases{"Confirma a solicitação de cotação de %s %s de %s", ", entrega em %s", ", contato %s"}
	if lang == rag.LanguageEnglish {
		p = quotePhrases{"Request a quote for %s %s of %s", ", delivery to %s", ", contact %s"}
	} else {
		qty = strings.ReplaceAll(qty, ".", ",")
	}
	var b strings.Builder
	fmt.Fprintf(&b, p.request, qty, q.Unit, q.Product)
	if q.City != "" {
		fmt.Fprintf(&b, p.delivery, q.City)
	}
	fmt.Fprintf(&b, p.contact, q.Contact)
	if q.Notes != "" {
		fmt.Fprintf(&b, " (%s)", q.Notes)
	}
	b.WriteString("?")
	return b.String()
}

// quotePhrases are the format strings of a quoteSummary in one language.
type quotePhrases struct{ request, delivery, contact string }
