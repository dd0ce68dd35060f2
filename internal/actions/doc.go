// Package actions holds the demo store's tools with a side effect for the
// agentic mode (examples/chatserver offers them; the rag tests use them):
// tools the model may call besides the searches, each with
// llm.Tool.RequiresConfirmation set, so that nothing happens until the
// user says yes: a model may misread a request, and a quote sent to the
// sales team cannot be unsent.
//
// [NewQuoteTool] is the quote request for large volumes of the demo store's
// FAQ 031 ("Vocês fazem cotação para grandes volumes?"): the model collects
// the product, quantity, unit and a contact (and optionally the delivery
// city and notes), the user is asked
//
//	Confirma a solicitação de cotação de 500 L de Glifosato 480 SL, entrega em Rio Verde - GO, contato compras@fazenda.com.br?
//
// and only a confirmation runs the caller's submit function, whose
// protocol number goes back to the model. The library sends nothing
// anywhere: submit is where a program writes to its CRM, queue or e-mail.
//
// Offer the tool through rag.AgentOptions.Actions:
//
//	quote, err := actions.NewQuoteTool(func(ctx context.Context, q actions.Quote) (string, error) {
//		return crm.CreateQuoteRequest(ctx, q) // returns a protocol
//	}, actions.QuoteOptions{})
//	agent, err := rag.NewAgent(p, model, rag.AgentOptions{Actions: []llm.Tool{quote}})
//	resp, err := agent.Chat(ctx, req)
//	// resp.Confirmation != nil: show resp.Answer (the question) and keep
//	// resp.Confirmation server-side; send it back as
//	// ChatRequest.Confirmation with the user's reply.
//
// # Errors
//
// NewQuoteTool fails for a nil submit function or an unsupported
// language. Arguments are checked against the tool's JSON schema before
// the handler runs, and blank fields or a non-positive quantity are
// refused again by the handler ([ErrInvalidQuote]); an error of submit is
// reported to the model as a failed call, in its own words, so it must not
// hold secrets.
//
// # Concurrency
//
// The returned llm.Tool is a plain value; its handler is safe for
// concurrent use when submit is.
package actions
