package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/hybridrag/hybridrag/internal/actions"
	"github.com/hybridrag/hybridrag/internal/testenv"
	"github.com/hybridrag/hybridrag/llm/llmtest"
	"github.com/hybridrag/hybridrag/rag"
)

// Browser test settings. CI installs Debian's chromium (.ci/browser.sh) and
// sets HYBRIDRAG_REQUIRE_BROWSER=1 so that a missing browser fails instead
// of skipping.
const (
	chromiumPath      = "/usr/bin/chromium"
	envRequireBrowser = "HYBRIDRAG_REQUIRE_BROWSER"
	envScreenshotDir  = "HYBRIDRAG_SCREENSHOT_DIR"
	browserQuestion   = "tem fungicida para videira?"
	// browserOutOfStore asks for something the store does not sell: the
	// answer must say so plainly and list no source.
	browserOutOfStore = "Vocês vendem ração para cachorro?"
)

// TestBrowserChat drives the chat page in headless Chromium: it types a
// question, presses Enter, waits for the streamed answer and the debug
// panel, checks their text, then asks an out-of-store question and checks
// that the answer abstains (says the store has nothing, lists no source),
// and saves screenshots (desktop and phone widths) to
// $HYBRIDRAG_SCREENSHOT_DIR (default: a temporary directory).
func TestBrowserChat(t *testing.T) {
	skipWithoutBrowser(t)
	shots := os.Getenv(envScreenshotDir)
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}

	url := startLoopback(t, nil)
	bctx, problems := newBrowser(t, 90*time.Second)

	const (
		done     = `li.msg.assistant[data-state="done"]`
		answer   = done + ` .answer`
		summary  = done + ` details.debug > summary`
		debugTab = done + ` .debug-body table`
	)
	if err := chromedp.Do(bctx,
		chromedp.EmulateViewport(1100, 900),
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS("#q")),
		chromedp.SendKeys(chromedp.CSS("#q"), browserQuestion),
		pressEnter(),
		chromedp.WaitVisible(chromedp.CSS(answer)),
	); err != nil {
		t.Fatalf("ask the question: %v", err)
	}

	text := browse(t, bctx, chromedp.Text(chromedp.CSS(answer)))
	for _, want := range []string{"Produtos do catálogo", "Fosetal 800 WG", "receituário"} {
		if !strings.Contains(text, want) {
			t.Errorf("answer lacks %q:\n%s", want, text)
		}
	}
	if q := browse(t, bctx, chromedp.Text(chromedp.CSS(`li.msg.user .bubble`))); !strings.Contains(q, browserQuestion) {
		t.Errorf("user bubble = %q", q)
	}
	// Enter sent the question, left no newline behind and kept the focus
	// in the text box.
	if v := browse(t, bctx, chromedp.Value(chromedp.CSS("#q"))); v != "" {
		t.Errorf("text box after sending = %q, want empty", v)
	}
	if id := browse(t, bctx, chromedp.Evaluate[string](`document.activeElement.id`)); id != "q" {
		t.Errorf("focus after the answer is on %q, want the text box", id)
	}
	if busy := browse(t, bctx, chromedp.Evaluate[string](`document.querySelector('`+answer+`').getAttribute('aria-busy')`)); busy != "false" {
		t.Errorf("answer aria-busy = %q after done", busy)
	}

	// Open the debug panel with the keyboard: focus its summary, press Enter.
	if err := chromedp.Do(bctx,
		chromedp.Focus(chromedp.CSS(summary)),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(chromedp.CSS(debugTab)),
	); err != nil {
		t.Fatalf("open the debug panel: %v", err)
	}
	dbg := browse(t, bctx, chromedp.Text(chromedp.CSS(done+` .debug-body`)))
	for _, want := range []string{"Intenção", "catalog", "Plano", "catálogo", "fallbackReason", "nenhum", "Tempos (ms)",
		"searchCatalog", "searchFaqs", "Fosetal 800 WG", "vetorial+lexical", "Score", "Lexical", "Vetorial"} {
		if !strings.Contains(dbg, want) {
			t.Errorf("debug panel lacks %q:\n%s", want, dbg)
		}
	}
	if src := browse(t, bctx, chromedp.Text(chromedp.CSS(done+` .sources`))); !strings.Contains(src, "Fosetal 800 WG") {
		t.Errorf("sources = %q", src)
	}
	// The products the answer counts without citing are listed apart.
	if rel := browse(t, bctx, chromedp.Text(chromedp.CSS(done+` .sources .related`))); !strings.HasPrefix(rel, "Relacionados (não citados): ") {
		t.Errorf("related = %q", rel)
	}
	// Each citation shows the span of its record it rests on.
	if q := browse(t, bctx, chromedp.Text(chromedp.CSS(done+` .sources .quote`))); !strings.HasPrefix(q, "«") || len(q) < 10 {
		t.Errorf("first citation's quote = %q, want the quoted span", q)
	}
	if ab := browse(t, bctx, chromedp.Evaluate[string](`document.querySelector('`+done+`').dataset.abstained`)); ab != "false" {
		t.Errorf("the answer with sources has data-abstained %q, want false", ab)
	}

	// A question about something the store does not sell: the done event
	// says abstained, the page lists no source and says so.
	const (
		abstained   = `li.msg.assistant[data-state="done"][data-abstained="true"]`
		lastUser    = `[...document.querySelectorAll('li.msg.user .bubble')].pop().textContent`
		noneVisible = `(() => { const li = document.querySelector('` + abstained + `');
			return li.querySelector('.sources').hidden && li.querySelectorAll('.source-list li').length === 0 &&
				!li.querySelector('.no-sources').hidden; })()`
	)
	if err := chromedp.Do(bctx,
		chromedp.SendKeys(chromedp.CSS("#q"), browserOutOfStore),
		pressEnter(),
		chromedp.WaitVisible(chromedp.CSS(abstained+` .answer`)),
	); err != nil {
		t.Fatalf("ask the out-of-store question: %v", err)
	}
	if q := browse(t, bctx, chromedp.Evaluate[string](lastUser)); !strings.Contains(q, browserOutOfStore) {
		t.Errorf("user bubble = %q, want %q", q, browserOutOfStore)
	}
	text = browse(t, bctx, chromedp.Text(chromedp.CSS(abstained+` .answer`)))
	if !strings.Contains(strings.ToLower(text), "não encontrei") || strings.Contains(text, "Fosetal") {
		t.Errorf("out-of-store answer does not say plainly that nothing was found:\n%s", text)
	}
	if !browse(t, bctx, chromedp.Evaluate[bool](noneVisible)) {
		t.Errorf("out-of-store answer lists sources or lacks the no-sources note")
	}
	if n := browse(t, bctx, chromedp.Evaluate[int](`document.querySelectorAll('li.msg.assistant[data-state="done"]').length`)); n != 2 {
		t.Errorf("%d finished answers on the page, want 2", n)
	}
	desktop := browse(t, bctx, chromedp.FullScreenshot(100))
	saveShot(t, filepath.Join(shots, "chatserver-desktop.png"), desktop)

	// Phone width: nothing wider than the screen.
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)); err != nil {
		t.Fatal(err)
	}
	if overflow := browse(t, bctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`)); overflow {
		w := browse(t, bctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
		t.Errorf("the page is %dpx wide on a 390px phone screen", w)
	}
	// What a phone shows with the answer scrolled into view.
	if err := chromedp.Do(bctx,
		chromedp.Evaluate[chromedp.Void](`document.querySelector('`+done+`').scrollIntoView({block: "start"})`),
		chromedp.Sleep(300*time.Millisecond), // smooth scrolling of the page settles
	); err != nil {
		t.Fatal(err)
	}
	phone := browse(t, bctx, chromedp.CaptureScreenshot())
	saveShot(t, filepath.Join(shots, "chatserver-phone.png"), phone)

	for _, p := range problems() {
		t.Errorf("browser console: %s", p)
	}

	// With a bearer token: the first try is refused, the page asks for the
	// token (focus in its field) and keeps the question; Enter in the
	// token field sends it again.
	tokenURL := startLoopback(t, func(c *config) { c.Token = "s3cret" })
	if err := chromedp.Do(bctx,
		chromedp.EmulateViewport(1100, 900),
		chromedp.Navigate(tokenURL),
		chromedp.WaitVisible(chromedp.CSS("#q")),
		chromedp.SendKeys(chromedp.CSS("#q"), browserQuestion),
		pressEnter(),
		chromedp.Poll[chromedp.Void](`document.activeElement.id === "token"`, chromedp.WithPollingTimeout(10*time.Second)),
	); err != nil {
		t.Fatalf("token flow: %v", err)
	}
	// The page says in Portuguese what is missing: in the components line
	// (/api/stats is refused too) and in the error.
	if line := browse(t, bctx, chromedp.Text(chromedp.CSS("#components"))); !strings.Contains(line, "exige um token") {
		t.Errorf("components line without the token = %q", line)
	}
	if text := browse(t, bctx, chromedp.Evaluate[string](`[...document.querySelectorAll('li.msg.assistant .answer')].pop().textContent`)); !strings.Contains(text, "Token de acesso ausente ou inválido") {
		t.Errorf("the refused answer is not in Portuguese: %q", text)
	}
	if id := browse(t, bctx, chromedp.Evaluate[string](`document.activeElement.id`)); id != "token" {
		t.Errorf("after a 401 the focus is on %q, want the token field", id)
	}
	if v := browse(t, bctx, chromedp.Value(chromedp.CSS("#q"))); v != browserQuestion {
		t.Errorf("the question was not kept for the retry: %q", v)
	}
	if err := chromedp.Do(bctx,
		chromedp.SendKeys(chromedp.CSS("#token"), "s3cret\n"),
		chromedp.WaitVisible(chromedp.CSS(answer)),
	); err != nil {
		t.Fatalf("retry with the token: %v", err)
	}
	if text := browse(t, bctx, chromedp.Text(chromedp.CSS(answer))); !strings.Contains(text, "Fosetal 800 WG") {
		t.Errorf("answer with the token: %q", text)
	}
	if err := chromedp.Do(bctx, chromedp.Poll[chromedp.Void](`document.getElementById("components").textContent.startsWith("Componentes:")`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Errorf("components line after the token worked: %q (%v)", browse(t, bctx, chromedp.Text(chromedp.CSS("#components"))), err)
	}
}

// TestBrowserStreamReset: the page honours the reset event. A stream
// that sends part of an answer, then reset, then the fallback text shows
// the fallback text alone; one that sends part of an answer, then reset,
// then an error shows the error without the partial answer.
func TestBrowserStreamReset(t *testing.T) {
	skipWithoutBrowser(t)
	const (
		partial  = "Resposta parcial do modelo"
		fallback = "Desculpe, não consegui responder agora."
	)
	release := make(chan struct{})
	var turn atomic.Int32
	s := newTestServer(t, nil, nil)
	resp, err := s.be.pipeline.Chat(context.Background(), rag.ChatRequest{Message: browserQuestion})
	if err != nil {
		t.Fatal(err)
	}
	final := toChatResponse(resp, browserQuestion, s.be.searcher.Options().Fusion)
	final.Answer = fallback
	mux := http.NewServeMux()
	mux.Handle("/", s.routes()) // the page and /api/stats
	mux.HandleFunc("/api/chat", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		sw := &sseWriter{w: w, rc: http.NewResponseController(w)}
		_ = sw.event(rag.EventToken, tokenEventJSON{Token: partial})
		_ = sw.event(rag.EventReset, struct{}{})
		if turn.Add(1) == 1 {
			_ = sw.event(rag.EventToken, tokenEventJSON{Token: fallback})
			select { // the test looks at the page now
			case <-release:
			case <-r.Context().Done():
				return
			}
			_ = sw.event(rag.EventDone, final)
			return
		}
		_ = sw.event(rag.EventError, errorBody{Error: errStoreUnavailable().detail()})
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	releaseTurn := sync.OnceFunc(func() { close(release) })
	defer releaseTurn() // before srv.Close, which waits for the handler
	bctx, problems := newBrowser(t, 60*time.Second)

	const answer = `[...document.querySelectorAll('li.msg.assistant .answer')].pop().textContent`
	waitText := func(want string) {
		t.Helper()
		if err := chromedp.Do(bctx, chromedp.Poll[chromedp.Void](answer+` === `+strconv.Quote(want), chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			got := browse(t, bctx, chromedp.Evaluate[string](answer))
			t.Fatalf("the answer shows %q, want %q: %v", got, want, err)
		}
	}
	if err := chromedp.Do(bctx,
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS("#q")),
		chromedp.SendKeys(chromedp.CSS("#q"), browserQuestion),
		pressEnter(),
	); err != nil {
		t.Fatal(err)
	}
	waitText(fallback) // before done: the partial text is gone
	releaseTurn()
	if err := chromedp.Do(bctx, chromedp.WaitVisible(chromedp.CSS(`li.msg.assistant[data-state="done"]`))); err != nil {
		t.Fatal(err)
	}

	if err := chromedp.Do(bctx,
		chromedp.SendKeys(chromedp.CSS("#q"), browserQuestion),
		pressEnter(),
		chromedp.WaitVisible(chromedp.CSS(`li.msg.assistant[data-state="error"]`)),
	); err != nil {
		t.Fatal(err)
	}
	if got := browse(t, bctx, chromedp.Evaluate[string](answer)); strings.Contains(got, partial) || !strings.Contains(got, codeStoreUnavailable) {
		t.Errorf("after reset and error the answer shows %q, want the error alone", got)
	}
	for _, p := range problems() {
		t.Errorf("browser console: %s", p)
	}
}

// TestBrowserConfirmation: with a chat model the page offers the agentic
// mode; a quote request shows its question with Confirmar and Cancelar,
// and Confirmar sends the reply with the confirmation's ID, which submits
// the quote once and disables the buttons.
func TestBrowserConfirmation(t *testing.T) {
	skipWithoutBrowser(t)
	model := llmtest.NewModel(
		llmtest.ToolCalls(llmtest.Call("q1", actions.QuoteToolName, quote200)),
		llmtest.Text("Pronto! Cotação solicitada."),
	)
	swap, book := withAgent(t, model)
	url := serveLoopback(t, newTestServer(t, nil, swap))
	bctx, problems := newBrowser(t, 60*time.Second)

	const (
		asking = `li.msg.assistant[data-state="done"] .confirm:not([hidden]) .confirm-yes`
		last   = `[...document.querySelectorAll('li.msg.assistant .answer')].pop().textContent`
	)
	if err := chromedp.Do(bctx,
		reducedMotion(), // a smooth scroll moves the button under chromedp's click
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS("#agentic")),
		chromedp.Click(chromedp.CSS("#agentic")),
		chromedp.SendKeys(chromedp.CSS("#q"), "quero cotação de 200 L de Glifosato 480 SL, e-mail compras@fazenda.com.br"),
		pressEnter(),
		chromedp.WaitVisible(chromedp.CSS(asking)),
	); err != nil {
		t.Fatalf("ask for a quote: %v", err)
	}
	if got := browse(t, bctx, chromedp.Evaluate[string](last)); !strings.HasPrefix(got, "Confirma a solicitação de cotação de 200 L") {
		t.Errorf("the question shows %q", got)
	}
	if book.submitted.Load() != 0 {
		t.Fatal("submitted before the confirmation")
	}
	if err := chromedp.Do(bctx,
		chromedp.Click(chromedp.CSS(asking)),
		chromedp.Poll[chromedp.Void](last+` === "Pronto! Cotação solicitada."`, chromedp.WithPollingTimeout(10*time.Second)),
		chromedp.WaitVisible(chromedp.CSS(`li.msg.assistant[data-state="done"] .confirm button[disabled]`)),
	); err != nil {
		t.Fatalf("confirm: %v (answer %q)", err, browse(t, bctx, chromedp.Evaluate[string](last)))
	}
	if n := book.submitted.Load(); n != 1 {
		t.Errorf("submitted %d quotes, want 1", n)
	}
	if q := browse(t, bctx, chromedp.Evaluate[string](`[...document.querySelectorAll('li.msg.user .bubble')].pop().textContent`)); !strings.Contains(q, "Confirmar") {
		t.Errorf("the reply bubble shows %q", q)
	}
	for _, p := range problems() {
		t.Errorf("browser console: %s", p)
	}
}

// skipWithoutBrowser skips the test when Chromium is missing (fails with
// HYBRIDRAG_REQUIRE_BROWSER=1) or in -short mode.
func skipWithoutBrowser(t *testing.T) {
	t.Helper()
	required := os.Getenv(envRequireBrowser) == "1"
	if _, err := os.Stat(chromiumPath); err != nil {
		if required {
			t.Fatalf("%s is missing and %s=1: install it with .ci/browser.sh (apt-get install chromium)", chromiumPath, envRequireBrowser)
		}
		testenv.Announce(testenv.Browser)
		t.Skipf("skipping the browser test: %s not found (install Debian's chromium, or run .ci/browser.sh; set %s=1 to make this a failure)", chromiumPath, envRequireBrowser)
	}
	if testing.Short() && !required {
		t.Skip("skipping the browser test in -short mode")
	}
}

// newBrowser starts headless Chromium for at most timeout and returns its
// context and a function listing the console errors and uncaught
// exceptions so far (a CSP violation is a browser-log error).
func newBrowser(t *testing.T, timeout time.Duration) (context.Context, func() []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1100, 900),
	)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(cancelBrowser)
	var (
		mu       sync.Mutex
		problems []string
	)
	messages := chromedp.Console(bctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == "error" {
				mu.Lock()
				problems = append(problems, m.String())
				mu.Unlock()
			}
		}
	}()
	return bctx, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(problems)
	}
}

// startLoopback serves a test server (edit changes its configuration) on
// 127.0.0.1:0 with the production http.Server settings and returns its URL.
func startLoopback(t *testing.T, edit func(*config)) string {
	t.Helper()
	return serveLoopback(t, newTestServer(t, edit, nil))
}

// serveLoopback serves s on 127.0.0.1:0 with the production http.Server
// settings and returns its URL.
func serveLoopback(t *testing.T, s *server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := s.httpServer(ln.Addr().String())
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
	})
	return "http://" + ln.Addr().String() + "/"
}

// browse runs one action and fails the test on error.
func browse[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("browser timed out: %v", err)
		}
		t.Fatalf("browser: %v", err)
	}
	return v
}

// reducedMotion makes the page see prefers-reduced-motion: reduce, as a
// user who turned animations off: the chat then scrolls at once. A click
// by coordinates during a smooth scroll lands where the button was.
func reducedMotion() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}},
		})
		return err
	})
}

// pressEnter sends the Enter key to the focused element as a real keyboard
// does when the page handles keydown: rawKeyDown and keyUp, without the
// char event that would type a line break.
func pressEnter() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, typ := range []input.DispatchKeyEventType{input.DispatchKeyEventTypeRawKeyDown, input.DispatchKeyEventTypeKeyUp} {
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, input.DispatchKeyEventParams{
				Type: typ, Key: "Enter", Code: "Enter", WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13,
			}); err != nil {
				return err
			}
		}
		return nil
	})
}

func saveShot(t *testing.T, path string, png []byte) {
	t.Helper()
	if len(png) < 8 || string(png[1:4]) != "PNG" {
		t.Fatalf("screenshot is not a PNG (%d bytes)", len(png))
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(png))
}
