// nugar browser client: plain JS, no build step. The server is the authority on every rule;
// this page only offers the moves the server lists as legal and draws what it sends.
"use strict";

const $ = (id) => document.getElementById(id);
const REASONS = {
  pieces: "a player was reduced to too few pieces",
  blocked: "a player could not move",
  repetition: "the same position came up too often",
  quiet_limit: "too many turns without a capture",
  majority: "a store held more than half of all seeds",
  empty_side: "one side's holes were empty, and the seeds were counted",
  agreement: "both players agreed",
};
// Player names per family, as the server sends them ("players" of presets, states, replays).
const NAMES = {};

const ui = {
  id: null, key: null, seat: null, state: null, ws: null, selected: null,
  view: null,          // number of turns shown while browsing history, null = live
  replay: null,        // a replayed record: {turns, positions, ...}
  animating: false, wsRetry: 0, busy: false,
};

function learnNames(data) {
  if (data && data.family && Array.isArray(data.players) && data.players.length === 2) {
    NAMES[data.family] = { 1: data.players[0], 2: data.players[1] };
  }
}
function playerName(family, p) {
  return (NAMES[family] || {})[p] || (p === 1 ? "the first player" : "the second player");
}
// the name with the place in the order of play, as board legends write it: "South (first)"
function playerLabel(family, p) { return `${playerName(family, p)} (${p === 1 ? "first" : "second"})`; }

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["content-type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const res = await fetch(path, opts);
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    const detail = data && data.detail ? data.detail : `request failed (${res.status})`;
    const err = new Error(detail);
    err.code = data && data.error;
    throw err;
  }
  return data;
}

// ---------------------------------------------------------------- home: new game form
let PRESETS = [];

function currentRulesText() {
  const preset = PRESETS.find((p) => p.name === $("preset").value);
  if (!preset) return "dara";
  const parts = [];
  for (const opt of preset.options) {
    const el = document.querySelector(`[data-option="${opt.name}"]`);
    if (!el) continue;
    const value = el.value.trim().toLowerCase();
    if (value !== "" && value !== opt.default) parts.push(`${opt.name}=${value}`);
  }
  return parts.length ? `${preset.name}(${parts.join(",")})` : preset.name;
}

function showPreset() {
  const preset = PRESETS.find((p) => p.name === $("preset").value);
  if (!preset) return;
  $("preset-info").textContent = `${preset.game}: ${preset.description}. Source: ${preset.source}`;
  for (const o of $("seat").options) o.textContent = playerLabel(preset.family, Number(o.value));
  const box = $("options");
  box.textContent = "";
  for (const opt of preset.options) {
    const label = document.createElement("label");
    const name = document.createElement("span");
    name.textContent = opt.name;
    label.appendChild(name);
    let input;
    if (opt.kind === "switch" || opt.kind === "choice") {
      input = document.createElement("select");
      const values = opt.kind === "switch" ? ["on", "off"] : opt.values;
      for (const v of values) {
        const o = document.createElement("option");
        o.value = v; o.textContent = v;
        input.appendChild(o);
      }
    } else {
      input = document.createElement("input");
      input.size = 5;
    }
    input.value = opt.default;
    input.dataset.option = opt.name;
    input.addEventListener("input", updateRulesText);
    input.addEventListener("change", updateRulesText);
    label.appendChild(input);
    const doc = document.createElement("span");
    doc.className = "doc";
    doc.textContent = `${opt.meaning} (${opt.allowed})`;
    label.appendChild(doc);
    box.appendChild(label);
  }
  $("rules-link").href = `/rules/${preset.name}`;
  updateRulesText();
}

function updateRulesText() { $("rules-text").textContent = currentRulesText(); }

// the AI levels, with the server's default level selected (one number for every front end)
function showLevels(info) {
  const sel = $("level");
  sel.textContent = "";
  for (const n of info.levels) {
    const o = document.createElement("option");
    o.value = String(n); o.textContent = String(n);
    sel.appendChild(o);
  }
  sel.value = String(info.default);
}

function updateModeFields() {
  const mode = document.querySelector('input[name="mode"]:checked').value;
  $("level-label").hidden = mode !== "ai";
  $("seat-label").hidden = mode === "hotseat";
}

async function showHome() {
  $("home").hidden = false;
  try {
    PRESETS = await api("GET", "/api/presets");
    PRESETS.forEach(learnNames);
    showLevels(await api("GET", "/api/levels"));
  } catch (e) {
    $("home-error").textContent = e.message;
    return;
  }
  const sel = $("preset");
  sel.textContent = "";
  for (const p of PRESETS) {
    const o = document.createElement("option");
    o.value = p.name;
    o.textContent = `${p.name} (${p.game})`;
    sel.appendChild(o);
  }
  sel.addEventListener("change", showPreset);
  for (const r of document.querySelectorAll('input[name="mode"]')) r.addEventListener("change", updateModeFields);
  updateModeFields();
  showPreset();
  $("new-game").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("home-error").textContent = "";
    const mode = document.querySelector('input[name="mode"]:checked').value;
    const seat = Number($("seat").value);
    const body = { rules: currentRulesText(), mode };
    if (mode === "ai") { body.level = Number($("level").value); body.seat = seat; }
    try {
      const made = await api("POST", "/api/games", body);
      let mine = "0";
      if (mode === "ai") mine = String(seat);
      if (mode === "friend") {
        mine = String(seat);
        const other = String(3 - seat);
        localStorage.setItem(`nugar:share:${made.id}`, JSON.stringify({
          seat: made.links.seats[other], watch: made.links.watch }));
      }
      location.assign(`/g/${made.id}#seat=${mine}&key=${made.keys[mine]}`);
    } catch (e) {
      $("home-error").textContent = e.message;
    }
  });
}

// ---------------------------------------------------------------- game page
function parseHash() {
  const out = {};
  for (const part of location.hash.replace(/^#/, "").split("&")) {
    const [k, v] = part.split("=");
    if (k) out[k] = decodeURIComponent(v || "");
  }
  return out;
}

function myTurn() {
  const s = ui.state;
  if (!s || ui.animating || s.over || ui.key === null || ui.view !== null || ui.replay) return false;
  return ui.seat === 0 || ui.seat === s.to_move;
}

function legal() { return (ui.state && ui.state.legal) || []; }

function setError(text) { $("error").textContent = text || ""; }

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
      setError("The game changed before your move arrived; it was not played.");
      applyUpdate(null);  // asks for what changed
    } else {
      setError(e.message);
    }
  } finally {
    ui.busy = false;
  }
}

function boardClick(ev) {
  if (!myTurn() || ui.animating) return;
  const s = ui.state;
  const moves = legal();
  if (s.family === "sowing") {
    const g = ev.target.closest("[data-hole]");
    if (!g || Number(g.dataset.player) !== s.to_move) return;
    if (moves.includes(g.dataset.hole)) send(g.dataset.hole);
    return;
  }
  const g = ev.target.closest("[data-square]");
  if (!g) return;
  const sq = g.dataset.square;
  if (ui.selected && moves.includes(`${ui.selected}-${sq}`)) {
    const m = `${ui.selected}-${sq}`;
    ui.selected = null;
    send(m);
    return;
  }
  if (moves.includes(sq)) { send(sq); return; }
  if (moves.includes(`x${sq}`)) { send(`x${sq}`); return; }
  if (moves.some((m) => m.startsWith(`${sq}-`))) {
    ui.selected = ui.selected === sq ? null : sq;
    decorate();
    return;
  }
  // anything else is not a legal move here: nothing is sent, the selection is dropped
  ui.selected = null;
  decorate();
}

const SVGNS = "http://www.w3.org/2000/svg";

function addDot(el, cls) {
  // a small marker in the middle of a square: a legal drop or step target
  const r = el.querySelector("rect");
  if (!r) return;
  const c = document.createElementNS(SVGNS, "circle");
  c.setAttribute("cx", String(Number(r.getAttribute("x")) + Number(r.getAttribute("width")) / 2));
  c.setAttribute("cy", String(Number(r.getAttribute("y")) + Number(r.getAttribute("height")) / 2));
  c.setAttribute("r", "7");
  c.setAttribute("class", cls);
  el.appendChild(c);
}

function decorate() {
  // mark what may be clicked now; the server's legal list is the only source
  const svg = $("board").querySelector("svg");
  if (!svg) return;
  for (const el of svg.querySelectorAll(".legal-dot")) el.remove();
  for (const el of svg.querySelectorAll(".lit, .sel, .target, .cap-target")) {
    el.classList.remove("lit", "sel", "target", "cap-target");
  }
  if (!myTurn()) return;
  const s = ui.state;
  const moves = legal();
  const at = (sq) => svg.querySelector(`[data-square="${sq}"]`);
  if (s.family === "sowing") {
    for (const m of moves) {
      const el = svg.querySelector(`[data-player="${s.to_move}"][data-hole="${m}"]`);
      if (el) el.classList.add("lit");
    }
    return;
  }
  for (const m of moves) {
    if (/^[a-z]\d+$/.test(m)) {
      const el = at(m);
      if (el) { el.classList.add("lit"); addDot(el, "legal-dot"); }
    } else if (m.startsWith("x")) {
      const el = at(m.slice(1));
      if (el) el.classList.add("lit", "cap-target");
    } else if (m.includes("-")) {
      const [from, to] = m.split("-");
      const el = at(from);
      if (el) el.classList.add("lit");
      if (ui.selected === from) {
        const t = at(to);
        if (t) { t.classList.add("target"); addDot(t, "legal-dot"); }
      }
    }
  }
  if (ui.selected) {
    const el = at(ui.selected);
    if (el) el.classList.add("sel");
  }
}

function statusText(s) {
  if (s.over) return "Game over";
  const who = playerName(s.family, s.to_move);
  if (ui.replay) return "";
  if (ui.key === null) return `${who} to move (you are watching)`;
  if (myTurn()) {
    const moves = legal();
    if (moves.length && moves.every((m) => m.startsWith("x"))) {
      return `${who}: you formed a three, click a ${playerName(s.family, 3 - s.to_move)} piece to capture`;
    }
    return `${who} to move: your move`;
  }
  if (s.mode === "ai") return `${who} to move: the computer is thinking`;
  return `${who} to move: waiting for your opponent`;
}

function resultText(family, winner, reason, result) {
  if (reason === "resigned" && winner) {
    return `${playerName(family, winner)} wins (${result}): ${playerName(family, 3 - winner)} resigned`;
  }
  const why = REASONS[reason] || reason;
  if (winner === null || winner === undefined) return `Draw (${result}): ${why}`;
  return `${playerName(family, winner)} wins (${result}): ${why}`;
}

function renderMoves(turns, current) {
  const list = $("moves");
  list.textContent = "";
  let li = null;
  turns.forEach((t, i) => {
    if (!li || t.player === 1 || li.childElementCount >= 2) {
      li = document.createElement("li");
      list.appendChild(li);
    }
    const span = document.createElement("span");
    span.className = "turn" + (i + 1 === current ? " current" : "");
    span.textContent = t.text;
    span.dataset.index = String(i + 1);
    span.title = `${playerName(ui.state ? ui.state.family : "alignment", t.player)}`;
    span.addEventListener("click", () => goTo(i + 1));
    li.appendChild(span);
  });
  const cur = list.querySelector(".current");
  if (cur && cur.scrollIntoView) cur.scrollIntoView({ block: "nearest" });
}

function turnCount() {
  if (ui.replay) return ui.replay.turns.length;
  return ui.state && ui.state.turns ? ui.state.turns.length : 0;
}

async function goTo(index) {
  const total = turnCount();
  index = Math.max(0, Math.min(total, index));
  ui.selected = null;
  if (ui.replay) {
    // the server draws one position per request: fetch the others when stepped to
    const replay = ui.replay;
    ui.view = index;
    renderMoves(replay.turns, index);
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
    if (ui.replay === replay && ui.view === index) $("board").innerHTML = pos.svg;
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
    $("board").innerHTML = pos.svg;
    $("board").classList.add("viewing");
    renderMoves(ui.state.turns, index);
    $("status").textContent = `Viewing after turn ${index} of ${total}`;
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
  $("board").classList.remove("viewing");
  if (!ui.animating) $("board").innerHTML = s.svg;
  $("title").textContent = `${s.game}`;
  $("rules-line").innerHTML = "";
  const code = document.createElement("code");
  code.textContent = s.rules;
  const link = document.createElement("a");
  link.href = `/rules/${s.rules.split("(")[0]}`;
  link.textContent = "rules";
  $("rules-line").append("Rules: ", code, " ", link,
    s.mode === "ai" ? ` - against the computer, level ${s.ai_level}` : "",
    s.mode === "friend" ? " - between two people by link" : "",
    s.mode === "hotseat" ? " - hot-seat" : "");
  if (ui.key === null) $("you").textContent = "You are watching.";
  else if (ui.seat === 0) $("you").textContent = "Both players share this screen.";
  else $("you").textContent = `You play ${playerLabel(s.family, ui.seat)}.`;
  $("status").textContent = statusText(s);
  const res = $("result");
  if (s.over) {
    res.hidden = false;
    const score = s.family === "sowing" ? ` - stores ${s.score[0]} : ${s.score[1]}` : "";
    res.textContent = resultText(s.family, s.winner, s.reason, s.result) + score;
  } else {
    res.hidden = true;
  }
  renderMoves(s.turns || [], s.turns ? s.turns.length : 0);
  const player = ui.key !== null;
  const running = !s.over;
  $("typed").hidden = !player || !running;
  $("pass").hidden = !(myTurn() && legal().includes("pass"));
  $("undo").hidden = !player || s.mode === "friend";
  $("hint").hidden = !player || s.mode === "friend";
  $("takeback").hidden = !player || s.mode !== "friend";
  $("draw").hidden = !player || s.mode === "ai";
  $("resign").hidden = !player;
  for (const id of ["undo", "hint", "takeback", "draw", "resign"]) $(id).disabled = !running;
  $("hint").disabled = !running || !myTurn();
  $("download").href = `/api/games/${s.id}/record`;
  renderOffer(s);
  decorate();
  // for tests and assistive tools: which version of the game is on screen
  document.body.dataset.v = String(s.v);
  document.body.dataset.ply = String(s.ply);
}

function renderOffer(s) {
  const box = $("offer");
  const offers = s.offers || {};
  const kind = offers.draw ? "draw" : offers.takeback ? "takeback" : null;
  if (!kind || s.over || ui.key === null || ui.seat === 0) { box.hidden = true; return; }
  box.hidden = false;
  box.dataset.kind = kind;
  const mine = offers[kind] === ui.seat;
  $("offer-text").textContent = mine ? `You offered a ${kind}.` : `Your opponent offers a ${kind}.`;
  $("offer-accept").hidden = mine;
  $("offer-decline").hidden = mine;
  $("offer-cancel").hidden = !mine;
}

// sowing animation: drop the seeds one by one on the old picture, then show the new one
function sowPath(board, player, hole) {
  const p = board.pits;
  const n = 2 * p + 2;
  const cells = [...board.holes[0], board.stores[0], ...board.holes[1], board.stores[1]];
  const start = player === 1 ? hole - 1 : p + 1 + hole - 1;
  const skip = player === 1 ? 2 * p + 1 : p;  // the opponent's store
  let seeds = cells[start];
  cells[start] = 0;
  const path = [];
  let i = start;
  while (seeds > 0) {
    i = (i + 1) % n;
    if (i === skip || (board.skip_origin && i === start)) continue;
    cells[i] += 1;
    seeds -= 1;
    path.push(i);
  }
  return { start, path, cells };
}

async function animateSowing(prev, next) {
  if (prev.family !== "sowing" || next.ply <= prev.ply || next.ply - prev.ply > 12) return;
  if (window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  const moves = (next.moves || []).slice(prev.ply);
  if (moves.length !== next.ply - prev.ply) return;
  ui.animating = true;
  decorate();  // nothing is clickable while the seeds move
  try {
    let board = JSON.parse(JSON.stringify(prev.board));
    let mover = prev.to_move;
    const svgEl = $("board").querySelector("svg");
    const cellText = (c) => svgEl && svgEl.querySelector(`[data-cell="${c}"] .count`);
    const cellEl = (c) => svgEl && svgEl.querySelector(`[data-cell="${c}"]`);
    for (const m of moves) {
      const { start, path, cells } = sowPath(board, mover, Number(m));
      const counts = [...board.holes[0], board.stores[0], ...board.holes[1], board.stores[1]];
      counts[start] = 0;
      const t0 = cellText(start);
      if (t0) t0.textContent = "0";
      const delay = Math.max(25, Math.min(90, 900 / Math.max(1, path.length)));
      for (const c of path) {
        await new Promise((r) => setTimeout(r, delay));
        counts[c] += 1;
        const t = cellText(c);
        if (t) t.textContent = String(counts[c]);
        const el = cellEl(c);
        if (el) el.classList.add("sown");
      }
      const p = board.pits;
      board = { ...board, holes: [cells.slice(0, p), cells.slice(p + 1, 2 * p + 1)],
                stores: [cells[p], cells[2 * p + 1]] };
      // a bonus step keeps the mover; otherwise later moves are the other player's
      if (path.length && path[path.length - 1] !== (mover === 1 ? p : 2 * p + 1)) mover = 3 - mover;
    }
    await new Promise((r) => setTimeout(r, 150));
  } finally {
    ui.animating = false;
  }
}

// The server answers a change, and sends each event, as an update: what changed since
// version `base` (status, board, legal moves; the moves from `moves_from` and the turns from
// `turns_from`), never the whole history. A full state is the update from version 0. This
// merges `u` into the full state `prev` the page renders; `undefined` when versions between
// them were missed (then the page asks for them), `prev` when `u` is not newer.
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

// merge the update `u` (null: none, only ask for what changed since the version on screen)
async function applyUpdate(u) {
  let next = u ? mergeUpdate(ui.state, u) : undefined;
  if (next === undefined) {
    // missed versions: ask for what changed since the one on screen (or everything)
    const since = ui.state && ui.state.moves ? `?since=${ui.state.v}` : "";
    try {
      next = mergeUpdate(ui.state, await api("GET", `/api/games/${ui.id}${since}`));
    } catch (e) {
      setError(e.message);
      return;
    }
    if (!next) return;
  }
  await applyState(next);
}

async function applyState(state) {
  if (!state) return;
  const prev = ui.state;
  if (prev && state.v < prev.v) return;
  if (prev && state.v === prev.v && prev.svg === state.svg) return;
  ui.state = state;
  learnNames(state);
  ui.selected = null;
  if (prev && ui.view === null && !ui.replay) await animateSowing(prev, state);
  if (ui.state !== state) return;  // a newer state arrived while animating
  if (ui.view === null) render();
  else {
    renderMoves(state.turns || [], ui.view);
    $("status").textContent = `Viewing after turn ${ui.view} of ${turnCount()}`;
  }
}

function connect() {
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const since = ui.state ? ui.state.v : 0;
  const ws = new WebSocket(`${proto}://${location.host}/ws/games/${ui.id}?since=${since}`);
  ui.ws = ws;
  ws.onopen = () => { ui.wsRetry = 0; $("conn").textContent = "live"; };
  ws.onmessage = (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch (e) { return; }
    if (msg.type === "error") { setError(msg.detail); return; }
    if (msg.state) applyState(msg.state);
    else if (msg.update) applyUpdate(msg.update);
  };
  ws.onclose = () => {
    $("conn").textContent = "reconnecting...";
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

async function showGame(id) {
  $("play").hidden = false;
  ui.id = id;
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
    $("error").textContent = "This browser already holds a seat in this game; "
      + "the key in the link was ignored.";
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
    $("share").hidden = false;
    $("share-seat").value = share.seat;
    $("share-watch").value = share.watch;
  }
  try {
    await applyState(await api("GET", `/api/games/${id}`));
  } catch (e) {
    $("status").textContent = e.message;
    return;
  }
  connect();
  $("board").addEventListener("click", boardClick);
  $("typed").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("move-input").value.trim();
    if (!text) return;
    $("move-input").value = "";
    send(text);
  });
  $("pass").addEventListener("click", () => send("pass"));
  $("undo").addEventListener("click", () => action("undo"));
  $("resign").addEventListener("click", () => {
    if (confirm("Resign this game?")) action("resign");
  });
  $("draw").addEventListener("click", () => action("offers/draw", { action: "offer" }));
  $("takeback").addEventListener("click", () => action("offers/takeback", { action: "offer" }));
  $("offer-accept").addEventListener("click", () => action(`offers/${$("offer").dataset.kind}`, { action: "accept" }));
  $("offer-decline").addEventListener("click", () => action(`offers/${$("offer").dataset.kind}`, { action: "decline" }));
  $("offer-cancel").addEventListener("click", () => action(`offers/${$("offer").dataset.kind}`, { action: "cancel" }));
  $("hint").addEventListener("click", async () => {
    $("hint-text").textContent = "thinking...";
    try {
      const h = await api("POST", `/api/games/${ui.id}/hint`, { key: ui.key });
      $("hint-text").textContent = `Hint: ${h.move}`;
    } catch (e) {
      $("hint-text").textContent = "";
      setError(e.message);
    }
  });
}

// ---------------------------------------------------------------- replay a record
function showReplayHome() {
  $("replay-home").hidden = false;
  $("replay-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("replay-error").textContent = "";
    try {
      const record = $("record-text").value;
      const r = await api("POST", "/api/replay", { record });
      ui.replay = { ...r, record, drawn: { [r.position.turn]: r.position } };
      learnNames(r);
      ui.key = null;
      $("play").hidden = false;
      $("title").textContent = `${r.game} (replay)`;
      $("rules-line").textContent = `Rules: ${r.rules}`;
      for (const id of ["typed", "undo", "hint", "takeback", "draw", "resign", "offer", "share"]) $(id).hidden = true;
      $("download").hidden = true;
      const res = $("result");
      if (r.result) {
        res.hidden = false;
        res.textContent = resultText(r.family, r.winner, r.reason, r.result);
      }
      ui.state = { family: r.family };
      goTo(r.turns.length);
    } catch (e) {
      $("replay-error").textContent = e.message;
    }
  });
}

// ---------------------------------------------------------------- keys and start
document.addEventListener("keydown", (ev) => {
  if ($("play").hidden) return;
  const tag = (ev.target && ev.target.tagName) || "";
  if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
  if (ev.key === "ArrowLeft") { step(-1); ev.preventDefault(); }
  else if (ev.key === "ArrowRight") { step(1); ev.preventDefault(); }
  else if (ev.key === "Home") { goTo(0); ev.preventDefault(); }
  else if (ev.key === "End") { goTo(turnCount()); ev.preventDefault(); }
});
$("nav-first").addEventListener("click", () => goTo(0));
$("nav-prev").addEventListener("click", () => step(-1));
$("nav-next").addEventListener("click", () => step(1));
$("nav-last").addEventListener("click", () => goTo(turnCount()));

// ---------------------------------------------------------------- engine warm-up notice
// The very first run of a server compiles the AI (it takes tens of seconds); GET
// /api/warmup says how far it is. The notice shows while it compiles and goes once it is
// ready; the page asks at load and whenever the computer is to move.
let warmupTimer = null;
async function watchWarmup() {
  if (warmupTimer !== null) return;
  let info = null;
  try { info = await api("GET", "/api/warmup"); } catch (e) { return; }
  const box = $("warmup");
  if (!info || info.ready || !info.compiling) { box.hidden = true; return; }
  box.textContent = info.message;
  box.hidden = false;
  warmupTimer = setTimeout(() => { warmupTimer = null; watchWarmup(); }, 1000);
}

watchWarmup();
const path = location.pathname;
const m = path.match(/^\/g\/([A-Za-z0-9]+)$/);
if (m) showGame(m[1]);
else if (path === "/replay") showReplayHome();
else showHome();
