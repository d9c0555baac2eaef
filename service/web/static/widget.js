// rulesqa chat widget. A site owner adds one tag:
//   <script src="https://HOST/widget.js" data-game="karuba" data-accent="#0f766e" data-position="right" defer></script>
// The widget lives in an open shadow root on <rulesqa-widget id="rulesqa-widget">: its CSS stays inside and
// the host page's CSS stays outside. It talks to the origin it was loaded from (CORS).
// GET /widget.js serves this file joined after core.js (the code it shares with the table page) in one
// function: RulesqaCore below is that core. Everything from the API is inserted as text.
"use strict";

(() => {
  const HOST_ID = "rulesqa-widget";

  if (document.getElementById(HOST_ID)) return; // the tag was pasted twice: one widget is enough

  // ---------- configuration from the script tag ----------

  function findScript() {
    if (document.currentScript) return document.currentScript;
    // currentScript is null when the code runs from a callback or a module; fall back to the tag itself.
    return [...document.querySelectorAll("script[src]")].find((s) => {
      try {
        return new URL(s.src, location.href).pathname.endsWith("widget.js");
      } catch {
        return false;
      }
    }) || null;
  }

  const script = findScript();
  const scriptUrl = script ? new URL(script.src, location.href) : new URL("/widget.js", location.href);
  const data = (name) => ((script && script.getAttribute(`data-${name}`)) || "").trim();

  const config = {
    game: data("game").toLowerCase(),
    accent: /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(data("accent")) ? data("accent") : "#0f766e",
    position: data("position").toLowerCase() === "left" ? "left" : "right",
  };

  // WCAG relative luminance of "#rgb" or "#rrggbb".
  function luminance(hex) {
    const full = hex.length === 4 ? hex.replace(/[0-9a-f]/gi, (c) => c + c) : hex;
    const [r, g, b] = [1, 3, 5].map((i) => {
      const c = parseInt(full.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  }

  // Text on the accent colour: white or near-black, whichever contrasts more; for the mid tones where
  // neither reaches WCAG AA's 4.5:1, black (which always does there).
  function inkFor(hex) {
    const accent = luminance(hex);
    const ratio = (ink) => {
      const [hi, lo] = [accent, luminance(ink)].sort((a, b) => b - a);
      return (hi + 0.05) / (lo + 0.05);
    };
    const best = ratio("#ffffff") >= ratio("#111827") ? "#ffffff" : "#111827";
    return ratio(best) >= 4.5 ? best : "#000000";
  }

  // ---------- styles (inside the shadow root only) ----------

  const CSS = `
/* Important :host declarations beat the host page's own rules (even "* { ... !important }") on the host
   element, so nothing the page sets there is inherited inside. */
:host { all: initial !important; }
* , *::before, *::after { box-sizing: border-box; }
[hidden] { display: none !important; }
.root {
  --accent: ${config.accent};
  --accent-ink: ${inkFor(config.accent)};
  --bg: #ffffff; --soft: #f3f4f1; --ink: #1d2424; --muted: #5f6967; --line: #e4e4df;
  --danger-bg: #fdecec; --danger-ink: #a0201c; --warn-bg: #fff6e0; --warn-line: #f0c35a; --warn-ink: #6b4a00;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Helvetica Neue", Arial, sans-serif;
  color: var(--ink);
  text-align: left;
  -webkit-font-smoothing: antialiased;
}
button, select, textarea { font: inherit; color: inherit; margin: 0; }
:focus-visible { outline: 3px solid color-mix(in srgb, var(--accent) 55%, transparent); outline-offset: 2px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }

.launcher {
  position: fixed; bottom: 20px; z-index: 2147483000;
  display: inline-flex; align-items: center; gap: 8px;
  height: 54px; padding: 0 20px 0 16px; border: 0; border-radius: 999px;
  background: var(--accent); color: var(--accent-ink);
  font-weight: 650; cursor: pointer;
  box-shadow: 0 6px 20px rgb(0 0 0 / 22%), 0 2px 6px rgb(0 0 0 / 12%);
  transition: transform .15s ease;
}
.launcher:hover { transform: translateY(-1px); }
.launcher svg { width: 24px; height: 24px; flex: none; }
.right .launcher { right: 20px; }
.left .launcher { left: 20px; }

.panel {
  position: fixed; bottom: 88px; z-index: 2147483001;
  width: 380px; height: min(620px, calc(100vh - 112px));
  display: flex; flex-direction: column;
  background: var(--bg); border-radius: 16px; overflow: hidden;
  box-shadow: 0 18px 50px rgb(0 0 0 / 24%), 0 2px 8px rgb(0 0 0 / 10%);
}
.right .panel { right: 20px; }
.left .panel { left: 20px; }

.head {
  display: flex; align-items: center; gap: 10px;
  padding: 14px 12px 14px 18px;
  background: var(--accent); color: var(--accent-ink);
}
.head-text { flex: 1; min-width: 0; }
.title { margin: 0; font-size: 16px; font-weight: 700; line-height: 1.25; }
.subtitle { margin: 1px 0 0; font-size: 13px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.close {
  flex: none; width: 40px; height: 40px; border: 0; border-radius: 10px;
  background: transparent; color: inherit; cursor: pointer;
  display: inline-flex; align-items: center; justify-content: center;
}
.close:hover { background: rgb(255 255 255 / 16%); }
.close svg { width: 22px; height: 22px; }

.picker { display: flex; align-items: center; gap: 10px; padding: 10px 14px; border-bottom: 1px solid var(--line); background: var(--soft); }
.picker label { font-size: 13px; font-weight: 650; color: var(--muted); }
.picker select, .picker .game-search {
  flex: 1; min-width: 0; min-height: 40px; padding: 6px 10px;
  border: 1.5px solid var(--line); border-radius: 9px; background: var(--bg);
}
.picker .game-search[hidden] { display: none; }
.game-choices { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 8px; }
.game-choice { min-height: 36px; padding: 4px 12px; border: 0; border-radius: 999px; background: var(--accent); color: var(--accent-ink); font-weight: 650; cursor: pointer; }
.choices { margin-top: 10px; }
.choices-label { font-weight: 700; }
.choices ul { display: grid; gap: 6px; margin: 6px 0 0; padding: 0; list-style: none; }
.choice {
  display: flex; align-items: center; justify-content: space-between; gap: 8px; width: 100%; min-height: 40px;
  padding: 6px 10px; border: 1.5px solid var(--line); border-radius: 10px; background: var(--bg); color: var(--ink);
  font: inherit; font-size: 13.5px; text-align: left; cursor: pointer;
}
.choice[aria-pressed="true"] { border-color: var(--ink); box-shadow: inset 3px 0 0 var(--ink); }
.choice-source { flex: none; font-size: 12px; font-weight: 700; color: var(--muted); }

.log:focus-visible { outline-offset: -3px; }
.log { flex: 1; overflow-y: auto; padding: 16px 14px 8px; display: flex; flex-direction: column; gap: 10px; background: var(--bg); overscroll-behavior: contain; }
.bubble { max-width: 88%; padding: 10px 13px; border-radius: 16px; word-wrap: break-word; overflow-wrap: anywhere; }
.bubble p { margin: 0; }
.bubble p + p { margin-top: 6px; }
.user { align-self: flex-end; background: var(--accent); color: var(--accent-ink); border-bottom-right-radius: 5px; white-space: pre-wrap; }
.bot { align-self: flex-start; background: var(--soft); border-bottom-left-radius: 5px; }
.bot.missing { background: var(--warn-bg); border: 1px solid var(--warn-line); }
.missing .verdict { color: var(--warn-ink); font-weight: 700; }
.error { align-self: flex-start; background: var(--danger-bg); color: var(--danger-ink); border-bottom-left-radius: 5px; font-weight: 550; }
.answer { font-weight: 550; }

.meta { display: flex; align-items: center; flex-wrap: wrap; gap: 6px 8px; margin-top: 8px; font-size: 12.5px; color: var(--muted); }
.chip {
  display: inline-flex; align-items: center; gap: 4px; max-width: 100%;
  padding: 2px 9px 2px 7px; border-radius: 999px;
  background: var(--accent); color: var(--accent-ink);
  font-size: 12.5px; font-weight: 700; white-space: nowrap; overflow: hidden; text-overflow: ellipsis;
}
.chip svg { width: 13px; height: 13px; flex: none; }
.chip-small { background: color-mix(in srgb, var(--accent) 14%, #fff); color: var(--ink); }

.see-also { display: flex; align-items: center; flex-wrap: wrap; gap: 6px 8px; margin-top: 8px; font-size: 12.5px; color: var(--muted); }
.see-also-label { font-weight: 650; }
.chips { display: flex; flex-wrap: wrap; gap: 6px; min-width: 0; margin: 0; padding: 0; list-style: none; }
.chips li { display: flex; max-width: 100%; }
.mistake { margin-top: 10px; padding: 8px 10px; border-radius: 10px; background: var(--warn-bg); border: 1px solid var(--warn-line); font-size: 13.5px; }
.mistake-title { display: flex; align-items: center; gap: 5px; color: var(--warn-ink); font-weight: 700; }
.mistake-title svg { width: 15px; height: 15px; flex: none; }
.bubble .mistake-text { margin: 2px 0 6px; }
.feedback { display: flex; align-items: center; flex-wrap: wrap; gap: 4px 6px; margin-top: 8px; font-size: 12.5px; color: var(--muted); }
.feedback-label { font-weight: 650; }
.thumb { min-width: 36px; min-height: 32px; border: 1.5px solid var(--line); border-radius: 9px; background: var(--bg); color: var(--ink); cursor: pointer; }
.thumb svg { display: block; width: 17px; height: 17px; margin: auto; }
.thumb:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
.thumb[aria-pressed="true"] { border-color: var(--accent); }
.thumb:disabled { cursor: default; opacity: .7; }

details.sources { margin-top: 8px; border-top: 1px solid rgb(0 0 0 / 8%); padding-top: 6px; }
details.sources > summary { cursor: pointer; font-size: 13px; font-weight: 650; color: var(--muted); padding: 4px 0; border-radius: 6px; }
.sources ol { list-style: none; margin: 4px 0 0; padding: 0; display: flex; flex-direction: column; gap: 8px; }
.sources li { background: var(--bg); border-radius: 10px; padding: 8px 10px; font-size: 13.5px; }
.passage-title { display: block; font-weight: 650; margin-bottom: 2px; }
.passage-body { white-space: pre-line; }
.sources .chip { margin-top: 6px; }

.typing { display: inline-flex; align-items: center; gap: 8px; color: var(--muted); }
.dots { display: inline-flex; gap: 3px; }
.dots i { width: 6px; height: 6px; border-radius: 50%; background: currentColor; animation: blink 1.2s infinite ease-in-out; }
.dots i:nth-child(2) { animation-delay: .15s; }
.dots i:nth-child(3) { animation-delay: .3s; }
@keyframes blink { 0%, 80%, 100% { opacity: .25; } 40% { opacity: 1; } }

.composer { display: flex; align-items: flex-end; gap: 8px; padding: 10px 12px; border-top: 1px solid var(--line); background: var(--bg); }
.composer textarea {
  flex: 1; min-width: 0; resize: none; max-height: 120px; min-height: 44px;
  padding: 11px 13px; border: 1.5px solid var(--line); border-radius: 12px; background: var(--soft); line-height: 1.35;
}
.composer textarea:focus-visible { border-color: var(--accent); outline: none; }
.send {
  flex: none; width: 44px; height: 44px; border: 0; border-radius: 12px;
  background: var(--accent); color: var(--accent-ink); cursor: pointer;
  display: inline-flex; align-items: center; justify-content: center;
}
.send:disabled { opacity: .6; cursor: progress; }
.send svg { width: 20px; height: 20px; }
.foot { margin: 0; padding: 0 14px 10px; font-size: 11.5px; color: var(--muted); background: var(--bg); }
.model-notice { margin-top: -6px; }
.model-notice a { color: inherit; text-decoration: underline; }

/* Phones: the panel takes the whole screen, the launcher hides behind it. */
@media (max-width: 600px) {
  .panel, .right .panel, .left .panel { inset: 0; width: 100%; height: 100%; border-radius: 0; }
  .head { padding-top: calc(14px + env(safe-area-inset-top)); }
  .foot { padding-bottom: calc(10px + env(safe-area-inset-bottom)); }
  .open .launcher { display: none; }
  .composer textarea { font-size: 16px; } /* below 16px iOS zooms the page on focus */
}
@media (prefers-reduced-motion: reduce) {
  .launcher, .dots i { transition: none; animation: none; }
}
`;

  const {
    el, icon, failure, tooLong, applyLimits, sendOnEnter, passageChip, citedChip, seeAlso, commonMistake, refusalText,
    TIMEOUT_MS, feedback,
  } = RulesqaCore;
  // Relative to the script, so a service mounted under a path prefix (/regles/widget.js) works as well.
  const api = RulesqaCore.client({
    url: (path) => new URL(path, scriptUrl).href,
    unreachable: "Impossible de joindre le service de règles. Vérifiez la connexion, puis réessayez.",
  });

  // ---------- widget skeleton ----------

  const host = document.createElement("rulesqa-widget");
  host.id = HOST_ID;
  const shadow = host.attachShadow({ mode: "open" });

  const launcher = el("button", {
    class: "launcher", type: "button", "aria-expanded": "false", "aria-controls": "panel",
    "aria-label": "Ouvrir l'assistant de règles",
  }, icon("chat"), el("span", { text: "Règles" }));

  const subtitle = el("p", { class: "subtitle", id: "subtitle" });
  const closeButton = el("button", { class: "close", type: "button", "aria-label": "Fermer" }, icon("close"));
  // A <div>, not a <header>: inside the host page it would be a second "banner" landmark.
  const header = el("div", { class: "head" },
    el("div", { class: "head-text" }, el("h2", { class: "title", id: "title", text: "Une question de règles ?" }), subtitle),
    closeButton);

  const gameSelect = el("select", { id: "game" },
    el("option", { value: "", text: "Reconnaître le jeu dans la question" }));
  const gameSearch = el("input", { type: "search", class: "game-search", placeholder: "Chercher un jeu",
    "aria-label": "Recherche par titre", "aria-controls": "game", autocomplete: "off", hidden: true });
  const picker = el("div", { class: "picker" }, el("label", { for: "game", text: "Jeu" }), gameSearch, gameSelect);
  picker.hidden = Boolean(config.game); // fixed by the site owner

  // Answers are announced as they arrive (a polite live region); focusable, so the keys scroll it.
  const log = el("div", { class: "log", role: "log", "aria-live": "polite", "aria-label": "Conversation", tabindex: "0" });

  const input = el("textarea", {
    id: "question", rows: "1", autocomplete: "off", enterkeyhint: "send", // maxlength: from GET /api/config
    placeholder: "Votre question sur les règles…",
  });
  const sendButton = el("button", { class: "send", type: "submit", "aria-label": "Envoyer la question" }, icon("send"));
  const form = el("form", { class: "composer", novalidate: true },
    el("label", { class: "visually-hidden", for: "question", text: "Votre question" }), input, sendButton);

  // The notice the served model's terms ask for (GET /api/config's model_notice: EmbeddingGemma), none for e5-small.
  const notice = el("p", { class: "foot model-notice", hidden: true });
  const panel = el("section", {
    class: "panel", id: "panel", role: "dialog", "aria-modal": "true", "aria-labelledby": "title",
    "aria-describedby": "subtitle",
  }, header, picker, log, form,
  el("p", { class: "foot", text: "Réponses citées du livret de règles, avec la page." }), notice);
  panel.hidden = true;

  const root = el("div", { class: `root ${config.position}` }, launcher, panel);
  RulesqaCore.addStyles(shadow, CSS); // no <style> element: nothing for a strict host's CSP to refuse
  shadow.append(root);
  RulesqaCore.keepFocus(panel); // Tab stays in the open panel; Escape closes it

  // ---------- games ----------

  const games = new Map(); // every game the picker has seen, by id
  let gamesLoaded = null; // the /api/games promise, started on first open
  let limits = null; // GET /api/config: the server's limits, once known
  // GET /api/config to ask again after the next answer: the server was starting (`ready: false`) and did not know
  // its model's notice yet. Once an answer came, the model is there.
  let configAgain = false;

  function currentGame() {
    return config.game || gameSelect.value || "";
  }

  function gameTitle(id) {
    return (games.get(id) || {}).title || "";
  }

  function updateSubtitle() {
    const title = gameTitle(currentGame());
    subtitle.textContent = title || (config.game ? "" : "Choisissez le jeu ou nommez-le");
  }

  const gamePicker = RulesqaCore.gamePicker({
    api, select: gameSelect, search: gameSearch, games, onChange: () => gameSelect.dispatchEvent(new Event("change")),
  });

  RulesqaCore.enableViewer({ url: (path) => new URL(path, scriptUrl).href,
    hasPdf: (id) => Boolean(games.get(id)?.pdf), host: shadow });

  function loadGames() {
    gamesLoaded = gamesLoaded || gamePicker.load("")
      .catch(() => {
        gamesLoaded = null; // retried on the next opening; questions still work with game detection
      })
      .finally(updateSubtitle);
    return gamesLoaded;
  }

  function forgetGame() {
    gameSelect.value = "";
    gamesLoaded = null;
    loadGames();
  }

  // Asked on first opening, like the games: a host page whose visitors never open the widget sends nothing.
  function loadLimits() {
    configAgain = false;
    api("api/config")
      .then((body) => {
        limits = body;
        applyLimits(input, limits);
        RulesqaCore.showNotice(notice, limits.model_notice);
        configAgain = limits.ready === false;
      })
      .catch(() => {
        // Retried on the next opening; meanwhile the server still checks the question.
      });
  }

  // ---------- conversation ----------

  function passageItem(passage) {
    const lines = String(passage.text).split("\n");
    const title = lines.length > 1 ? lines[0] : "";
    const body = lines.length > 1 ? lines.slice(1).join("\n") : passage.text;
    return el("li", {},
      title ? el("strong", { class: "passage-title", text: title }) : null,
      el("span", { class: "passage-body", text: body }),
      el("div", {}, passageChip(passage, "chip-small")));
  }

  function sources(data, label) {
    if (!data.passages.length) return null;
    return el("details", { class: "sources" },
      el("summary", { text: `${label} (${data.passages.length})` }),
      el("ol", {}, ...data.passages.map(passageItem)));
  }

  // The quoted text and its chip: the answer's, or the choice the player tapped.
  function quoted(data, text, passageId, citation) {
    const title = data.game ? data.game.title : "";
    return el("div", { class: "quoted" },
      el("p", { class: "answer", text }),
      el("div", { class: "meta" }, citedChip(data, passageId, citation),
        el("span", { text: data.game_detected && title ? `${title} (reconnu)` : title })));
  }

  function choicesFor(data, slot) {
    return RulesqaCore.choices(data, api, "api/choice", (choice) => {
      slot.replaceChildren(quoted(data, choice.text, choice.passage_id, choice.citation));
    });
  }

  function answerBubble(data) {
    if (data.found && data.answer) {
      const unsure = !data.sure && data.choices && data.choices.length;
      const slot = el("div", { class: "answer-slot" }, quoted(data, data.answer.text, data.answer.passage_id,
        data.answer.citation));
      return el("div", { class: "bubble bot" },
        unsure ? el("p", { class: "verdict", text: "Réponse probable :" }) : null,
        slot,
        unsure ? choicesFor(data, slot) : seeAlso(data),
        commonMistake(data),
        feedback(data, api, "api/feedback"),
        sources(data, "Passages du livret"));
    }
    const which = data.refusal && data.refusal.reason === "ambiguous_game";
    const slot = el("div", { class: "answer-slot" }); // where a tapped choice is quoted
    return el("div", { class: "bubble bot missing" },
      el("p", { class: "verdict", text: which ? "Quel jeu ?" : "Ce n'est pas dans les règles." }),
      el("p", { text: refusalText(data) }),
      choicesFor(data, slot),
      slot,
      feedback(data, api, "api/feedback"),
      RulesqaCore.gameChoices(data, (game) => {
        if (busy) return;
        gamePicker.choose(game);
        updateSubtitle();
        ask(data.question); // the same question, now about that game
      }),
      sources(data, "Passages les plus proches"));
  }

  function errorBubble(message) {
    return el("div", { class: "bubble error", role: "alert" }, el("p", { text: message }));
  }

  function addBubble(node) {
    log.append(node);
    log.scrollTop = log.scrollHeight;
    return node;
  }

  function typingBubble() {
    return el("div", { class: "bubble bot typing" },
      el("span", { class: "dots", "aria-hidden": "true" }, el("i"), el("i"), el("i")),
      el("span", { text: "Je cherche dans les règles…" }));
  }

  const greeting = el("p");

  // Shown at once on first opening; named after the game once /api/games has answered.
  function greet() {
    const title = gameTitle(currentGame());
    const about = title ? `les règles de ${title}` : "les règles de vos jeux";
    greeting.textContent = `Bonjour ! Une question sur ${about} ? Je réponds avec les mots du livret et sa page.`;
  }

  let busy = false;
  let lastTurn = null; // the previous question and its answer's game, sent with the next one (a follow-up)

  async function ask(question) {
    busy = true;
    sendButton.disabled = true;
    log.setAttribute("aria-busy", "true");
    addBubble(el("div", { class: "bubble user", text: question }));
    const typing = addBubble(typingBubble());
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), TIMEOUT_MS);
    let reply;
    try {
      // No k: the server's default number of passages.
      const data = await api("api/ask", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ question, game: currentGame() || null, client: "widget",
          previous: lastTurn || undefined }), // undefined: no key at all for a first question
        signal: controller.signal,
      });
      reply = answerBubble(data);
      lastTurn = RulesqaCore.turnOf(data);
      if (configAgain) loadLimits();
    } catch (err) {
      reply = errorBubble(failure(err));
      // The game picked is no longer served (404 unknown_game): unpicked, the list asked again.
      if (err.code === "unknown_game" && !config.game) forgetGame();
    } finally {
      clearTimeout(timer);
    }
    typing.replaceWith(reply);
    log.scrollTop = log.scrollHeight;
    log.removeAttribute("aria-busy");
    sendButton.disabled = false;
    busy = false;
  }

  function submit(event) {
    event.preventDefault();
    const question = input.value.trim();
    if (!question || busy) return; // an empty bubble helps nobody; the field keeps focus
    const problem = tooLong(question, limits);
    if (problem) {
      addBubble(errorBubble(problem)); // the question stays in the field, to be shortened
      return;
    }
    input.value = "";
    autoGrow();
    ask(question);
    input.focus();
  }

  function autoGrow() {
    input.style.height = "auto";
    input.style.height = `${Math.min(input.scrollHeight + 3, 120)}px`;
  }

  // ---------- open / close ----------

  let greeted = false;

  async function open() {
    panel.hidden = false;
    root.classList.add("open");
    launcher.setAttribute("aria-expanded", "true");
    launcher.setAttribute("aria-label", "Fermer l'assistant de règles");
    launcher.replaceChildren(icon("close"), el("span", { text: "Fermer" }));
    input.focus();
    if (!limits) loadLimits();
    if (!greeted) {
      greeted = true;
      greet();
      addBubble(el("div", { class: "bubble bot" }, greeting));
    }
    if (!gamesLoaded) {
      await loadGames();
      greet();
    }
  }

  function close() {
    panel.hidden = true;
    root.classList.remove("open");
    launcher.setAttribute("aria-expanded", "false");
    launcher.setAttribute("aria-label", "Ouvrir l'assistant de règles");
    launcher.replaceChildren(icon("chat"), el("span", { text: "Règles" }));
    launcher.focus(); // back where the user came from
  }

  launcher.addEventListener("click", () => (panel.hidden ? open() : close()));
  closeButton.addEventListener("click", close);
  root.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !panel.hidden) {
      event.stopPropagation();
      close();
    }
  });
  form.addEventListener("submit", submit);
  input.addEventListener("input", autoGrow);
  sendOnEnter(input, form);
  gameSelect.addEventListener("change", () => {
    updateSubtitle();
    lastTurn = null; // another game: a new conversation
    addBubble(el("div", { class: "bubble bot" },
      el("p", { text: gameSelect.value ? `Jeu choisi : ${gameTitle(gameSelect.value)}.` : "Je reconnaîtrai le jeu dans la question." })));
  });

  function mount() {
    document.body.append(host);
  }

  if (document.body) mount();
  else document.addEventListener("DOMContentLoaded", mount, { once: true });
})();
