// The game page (`/g/{id}`, an ES module): the board and its moves, the status, the offers,
// the clocks (clock.js), the players (players.js), the analysis (analysis.js), the move list
// and the arrows that step through the game's history (which a replay uses too: replay.js).
// The server is the authority on every rule: this page only offers the moves the server
// lists as legal (clickmove.js), and draws the board from the data it sends (board.js).
import { decorateTurn, forGame as analysisForGame, showTurn } from "./analysis.js";
import { svg as drawBoard } from "./board.js";
import { show as showClocks } from "./clock.js";
import { boardInput, cellByKey, cellKey, choose, label as labelCells, mark, unmark } from "./clickmove.js";
import { $, api, connection } from "./common.js";
import { rtl, t } from "./i18n.js";
import { learnNames, playerLabel, playerName, resultText } from "./names.js";
import { showPlayers, watchResult } from "./players.js";
import { TOP_LEVEL, watchDatabases, watchWarmup } from "./warmup.js";

// what this page knows of the game (read by the tests too: `import("/static/game.js")`)
export const ui = {
  id: null, key: null, seat: null, state: null, ws: null, selected: null,
  received: null,      // the latest full state received, maybe still waiting to be drawn
  view: null,          // number of turns shown while browsing history, null = live
  replay: null,        // a replayed record: {turns, positions, ...}
  animating: false, wsRetry: 0, busy: false,
  // states wait in one queue and are drawn in turn (a sowing animated before the next starts);
  // while any is waiting or animating (pending > 0) the board takes no click or key
  queue: Promise.resolve(), pending: 0,
  hint: null,          // the hinted move {move, v}, marked on the board while v is shown
  kept: null,          // a click made during a drawing, played once it ends (keepClick)
  keepWhy: false,      // the reason beside the board stays through drawings: "turn", "kept", "lost"
  myOffer: null,       // this page's offer standing: {kind, ply, cancelled} (noteOfferAnswer)
  share: false,        // this page has the friend's link to show (while the game runs)
};

export function parseHash() {
  const out = {};
  for (const part of location.hash.replace(/^#/, "").split("&")) {
    const [k, v] = part.split("=");
    if (k) out[k] = decodeURIComponent(v || "");
  }
  return out;
}

function myTurn() {
  const s = ui.state;
  if (!s || ui.animating || ui.pending > 0 || s.over || ui.key === null || ui.view !== null || ui.replay) return false;
  return ui.seat === 0 || ui.seat === s.to_move;
}

function legal() { return (ui.state && ui.state.legal) || []; }

function setError(text) {
  $("error").textContent = text || "";
}

// the connection is back (a request answered, the websocket open): a "cannot be reached"
// error on screen is no longer true
function connectionBack() {
  for (const id of ["error", "home-error", "replay-error"]) {
    const el = $(id);
    if (el && connection.text && el.textContent === connection.text) el.textContent = "";
  }
}
connection.onBack(connectionBack);

async function send(move) {
  if (ui.busy) return;
  ui.busy = true;
  setError("");
  $("hint-text").textContent = "";
  try {
    // the version the move was decided on: the server refuses it if the game moved on
    const update = await api("POST", `/api/games/${ui.id}/move`, { key: ui.key, move, v: ui.state.v });
    applyUpdate(update);
  } catch (e) {
    if (e.code === "stale_version") {
      setError(t("The game changed before your move arrived; it was not played."));
      applyUpdate(null);  // asks for what changed
    } else {
      setError(e.message);
    }
  } finally {
    ui.busy = false;
  }
}

// whether a move is still being drawn (a sowing animated, or states waiting to be drawn)
function drawing() { return ui.pending > 0 || ui.animating; }

// A click made while a move is drawn is kept when the latest state received leaves the
// clicker to move (after a bonus step, or the opponent's reply): it is played once the
// drawing ends. Otherwise, or when the game moved on meanwhile, it is refused, with the
// reason kept on screen.
function keepClick(cell) {
  const s = latest();  // the latest state received: the board once every drawing has ended
  const mover = s.to_move;
  if (s.over) {
    ui.keepWhy = "turn";
    refuse(t("the game ends with the move being drawn"), cell);
    return;
  }
  if (ui.seat !== 0 && ui.seat !== mover) {
    ui.keepWhy = "turn";
    const name = playerName(s.family, mover);
    refuse(s.mode === "ai" ? t("it is not your turn: {name} moves next (the computer)", { name })
      : t("it is not your turn: {name} moves next", { name }), cell);
    return;
  }
  const label = cell.dataset.hole ? t("hole {hole}", { hole: cell.dataset.hole }) : cellKey(cell);
  ui.kept = { key: cellKey(cell), v: s.v, label };
  ui.keepWhy = "kept";
  $("why").textContent = t("Your click on {label} is kept: it is played once the move is drawn.",
    { label: ui.kept.label });
}

// the drawing has ended: play the kept click, or say why it is not played
function playKept() {
  const kept = ui.kept;
  ui.kept = null;
  if (!kept || !ui.state) return;
  const cell = cellByKey($("board").querySelector("svg"), kept.key);
  if (ui.state.v !== kept.v || !myTurn() || !cell) {
    ui.keepWhy = "lost";
    refuse(t("your click on {label} was not played: the game moved on while it was drawn; "
      + "choose again", { label: kept.label }), cell);
    return;
  }
  playCell(cell);
}

// why the board takes no move now, for reasons outside the rules ("" when it does)
function notNowReason() {
  const s = ui.state;
  if (!s || ui.replay) return t("this is a replay: step through it with the arrows below the board");
  if (ui.pending > 0 || ui.animating) return t("wait: the last move is still being drawn");
  if (s.over) return t("the game is over");
  if (ui.key === null) return t("you are watching this game");
  if (ui.view !== null) {
    return t("you are looking at an earlier position: press End to go back to the game");
  }
  if (ui.busy) return t("wait: your last move is on its way");
  if (ui.seat !== 0 && ui.seat !== s.to_move) {
    const name = playerName(s.family, s.to_move);
    return s.mode === "ai" ? t("it is not your turn: {name} is to move (the computer is thinking)", { name })
      : t("it is not your turn: {name} is to move", { name });
  }
  return "";
}

// say why a click is refused, next to the board and on the clicked cell
function refuse(text, cell) {
  // a sentence's first letter is a capital, unless it is a move's notation ("a1 is
  // occupied"): notation is lower case everywhere
  const notation = /^[a-z]\d|^x[a-z]\d|^\d/.test(text || "");
  const lead = notation ? text.charAt(0) : (text || "").charAt(0).toUpperCase();
  $("why").textContent = text ? lead + text.slice(1) + "." : "";
  const svg = $("board").querySelector("svg");
  if (svg) for (const el of svg.querySelectorAll(".refused")) el.classList.remove("refused");
  if (text && cell) cell.classList.add("refused");
}

// the engine's reasons for moves that are not legal now (GET /api/games/{id}/explain)
async function explain(moves) {
  const q = moves.map((m) => `move=${encodeURIComponent(m)}`).join("&");
  const v = ui.state.v;
  const out = await api("GET", `/api/games/${ui.id}/explain?${q}`);
  if (!ui.state || ui.state.v !== v) return null;  // the position changed meanwhile
  return out.moves;
}

async function refuseByEngine(moves, cell, lead) {
  try {
    const said = await explain(moves);
    if (!said) return;
    const reasons = said.filter((r) => !r.legal).map((r) => r.reason);
    refuse((lead || "") + [...new Set(reasons)].join("; "), cell);
  } catch (e) {
    setError(e.message);
  }
}

// a click (or Enter) on a square, hole or store: play it, select it, or say why not
function playCell(cell) {
  refuse("");
  ui.kept = null;
  ui.keepWhy = false;  // the reason kept through drawings (keepClick): "turn", "kept", "lost"
  if (drawing() && ui.state && !ui.state.over && ui.key !== null && ui.view === null && !ui.replay) {
    keepClick(cell);
    return;
  }
  const why = notNowReason();
  if (why) { refuse(why, cell); return; }
  const s = ui.state;
  const me = playerName(s.family, s.to_move);
  const said = choose(s, ui.selected, cell);
  if (said.play) {
    ui.selected = null;
    send(said.play);
    return;
  }
  if ("select" in said) {
    ui.selected = said.select;
    decorate();
    return;
  }
  // not a legal move here: nothing is sent, and the engine says why
  ui.selected = null;
  if (s.family !== "sowing") decorate();
  if (said.refuse === "store") refuse(t("a store is not played: choose one of your holes"), cell);
  else if (said.refuse === "other-hole") {
    refuse(t("that hole is {other}'s: {me} sows from {me}'s own holes",
      { other: playerName(s.family, 3 - s.to_move), me }), cell);
  } else if (said.refuse === "stuck") {
    refuseByEngine(said.ask, cell, t("the piece on {square} cannot step: ", { square: said.square }));
  } else if (said.refuse === "empty") {
    refuse(t("{square} is empty: choose one of {me}'s pieces first, then the square it steps to",
      { square: said.square, me }), cell);
  } else refuseByEngine(said.ask, cell);  // a hole, a capture, a drop, a piece or a step
}

// keys on the board (an ARIA grid, clickmove.js): arrows move the focus, Enter or Space
// plays the cell
let input = null;

// the squares or hole of the hinted move, marked on the board
function markHint(svg) {
  const h = ui.hint;
  if (!h || !ui.state || h.v !== ui.state.v || ui.view !== null) return;
  if (ui.state.family === "sowing") {
    const el = svg.querySelector(`[data-player="${ui.state.to_move}"][data-hole="${h.move}"]`);
    if (el) el.classList.add("hinted");
    return;
  }
  for (const sq of h.move.match(/[a-z]\d+/g) || []) {
    const el = svg.querySelector(`[data-square="${sq}"]`);
    if (el) el.classList.add("hinted");
  }
}

function decorate() {
  // mark what may be clicked now; the server's legal list is the only source
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  unmark(svg);
  markHint(svg);
  if (myTurn()) mark(svg, ui.state, ui.selected);
  labelCells(svg, { sel: t("chosen"), target: t("a target of the chosen piece"),
    capture: t("can be captured"), lit: t("playable"), hinted: t("the hint") });
  if (input) input.roving();
}

function statusText(s) {
  if (s.over && !drawing()) return t("Game over");
  if (ui.replay) return "";
  // the status and the board agree: nobody's move is announced before the board shows it
  if (drawing()) return t("Drawing the last move...");
  const who = playerName(s.family, s.to_move);
  if (ui.key === null) return t("{who} to move (you are watching)", { who });
  if (myTurn()) {
    const moves = legal();
    if (moves.length && moves.every((m) => m.startsWith("x"))) {
      return t("{who}: you formed a three, click a {other} piece to capture",
        { who, other: playerName(s.family, 3 - s.to_move) });
    }
    return t("{who} to move: your move", { who });
  }
  if (s.mode === "ai") return t("{who} to move: the computer is thinking", { who });
  return t("{who} to move: waiting for your opponent", { who });
}

// the move list: one numbered item per turn, so that its numbers count what the status's
// "after turn 5 of 24" counts
function renderMoves(turns, current) {
  const list = $("moves");
  list.textContent = "";
  turns.forEach((t, i) => {
    const li = document.createElement("li");
    li.className = `by${t.player}`;
    li.value = i + 1;
    const num = document.createElement("span");
    num.className = "num";
    num.setAttribute("aria-hidden", "true");  // the list's own numbering says it to readers
    num.textContent = `${i + 1}.`;
    li.appendChild(num);
    list.appendChild(li);
    const span = document.createElement("span");
    span.className = "turn" + (i + 1 === current ? " current" : "");
    span.textContent = t.text;
    span.dataset.index = String(i + 1);
    span.title = `${playerName(ui.state ? ui.state.family : "alignment", t.player)}`;
    span.addEventListener("click", () => goTo(i + 1));
    decorateTurn(span, i + 1);
    li.appendChild(span);
  });
  const cur = list.querySelector(".current");
  if (cur && cur.scrollIntoView) cur.scrollIntoView({ block: "nearest" });
  showTurn(current);
}

// the move list again, as it is on screen (an analysis came: its marks)
export function redrawMoves() {
  if (ui.replay) renderMoves(ui.replay.turns, ui.view === null ? ui.replay.turns.length : ui.view);
  else if (ui.state && ui.state.turns) {
    renderMoves(ui.state.turns, ui.view === null ? ui.state.turns.length : ui.view);
  }
}

// The board's picture, drawn here from the board data (board.js: the same markup as the
// server's render.svg); `view` is a state, or a position with the game's name and players
// added. Remembered per object: a state is drawn once however often it is compared or shown.
const DRAWN = new WeakMap();
function boardSvg(view) {
  let text = DRAWN.get(view);
  if (text === undefined) {
    text = drawBoard(view);
    DRAWN.set(view, text);
  }
  return text;
}

// where the board is in the game's turns, counted as the move list numbers them
function viewingText(index, total, replay) {
  if (replay) {
    return index === 0 ? t("Replay: the start, turn 0 of {total}", { total })
      : t("Replay: after turn {index} of {total}", { index, total });
  }
  return index === 0 ? t("Viewing the start, turn 0 of {total}", { total })
    : t("Viewing after turn {index} of {total}", { index, total });
}

function turnCount() {
  if (ui.replay) return ui.replay.turns.length;
  return ui.state && ui.state.turns ? ui.state.turns.length : 0;
}

export async function goTo(index) {
  const total = turnCount();
  index = Math.max(0, Math.min(total, index));
  ui.selected = null;
  if (ui.replay) {
    // the server draws one position per request: fetch the others when stepped to
    const replay = ui.replay;
    ui.view = index;
    renderMoves(replay.turns, index);
    $("status").textContent = viewingText(index, total, true);
    let pos = replay.drawn[index];
    if (!pos) {
      try {
        pos = (await api("POST", "/api/replay", { record: replay.record, turn: index })).position;
      } catch (e) {
        setError(e.message);
        return;
      }
      replay.drawn[index] = pos;
    }
    if (ui.replay === replay && ui.view === index) {
      $("board").innerHTML = boardSvg({ game: replay.game, players: replay.players, ...pos });
    }
    return;
  }
  if (index === total) {
    ui.view = null;
    render();
    return;
  }
  ui.view = index;
  let ply = 0;
  for (let i = 0; i < index; i++) ply += ui.state.turns[i].n;
  try {
    const pos = await api("GET", `/api/games/${ui.id}/position?ply=${ply}`);
    if (ui.view !== index) return;
    $("board").innerHTML = boardSvg({ game: ui.state.game, players: ui.state.players, ...pos });
    $("board").classList.add("viewing");
    renderMoves(ui.state.turns, index);
    $("status").textContent = viewingText(index, total);
    decorate();
  } catch (e) {
    setError(e.message);
  }
}

function step(delta) {
  const total = turnCount();
  const now = ui.view === null ? total : ui.view;
  goTo(now + delta);
}

function render() {
  const s = ui.state;
  if (!s) return;
  if (s.mode === "ai" && !s.over && s.to_move === s.ai_seat) watchWarmup();
  if (s.mode === "ai" && s.ai_level === TOP_LEVEL) watchDatabases(s.rules);
  $("board").classList.remove("viewing");
  if (!ui.animating) input.draw(boardSvg(s));  // a focused cell gets the focus back
  $("title").textContent = `${s.game}`;
  // examples of the notation of this game's moves
  $("move-input").placeholder = s.family === "sowing" ? t("3, or a turn: 3-6")
    : "c3, c3-c4, xe5";  // moves, never translated
  $("move-input").title = s.family === "sowing"
    ? t("a hole number such as 3, or a turn of several steps such as 3-6")
    : t("a drop such as c3, a step such as c3-c4, a capture such as xe5, or a turn such as c3-c4xe5");
  $("rules-line").innerHTML = "";
  const code = document.createElement("code");
  code.textContent = s.rules;
  const link = document.createElement("a");
  link.href = `/rules/${s.rules.split("(")[0]}`;
  link.textContent = t("rules");
  code.dir = "ltr";
  $("rules-line").append(t("Rules:"), " ", code, " ", link,
    s.mode === "ai" ? ` - ${t("against the computer, level {level}", { level: s.ai_level })}` : "",
    s.mode === "friend" ? ` - ${t("between two people by link")}` : "",
    s.mode === "hotseat" ? ` - ${t("hot-seat")}` : "");
  if (ui.key === null) $("you").textContent = t("You are watching.");
  else if (ui.seat === 0) $("you").textContent = t("Both players share this screen.");
  else $("you").textContent = t("You play {label}.", { label: playerLabel(s.family, ui.seat) });
  $("status").textContent = statusText(s);
  const res = $("result");
  if (s.over) {
    res.hidden = false;
    res.textContent = resultText(s.family, s.winner, s.reason, s.result, s.aborted, s.score, s.misere,
      s.early);
  } else {
    res.hidden = true;
  }
  renderMoves(s.turns || [], s.turns ? s.turns.length : 0);
  const player = ui.key !== null;
  const running = !s.over;
  $("typed").hidden = !player || !running;
  $("undo").hidden = !player || s.mode === "friend";
  $("hint").hidden = !player || s.mode === "friend";
  $("takeback").hidden = !player || s.mode !== "friend";
  $("draw").hidden = !player || s.mode === "ai";
  $("resign").hidden = !player;
  for (const id of ["undo", "hint", "takeback", "draw", "resign"]) $(id).disabled = !running;
  $("download").href = `/api/games/${s.id}/record`;
  renderOffer(s);
  renderAfter(s);
  analysisForGame(s);
  $("share").hidden = !ui.share || s.over;  // the friend's link is no use once the game is over
  refreshInput(s);
  // for tests and assistive tools: which version of the game is on screen
  document.body.dataset.v = String(s.v);
  document.body.dataset.ply = String(s.ply);
}

// what depends on whether the board takes input now (myTurn): the status line, the pass and
// hint buttons and the marks on the board
function refreshInput(s) {
  $("status").textContent = statusText(s);
  $("pass").hidden = !(myTurn() && legal().includes("pass"));
  $("hint").disabled = s.over || !myTurn();
  decorate();
  if (drawing()) return;
  if (ui.kept) playKept();
  else if (ui.keepWhy === "turn" && myTurn()) { ui.keepWhy = false; refuse(""); }  // no longer true
}

// An offer this page made that is gone from the state was answered: accepted when its effect
// is there (a draw agreed, turns taken back), else declined; the offerer is told which.
function noteOfferAnswer(s) {
  const offers = s.offers || {};
  const had = ui.myOffer;
  ui.myOffer = null;
  if (ui.key === null || !ui.seat) return;
  for (const kind of ["draw", "takeback"]) {
    if (offers[kind] === ui.seat) ui.myOffer = { kind, ply: s.ply, cancelled: false };
  }
  if (ui.myOffer) { $("offer-answer").textContent = ""; return; }
  if (!had || had.cancelled) return;
  const accepted = had.kind === "draw" ? s.over && s.reason === "agreement" : s.ply < had.ply;
  const said = {
    draw: [t("Your opponent declined your draw offer."), t("Your opponent accepted your draw offer.")],
    takeback: [t("Your opponent declined your takeback offer."),
      t("Your opponent accepted your takeback offer.")],
  };
  $("offer-answer").textContent = said[had.kind][accepted ? 1 : 0];
}

// copy a link to the clipboard (or, where the page may not write it, select it for the
// person to copy) and say so on the button
async function copyLink(input, button) {
  let done = false;
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(input.value);
      done = true;
    }
  } catch (e) { done = false; }
  if (!done) {
    input.focus();
    input.select();
    try { done = document.execCommand("copy"); } catch (e) { done = false; }
  }
  button.textContent = done ? t("Copied") : t("Select and copy");
  setTimeout(() => { button.textContent = t("Copy"); }, 2000);
}

function renderOffer(s) {
  noteOfferAnswer(s);
  const box = $("offer");
  const offers = s.offers || {};
  const kind = offers.draw ? "draw" : offers.takeback ? "takeback" : null;
  if (!kind || s.over || ui.key === null || ui.seat === 0) { box.hidden = true; return; }
  box.hidden = false;
  box.dataset.kind = kind;
  const mine = offers[kind] === ui.seat;
  const said = {
    draw: [t("Your opponent offers a draw."), t("You offered a draw.")],
    takeback: [t("Your opponent offers a takeback."), t("You offered a takeback.")],
  };
  $("offer-text").textContent = said[kind][mine ? 1 : 0];
  $("offer-accept").hidden = mine;
  $("offer-decline").hidden = mine;
  $("offer-cancel").hidden = !mine;
}

// after the game: a rematch (seats swapped), a new game, the record and its replay
function renderAfter(s) {
  const box = $("after");
  box.hidden = !s.over || !!ui.replay;
  if (box.hidden) return;
  $("replay-link").href = `/replay#game=${s.id}`;
  $("record-link").href = `/api/games/${s.id}/record`;
  const text = $("rematch-text");
  text.textContent = "";
  const offers = s.offers || {};
  const button = $("rematch");
  button.hidden = ui.key === null;
  button.textContent = t("Rematch, colours swapped");
  if (!s.rematch) return;
  const by = offers.rematch;
  if (ui.key === null) {
    const a = document.createElement("a");
    a.href = `/g/${s.rematch}`;
    a.textContent = t("watch it");
    text.append(t("A rematch is being played:"), " ", a);
  } else if (ui.seat === 0 || by === ui.seat) {
    button.textContent = t("Go to the rematch");
  } else {
    text.textContent = t("Your opponent offers a rematch, colours swapped.");
    button.textContent = t("Play the rematch");
  }
}

async function rematch() {
  setError("");
  try {
    const r = await api("POST", `/api/games/${ui.id}/rematch`, { key: ui.key });
    // the same secret opens the other seat in the rematch
    localStorage.setItem(`nugar:seat:${r.id}`, JSON.stringify({ key: ui.key, seat: r.seat }));
    const share = JSON.parse(localStorage.getItem(`nugar:share:${ui.id}`) || "null");
    const m = share && share.seat.match(/#seat=([12])&key=(.*)$/);
    if (m) {
      const seat = share.seat.replace(`/g/${ui.id}#seat=${m[1]}`, `/g/${r.id}#seat=${3 - Number(m[1])}`);
      localStorage.setItem(`nugar:share:${r.id}`, JSON.stringify({
        seat, watch: share.watch.replace(`/g/${ui.id}`, `/g/${r.id}`) }));
    }
    location.assign(`/g/${r.id}`);
  } catch (e) {
    setError(e.message);
  }
}

// how many times slower than usual sowings are drawn: 1, unless a test set nugarSlowMotion
function slowMotion() { return Number(window.nugarSlowMotion) || 1; }

// The sowings between two states, drawn seed by seed on the old picture before the new one
// is shown: the server sends what each of the last moves sowed (`sowings`: the cells its
// seeds fell into, the holes then taken, every cell's seeds after it), so the page sows
// nothing itself. Moves the state does not describe are not animated.
async function animateSowing(prev, next) {
  if (prev.family !== "sowing" || next.ply <= prev.ply || next.ply - prev.ply > 12) return;
  if (window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  const byPly = new Map((next.sowings || []).map((s) => [s.ply, s]));
  const sowings = [];
  for (let ply = prev.ply; ply < next.ply; ply++) {
    if (!byPly.has(ply)) return;
    sowings.push(byPly.get(ply));
  }
  ui.animating = true;
  document.body.dataset.animating = String(next.ply);  // for tests: which move is drawn
  decorate();  // nothing is clickable while the seeds move
  try {
    const b = prev.board;
    let counts = [...b.holes[0], b.stores[0], ...b.holes[1], b.stores[1]];
    const svgEl = $("board").querySelector("svg");
    const cellEl = (c) => svgEl && svgEl.querySelector(`[data-cell="${c}"]`);
    const show = (c) => {
      const el = cellEl(c);
      const text = el && el.querySelector(".count");
      if (text) text.textContent = String(counts[c]);
      return el;
    };
    for (const sown of sowings) {
      const hole = sown.player === 1 ? sown.start + 1 : sown.start - b.pits;
      $("status").textContent = t("{name} sows hole {hole}...",
        { name: playerName(prev.family, sown.player), hole: String(hole) });
      $("pass").hidden = true;
      counts[sown.start] = 0;
      show(sown.start);
      const delay = Math.max(25, Math.min(90, 900 / Math.max(1, sown.path.length))) * slowMotion();
      for (const c of sown.path) {
        await new Promise((r) => setTimeout(r, delay));
        counts[c] += 1;
        const el = show(c);
        if (el) el.classList.add("sown");
      }
      // a capture (or the game's end) takes seeds into a store: the cells as they are after
      for (const c of sown.taken) {
        const el = cellEl(c);
        if (el) el.classList.add("taken");
      }
      counts = [...sown.after];
      for (let c = 0; c < counts.length; c++) show(c);
    }
    await new Promise((r) => setTimeout(r, 150 * slowMotion()));
  } finally {
    ui.animating = false;
    delete document.body.dataset.animating;
  }
}

// The server answers a change, and sends each event, as an update: what changed since
// version `base` (status, board, legal moves; the moves from `moves_from` and the turns from
// `turns_from`), never the whole history. A full state is the update from version 0. This
// merges `u` into the full state `prev` (the latest received: latest()); `undefined` when
// versions between them were missed (then the page asks for them), `prev` when `u` is not
// newer.
function mergeUpdate(prev, u) {
  if (!u.base) return u;
  if (!prev || !prev.moves || prev.v < u.base) return undefined;
  if (u.v <= prev.v) return prev;
  const next = { ...prev, ...u, base: 0 };
  next.moves = prev.moves.slice(0, u.moves_from).concat(u.new_moves);
  next.turns = prev.turns.slice(0, u.turns_from).concat(u.new_turns);
  for (const k of ["moves_from", "new_moves", "turns_from", "new_turns"]) delete next[k];
  return next;
}

// The latest full state received: the one drawn (ui.state) or a newer one waiting in the
// drawing queue (applyState). Updates merge against it, never only against the one drawn: an
// update arriving while an earlier state still waits to be drawn builds on that earlier one.
function latest() {
  const r = ui.received;
  return r && r.id === ui.id && (!ui.state || r.v >= ui.state.v) ? r : ui.state;
}

// merge the update `u` (null: none, only ask for what changed since the latest version) and
// queue the merged full state for drawing
async function applyUpdate(u) {
  let next = u ? mergeUpdate(latest(), u) : undefined;
  if (next === undefined) {
    // missed versions: ask for what changed since the latest one received (or everything)
    const base = latest();
    const since = base && base.moves ? `?since=${base.v}` : "";
    try {
      next = mergeUpdate(latest(), await api("GET", `/api/games/${ui.id}${since}`));
    } catch (e) {
      setError(e.message);
      return;
    }
    if (!next) return;
  }
  await applyState(next);
}

// States are drawn one after the other: one arriving while a sowing is animated (the
// computer's reply to the player's own move) waits for it, and the board takes no input
// until the last one is drawn (ui.pending counts those waiting or being drawn).
function applyState(state) {
  if (!state) return Promise.resolve();
  const r = latest();
  if (!r || r.id !== state.id || state.v >= r.v) ui.received = state;
  ui.pending += 1;
  document.body.dataset.queued = String(ui.pending);
  const run = ui.queue.then(() => showState(state)).catch((e) => setError(e.message));
  ui.queue = run;
  return run;
}

async function showState(state) {
  const prev = ui.state;
  const fresh = !(prev && (state.v < prev.v || (state.v === prev.v && boardSvg(prev) === boardSvg(state))));
  try {
    if (fresh) {
      ui.state = state;
      showClocks(state, ui.key === null ? null : ui.seat);
      learnNames(state);
      ui.selected = null;
      if (ui.keepWhy) refuse($("why").textContent.replace(/\.$/, ""));  // marks go, the reason stays
      else refuse("");
      if (prev && ui.view === null && !ui.replay) await animateSowing(prev, state);
    }
  } finally {
    ui.pending -= 1;
    document.body.dataset.queued = String(ui.pending);
  }
  if (!fresh) {
    // nothing new to draw, but the board may take input again now that the queue is empty
    if (ui.pending === 0 && ui.view === null && !ui.replay && ui.state) refreshInput(ui.state);
    return;
  }
  if (ui.view === null) render();
  else {
    renderMoves(state.turns || [], ui.view);
    $("status").textContent = viewingText(ui.view, turnCount());
  }
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const base = latest();
  const since = base ? base.v : 0;
  const ws = new WebSocket(`${proto}://${location.host}/ws/games/${ui.id}?since=${since}`);
  ui.ws = ws;
  ws.onopen = () => {
    ui.wsRetry = 0;
    $("conn").textContent = t("live");
    // name this page's seat on the socket (as POST .../open does): the server marks it
    // opened, and again after a reconnect; the key goes in a message, never in the address
    if (ui.key !== null) ws.send(JSON.stringify({ type: "open", key: ui.key }));
    connection.restored();
  };
  ws.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch (e) { return; }
    if (msg.type === "error") { setError(msg.detail); return; }
    if (msg.state) applyState(msg.state);
    else if (msg.update) applyUpdate(msg.update);
  };
  ws.onclose = () => {
    $("conn").textContent = t("reconnecting...");
    if (ui.ws !== ws) return;
    ui.wsRetry = Math.min(ui.wsRetry + 1, 6);
    setTimeout(connect, 300 * ui.wsRetry);
  };
}

async function action(path, body) {
  setError("");
  try {
    applyUpdate(await api("POST", `/api/games/${ui.id}/${path}`, { key: ui.key, ...(body || {}) }));
  } catch (e) {
    setError(e.message);
  }
}

export async function showGame(id) {
  $("play").hidden = false;
  ui.id = id;
  watchResult(id);
  input = boardInput($("board"), playCell);
  const h = parseHash();
  const stored = JSON.parse(localStorage.getItem(`nugar:seat:${id}`) || "null");
  if (h.key) {
    // the secret leaves the address bar (history, screenshots, a copied address) at once
    history.replaceState(null, "", location.pathname + location.search);
  }
  if (h.key && stored && stored.key && stored.key !== h.key) {
    // a link must never silently replace the seat this browser already holds in this game
    ui.key = stored.key;
    ui.seat = stored.seat;
    $("error").textContent = t("This browser already holds a seat in this game; "
      + "the key in the link was ignored.");
  } else if (h.key) {
    ui.key = h.key;
    ui.seat = Number(h.seat || 0);
    localStorage.setItem(`nugar:seat:${id}`, JSON.stringify({ key: ui.key, seat: ui.seat }));
  } else if (stored && h.watch === undefined) {
    ui.key = stored.key;
    ui.seat = stored.seat;
  }
  const share = JSON.parse(localStorage.getItem(`nugar:share:${id}`) || "null");
  if (share && ui.key !== null) {
    ui.share = true;  // shown while the game runs (render)
    $("share-seat").value = share.seat;
    $("share-watch").value = share.watch;
  }
  for (const [button, input] of [["copy-seat", "share-seat"], ["copy-watch", "share-watch"]]) {
    $(button).addEventListener("click", () => copyLink($(input), $(button)));
  }
  try {
    let opened = null;
    if (ui.key !== null) {
      // say that this seat's page is open (a timed game by link waits for both players
      // before its timers run); the answer is the state. A refusal (a key this game does
      // not know) leaves the plain state to read.
      opened = await api("POST", `/api/games/${id}/open`, { key: ui.key }).catch(() => null);
    }
    await applyState(opened || await api("GET", `/api/games/${id}`));
    // the seat is open (a signed-in player now holds it): the players' names (players.js)
    showPlayers(id);
  } catch (e) {
    if (e.code === "unknown_game") {
      // gone (or never there): say so instead of a board and buttons for nothing
      $("play").hidden = true;
      $("missing").hidden = false;
      $("missing-text").textContent = e.message;
      return;
    }
    $("status").textContent = e.message;
    return;
  }
  connect();
  navigate();
  $("rematch").addEventListener("click", rematch);
  $("typed").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("move-input").value.trim();
    if (!text) return;
    $("move-input").value = "";
    send(text);
  });
  $("pass").addEventListener("click", () => send("pass"));
  // a typed move being corrected: the refusal of the last one goes
  $("move-input").addEventListener("input", () => { if (!connection.lost) setError(""); });
  $("undo").addEventListener("click", () => action("undo"));
  $("resign").addEventListener("click", () => {
    if (confirm(t("Resign this game?"))) action("resign");
  });
  $("draw").addEventListener("click", () => {
    $("offer-answer").textContent = "";
    action("offers/draw", { action: "offer" });
  });
  $("takeback").addEventListener("click", () => action("offers/takeback", { action: "offer" }));
  $("offer-accept").addEventListener("click", () => action(`offers/${$("offer").dataset.kind}`, { action: "accept" }));
  $("offer-decline").addEventListener("click", () => action(`offers/${$("offer").dataset.kind}`, { action: "decline" }));
  $("offer-cancel").addEventListener("click", () => {
    if (ui.myOffer) ui.myOffer.cancelled = true;  // withdrawn, not answered
    action(`offers/${$("offer").dataset.kind}`, { action: "cancel" });
  });
  $("hint").addEventListener("click", async () => {
    $("hint-text").textContent = t("thinking...");
    try {
      const h = await api("POST", `/api/games/${ui.id}/hint`, { key: ui.key });
      $("hint-text").textContent = t("Hint: {move}", { move: h.move });
      ui.hint = { move: h.move, v: ui.state.v };  // marked on the board too
      decorate();
    } catch (e) {
      $("hint-text").textContent = "";
      setError(e.message);
    }
  });
}

// ---------------------------------------------------------------- stepping through the turns
// the arrows below the board and the keys (Left, Right, Home, End) outside the board's grid
let navigating = false;
export function navigate() {
  if (navigating) return;
  navigating = true;
  document.addEventListener("keydown", (ev) => {
    if ($("play").hidden) return;
    const tag = (ev.target && ev.target.tagName) || "";
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
    if (ev.target.closest && ev.target.closest('#board [role="gridcell"]')) return;  // the grid's keys
    // in a right-to-left page the turns run from right to left, as the buttons do
    const arrows = rtl ? { ArrowRight: -1, ArrowLeft: 1 } : { ArrowLeft: -1, ArrowRight: 1 };
    if (ev.key in arrows) { step(arrows[ev.key]); ev.preventDefault(); }
    else if (ev.key === "Home") { goTo(0); ev.preventDefault(); }
    else if (ev.key === "End") { goTo(turnCount()); ev.preventDefault(); }
  });
  // the replay buttons: in a right-to-left page the first turn is on the right, so each arrow
  // points the other way; the glyphs sit in a left-to-right span (no bidi mirroring, which
  // fonts and browsers do not all apply) and are set here for the page's direction
  if (rtl) {
    for (const [id, glyph] of [["nav-first", "\u00bb"], ["nav-prev", "\u203a"],
      ["nav-next", "\u2039"], ["nav-last", "\u00ab"]]) {
      $(id).querySelector(".glyph").textContent = glyph;
    }
  }
  $("nav-first").addEventListener("click", () => goTo(0));
  $("nav-prev").addEventListener("click", () => step(-1));
  $("nav-next").addEventListener("click", () => step(1));
  $("nav-last").addEventListener("click", () => goTo(turnCount()));
}
