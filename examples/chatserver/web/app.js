// Chat page of examples/chatserver: posts to /api/chat with
// "Accept: text/event-stream" and reads the Server-Sent Events from the
// fetch body (EventSource cannot POST). No framework, no build step.
"use strict";

(function () {
  const MAX_HISTORY = 10;
  const TOOL_NAMES = {
    searchFaqs: "Perguntas frequentes",
    searchCatalog: "Catálogo",
    searchDocuments: "Documentos",
  };
  const KIND_NAMES = { item: "produto", faq: "FAQ", document: "documento" };
  const SOURCE_NAMES = { lexical: "lexical", vector: "vetorial", both: "vetorial+lexical" };

  const form = document.getElementById("ask");
  const input = document.getElementById("q");
  const sendBtn = document.getElementById("send");
  const stopBtn = document.getElementById("stop");
  const list = document.getElementById("messages");
  const status = document.getElementById("status");
  const tmpl = document.getElementById("assistant-template");
  const authBox = document.getElementById("auth");
  const tokenInput = document.getElementById("token");
  const agenticBox = document.getElementById("agentic-box");
  const agenticInput = document.getElementById("agentic");

  const history = [];
  let controller = null;
  // pending is the confirmation the last agentic answer waits for
  // ({id, tool, arguments, summary, expires_at}, kept by the server by
  // its ID); the next message answers it. Its view's buttons go with it.
  let pending = null;

  tokenInput.value = sessionStorage.getItem("chat-token") || "";
  if (tokenInput.value) authBox.hidden = false;

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v;
      else e.setAttribute(k, v);
    }
    for (const c of children) {
      if (c == null) continue;
      e.append(c instanceof Node ? c : String(c));
    }
    return e;
  }

  function fmt(n, digits) {
    if (typeof n !== "number" || !isFinite(n)) return "—";
    return n.toFixed(digits === undefined ? 2 : digits);
  }

  // The API's messages are in English (clients branch on the code); the
  // page says the ones a visitor can meet in Portuguese, with the code.
  const ERRORS_PT = {
    unauthorized: "Token de acesso ausente ou inválido.",
    rate_limited: "Muitas perguntas seguidas; aguarde alguns segundos e envie de novo.",
    store_unavailable: "A base de dados está indisponível; tente de novo em instantes.",
    timeout: "A resposta demorou demais; tente de novo.",
    canceled: "A pergunta foi cancelada.",
    empty_message: "Escreva uma pergunta.",
    message_too_long: "A pergunta é longa demais.",
    history_too_long: "A conversa ficou longa demais; recarregue a página para começar outra.",
    body_too_large: "A pergunta é grande demais.",
    upstream_error: "O modelo de linguagem não respondeu; tente de novo.",
    not_configured: "Este recurso precisa de um modelo de linguagem configurado no servidor.",
    internal: "Erro interno do servidor.",
  };

  function errorText(e) {
    return (ERRORS_PT[e.code] || e.message) + " (" + e.code + ")";
  }

  function headers() {
    const h = { "Content-Type": "application/json", Accept: "text/event-stream" };
    const tok = tokenInput.value.trim();
    if (tok) h.Authorization = "Bearer " + tok;
    return h;
  }

  // Scrolls to the newest message: smoothly, unless the user asked the
  // system for reduced motion (then at once, and a button under the answer
  // does not move while it is being clicked).
  const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
  function scrollToEnd() {
    window.scrollTo({ top: document.body.scrollHeight, behavior: reducedMotion.matches ? "auto" : "smooth" });
  }

  function addUser(text) {
    list.append(el("li", { class: "msg user" },
      el("div", { class: "who", "aria-hidden": "true" }, "Você"),
      el("div", { class: "bubble" }, el("span", { class: "visually-hidden" }, "Você perguntou: "), text)));
  }

  function addAssistant() {
    const li = tmpl.content.firstElementChild.cloneNode(true);
    list.append(li);
    return {
      li,
      answer: li.querySelector(".answer"),
      confidence: li.querySelector(".confidence"),
      sources: li.querySelector(".sources"),
      sourceList: li.querySelector(".source-list"),
      noSources: li.querySelector(".no-sources"),
      debug: li.querySelector(".debug"),
      debugBody: li.querySelector(".debug-body"),
      confirm: li.querySelector(".confirm"),
      progress: { intent: null, tools: [] },
    };
  }

  // Parses an SSE byte stream; calls onEvent(name, data) per event.
  async function readSSE(body, onEvent) {
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
      let i;
      while ((i = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        let name = "message";
        const data = [];
        for (const line of block.split("\n")) {
          if (line === "" || line.startsWith(":")) continue; // comment / keep-alive
          const c = line.indexOf(":");
          const field = c < 0 ? line : line.slice(0, c);
          let val = c < 0 ? "" : line.slice(c + 1);
          if (val.startsWith(" ")) val = val.slice(1);
          if (field === "event") name = val;
          else if (field === "data") data.push(val);
        }
        if (data.length) onEvent(name, JSON.parse(data.join("\n")));
      }
    }
  }

  // Lists what the response cites, and nothing when it abstained (the
  // store had nothing relevant): then a short "no sources" note instead.
  function renderSources(view, r) {
    const citations = r.abstained ? [] : r.citations || [];
    view.sourceList.replaceChildren();
    for (const c of citations) {
      const item = el("li", {},
        el("span", { class: "kind" }, KIND_NAMES[c.kind] || c.kind), c.title,
        el("span", { class: "visually-hidden" }, " (" + c.id + ")"));
      // The span of the record the citation rests on, exactly as stored.
      if (c.quote && c.quote.text) {
        item.append(el("blockquote", { class: "quote", title: c.quote.field }, "«" + c.quote.text + "»"));
      }
      view.sourceList.append(item);
    }
    // Related records the answer counts without citing them.
    const related = r.abstained ? [] : r.related || [];
    const rel = view.sources.querySelector(".related");
    rel.textContent = related.length ? "Relacionados (não citados): " + related.map((c) => c.title).join(", ") : "";
    rel.hidden = related.length === 0;
    view.sources.hidden = citations.length === 0;
    view.noSources.hidden = !r.abstained;
    view.li.dataset.abstained = r.abstained ? "true" : "false";
  }

  function dl(pairs) {
    const d = el("dl");
    for (const [k, v] of pairs) d.append(el("dt", {}, k), el("dd", {}, v));
    return d;
  }

  function hitTitle(h) {
    let t = h.name || h.question || h.title || h.id;
    if (h.heading_path) t += " › " + h.heading_path;
    return t;
  }

  function hitsTable(tool) {
    if (!tool.hits.length) return el("p", { class: "none" }, "Nenhum resultado relevante.");
    const head = el("tr", {},
      el("th", { scope: "col", class: "num" }, "#"),
      el("th", { scope: "col" }, "Resultado"),
      el("th", { scope: "col" }, "Fonte"),
      el("th", { scope: "col", class: "num" }, "Score"),
      el("th", { scope: "col", class: "num" }, "Lexical"),
      el("th", { scope: "col", class: "num" }, "Vetorial"),
      el("th", { scope: "col", class: "num" }, "Relevância"));
    const body = el("tbody");
    for (const h of tool.hits) {
      body.append(el("tr", {},
        el("td", { class: "num" }, h.rank),
        el("td", {}, hitTitle(h)),
        el("td", {}, SOURCE_NAMES[h.source] || h.source),
        el("td", { class: "num" }, fmt(h.score)),
        el("td", { class: "num" }, fmt(h.scores.lexical)),
        el("td", { class: "num" }, fmt(h.scores.vector, 3)),
        el("td", { class: "num" }, h.evidence ? fmt(h.evidence.relevance) + " " + h.evidence.reason : "—")));
    }
    return el("div", { class: "table-wrap" },
      el("table", {}, el("caption", { class: "visually-hidden" }, "Resultados de " + tool.tool), el("thead", {}, head), body));
  }

  function renderDebug(view, r) {
    const d = r.debug;
    const t = d.timings_ms;
    const plan = [];
    if (r.plan.faq) plan.push("FAQs");
    if (r.plan.catalog) plan.push("catálogo");
    if (r.plan.documents) plan.push("documentos");
    const body = view.debugBody;
    body.replaceChildren(dl([
      ["Intenção", r.intent.intent + " (" + fmt(r.intent.confidence) + ")" + (r.intent.reason ? " — " + r.intent.reason : "")],
      ["Classificador", r.intent.model || "—"],
      ["Plano", plan.length ? plan.join(", ") : "nenhuma busca"],
      ["Confiança", r.confidence + (r.abstained ? " (nada relevante: sem fontes)" : "")],
      ["Continuação da conversa", d.follow_up ? (d.follow_up.follow_up ? "sim" : "não") + " (" + d.follow_up.reason + ")" : "—"],
      ["Considerados", d.considered ? Object.entries(d.considered).map(([k, n]) => k + " " + n).join(" · ") : "—"],
      ["fallbackReason", d.fallback_reason || "nenhum (busca vetorial usada)"],
      ["Tempos (ms)", "classificação " + fmt(t.classify, 1) + " · busca " + fmt(t.search, 1) +
        " · resposta " + fmt(t.answer, 1) + " · total " + fmt(t.total, 1)],
      ["Chamadas de modelo", d.model_calls.map((c) => c.step + ":" + (c.model || "?") + " " + fmt(c.duration_ms, 1) + " ms" +
        (c.error ? " (erro)" : "")).join(" · ") || "—"],
    ]));
    for (const tool of r.tools) {
      const tm = tool.timings_ms;
      body.append(
        el("h5", {}, tool.tool + " — " + (TOOL_NAMES[tool.tool] || "") + " (" + tool.hits.length +
          (d.considered && d.considered[tool.tool] !== undefined ? " de " + d.considered[tool.tool] : "") + ")"),
        el("p", {}, "Consulta: ", el("q", {}, tool.query), tm ? " · " + fmt(tm.total, 1) + " ms" +
          " (lexical " + fmt(tm.lexical, 1) + ", embedding " + fmt(tm.embed, 1) + ", vetorial " + fmt(tm.vector, 1) + ")" : ""),
        hitsTable(tool));
    }
    if (d.tool_calls && d.tool_calls.length) {
      body.append(el("h5", {}, "Chamadas de ferramenta (modo agêntico)"), el("p", {}, d.tool_calls.map((c) =>
        c.name + " " + c.status + (c.attempts > 1 ? " (" + c.attempts + " tentativas)" : "")).join(" · ")));
    }
    if (d.decision) body.append(el("p", {}, "Resposta à confirmação: " + d.decision));
    if (d.errors && d.errors.length) body.append(el("h5", {}, "Erros"), el("p", {}, d.errors.join("; ")));
    view.debug.hidden = false;
  }

  function setBusy(busy) {
    sendBtn.disabled = busy;
    stopBtn.hidden = !busy;
    form.setAttribute("aria-busy", busy ? "true" : "false");
  }

  // Shows the confirmation's buttons under the question; the next message,
  // a button's word or typed text, answers it.
  function showConfirmation(view, c) {
    pending = { id: c.id, view };
    view.li.dataset.confirmation = c.id;
    view.confirm.hidden = false;
  }

  // Ends the pending confirmation's buttons: the message being sent
  // answers it.
  function closeConfirmation() {
    if (!pending) return;
    for (const b of pending.view.confirm.querySelectorAll("button")) b.disabled = true;
    pending = null;
  }

  function finish(view, state) {
    view.li.dataset.state = state;
    view.answer.setAttribute("aria-busy", "false");
  }

  async function ask(text) {
    addUser(text);
    const view = addAssistant();
    scrollToEnd();
    status.textContent = "";
    setBusy(true);
    controller = new AbortController();
    let answer = "";
    let finished = false;
    let needToken = false;
    const body = { message: text, history: history.slice(-MAX_HISTORY) };
    if (pending || agenticInput.checked) body.mode = "agentic";
    if (pending) body.confirmation_id = pending.id;
    closeConfirmation();
    try {
      const res = await fetch("api/chat", {
        method: "POST",
        headers: headers(),
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      if (!res.ok) {
        let msg = "Erro " + res.status;
        try {
          const j = await res.json();
          msg = errorText(j.error);
          needToken = j.error.code === "unauthorized";
        } catch (_) { /* not JSON */ }
        throw new Error(msg);
      }
      await readSSE(res.body, (name, data) => {
        switch (name) {
          case "intent":
            view.progress.intent = data;
            break;
          case "tool_call":
          case "hits":
            view.progress.tools.push(data);
            break;
          case "token":
            answer += data.token;
            view.answer.textContent = answer;
            break;
          case "reset":
            // The answer restarts (the model failed part-way): drop the
            // partial text; the fallback or an error follows.
            answer = "";
            view.answer.textContent = "";
            break;
          case "confirm":
            showConfirmation(view, data);
            break;
          case "done":
            finished = true;
            answer = data.answer;
            view.answer.textContent = answer;
            if (data.confidence_text && data.confidence !== "none") {
              view.confidence.textContent = data.confidence_text;
              view.confidence.hidden = false;
            }
            renderSources(view, data);
            renderDebug(view, data);
            if (data.confirmation) showConfirmation(view, data.confirmation);
            break;
          case "error":
            throw new Error(errorText(data.error));
        }
      });
      if (!finished) throw new Error("A conexão terminou antes da resposta completa.");
      finish(view, "done");
      if (!statsShown) loadStats(); // the token just worked
      history.push({ role: "user", content: text }, { role: "assistant", content: answer });
    } catch (err) {
      const aborted = err.name === "AbortError";
      view.answer.textContent = (answer ? answer + "\n\n" : "") + (aborted ? "[interrompido]" : "Não foi possível responder: " + err.message);
      finish(view, aborted ? "aborted" : "error");
      status.textContent = aborted ? "Resposta interrompida." : "Erro: " + err.message;
      if (!aborted && !input.value) input.value = text; // let the user retry
    } finally {
      controller = null;
      setBusy(false);
      scrollToEnd();
      if (needToken) {
        authBox.hidden = false;
        status.textContent = "Informe o token de acesso e envie de novo.";
        tokenInput.focus();
      } else {
        input.focus();
      }
    }
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text || controller) return;
    if (tokenInput.value.trim()) sessionStorage.setItem("chat-token", tokenInput.value.trim());
    input.value = "";
    ask(text);
  });

  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });

  stopBtn.addEventListener("click", () => {
    if (controller) controller.abort();
  });

  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && controller) controller.abort();
  });

  // A confirmation's buttons send their word as the reply.
  list.addEventListener("click", (e) => {
    const b = e.target.closest(".confirm button");
    if (!b || b.disabled || controller || !pending || !pending.view.li.contains(b)) return;
    input.value = b.textContent;
    form.requestSubmit();
  });

  for (const b of document.querySelectorAll(".example")) {
    b.addEventListener("click", () => {
      input.value = b.textContent;
      form.requestSubmit();
    });
  }

  // The components line comes from /api/stats; a server with a token
  // answers it 401 until the visitor gives the token, and the line says
  // so instead of staying empty.
  let statsShown = false;
  function loadStats() {
    const line = document.getElementById("components");
    fetch("api/stats", { headers: headers() })
      .then((r) => {
        if (r.status === 401) {
          line.textContent = "Este servidor exige um token de acesso: informe-o abaixo para ver os componentes e conversar.";
          authBox.hidden = false;
          return null;
        }
        return r.ok ? r.json() : null;
      })
      .then((s) => {
        if (!s) return;
        const c = s.components;
        line.textContent =
          "Componentes: armazenamento " + c.store + " · embeddings " + c.embedder + " · classificador " +
          c.classifier + " · respostas " + c.answerer + (c.reranker ? " · reordenação " + c.reranker : "");
        statsShown = true;
        // Agentic mode needs a chat model ("off (...)" without one).
        agenticBox.hidden = !c.agentic || c.agentic.startsWith("off");
      })
      .catch(() => {});
  }
  loadStats();

  input.focus();
})();
