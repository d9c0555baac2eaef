// Table page: pick a game, ask a question, read the rulebook's answer with its page.
// Built on core.js (loaded before this file): everything from the API is inserted as text.
"use strict";

(() => {
  const STORAGE_KEY = "rulesqa.game";
  const EXCERPT_CHARS = 110;

  const $ = (id) => document.getElementById(id);
  const ui = {
    game: $("game"),
    gameSearch: $("game-search"),
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
    notice: $("model-notice"),
  };

  const games = new Map(); // every game the picker has seen, by id
  let limits = null; // GET /api/config: the server's limits, once known
  // GET /api/config to ask again after the next answer: it failed, or the server was starting (`ready: false`)
  // and did not know its model's notice yet. Once an answer came, the model is there.
  let configAgain = false;
  let pending = null; // AbortController of the request in flight
  let lastTurn = null; // the previous question and its answer's game, sent with the next one (a follow-up)

  const {
    el, icon, failure, tooLong, applyLimits, sendOnEnter, passageChip, citedChip, seeAlso, commonMistake, refusalText,
    TIMEOUT_MS, feedback, choices, turnOf,
  } = RulesqaCore;
  const api = RulesqaCore.client({ unreachable: "Impossible de joindre le service. Vérifiez la connexion, puis réessayez." });

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

  const picker = RulesqaCore.gamePicker({
    api: (path, options) => api(`/${path}`, options), select: ui.game, search: ui.gameSearch, games, onChange: () => {
      saveGame(ui.game.value);
      renderGameCard();
    },
  });

  RulesqaCore.enableViewer({ url: (path) => `/${path}`, hasPdf: (id) => Boolean(games.get(id)?.pdf), host: document.body });

  async function loadGames() {
    ui.gamesError.hidden = true;
    try {
      await picker.load(savedGame());
    } catch (err) {
      ui.gamesError.replaceChildren(
        `${err.message} La liste des jeux n'a pas pu être chargée ; le jeu sera reconnu dans la question. `,
        el("button", { type: "button", class: "link", text: "Réessayer" })
      );
      ui.gamesError.querySelector("button").addEventListener("click", loadGames, { once: true });
      ui.gamesError.hidden = false;
      return;
    }
    renderGameCard();
  }

  // ---------- answer rendering ----------

  // A titled passage (a rules question, a bullet title) folds under its title. An untitled one shows
  // its start and folds the whole text; a short one is shown whole, with nothing to unfold.
  function splitPassage(text) {
    const lines = String(text).split("\n");
    if (lines.length > 1) return { title: lines[0], body: lines.slice(1).join("\n"), excerpt: false };
    if (text.length <= EXCERPT_CHARS) return { title: text, body: "", excerpt: true };
    const cut = text.lastIndexOf(" ", EXCERPT_CHARS);
    return { title: `${text.slice(0, cut > 40 ? cut : EXCERPT_CHARS).trimEnd()}…`, body: text, excerpt: true };
  }

  // The section helps to find the passage in the booklet, unless the chip already names it.
  function sectionBesides(passage) {
    return passage && passage.section !== passage.short_citation ? passage.section : null;
  }

  function passageItem(passage, isSource) {
    const { title, body, excerpt } = splitPassage(passage.text);
    const section = sectionBesides(passage);
    const head = el("span", { class: "passage-head" },
      el("span", { class: excerpt ? "passage-title is-excerpt" : "passage-title", text: title }),
      el("span", { class: "passage-tags" },
        isSource ? el("span", { class: "badge", text: "Source" }) : null,
        passageChip(passage, "chip-small"),
        section ? el("span", { class: "passage-section", text: section }) : null));
    if (!body) return el("li", {}, el("div", { class: "passage is-whole" }, head));
    return el("li", {}, el("details", { class: "passage" }, el("summary", {}, head),
      el("p", { class: "passage-body", text: body })));
  }

  function passageList(data, heading) {
    if (!data.passages.length) return null;
    const sourceId = data.answer ? data.answer.passage_id : null;
    return el("div", { class: "passages" },
      el("h3", { class: "passages-heading", text: heading }),
      el("ol", {}, ...data.passages.map((p) => passageItem(p, p.id === sourceId))));
  }

  // The quoted text and its chip: the answer's, or the choice the player tapped.
  function quoted(data, text, passageId, citation) {
    const source = data.passages.find((p) => p.id === passageId);
    const gameName = data.game ? data.game.title : "";
    // Next to the chip: the game, and the section when the chip does not show it.
    const context = [gameName, sectionBesides(source)].filter(Boolean).join(" · ");
    return el("div", { class: "quoted" },
      el("blockquote", { class: "answer-text", text }),
      el("div", { class: "citation" },
        citedChip(data, passageId, citation, "chip-large"),
        el("span", { class: "citation-text", "aria-hidden": "true", text: context })));
  }

  // A tapped choice replaces what is quoted, under a heading that no longer says "probable".
  function choicesFor(data, slot, heading) {
    return choices(data, api, "/api/choice", (choice) => {
      slot.replaceChildren(quoted(data, choice.text, choice.passage_id, choice.citation));
      if (heading) heading.textContent = data.game ? `Réponse · ${data.game.title}` : "Réponse";
    });
  }

  function renderFound(data) {
    const gameName = data.game ? data.game.title : "";
    const unsure = !data.sure && data.choices && data.choices.length;
    const title = unsure ? "Réponse probable" : "Réponse";
    const heading = el("h2", { id: "result-heading", class: "eyebrow", tabindex: "-1",
      text: gameName ? `${title} · ${gameName}` : title });
    const slot = el("div", { class: "answer-slot" }, quoted(data, data.answer.text, data.answer.passage_id, data.answer.citation));
    return [
      heading,
      slot,
      unsure ? choicesFor(data, slot, heading) : seeAlso(data),
      commonMistake(data),
      feedback(data, api, "/api/feedback"),
      data.game_detected && gameName
        ? el("p", { class: "detected", text: `Jeu reconnu dans la question : ${gameName}.` }) : null,
      passageList(data, "Les passages du livret"),
    ];
  }

  function renderNotFound(data) {
    const which = data.refusal && data.refusal.reason === "ambiguous_game";
    const slot = el("div", { class: "answer-slot" }); // where a tapped choice is quoted
    return [
      el("div", { class: "notice" },
        el("h2", { id: "result-heading", tabindex: "-1", text: which ? "Quel jeu ?" : "Ce n'est pas dans les règles" }),
        el("p", { text: refusalText(data) }),
        choicesFor(data, slot, null),
        slot,
        RulesqaCore.gameChoices(data, (game) => {
          picker.choose(game);
          saveGame(game.id);
          renderGameCard();
          ui.form.requestSubmit(); // the same question, now about that game
        })),
      feedback(data, api, "/api/feedback"),
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

  // A question that could not be answered: the error replaces the previous answer, the player stays in
  // the field to fix the question or retry.
  function showFailure(message) {
    ui.status.textContent = "";
    ui.result.hidden = true; // the previous answer was for another question
    showError(message);
    ui.question.focus();
  }

  async function ask(event) {
    event.preventDefault();
    const problem = tooLong(ui.question.value, limits);
    if (problem) {
      showFailure(problem);
      return;
    }
    if (pending) pending.abort();
    const controller = new AbortController();
    pending = controller;
    const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
    showError("");
    setLoading(true);
    try {
      // No k: the server's default number of passages.
      const data = await api("/api/ask", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ question: ui.question.value, game: ui.game.value || null, client: "page",
          previous: lastTurn || undefined }), // undefined: no key at all for a first question
        signal: controller.signal,
      });
      showResult(data);
      lastTurn = turnOf(data);
      if (configAgain) loadLimits();
      // Announced; visually the result speaks for itself.
      ui.status.textContent = data.found ? data.message : refusalText(data);
    } catch (err) {
      if (pending !== controller) return; // replaced by a newer question, which owns the page now
      showFailure(failure(err));
      // The game picked is no longer served (404 unknown_game): unpicked and forgotten, the list asked again.
      if (err.code === "unknown_game") {
        ui.game.value = "";
        saveGame("");
        renderGameCard();
        loadGames();
      }
    } finally {
      clearTimeout(timer);
      if (pending === controller) {
        pending = null;
        setLoading(false);
      }
    }
  }

  async function loadLimits() {
    configAgain = false;
    try {
      limits = await api("/api/config");
      applyLimits(ui.question, limits);
      // The notice the served model's terms ask for (EmbeddingGemma), in the footer; none for e5-small.
      RulesqaCore.showNotice(ui.notice, limits.model_notice);
      configAgain = limits.ready === false;
    } catch {
      // Without them the server still checks the question and says what is wrong; asked again after an answer.
      configAgain = true;
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
    lastTurn = null; // another game: a new conversation
  });
  ui.form.addEventListener("submit", ask);
  sendOnEnter(ui.question, ui.form);
  setupVoice();
  loadLimits();
  loadGames();
})();
