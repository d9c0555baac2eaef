// The front-end core, shared by the table page and the widget: DOM helpers, the API client, the question
// limit and the pieces of an answer (citation chips, "Voir aussi", "Erreur fréquente").
// The page loads this file before app.js; GET /widget.js serves it joined with widget.js in one function,
// so the widget stays one self-contained <script> tag and adds no global to the host page.
// Everything that comes from the API is inserted as text: rulebook text is data, never markup.
// Citations are the server's (passage.citation, passage.short_citation): none is built here.
"use strict";

const RulesqaCore = (() => {
  const ICONS = {
    book: "M2 5.6C4.6 4 8.2 4 11 5.9V20c-2.8-1.8-6.4-1.8-9-.3V5.6Zm20 0C19.4 4 15.8 4 13 5.9V20c2.8-1.8 6.4-1.8 9-.3V5.6Z",
    warning: "M12 2 1 21h22L12 2Zm1 15h-2v-2h2v2Zm0-4h-2V9h2v4Z",
    players: "M9 11a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7Zm7 0a3 3 0 1 0 0-6 3 3 0 0 0 0 6ZM2 19c0-3.3 3.1-5.5 7-5.5s7 2.2 7 5.5v1H2v-1Zm15.5 1v-1c0-1.9-.8-3.5-2.1-4.6 3.4.1 6.6 1.9 6.6 4.6v1h-4.5Z",
    duration: "M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20Zm1 10.4 3.6 2.1-1 1.7L11 13.5V6h2v6.4Z",
    age: "M12 2a4 4 0 1 1 0 8 4 4 0 0 1 0-8Zm-7 19v-2a6 6 0 0 1 6-6h2a6 6 0 0 1 6 6v2H5Z",
    chat: "M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2Zm3 6.5a1.5 1.5 0 1 0 0-3 1.5 1.5 0 0 0 0 3Zm5 0a1.5 1.5 0 1 0 0-3 1.5 1.5 0 0 0 0 3Zm5 0a1.5 1.5 0 1 0 0-3 1.5 1.5 0 0 0 0 3Z",
    close: "M6.4 5 12 10.6 17.6 5 19 6.4 13.4 12l5.6 5.6-1.4 1.4-5.6-5.6L6.4 19 5 17.6 10.6 12 5 6.4 6.4 5Z",
    send: "M3 20.5 21.5 12 3 3.5l.01 6.6L16 12 3.01 13.9 3 20.5Z",
    // A cuff and a hand, thumb raised; "thumbDown" is the same drawing turned half a turn about the centre.
    thumbUp: "M2 10h4v11H2V10Zm6 .5L12.2 3c1.5-.3 2.6.9 2.3 2.4L13.8 9H20a2 2 0 0 1 2 2.2l-1.2 7.6a2.6 2.6 0 0 1-2.6 2.2H8V10.5Z",
    thumbDown: "M22 14h-4V3h4v11Zm-6-.5L11.8 21c-1.5.3-2.6-.9-2.3-2.4l.7-3.6H4a2 2 0 0 1-2-2.2l1.2-7.6A2.6 2.6 0 0 1 5.8 3H16v10.5Z",
  };

  // ---------- DOM ----------

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children) {
      if (child) node.append(child); // strings become text nodes, never HTML
    }
    return node;
  }

  // CSS for `root` (a document or a shadow root) as a constructed stylesheet: it is not an inline style, so
  // a host page whose Content-Security-Policy has no 'unsafe-inline' in style-src still applies it.
  // A browser without constructable stylesheets (before 2023) gets a <style> element instead.
  function addStyles(root, css) {
    if ("adoptedStyleSheets" in root && "replaceSync" in CSSStyleSheet.prototype) {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(css);
      root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
      return;
    }
    const style = el("style", { text: css });
    if (root.head) root.head.append(style);
    else root.append(style);
  }

  const FOCUSABLE = "a[href], button, select, textarea, input, summary, [tabindex]:not([tabindex='-1'])";

  // A modal dialog keeps the focus: Tab after its last control goes to the first, Shift+Tab before the
  // first to the last. Hidden and disabled controls are skipped.
  function keepFocus(container) {
    container.addEventListener("keydown", (event) => {
      if (event.key !== "Tab") return;
      const controls = [...container.querySelectorAll(FOCUSABLE)]
        .filter((node) => !node.disabled && node.getClientRects().length > 0);
      if (!controls.length) return;
      const first = controls[0];
      const last = controls[controls.length - 1];
      const active = container.getRootNode().activeElement; // a shadow root knows its own focus
      if (event.shiftKey && active === first) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && active === last) {
        event.preventDefault();
        first.focus();
      }
    });
  }

  function icon(name) {
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
    const path = document.createElementNS(ns, "path");
    path.setAttribute("d", ICONS[name]);
    path.setAttribute("fill", "currentColor");
    svg.append(path);
    return svg;
  }

  // ---------- API ----------

  // The API's messages are lower-case fragments ("la question est vide"); shown as a sentence.
  function sentence(text) {
    const s = String(text || "").trim();
    if (!s) return s;
    const capitalised = s.charAt(0).toUpperCase() + s.slice(1);
    return /[.!?…]$/.test(capitalised) ? capitalised : `${capitalised}.`;
  }

  // `status` and `code` are the API's (ErrorBody.code, "unknown_game"...), when it answered with an error.
  class ApiError extends Error {
    constructor(message, status = 0, code = "") {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  const TIMEOUT_MS = 30000; // then the request is aborted

  // What to tell the player when a request failed (an AbortError is the timeout).
  function failure(err) {
    if (err.name === "AbortError") return "Le service met trop de temps à répondre. Réessayez dans un instant.";
    return err.message || "Une erreur inattendue est survenue.";
  }

  // `url` maps an API path to where it is served (the widget resolves it against its script's URL);
  // `unreachable` is the caller's wording for a network failure.
  function client({ url = (path) => path, unreachable }) {
    return async function api(path, options = {}) {
      let response;
      try {
        // No credentials: the API needs none, and a plain CORS request works with any allowed origin.
        response = await fetch(url(path), {
          ...options, credentials: "omit", headers: { Accept: "application/json", ...options.headers },
        });
      } catch (err) {
        if (err.name === "AbortError") throw err;
        throw new ApiError(unreachable);
      }
      if (response.status === 204) return null; // done, nothing to read (POST /api/feedback)
      let body = null;
      try {
        body = await response.json();
      } catch {
        // Not JSON (a proxy error page, for instance): handled below with a generic message.
      }
      if (!response.ok) {
        if (body && typeof body.detail === "string") {
          throw new ApiError(sentence(body.detail), response.status, typeof body.code === "string" ? body.code : "");
        }
        throw new ApiError(`Le service a répondu par une erreur (${response.status}). Réessayez dans un instant.`,
          response.status);
      }
      if (body === null) throw new ApiError("Le service a envoyé une réponse illisible. Réessayez dans un instant.");
      return body;
    };
  }

  // ---------- the question limit (GET /api/config) ----------

  // Characters as the server counts them (code points of the trimmed text), not UTF-16 units.
  function questionLength(question) {
    return [...question.trim()].length;
  }

  // The French reason not to send `question`, or "" when it fits (or the limits are not known yet:
  // the server checks again anyway).
  function tooLong(question, limits) {
    const max = limits && limits.max_question_chars;
    const length = questionLength(question);
    return max && length > max ? `La question est trop longue (${length} caractères, maximum ${max}).` : "";
  }

  function applyLimits(field, limits) {
    if (limits && limits.max_question_chars) field.maxLength = limits.max_question_chars;
  }

  function sendOnEnter(field, form) {
    field.addEventListener("keydown", (event) => {
      // Enter sends (what a phone's "send" key means); Shift+Enter keeps a new line.
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
  }

  // ---------- the model's notice (GET /api/config's model_notice) ----------

  // The notice the served model's terms ask for (EmbeddingGemma: the Gemma Terms of Use), written into `node`
  // (a footer line) with its links; `node` hidden when there is none (e5-small). Only https links are made
  // links: the URL comes from the API.
  function showNotice(node, notice) {
    const links = notice && Array.isArray(notice.links)
      ? notice.links.filter((link) => link && /^https:\/\//.test(String(link.url))) : [];
    if (!notice || !notice.text) {
      node.replaceChildren();
      node.hidden = true;
      return;
    }
    const anchors = links.map((link) => el("a", { href: link.url, target: "_blank", rel: "noopener noreferrer",
      hreflang: "en" }, String(link.label), el("span", { class: "visually-hidden", text: " (en anglais, nouvel onglet)" })));
    const parts = [String(notice.text)];
    anchors.forEach((anchor, i) => parts.push(i ? " · " : " ", anchor));
    node.replaceChildren(...parts);
    node.hidden = false;
  }

  // ---------- the pieces of an answer ----------

  function passageById(data, id) {
    return data.passages.find((p) => p.id === id) || null;
  }

  // The chip shows the server's short citation ("p. 6", or the section); screen readers get the full one
  // ("Karuba, livret p. 6"). Without a short form the chip shows the full citation. The chip of a passage
  // from a game with a PDF rulebook is a button that opens the cited page (see the page viewer below).
  function chip(short, citation, extraClass = "", passage = null) {
    const label = citation || short || "";
    const withPage = pageViewer && passage && passage.pages && passage.pages.length && pageViewer.hasPdf(passage.game);
    if (withPage) {
      const button = el("button", { type: "button", class: `chip chip-page ${extraClass}`.trim(),
        title: `Voir la page : ${label}` }, icon("book"), el("span", { "aria-hidden": "true", text: short || label }),
        el("span", { class: "visually-hidden", text: `Voir la page du livret : ${label}` }));
      button.addEventListener("click", (event) => {
        event.preventDefault(); // inside a <summary>: open the page, do not fold the passage
        event.stopPropagation();
        openPage(passage, label);
      });
      return button;
    }
    return el("span", { class: `chip ${extraClass}`.trim(), title: label },
      icon("book"), el("span", { "aria-hidden": "true", text: short || label }),
      el("span", { class: "visually-hidden", text: `Source : ${label}` }));
  }

  function passageChip(passage, extraClass) {
    return chip(passage.short_citation, passage.citation, extraClass, passage);
  }

  // The chip of a cited passage, by id, with a citation the server gave for it (answer, warning).
  function citedChip(data, id, citation, extraClass) {
    const passage = passageById(data, id);
    return chip(passage ? passage.short_citation : "", citation, extraClass, passage);
  }

  // ---------- the page viewer: the cited page of a PDF rulebook, the passage highlighted ----------

  let pageViewer = null; // { url, games: Set of ids with a PDF, host }

  const VIEWER_CSS = `
.page-viewer { position: fixed; inset: 0; z-index: 2147483646; display: flex; flex-direction: column;
  background: #1c1c1c; color: #fff; font: 15px/1.4 system-ui, sans-serif; }
.page-viewer[hidden] { display: none; }
.page-viewer-bar { display: flex; align-items: center; gap: 8px; padding: 8px 10px; }
.page-viewer-title { flex: 1; margin: 0; font-size: 15px; font-weight: 600; }
.page-viewer button { min-width: 44px; min-height: 44px; border: 0; border-radius: 8px; background: rgb(255 255 255 / 14%);
  color: #fff; font: inherit; cursor: pointer; }
.page-viewer button svg { width: 22px; height: 22px; }
.page-viewer button:disabled { opacity: .35; cursor: default; }
.page-viewer-scroll:focus-visible { outline: 3px solid #7fdccf; outline-offset: -3px; }
.page-viewer-scroll { flex: 1; overflow: auto; touch-action: pan-x pan-y pinch-zoom; -webkit-overflow-scrolling: touch; }
.page-viewer-img { display: block; width: 100%; max-width: 900px; margin: 0 auto; background: #fff; }
.page-viewer.is-zoomed .page-viewer-img { width: 200%; max-width: none; }
.page-viewer-status { margin: 0; padding: 4px 12px 10px; text-align: center; }
.chip-page { cursor: pointer; font: inherit; }
`;

  // `url` maps an API path as in client(); `games` lists the games whose passages have a page image;
  // `host` is where the viewer and its style go (document.body, or the widget's shadow root).
  // `hasPdf(gameId)`: whether the game's rulebook PDF is there (the `pdf` flag of /api/games), asked at
  // render time, since on a large shelf the games are fetched page by page as the player searches.
  function enableViewer({ url = (path) => path, hasPdf, host }) {
    pageViewer = { url, hasPdf, host, node: null };
  }

  function viewerNode() {
    if (pageViewer.node) return pageViewer.node;
    const title = el("p", { class: "page-viewer-title", id: "page-viewer-title" });
    const prev = el("button", { type: "button", "aria-label": "Page précédente", text: "‹" });
    const next = el("button", { type: "button", "aria-label": "Page suivante", text: "›" });
    const zoom = el("button", { type: "button", "aria-label": "Agrandir", "aria-pressed": "false", text: "+" });
    const close = el("button", { type: "button", "aria-label": "Fermer la page" }, icon("close"));
    const img = el("img", { class: "page-viewer-img", alt: "" });
    const status = el("p", { class: "page-viewer-status", role: "status" });
    // Focusable, so that the arrow keys scroll a zoomed page without a mouse.
    const scroll = el("div", { class: "page-viewer-scroll", role: "group", tabindex: "0",
      "aria-label": "Page du livret" }, img);
    const node = el("div", { class: "page-viewer", role: "dialog", "aria-modal": "true",
      "aria-labelledby": "page-viewer-title" },
    el("div", { class: "page-viewer-bar" }, title, prev, next, zoom, close), scroll, status);
    node.hidden = true;
    keepFocus(node);
    const state = { node, title, prev, next, zoom, close, img, status, passage: null, index: 0, back: null };
    close.addEventListener("click", () => closePage());
    zoom.addEventListener("click", () => {
      const zoomed = node.classList.toggle("is-zoomed");
      zoom.setAttribute("aria-pressed", String(zoomed));
    });
    prev.addEventListener("click", () => showPage(state.index - 1));
    next.addEventListener("click", () => showPage(state.index + 1));
    node.addEventListener("keydown", (event) => {
      if (event.key === "Escape") closePage();
    });
    img.addEventListener("load", () => { status.textContent = ""; });
    img.addEventListener("error", () => { status.textContent = "La page n'a pas pu être chargée."; });
    addStyles(pageViewer.host.getRootNode(), VIEWER_CSS);
    pageViewer.host.append(node);
    pageViewer.node = state;
    return state;
  }

  function showPage(index) {
    const v = pageViewer.node;
    const pages = v.passage.pages;
    v.index = Math.max(0, Math.min(index, pages.length - 1));
    const page = pages[v.index];
    v.title.textContent = pages.length > 1 ? `${v.label} — page ${page}` : v.label;
    v.img.alt = `Page ${page} du livret`;
    v.status.textContent = "Chargement de la page…";
    const path = `api/games/${encodeURIComponent(v.passage.game)}/pages/${encodeURIComponent(page)}` +
      `?passage=${encodeURIComponent(v.passage.id)}`;
    v.img.src = pageViewer.url(path);
    v.prev.disabled = v.index === 0;
    v.next.disabled = v.index === pages.length - 1;
    v.prev.hidden = v.next.hidden = pages.length < 2;
  }

  function openPage(passage, label) {
    const v = viewerNode();
    v.passage = passage;
    v.label = label;
    v.back = pageViewer.host.activeElement || document.activeElement; // a shadow root knows its own focus
    v.node.hidden = false;
    showPage(0);
    v.close.focus();
  }

  function closePage() {
    const v = pageViewer && pageViewer.node;
    if (!v || v.node.hidden) return;
    v.node.hidden = true;
    v.img.removeAttribute("src");
    if (v.back && v.back.focus) v.back.focus();
  }

  // The other passages of the answer set, after the quoted one; null when the quote says it all.
  function seeAlso(data) {
    const others = (data.answer.passage_ids || []).slice(1).map((id) => passageById(data, id)).filter(Boolean);
    if (!others.length) return null;
    return el("div", { class: "see-also" },
      el("span", { class: "see-also-label", text: "Voir aussi" }),
      el("ul", { class: "chips" },
        ...others.map((p) => el("li", {}, passageChip(p, "chip-small")))));
  }

  // A "common mistakes" passage bearing on the question, shown under the answer.
  function commonMistake(data) {
    const warning = data.warning;
    if (!warning) return null;
    return el("div", { class: "mistake", role: "note" },
      el("p", { class: "mistake-title" }, icon("warning"), "Erreur fréquente"),
      el("p", { class: "mistake-text", text: warning.text }),
      citedChip(data, warning.passage_id, warning.citation, "chip-small"));
  }

  // Why there is no answer, in the server's words.
  function refusalText(data) {
    return (data.refusal && data.refusal.message) || data.message;
  }

  // "Utile ?" and two thumbs under an answer the server logged (it has an ask_id): one verdict per answer,
  // sent to POST /api/feedback at `path`. Two real buttons in a labelled group, named by their labels; the
  // thumbs are drawn (SVG), not emoji, which a machine without an emoji font shows as empty boxes. The
  // outcome is announced politely.
  function feedback(data, api, path) {
    if (!data.ask_id) return null;
    const thanks = el("span", { class: "feedback-status", role: "status", "aria-live": "polite" });
    const button = (helpful, drawing, label) => el("button", {
      type: "button", class: "thumb", "aria-label": label, title: label, "data-helpful": String(helpful),
    }, icon(drawing));
    const up = button(true, "thumbUp", "Oui, cette réponse est utile");
    const down = button(false, "thumbDown", "Non, cette réponse n'est pas utile");
    const group = el("div", { class: "feedback", role: "group", "aria-label": "Cette réponse est-elle utile ?" },
      el("span", { class: "feedback-label", "aria-hidden": "true", text: "Utile ?" }), up, down, thanks);
    async function send(helpful, chosen) {
      up.disabled = down.disabled = true;
      thanks.textContent = "";
      try {
        await api(path, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ ask_id: data.ask_id, helpful }),
        });
        chosen.setAttribute("aria-pressed", "true");
        thanks.textContent = "Merci pour votre avis.";
      } catch (err) {
        up.disabled = down.disabled = false; // not recorded: the player may try again
        thanks.textContent = failure(err);
      }
    }
    up.addEventListener("click", () => send(true, up));
    down.addEventListener("click", () => send(false, down));
    return group;
  }

  // ---------- the game picker on a large shelf ----------

  // A shop's shelf holds thousands of games: the select only ever holds one page of /api/games. When the
  // shelf is larger than that page, a search field appears before the select; what is typed (debounced,
  // the previous request aborted) asks /api/games?q=… and the select shows those games, the chosen one
  // kept. `games` (id -> game) is filled with every game seen, for titles and cards.
  const PICKER_PAGE = 50;
  const PICKER_DELAY_MS = 150;

  function gamePicker({ api, select, search, games, onChange }) {
    const first = select.options[0]; // "Reconnaître le jeu dans la question"
    let pending = null;
    let timer = 0;

    function show(list) {
      const chosen = games.get(select.value);
      const shown = chosen && !list.some((g) => g.id === chosen.id) ? [chosen, ...list] : list;
      for (const g of list) games.set(g.id, g);
      const value = select.value;
      select.replaceChildren(first, ...shown.map((g) => el("option", { value: g.id, text: g.title })));
      select.value = value;
    }

    async function query(q) {
      if (pending) pending.abort();
      pending = new AbortController();
      const params = new URLSearchParams({ limit: String(PICKER_PAGE) });
      if (q) params.set("q", q);
      try {
        const body = await api(`api/games?${params}`, { signal: pending.signal });
        show(body.games);
        if (q && body.games.length === 1 && !select.value) {
          select.value = body.games[0].id; // one match: picked, as a player expects after typing a name
          onChange();
        }
        return body;
      } catch (err) {
        if (err.name !== "AbortError") throw err;
        return null;
      }
    }

    search.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(() => query(search.value.trim()).catch(() => {}), PICKER_DELAY_MS);
    });

    // The first page; the search field only when the shelf does not fit in it. A wanted game (from the
    // URL or the last visit) outside the page is fetched on its own.
    async function load(wanted) {
      const body = await query("");
      search.hidden = body.total <= body.games.length;
      if (wanted && !games.has(wanted)) {
        try {
          games.set(wanted, await api(`api/games/${encodeURIComponent(wanted)}`));
          show(body.games);
        } catch {
          // an unknown or removed game: nothing chosen
        }
      }
      select.value = games.has(wanted) ? wanted : "";
      return body;
    }

    // A game picked elsewhere (a "Précisez le jeu" button): shown and chosen even if not on this page.
    function choose(game) {
      games.set(game.id, { ...games.get(game.id), ...game });
      if (![...select.options].some((o) => o.value === game.id)) select.append(el("option", { value: game.id, text: game.title }));
      select.value = game.id;
    }

    return { load, choose };
  }

  // "Tu parles de… ?": when the best passage is not sure, the answer offers the best few. Each is a button
  // (its title or first words, and its citation); a tap shows that passage's answer through `show(choice)`,
  // marks it pressed, and tells POST /api/choice at `path` which one the player meant (a confirmed pair for
  // the questions log). The first is the best guess, shown already. Announced through the group's status.
  function choices(data, api, path, show) {
    if (!data.choices || !data.choices.length) return null;
    const status = el("span", { class: "visually-hidden", role: "status", "aria-live": "polite" });
    const buttons = data.choices.map((choice) => {
      // The best guess is what a found answer shows already: pressed. A refusal shows none yet.
      const button = el("button", { type: "button", class: "choice", "aria-pressed": String(choice.best && data.found),
        "data-passage": choice.passage_id },
      el("span", { class: "choice-label", text: choice.label }),
      el("span", { class: "choice-source", text: choice.short_citation || choice.citation }));
      button.addEventListener("click", () => {
        for (const other of buttons) other.setAttribute("aria-pressed", String(other === button));
        show(choice);
        status.textContent = `Passage choisi : ${choice.citation}. ${choice.text}`;
        if (data.ask_id) {
          api(path, { method: "POST", headers: { "Content-Type": "application/json" },
            body: JSON.stringify({ ask_id: data.ask_id, passage_id: choice.passage_id }) }).catch(() => {
            // Only the questions log misses it: the player has the passage.
          });
        }
      });
      return button;
    });
    return el("div", { class: "choices", role: "group", "aria-label": "Tu parles de… ?" },
      el("p", { class: "choices-label", "aria-hidden": "true", text: "Tu parles de… ?" }),
      el("ul", {}, ...buttons.map((b) => el("li", {}, b))), status);
  }

  // The conversation's previous turn for a follow-up ("et à deux ?"): the question and its answer's game.
  function turnOf(data) {
    return data && data.game ? { question: data.question, game: data.game.id } : null;
  }

  // "Précisez le jeu : A, B ou C ?": the likeliest games as buttons; `pick(game)` asks again with it.
  function gameChoices(data, pick) {
    const games = (data.refusal && data.refusal.reason === "ambiguous_game" && data.refusal.games) || [];
    if (!games.length) return null;
    return el("div", { class: "game-choices", role: "group", "aria-label": "Jeux possibles" },
      ...games.map((game) => {
        const button = el("button", { type: "button", class: "game-choice", text: game.title });
        button.addEventListener("click", () => pick(game));
        return button;
      }));
  }

  return {
    el, icon, addStyles, keepFocus, TIMEOUT_MS, client, failure, tooLong, applyLimits, sendOnEnter, showNotice,
    passageChip, citedChip, seeAlso, commonMistake, refusalText, feedback, enableViewer, closePage,
    gamePicker, gameChoices, choices, turnOf,
  };
})();
