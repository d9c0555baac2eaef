// Table page: pick a game, ask a question, read the rulebook's answer with its page.
// Everything that comes from the API is inserted with textContent: rulebook text is data, never markup.
"use strict";

(() => {
  const STORAGE_KEY = "rulesqa.game";
  const TIMEOUT_MS = 30000;
  const PASSAGES = 5;
  const EXCERPT_CHARS = 110;

  const $ = (id) => document.getElementById(id);
  const ui = {
    game: $("game"),
    card: $("game-card"),
    cardTitle: $("game-title"),
    cardFacts: $("game-facts"),
    cardCredits: $("game-credits"),
    gamesError: $("games-error"),
    form: $("ask"),
    question: $("question"),
    submit: $("submit"),
    voice: $("voice"),
    voiceLabel: $("voice-label"),
    status: $("status"),
    error: $("error"),
    result: $("result"),
  };

  let games = new Map();
  let pending = null; // AbortController of the request in flight

  // ---------- small DOM helpers ----------

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

  const ICON_PATHS = {
    players: "M9 11a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7Zm7 0a3 3 0 1 0 0-6 3 3 0 0 0 0 6ZM2 19c0-3.3 3.1-5.5 7-5.5s7 2.2 7 5.5v1H2v-1Zm15.5 1v-1c0-1.9-.8-3.5-2.1-4.6 3.4.1 6.6 1.9 6.6 4.6v1h-4.5Z",
    duration: "M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20Zm1 10.4 3.6 2.1-1 1.7L11 13.5V6h2v6.4Z",
    age: "M12 2a4 4 0 1 1 0 8 4 4 0 0 1 0-8Zm-7 19v-2a6 6 0 0 1 6-6h2a6 6 0 0 1 6 6v2H5Z",
    book: "M2 5.6C4.6 4 8.2 4 11 5.9V20c-2.8-1.8-6.4-1.8-9-.3V5.6Zm20 0C19.4 4 15.8 4 13 5.9V20c2.8-1.8 6.4-1.8 9-.3V5.6Z",
  };

  function icon(name) {
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
    const path = document.createElementNS(ns, "path");
    path.setAttribute("d", ICON_PATHS[name]);
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

  class ApiError extends Error {}

  async function api(path, options = {}) {
    let response;
    try {
      response = await fetch(path, { headers: { Accept: "application/json" }, ...options });
    } catch (err) {
      if (err.name === "AbortError") throw err;
      throw new ApiError("Impossible de joindre le service. Vérifiez la connexion, puis réessayez.");
    }
    let body = null;
    try {
      body = await response.json();
    } catch {
      // Not JSON (a proxy error page, for instance): handled below with a generic message.
    }
    if (!response.ok) {
      if (body && typeof body.detail === "string") throw new ApiError(sentence(body.detail));
      throw new ApiError(`Le service a répondu par une erreur (${response.status}). Réessayez dans un instant.`);
    }
    if (body === null) throw new ApiError("Le service a envoyé une réponse illisible. Réessayez dans un instant.");
    return body;
  }

  // ---------- game picker ----------

  function savedGame() {
    const fromUrl = new URLSearchParams(location.search).get("game");
    if (fromUrl) return fromUrl; // a QR code on the box can link straight to its game
    try {
      return localStorage.getItem(STORAGE_KEY) || "";
    } catch {
      return ""; // storage can be disabled (private browsing): the picker still works
    }
  }

  function saveGame(id) {
    try {
      if (id) localStorage.setItem(STORAGE_KEY, id);
      else localStorage.removeItem(STORAGE_KEY);
    } catch {
      /* not persisted, nothing else to do */
    }
  }

  function renderGameCard() {
    const game = games.get(ui.game.value);
    ui.card.hidden = !game;
    if (!game) return;
    ui.cardTitle.textContent = game.title;
    const facts = [
      ["players", game.players && `${game.players} joueurs`, ""],
      ["duration", game.duration, "Durée"],
      ["age", game.age, "Âge"],
    ].filter(([, value]) => value);
    ui.cardFacts.replaceChildren(
      ...facts.map(([kind, value, label]) =>
        el("li", { class: "fact" }, icon(kind), label ? el("span", { class: "visually-hidden", text: `${label} : ` }) : null, value)
      )
    );
    ui.cardFacts.hidden = facts.length === 0;
    const credits = [game.author, game.publisher, game.year].filter(Boolean).join(" · ");
    ui.cardCredits.textContent = credits;
    ui.cardCredits.hidden = !credits;
  }

  async function loadGames() {
    ui.gamesError.hidden = true;
    try {
      const body = await api("/api/games");
      games = new Map(body.games.map((g) => [g.id, g]));
    } catch (err) {
      ui.gamesError.replaceChildren(
        `${err.message} La liste des jeux n'a pas pu être chargée ; le jeu sera reconnu dans la question. `,
        el("button", { type: "button", class: "link", text: "Réessayer" })
      );
      ui.gamesError.querySelector("button").addEventListener("click", loadGames, { once: true });
      ui.gamesError.hidden = false;
      return;
    }
    const wanted = savedGame();
    const options = [...games.values()]
      .sort((a, b) => a.title.localeCompare(b.title, "fr"))
      .map((g) => el("option", { value: g.id, text: g.title }));
    ui.game.replaceChildren(ui.game.options[0], ...options);
    ui.game.value = games.has(wanted) ? wanted : "";
    renderGameCard();
  }

  // ---------- answer rendering ----------

  function pagesLabel(pages) {
    return `p. ${pages.join(", ")}`;
  }

  // The chip is short ("p. 6"); screen readers get the full citation ("Karuba, livret p. 6") instead.
  function chip(passage, citation, extraClass = "") {
    let text = citation || "";
    if (passage && passage.pages && passage.pages.length) text = pagesLabel(passage.pages);
    else if (passage && passage.section) text = passage.section;
    const label = citation || text;
    return el("span", { class: `chip ${extraClass}`.trim(), title: label },
      icon("book"), el("span", { "aria-hidden": "true", text }),
      el("span", { class: "visually-hidden", text: `Source : ${label}` }));
  }

  // A titled passage (a rules question, a bullet title) folds under its title. An untitled one shows
  // its start and folds the whole text; a short one is shown whole, with nothing to unfold.
  function splitPassage(text) {
    const lines = String(text).split("\n");
    if (lines.length > 1) return { title: lines[0], body: lines.slice(1).join("\n"), excerpt: false };
    if (text.length <= EXCERPT_CHARS) return { title: text, body: "", excerpt: true };
    const cut = text.lastIndexOf(" ", EXCERPT_CHARS);
    return { title: `${text.slice(0, cut > 40 ? cut : EXCERPT_CHARS).trimEnd()}…`, body: text, excerpt: true };
  }

  function passageCitation(passage, gameTitle) {
    const where = passage.pages.length ? `livret ${pagesLabel(passage.pages)}`
      : passage.section ? `section ${passage.section}` : "";
    return [gameTitle, where].filter(Boolean).join(", ");
  }

  function passageItem(passage, gameTitle, isSource) {
    const { title, body, excerpt } = splitPassage(passage.text);
    const head = el("span", { class: "passage-head" },
      el("span", { class: excerpt ? "passage-title is-excerpt" : "passage-title", text: title }),
      el("span", { class: "passage-tags" },
        isSource ? el("span", { class: "badge", text: "Source" }) : null,
        chip(passage, passageCitation(passage, gameTitle), "chip-small"),
        // The chip shows the page; the section still helps to find the passage in the booklet.
        passage.pages.length && passage.section ? el("span", { class: "passage-section", text: passage.section }) : null));
    if (!body) return el("li", {}, el("div", { class: "passage is-whole" }, head));
    return el("li", {}, el("details", { class: "passage" }, el("summary", {}, head),
      el("p", { class: "passage-body", text: body })));
  }

  function passageList(data, heading) {
    if (!data.passages.length) return null;
    const gameTitle = data.game ? data.game.title : "";
    const titles = new Map([...games.values()].map((g) => [g.id, g.title]));
    const sourceId = data.answer ? data.answer.passage_id : null;
    return el("div", { class: "passages" },
      el("h3", { class: "passages-heading", text: heading }),
      el("ol", {}, ...data.passages.map((p) =>
        passageItem(p, titles.get(p.game) || gameTitle, p.id === sourceId))));
  }

  // Next to the chip: the game, and the section when the chip shows a page.
  function citationContext(source, gameName) {
    const section = source && source.pages.length ? source.section : null;
    return [gameName, section].filter(Boolean).join(" · ");
  }

  function renderFound(data) {
    const source = data.passages.find((p) => p.id === data.answer.passage_id);
    const gameName = data.game ? data.game.title : "";
    return [
      el("h2", { id: "result-heading", class: "eyebrow", tabindex: "-1", text: gameName ? `Réponse · ${gameName}` : "Réponse" }),
      el("blockquote", { class: "answer-text", text: data.answer.text }),
      el("div", { class: "citation" },
        chip(source, data.answer.citation, "chip-large"),
        el("span", { class: "citation-text", "aria-hidden": "true", text: citationContext(source, gameName) })),
      data.game_detected && gameName
        ? el("p", { class: "detected", text: `Jeu reconnu dans la question : ${gameName}.` }) : null,
      passageList(data, "Les passages du livret"),
    ];
  }

  function renderNotFound(data) {
    return [
      el("div", { class: "notice" },
        el("h2", { id: "result-heading", tabindex: "-1", text: "Ce n'est pas dans les règles" }),
        el("p", { text: data.message })),
      passageList(data, "Les passages les plus proches"),
    ];
  }

  function showResult(data) {
    ui.result.replaceChildren(...(data.found && data.answer ? renderFound(data) : renderNotFound(data)).filter(Boolean));
    ui.result.classList.toggle("is-missing", !data.found);
    ui.result.hidden = false;
    // Focus the answer: screen readers read it, and on phones the keyboard closes so the answer is visible.
    $("result-heading").focus({ preventScroll: true });
    const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    ui.result.scrollIntoView({ behavior: still ? "auto" : "smooth", block: "start" });
  }

  // ---------- asking ----------

  function setLoading(loading) {
    ui.submit.disabled = loading;
    ui.submit.textContent = loading ? "Recherche…" : "Demander";
    ui.form.setAttribute("aria-busy", String(loading));
    ui.status.classList.toggle("is-loading", loading);
    // Leaving the loading state keeps the text: it is then the result's message (or empty after an error).
    if (loading) ui.status.textContent = "Je cherche dans les règles…";
  }

  function showError(message) {
    ui.error.textContent = message;
  }

  async function ask(event) {
    event.preventDefault();
    if (pending) pending.abort();
    const controller = new AbortController();
    pending = controller;
    const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
    showError("");
    setLoading(true);
    try {
      const data = await api("/api/ask", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ question: ui.question.value, game: ui.game.value || null, k: PASSAGES }),
        signal: controller.signal,
      });
      showResult(data);
      ui.status.textContent = data.message; // announced; visually the result speaks for itself
    } catch (err) {
      if (pending !== controller) return; // replaced by a newer question, which owns the page now
      ui.status.textContent = "";
      ui.result.hidden = true; // the previous answer was for another question
      if (err.name === "AbortError") {
        showError("Le service met trop de temps à répondre. Réessayez dans un instant.");
      } else {
        showError(err.message || "Une erreur inattendue est survenue.");
      }
      // The player fixes the question or retries: keep them in the field.
      ui.question.focus();
    } finally {
      clearTimeout(timer);
      if (pending === controller) {
        pending = null;
        setLoading(false);
      }
    }
  }

  function submitOnEnter(event) {
    // Enter sends (what a phone's "send" key means); Shift+Enter keeps a new line.
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      ui.form.requestSubmit();
    }
  }

  // ---------- voice input ----------

  function setupVoice() {
    const Recognition = window.SpeechRecognition || window.webkitSpeechRecognition;
    if (!Recognition) return; // the button stays hidden
    const recognition = new Recognition();
    recognition.lang = "fr-FR";
    recognition.interimResults = true;
    recognition.maxAlternatives = 1;
    let listening = false;

    const setListening = (on) => {
      listening = on;
      ui.voice.setAttribute("aria-pressed", String(on));
      ui.voice.classList.toggle("is-listening", on);
      ui.voiceLabel.textContent = on ? "Écoute…" : "Dicter";
      ui.status.textContent = on ? "Je vous écoute : posez votre question." : "";
    };

    recognition.addEventListener("result", (event) => {
      ui.question.value = [...event.results].map((r) => r[0].transcript).join(" ");
    });
    recognition.addEventListener("end", () => {
      setListening(false);
      // Not sent automatically: a misheard word would otherwise get a confident wrong answer.
      if (ui.question.value.trim()) ui.status.textContent = "Question dictée : relisez-la, puis envoyez.";
      ui.question.focus();
    });
    recognition.addEventListener("error", (event) => {
      setListening(false);
      const denied = event.error === "not-allowed" || event.error === "service-not-allowed";
      showError(denied ? "Le micro n'est pas autorisé pour cette page." : "La dictée n'a pas fonctionné. Réessayez ou tapez la question.");
    });

    ui.voice.addEventListener("click", () => {
      if (listening) {
        recognition.stop();
        return;
      }
      showError("");
      try {
        recognition.start();
        setListening(true);
      } catch {
        setListening(false);
      }
    });
    ui.voice.hidden = false;
  }

  // ---------- start ----------

  ui.game.addEventListener("change", () => {
    saveGame(ui.game.value);
    renderGameCard();
  });
  ui.form.addEventListener("submit", ask);
  ui.question.addEventListener("keydown", submitOnEnter);
  setupVoice();
  loadGames();
})();
