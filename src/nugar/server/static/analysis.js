// The computer analysis of a finished game or of a replayed record: the "Analyse" button,
// its progress, the evaluation graph (click a point to see that position), the marks in the
// move list and, for the turn on screen, the best turn and the engine's line.
// API: POST/GET /api/games/{id}/analysis, POST /api/replay/analysis and
// GET /api/replay/analysis/{id}. An ES module: the game page (game.js) and a replay
// (replay.js) call its hooks (forGame, forReplay, decorateTurn, showTurn); it steps the game
// page to a turn (goTo) and draws the move list again (redrawMoves).
import { $ as byId, api } from "./common.js";
import { goTo, redrawMoves } from "./game.js";
import { t, tn } from "./i18n.js";
import { playerName } from "./names.js";

const SVG = "http://www.w3.org/2000/svg";
const SYMBOL = { inaccuracy: "?!", mistake: "?", blunder: "??" };
// the marks' names in the page's language (the API's `mark` stays a code)
const MARK = { inaccuracy: t("inaccuracy"), mistake: t("mistake"), blunder: t("blunder") };
const W = 320;
const H = 120;
const A = { key: null, source: null, data: null, timer: null, turn: null, family: null };

// the tablebases' entry of a position, in words (every string of it here, for the
// translations): "tablebase: South wins in 13 turns (next capture in 3)"
function tablebaseText(tb) {
  if (!tb) return "";
  if (tb.value === 0) return t("tablebase: draw");
  const winner = playerName(A.family, tb.value > 0 ? tb.to_move : 3 - tb.to_move);
  const turns = (n) => tn("{n} turn", "{n} turns", n, { n });
  return t("tablebase: {winner} wins in {turns} (next capture in {capture})",
    { winner, turns: turns(tb.plies), capture: turns(tb.to_capture) });
}

function plyAt(turn) {
  return A.data && A.data.plies ? A.data.plies[turn] : undefined;
}

function reset(key, source, family) {
  if (A.timer !== null) clearTimeout(A.timer);
  Object.assign(A, { key, source, data: null, timer: null, family });
  byId("analysis").hidden = false;
  byId("analyse").hidden = false;
  byId("analyse").disabled = false;
  byId("analysis-progress").hidden = true;
  byId("analysis-status").textContent = "";
  byId("analysis-graph").textContent = "";
  byId("analysis-note").textContent = "";
}

// what the server said: progress, or the analysed turns drawn
function show(data) {
  A.data = data;
  const bar = byId("analysis-progress");
  byId("analyse").hidden = !!data.started;
  if (data.error) {
    byId("analysis-status").textContent = data.error;
  } else if (data.done) {
    bar.hidden = true;
    const marks = data.plies.filter((p) => p.mark).length;
    byId("analysis-status").textContent = tn("{n} marked turn; evaluations for the first player",
      "{n} marked turns; evaluations for the first player", marks, { n: marks });
  } else if (data.started) {
    bar.hidden = false;
    bar.value = data.progress;
    byId("analysis-status").textContent = t("analysing: {percent} %",
      { percent: Math.round(100 * data.progress) });
  }
  drawGraph();
  redrawMoves();
  explain();
}

function path() {
  return A.source.kind === "game" ? `/api/games/${A.source.id}/analysis`
    : `/api/replay/analysis/${A.source.id}`;
}

async function poll(key) {
  A.timer = null;
  if (A.key !== key || !A.source.id) return;
  try {
    const data = await api("GET", path());
    if (A.key !== key) return;
    show(data);
    if (data.started && !data.done && !data.error) A.timer = setTimeout(() => poll(key), 400);
  } catch (e) {
    if (A.key === key) byId("analysis-status").textContent = e.message;
  }
}

async function start() {
  const key = A.key;
  byId("analyse").disabled = true;
  byId("analysis-status").textContent = t("starting the analysis...");
  try {
    const data = A.source.kind === "game"
      ? await api("POST", `/api/games/${A.source.id}/analysis`)
      : await api("POST", "/api/replay/analysis", { record: A.source.record });
    if (A.key !== key) return;
    A.source.id = data.id;
    show(data);
    if (!data.done) A.timer = setTimeout(() => poll(key), 400);
  } catch (e) {
    byId("analyse").disabled = false;
    byId("analysis-status").textContent = e.message;
  }
}

// an evaluation squashed into -1..1 (won games and forced results reach the edges)
function squash(v) {
  const k = A.family === "sowing" ? 6 : 2;
  return v / (Math.abs(v) + k);
}

function drawGraph() {
  const box = byId("analysis-graph");
  box.textContent = "";
  const plies = (A.data && A.data.plies) || [];
  if (plies.length < 1) return;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("class", "eval-graph");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", t("evaluation after each turn, the first player's above the line"));
  const n = Math.max(1, plies.length - 1);
  const x = (i) => 6 + (i * (W - 12)) / n;
  const y = (v) => H / 2 - squash(v) * (H / 2 - 6);
  const add = (name, attrs) => {
    const el = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    svg.appendChild(el);
    return el;
  };
  add("line", { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: "axis" });
  if (A.turn !== null && A.turn < plies.length) {
    add("line", { x1: x(A.turn), y1: 0, x2: x(A.turn), y2: H, class: "now" });
  }
  add("polyline", { points: plies.map((p, i) => `${x(i)},${y(p.eval)}`).join(" "),
    class: "evals" });
  plies.forEach((p, i) => {
    const dot = add("circle", { cx: x(i), cy: y(p.eval), r: p.mark ? 4.5 : 3,
      class: "point" + (p.mark ? ` mark-${p.mark}` : "") + (i === A.turn ? " current" : ""),
      "data-ply": i, tabindex: -1 });
    const title = document.createElementNS(SVG, "title");
    const value = `${p.eval > 0 ? "+" : ""}${p.eval}`;
    const at = i === 0 ? t("start {eval}", { eval: value })
      : t("turn {turn}: {move} {eval}", { turn: i, move: p.move, eval: value });
    title.textContent = (p.mark ? t("{at} ({mark}; best {best})", { at, mark: MARK[p.mark], best: p.best })
      : at) + (p.tablebase ? `; ${tablebaseText(p.tablebase)}` : "");
    dot.appendChild(title);
    dot.addEventListener("click", () => goTo(i));
  });
  box.appendChild(svg);
}

// the turn on screen: its evaluation, its mark with the best turn, and the engine's line
function explain() {
  const note = byId("analysis-note");
  note.textContent = "";
  const p = A.turn === null ? undefined : plyAt(A.turn);
  if (!p) return;
  const parts = [];
  const value = `${p.eval > 0 ? "+" : ""}${p.eval}`;  // an evaluation: notation, as moves
  const ev = p.exact ? t("{eval} (exact)", { eval: value }) : value;
  parts.push(A.turn === 0 ? t("Start: {eval}.", { eval: ev })
    : t("After {move}: {eval}.", { move: p.move, eval: ev }));
  if (p.tablebase) parts.push(`${tablebaseText(p.tablebase)}.`);
  if (p.mark) {
    const said = { move: `${p.move}${SYMBOL[p.mark]}`, loss: String(p.loss), best: p.best };
    parts.push(p.mark === "inaccuracy" ? t("{move} is an inaccuracy (it lost {loss}); best was {best}.", said)
      : p.mark === "mistake" ? t("{move} is a mistake (it lost {loss}); best was {best}.", said)
        : t("{move} is a blunder (it lost {loss}); best was {best}.", said));
    if (p.pv.length) parts.push(t("Line: {line}.", { line: p.pv.join(" ") }));
  }
  const next = plyAt(A.turn + 1);
  if (next && next.pv.length) parts.push(t("Engine's line from here: {line}.", { line: next.pv.join(" ") }));
  for (const text of parts) {
    const line = document.createElement("span");
    line.className = "analysis-line";
    line.textContent = text;
    note.appendChild(line);
  }
}

// a finished game's page: offer the analysis, or show the one stored
export function forGame(state) {
  if (!state.over || state.aborted) {
    byId("analysis").hidden = true;
    return;
  }
  const key = `game:${state.id}`;
  if (A.key === key) return;
  reset(key, { kind: "game", id: state.id }, state.family);
  poll(key);
}
// a replayed record: offer its analysis
export function forReplay(record, family) {
  reset(`replay:${record}`, { kind: "replay", id: null, record }, family);
}
// a turn of the move list: its mark
export function decorateTurn(span, turn) {
  const p = plyAt(turn);
  if (!p) return;
  if (p.tablebase) span.title += ` - ${tablebaseText(p.tablebase)}`;
  if (!p.mark) return;
  span.textContent += SYMBOL[p.mark];
  span.classList.add(`mark-${p.mark}`);
  span.title += ` - ${t("{mark}, best {best}", { mark: MARK[p.mark], best: p.best })}`;
}
// the turn now on screen
export function showTurn(turn) {
  if (A.turn === turn) return;
  A.turn = turn;
  drawGraph();
  explain();
}

const button = byId("analyse");
if (button) button.addEventListener("click", start);
