// nugar puzzles: plain JS, no build step. The server chooses each puzzle and judges every
// turn (GET /api/puzzles, /api/puzzles/next, /api/puzzles/daily, /api/puzzles/{id}, POST
// /api/puzzles/{id}/attempt); this page draws the board from the board data it sends
// (board.js, clicks read by clickmove.js as on the game page), turns clicks into move texts, and shows the verdict, the solution, the rating
// change of a signed-in player and the streak.
import { svg as drawBoard } from "./board.js";
import { boardInput, choose, label as labelCells, mark } from "./clickmove.js";
import { $, api } from "./common.js";
import { player, t, tn } from "./i18n.js";

// the themes' names as the page says them (the API sends their English keys)
const THEME_NAMES = {
  "only-win": () => t("only winning turn"),
  "only-draw": () => t("only drawing turn"),
  "best-margin": () => t("best score"),
  "store": () => t("into the store"),
  "capture": () => t("capture"),
  "quiet": () => t("quiet turn"),
  "endgame": () => t("endgame"),
  "misere": () => t("misère"),
  "win-in-1": () => t("win in 1"),
  "win-in-2": () => t("win in 2"),
  "win-in-3": () => t("win in 3"),
  "long": () => t("long win"),
};

const P = {
  rules: null, mode: "rated",
  puzzle: null,     // what /api/puzzles/... sent
  pos: null,        // what is drawn: {board, to_move, legal, last_turn, last_mover}
  turnText: "",     // the right first steps of a turn that goes on
  selected: null,   // the square of the piece chosen to step
  done: false, busy: false,
  streak: 0,        // signed out: the streak is counted here
  signedIn: false,
};

function startPosition(p) {
  return { board: p.board, to_move: p.to_move, legal: p.legal, last_turn: [], last_mover: null };
}

function position() {
  return { family: P.puzzle.family, board: P.pos.board, to_move: P.pos.to_move, legal: P.done ? [] : P.pos.legal };
}

function draw() {
  const p = P.puzzle;
  input.draw(drawBoard({
    board: P.pos.board, game: p.game, players: p.players, last_turn: P.pos.last_turn,
    last_mover: P.pos.last_mover, to_move: P.pos.to_move,
  }));
  const svg = $("board").querySelector("svg");
  if (svg) {
    mark(svg, position(), P.selected);
    labelCells(svg, { sel: t("chosen"), target: t("a target of the chosen piece"),
      capture: t("can be captured"), lit: t("playable"), hinted: t("the hint") });
    input.roving();
  }
  $("pass").hidden = P.done || !P.pos.legal.includes("pass");
}

function say(verdict, text) {
  const el = $("reply");
  el.textContent = text;
  if (verdict) el.dataset.verdict = verdict;
  else delete el.dataset.verdict;
}

function modeHelp() {
  const help = {
    rated: t("Each puzzle is a rated game between you and the puzzle: solve it and your puzzle rating goes up, miss it and it goes down (signed in, your first try at each puzzle)."),
    streak: t("Puzzles one after the other, each harder than the last, unrated: one wrong turn ends the streak."),
    daily: t("The same puzzle for everyone today."),
  };
  $("mode-help").textContent = help[P.mode];
  for (const b of document.querySelectorAll(".modes button")) {
    b.setAttribute("aria-pressed", String(b.dataset.mode === P.mode));
  }
}

function show(p) {
  P.puzzle = p;
  P.pos = startPosition(p);
  P.turnText = "";
  P.selected = null;
  P.done = false;
  const players = p.players.map(player);
  $("task").textContent = t("{player} to move: find the one best turn.", { player: players[p.to_move - 1] });
  $("facts").textContent = P.mode === "streak"
    ? t("Puzzle rating {rating} · streak {streak}", { rating: p.rating, streak: currentStreak(p) })
    : t("Puzzle rating {rating}", { rating: p.rating });
  const examples = p.legal.filter((m) => m !== "pass").slice(0, 2);
  $("move-input").placeholder = examples.length ? t("e.g. {moves}", { moves: examples.join(", ") }) : "";
  $("move-input").value = "";
  $("next").hidden = true;
  $("result").textContent = "";
  $("link").href = `/puzzles/${p.id}`;
  $("link").textContent = `/puzzles/${p.id}`;
  say(null, "");
  $("why").textContent = "";
  document.body.dataset.puzzle = p.id;
  if (location.pathname !== `/puzzles/${p.id}`) history.replaceState(null, "", `/puzzles/${p.id}`);
  draw();
}

function currentStreak(p) {
  return P.signedIn && Number.isInteger(p.streak) ? p.streak : P.streak;
}

async function loadNext() {
  say(null, "");
  let path;
  const rules = encodeURIComponent(P.rules);
  if (P.mode === "daily") path = `/api/puzzles/daily?rules=${rules}`;
  else if (P.mode === "streak") path = `/api/puzzles/next?rules=${rules}&mode=streak&streak=${P.streak}`;
  else path = `/api/puzzles/next?rules=${rules}`;
  try {
    show(await api("GET", path));
  } catch (e) {
    say("error", e.message);
  }
}

function wholeTurn(text) {
  if (!P.turnText || text.startsWith(P.turnText)) return text;
  return P.turnText + P.puzzle.joiner + text;
}

async function submit(text) {
  if (P.busy || P.done) return;
  P.busy = true;
  $("why").textContent = "";
  const id = P.puzzle.id;
  try {
    const r = await api("POST", `/api/puzzles/${id}/attempt`,
      { turn: wholeTurn(text), mode: P.mode === "streak" ? "streak" : "rated" });
    if (P.puzzle.id === id) answer(r);
  } catch (e) {
    say("error", e.message);
  } finally {
    P.busy = false;
  }
}

function answer(r) {
  document.body.dataset.answers = String(Number(document.body.dataset.answers || 0) + 1);
  P.selected = null;
  if (r.board_after && (r.verdict === "right" || r.verdict === "goes_on" || r.verdict === "wrong")) {
    P.pos = { board: r.board_after, to_move: r.to_move, legal: r.legal || [],
      last_turn: r.last_turn, last_mover: r.last_mover };
  }
  if (r.verdict === "goes_on") P.turnText = r.turn;
  say(r.verdict, r.reply);
  if (r.verdict === "right" || r.verdict === "wrong") finish(r);
  draw();
}

function finish(r) {
  P.done = true;
  P.turnText = "";
  document.body.dataset.verdict = r.verdict;
  const parts = [];
  const themes = P.puzzle.themes.map((k) => (THEME_NAMES[k] ? THEME_NAMES[k]() : k));
  parts.push(t("Themes: {themes}", { themes: themes.join(", ") }));
  if (r.rated && r.rating && r.rating_before) {
    const change = Math.round(r.rating.rating - r.rating_before.rating);
    parts.push(t("Your puzzle rating: {rating} ({change})",
      { rating: r.rating.display, change: (change >= 0 ? "+" : "") + change }));
  }
  if (P.mode === "streak") {
    if (P.signedIn && Number.isInteger(r.streak)) P.streak = r.streak;
    else P.streak = r.verdict === "right" ? P.streak + 1 : 0;
    parts.push(r.verdict === "right" ? t("Streak: {n}", { n: P.streak })
      : t("Streak over. Start again from the first puzzle."));
  }
  $("result").textContent = parts.join(" \u00b7 ");
  $("next").hidden = P.mode === "daily";
  if (!$("next").hidden) $("next").focus();
  standing();
}

async function standing() {
  let r;
  try { r = await api("GET", "/api/me/puzzles"); } catch (e) { P.signedIn = false; return; }
  P.signedIn = true;
  const mine = (r.puzzles || []).find((x) => x.rules === P.rules);
  $("standing").textContent = mine
    ? t("Your puzzle rating in {rules}: {rating} ({solved} of {attempts} solved; best streak {best})",
      { rules: P.rules, rating: mine.display, solved: mine.solved, attempts: mine.attempts, best: mine.streak_best })
    : "";
}

function playCell(cell) {
  $("why").textContent = "";
  if (P.busy) return;
  if (P.done) { $("why").textContent = t("This puzzle is over: go on to the next one."); return; }
  const said = choose(position(), P.selected, cell);
  if (said.play) { P.selected = null; submit(said.play); return; }
  if ("select" in said) { P.selected = said.select; draw(); return; }
  P.selected = null;
  draw();
  if (said.refuse === "store") $("why").textContent = t("A store is not played: choose one of your holes.");
  else if (said.refuse === "other-hole") $("why").textContent = t("Sow from the holes of the player to move.");
  else if (said.refuse === "hole" || said.refuse === "drop") submit(said.square);  // the server says why
  else if (said.refuse === "capture") submit(`x${said.square}`);
  else if (said.refuse === "step") submit(`${said.from}-${said.square}`);
  else $("why").textContent = t("Choose a piece that can step, then the square it steps to.");
}

async function start() {
  let list;
  try {
    list = await api("GET", "/api/puzzles");
  } catch (e) {
    say("error", e.message);
    return;
  }
  const select = $("rules");
  for (const r of list.rules) {
    const o = document.createElement("option");
    o.value = r.rules;
    o.textContent = tn("{rules} ({n} puzzle)", "{rules} ({n} puzzles)", r.puzzles, { rules: r.rules, n: r.puzzles });
    select.appendChild(o);
  }
  await standing();
  const m = location.pathname.match(/^\/puzzles\/([0-9a-f]{12})$/);
  let first = null;
  if (m) {
    try { first = await api("GET", `/api/puzzles/${m[1]}`); } catch (e) { say("error", e.message); }
  }
  P.rules = first ? first.rules : (select.value || (list.rules[0] && list.rules[0].rules));
  select.value = P.rules;
  modeHelp();
  if (first) show(first);
  else await loadNext();

  select.addEventListener("change", () => { P.rules = select.value; P.streak = 0; loadNext(); });
  for (const b of document.querySelectorAll(".modes button")) {
    b.addEventListener("click", () => { P.mode = b.dataset.mode; P.streak = 0; modeHelp(); loadNext(); });
  }
  $("typed").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("move-input").value.trim().toLowerCase();
    if (!text) { say("unreadable", t("Type a move first.")); return; }
    $("move-input").value = "";
    submit(text);
  });
  $("pass").addEventListener("click", () => submit("pass"));
  $("next").addEventListener("click", loadNext);
  document.body.dataset.ready = "1";
}

// clicks and keys on the board, as on the game page (clickmove.js)
const input = boardInput($("board"), playCell);
start();
