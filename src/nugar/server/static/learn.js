// nugar lessons, the Learn section: plain JS, no build step. The server holds the lessons and
// checks every move (GET /api/lessons, GET /api/lessons/{name}, POST
// /api/lessons/{name}/steps/{i}/check); this page draws each step's board from the board data
// it sends (board.js, as the game page does), turns clicks into move texts, and keeps the
// player's progress in this browser (localStorage) and, signed in, with the account too
// (GET /api/me/lessons, PUT /api/me/lessons/{name}): the steps done in either are merged.
import { svg as drawBoard } from "./board.js";
import { boardInput, cellByKey, cellKey, choose, label as labelCells, mark, steppers } from "./clickmove.js";
import { $, api } from "./common.js";
import { player, t, tn } from "./i18n.js";

const STORE = "nugar-learn";  // localStorage: {lesson name: {done: [step indices], at}}

// ------------------------------------------------------------ progress, kept in the browser
function allProgress() {
  try {
    const all = JSON.parse(localStorage.getItem(STORE) || "{}");
    return all && typeof all === "object" && !Array.isArray(all) ? all : {};
  } catch (e) {
    return {};
  }
}

function progressOf(name, steps) {
  const p = allProgress()[name] || {};
  const done = Array.isArray(p.done) ? p.done.filter((i) => Number.isInteger(i) && i >= 0 && i < steps) : [];
  const at = Number.isInteger(p.at) && p.at >= 0 && p.at < steps ? p.at : null;
  return { done: new Set(done), at };
}

function saveProgress(name, prog) {
  const all = allProgress();
  all[name] = { done: [...prog.done].sort((a, b) => a - b), at: prog.at };
  try { localStorage.setItem(STORE, JSON.stringify(all)); } catch (e) { /* storage off: kept while the page is open */ }
  if (signedIn) keepWithAccount(name, all[name]);
}

// ------------------------------------------------------------ progress, kept with the account
let signedIn = false;
let sending = Promise.resolve();  // the account's writes, one after the other, in order

function keepWithAccount(name, p) {
  const body = { done: p.done, at: p.at === undefined ? null : p.at };
  sending = sending.then(() => api("PUT", `/api/me/lessons/${encodeURIComponent(name)}`, body))
    .catch(() => { /* kept in this browser; merged again on the next visit */ })
    .then(() => { document.body.dataset.kept = String(Number(document.body.dataset.kept || 0) + 1); });
}

// Signed in: merge the account's progress and this browser's (a step done in either is
// done; the step last shown here wins), keep the merge here, and send the account what it
// lacks for the lessons whose number of steps is known (`steps`: {name: count}).
async function syncWithAccount(steps) {
  let theirs;
  try {
    theirs = (await api("GET", "/api/me/lessons")).lessons || {};
  } catch (e) {
    return;  // signed out (401), or out of reach: this browser's progress only
  }
  signedIn = true;
  const all = allProgress();
  for (const name of new Set([...Object.keys(all), ...Object.keys(theirs)])) {
    const mine = all[name] || {};
    const kept = theirs[name] || {};
    const ints = (xs) => (Array.isArray(xs) ? xs.filter((i) => Number.isInteger(i) && i >= 0) : []);
    const done = [...new Set([...ints(mine.done), ...ints(kept.done)])].sort((a, b) => a - b);
    const at = Number.isInteger(mine.at) ? mine.at : (Number.isInteger(kept.at) ? kept.at : null);
    all[name] = { done, at };
    const n = steps[name];
    if (n !== undefined && (!theirs[name] || done.length !== ints(kept.done).length || at !== kept.at)) {
      keepWithAccount(name, { done: done.filter((i) => i < n), at: at !== null && at < n ? at : null });
    }
  }
  try { localStorage.setItem(STORE, JSON.stringify(all)); } catch (e) { /* storage off */ }
}

// ------------------------------------------------------------ the list of lessons
function progressText(lesson, done) {
  const steps = lesson.steps - lesson.puzzles;
  const stepsSaid = tn("{n} step", "{n} steps", steps, { n: steps });
  const puzzlesSaid = tn("{n} puzzle", "{n} puzzles", lesson.puzzles, { n: lesson.puzzles });
  const what = t("{steps}, {puzzles}", { steps: stepsSaid, puzzles: puzzlesSaid });
  if (done >= lesson.steps) return t("Completed ({what})", { what });
  if (done === 0) return t("Not started ({what})", { what });
  return t("{done} of {steps} done ({what})", { done, steps: lesson.steps, what });
}

// a game's pages for teachers and museums (nugar.server.http.printable): its rule sheet and
// board to print, and its people and history
function teachingLinks(rules) {
  const p = document.createElement("p");
  p.className = "teach";
  const pages = [["sheet", t("Rule sheet to print")], ["board", t("Board to print")],
    ["history", t("People and history")]];
  pages.forEach(([what, words], i) => {
    const a = document.createElement("a");
    a.href = `/rules/${encodeURIComponent(rules)}/${what}`;
    a.textContent = words;
    if (i) p.append(" \u00b7 ");
    p.appendChild(a);
  });
  return p;
}

async function showList() {
  $("lessons").hidden = false;
  let list;
  try {
    list = await api("GET", "/api/lessons");
  } catch (e) {
    $("lessons-error").textContent = e.message;
    return;
  }
  await syncWithAccount(Object.fromEntries(list.map((l) => [l.name, l.steps])));
  const ul = $("lesson-list");
  ul.textContent = "";
  for (const lesson of list) {
    const done = progressOf(lesson.name, lesson.steps).done.size;
    const li = document.createElement("li");
    li.className = "lesson-card";
    li.dataset.lesson = lesson.name;
    li.classList.toggle("completed", done >= lesson.steps);
    const h = document.createElement("h2");
    const a = document.createElement("a");
    a.href = `/learn/${encodeURIComponent(lesson.name)}`;
    a.textContent = lesson.title;
    h.appendChild(a);
    const intro = document.createElement("p");
    intro.textContent = lesson.intro;
    const said = document.createElement("p");
    said.className = "progress";
    said.textContent = progressText(lesson, done);
    li.append(h, intro, said, teachingLinks(lesson.rules));
    ul.appendChild(li);
  }
  document.body.dataset.ready = "1";
}

// ------------------------------------------------------------ a lesson
const L = {
  lesson: null, prog: null, index: 0,
  pos: null,        // what is drawn: {board, to_move, legal, last_turn, last_mover}
  turnText: "",     // the right first moves of a turn that goes on ("c2-c1", "3")
  selected: null,   // the square of the piece chosen to step
  solved: false, busy: false,
};

function step() { return L.lesson.steps[L.index]; }

function startPosition(s) {
  return { board: s.board, to_move: s.to_move, legal: s.legal, last_turn: [], last_mover: null };
}

// the position as clickmove.js reads it
function position() {
  return { family: step().family, board: L.pos.board, to_move: L.pos.to_move,
    legal: L.solved ? [] : L.pos.legal };
}

function draw() {
  const s = step();
  input.draw(drawBoard({
    board: L.pos.board, game: s.game, players: s.players, last_turn: L.pos.last_turn,
    last_mover: L.pos.last_mover, to_move: L.pos.to_move,
  }));
  const svg = $("board").querySelector("svg");
  if (svg) {
    // what may be played now, as the game page marks it; the cells are reached with Tab
    // and the arrows, and played with Enter or Space
    mark(svg, position(), L.selected);
    labelCells(svg, { sel: t("chosen"), target: t("a target of the chosen piece"),
      capture: t("can be captured"), lit: t("playable"), hinted: t("the hint") });
    input.roving();
  }
  $("pass").hidden = L.solved || !L.pos.legal.includes("pass");
}

function say(verdict, text) {
  const el = $("reply");
  el.textContent = text;
  if (verdict) el.dataset.verdict = verdict;
  else delete el.dataset.verdict;
}

function why(text, cell) {
  $("why").textContent = text;
  for (const el of $("board").querySelectorAll(".refused")) el.classList.remove("refused");
  if (text && cell) cell.classList.add("refused");
}

function renderSteps() {
  const ol = $("steps");
  ol.textContent = "";
  L.lesson.steps.forEach((s, i) => {
    const li = document.createElement("li");
    li.classList.toggle("done", L.prog.done.has(i));
    li.classList.toggle("puzzle", s.puzzle);
    if (i === L.index) li.setAttribute("aria-current", "step");
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = s.title;
    b.dataset.step = String(i);
    if (L.prog.done.has(i)) b.setAttribute("aria-label", t("{title} (done)", { title: s.title }));
    li.appendChild(b);
    ol.appendChild(li);
  });
  const all = L.prog.done.size >= L.lesson.steps.length;
  $("done").hidden = !all;
  if (all) {
    $("done-text").textContent = t("You have completed the {title} lesson: every step and puzzle.",
      { title: L.lesson.title });
  }
}

function showStep(i) {
  L.index = i;
  L.turnText = "";
  L.selected = null;
  L.solved = false;
  const s = step();
  L.pos = startPosition(s);
  L.prog.at = i;
  saveProgress(L.lesson.name, L.prog);
  const n = L.lesson.steps.length;
  $("step-count").textContent = s.puzzle ? t("Step {i} of {n}: a puzzle", { i: i + 1, n })
    : t("Step {i} of {n}", { i: i + 1, n });
  $("lesson-intro").hidden = i !== 0;  // the lesson's introduction, before its first step
  $("step-title").textContent = s.title;
  $("step-text").textContent = s.text;
  $("instruction").textContent = s.instruction;
  const examples = s.legal.filter((m) => m !== "pass").slice(0, 2);
  $("move-input").placeholder = examples.length ? t("e.g. {moves}", { moves: examples.join(", ") }) : "";
  $("move-input").value = "";
  $("next").hidden = true;
  say(null, "");
  why("");
  renderSteps();
  draw();
  if (location.hash !== `#step=${i + 1}`) history.replaceState(null, "", `#step=${i + 1}`);
  document.body.dataset.step = String(i);
}

// the whole text to check: a click or a typed text goes on from the right moves made so far
function wholeTurn(text) {
  if (!L.turnText || text.startsWith(L.turnText)) return text;
  return L.turnText + step().joiner + text;
}

async function submit(text, cell) {
  if (L.busy) return;
  L.busy = true;
  why("");
  const i = L.index;
  try {
    const r = await api("POST", `/api/lessons/${encodeURIComponent(L.lesson.name)}/steps/${i}/check`,
      { move: wholeTurn(text) });
    if (L.index !== i) return;  // the player went to another step meanwhile
    answer(r, cell);
  } catch (e) {
    say("error", e.message);
  } finally {
    L.busy = false;
  }
}

function answer(r, cell) {
  const s = step();
  // how many answers the page has shown (what a test waits on)
  document.body.dataset.answers = String(Number(document.body.dataset.answers || 0) + 1);
  L.selected = null;
  if (r.verdict === "right" || r.verdict === "goes_on") {
    L.pos = { board: r.board_after, to_move: r.to_move, legal: r.legal || [],
      last_turn: r.last_turn, last_mover: r.last_mover };
  }
  if (r.verdict === "right") {
    L.solved = true;
    L.turnText = "";
    L.prog.done.add(L.index);
    saveProgress(L.lesson.name, L.prog);
    renderSteps();
    const last = L.index + 1 >= L.lesson.steps.length;
    $("next").hidden = last;
    if (!last) $("next").textContent = L.lesson.steps[L.index + 1].puzzle ? t("Next: a puzzle") : t("Next step");
  } else if (r.verdict === "goes_on") {
    L.turnText = r.turn;
  } else if (r.verdict === "wrong") {
    // a legal turn, but not the one: back to the step's position to try again
    L.turnText = "";
    L.pos = startPosition(s);
  }
  say(r.verdict, r.reply);
  draw();
  if (cell && (r.verdict === "illegal" || r.verdict === "unreadable")) {
    const same = cellByKey($("board"), cellKey(cell));  // the refused cell, ringed anew
    if (same) same.classList.add("refused");
  }
  if (r.verdict === "right" && !$("next").hidden) $("next").focus();
}

// a click on a square, hole or store: a move to check, a piece chosen, or why not
function playCell(cell) {
  why("");
  if (L.busy) return;
  const s = step();
  if (L.solved) {
    why(L.index + 1 < L.lesson.steps.length ? t("This step is done: go on to the next one, or start it again.")
      : t("This step is done: start it again to play it once more."));
    return;
  }
  const players = s.players.map(player);
  const me = players[L.pos.to_move - 1];
  const pos = position();
  const said = choose(pos, L.selected, cell);
  if (said.play) { L.selected = null; submit(said.play, cell); return; }
  if ("select" in said) { L.selected = said.select; draw(); return; }
  if (L.selected !== null) {  // the chosen piece is let go: the board drawn without it
    L.selected = null;
    draw();
    cell = cellByKey($("board"), cellKey(cell)) || cell;
  }
  const sq = said.square;
  if (said.refuse === "store") why(t("A store is not played: choose one of your holes."), cell);
  else if (said.refuse === "other-hole") {
    why(t("That hole is {other}'s: {me} sows from {me}'s own holes.", { other: players[2 - L.pos.to_move], me }), cell);
  } else if (said.refuse === "hole" || said.refuse === "drop") submit(sq, cell);  // the server says why
  else if (said.refuse === "capture") submit(`x${sq}`, cell);
  else if (said.refuse === "step") submit(`${said.from}-${sq}`, cell);
  else if (said.refuse === "stuck") {
    const pieces = steppers(pos);
    why(pieces.length ? t("The piece on {square} has no step here; pieces that can step: {pieces}.",
      { square: sq, pieces: pieces.join(", ") })
      : t("The piece on {square} has no step here; no piece can step.", { square: sq }), cell);
  } else if (said.refuse === "opponent") {
    why(t("{square} holds a {other} piece: choose one of {me}'s pieces, then the square it steps to.",
      { square: sq, other: players[2 - L.pos.to_move], me }), cell);
  } else {
    why(t("{square} is empty: choose one of {me}'s pieces first, then the square it steps to.",
      { square: sq, me }), cell);
  }
}

function stepFromHash() {
  const m = location.hash.match(/^#step=([0-9]+)$/);
  const i = m ? Number(m[1]) - 1 : -1;
  return i >= 0 && i < L.lesson.steps.length ? i : null;
}

async function showLesson(name) {
  $("lesson").hidden = false;
  try {
    L.lesson = await api("GET", `/api/lessons/${encodeURIComponent(name)}`);
  } catch (e) {
    say("error", e.message);
    return;
  }
  const n = L.lesson.steps.length;
  await syncWithAccount({ [L.lesson.name]: n });
  L.prog = progressOf(L.lesson.name, n);
  document.title = t("{title} - Learn - nugar", { title: L.lesson.title });
  $("lesson-title").textContent = L.lesson.title;
  $("lesson-intro").textContent = L.lesson.intro;
  $("rules-link").href = `/rules/${encodeURIComponent(L.lesson.rules)}`;
  $("rules-link").textContent = t("Rules of {title}", { title: L.lesson.title });
  $("teaching-links").replaceChildren(...teachingLinks(L.lesson.rules).childNodes);
  const links = $("done-links");
  links.textContent = "";
  const more = document.createElement("a");
  more.href = "/learn";
  more.textContent = t("All lessons");
  const play = document.createElement("a");
  play.href = "/";
  play.textContent = t("Start a game");
  links.append(more, " \u00b7 ", play);
  let first = stepFromHash();
  if (first === null) {
    first = [...Array(n).keys()].find((i) => !L.prog.done.has(i));
    if (first === undefined) first = L.prog.at === null ? 0 : L.prog.at;
  }
  showStep(first);

  $("typed").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("move-input").value.trim().toLowerCase();
    if (!text) { say("unreadable", t("Type a move first.")); return; }
    if (L.solved) { why(t("This step is done: go on to the next one, or start it again.")); return; }
    $("move-input").value = "";
    submit(text, null);
  });
  $("pass").addEventListener("click", () => submit("pass", null));
  $("again").addEventListener("click", () => showStep(L.index));
  $("next").addEventListener("click", () => showStep(L.index + 1));
  $("steps").addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-step]");
    if (b) showStep(Number(b.dataset.step));
  });
  $("forget").addEventListener("click", () => {
    L.prog = { done: new Set(), at: L.index };
    saveProgress(L.lesson.name, L.prog);
    renderSteps();
  });
  window.addEventListener("hashchange", () => {
    const i = stepFromHash();
    if (i !== null && i !== L.index) showStep(i);
  });
  document.body.dataset.ready = "1";
}

// clicks and keys on the board, as on the game page (clickmove.js)
const input = boardInput($("board"), playCell);
const m = location.pathname.match(/^\/learn\/([a-z0-9-]+)\/?$/);
if (m) showLesson(m[1]);
else showList();
