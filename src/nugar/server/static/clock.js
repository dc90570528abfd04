// nugar clocks: the time control chosen on the home page, and both players' clocks ticking on
// the game page. The server keeps the time (each state carries both players' time left as of
// the server's "now"); this page only counts down from there between two states.
import { api } from "./common.js";
import { player, t, tn } from "./i18n.js";

const CHOICES = [
  ["", t("no clock")], ["1+0", t("1 min")], ["3+2", t("3 min + 2 s")], ["5+3", t("5 min + 3 s")],
  ["10+5", t("10 min + 5 s")], ["15+10", t("15 min + 10 s")], ["30+20", t("30 min + 20 s")],
  ["1d", t("1 day per move")], ["3d", t("3 days per move")], ["7d", t("7 days per move")],
  ["custom", t("other...")],
];
const tick = { clock: null, at: 0, timer: null, game: null, poked: false, names: null,
  seat: null };

// --- home page: the time control of a new game or challenge --------------------------------
export function addClockChoice() {
  const form = document.getElementById("new-game");
  if (!form || document.getElementById("clock-choice")) return;
  const label = document.createElement("label");
  label.id = "clock-label";
  label.append(t("Time control"), " ");
  const sel = document.createElement("select");
  sel.id = "clock-choice";
  for (const [value, text] of CHOICES) {
    const o = document.createElement("option");
    o.value = value;
    o.textContent = text;
    sel.appendChild(o);
  }
  const custom = document.createElement("input");
  custom.id = "clock-custom";
  custom.placeholder = t("5+3 or 3d");
  custom.size = 8;
  custom.hidden = true;
  custom.setAttribute("aria-label", t("time control: minutes+increment or days per move"));
  sel.addEventListener("change", () => { custom.hidden = sel.value !== "custom"; });
  label.append(sel, " ", custom);
  const start = document.getElementById("start");
  form.insertBefore(label, start ? start.parentElement : null);
}

// a time control ("5+3", "0.5+0", "3d") in the page's language: "3 days per move", "5 min +
// 3 s per move" (the server's own `describe` is English, for the API's readers)
export function describe(control) {
  const days = /^(\d+)d$/.exec(control);
  if (days) {
    const n = Number(days[1]);
    return tn("{n} day per move", "{n} days per move", n, { n });
  }
  const [minutes, increment] = control.split("+").map(Number);
  const base = minutes < 1 ? t("{s} s", { s: Math.round(minutes * 60) })
    : t("{m} min", { m: minutes });
  return t("{base} + {inc} s per move", { base, inc: increment });
}

// the chosen time control as the API reads it ("5+3", "3d"), or null for none
export function choice() {
  const sel = document.getElementById("clock-choice");
  if (!sel || !sel.value) return null;
  if (sel.value === "custom") {
    const text = document.getElementById("clock-custom").value.trim();
    return text || null;
  }
  return sel.value;
}

// --- game page: both clocks ----------------------------------------------------------------
// a clock's time left as people read it: "2d 5h" for a correspondence clock with a day or
// more left, else h:mm:ss, mm:ss (and tenths under 10 s)
export function format(seconds, kind) {
  const s = Math.max(0, seconds);
  if (kind === "days" && s >= 86400) {
    const d = Math.floor(s / 86400);
    const h = Math.floor((s % 86400) / 3600);
    return t("{d}d {h}h", { d, h });
  }
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const two = (n) => String(n).padStart(2, "0");
  if (h > 0) return `${h}:${two(m)}:${two(Math.floor(sec))}`;
  if (s < 10) return `${two(m)}:${sec.toFixed(1).padStart(4, "0")}`;
  return `${two(m)}:${two(Math.floor(sec))}`;
}

function left(player) {
  const c = tick.clock;
  let t = c.left[player - 1];
  if (c.running === player) t -= (performance.now() - tick.at) / 1000;
  return Math.max(0, t);
}

// the players whose seat nobody has opened yet: a game by link waits for both players to
// open their links before any timer or clock runs
function waiting() {
  const c = tick.clock;
  return c && Array.isArray(c.waiting) ? c.waiting : [];
}

function waitingText() {
  const w = waiting();
  if (w.length === 0) return "";
  if (w.length === 2) {
    return t("Waiting for both players to open their links: no clock runs until both players are here");
  }
  const who = tick.names[w[0] - 1];
  if (tick.seat === 3 - w[0]) {
    return t("Waiting for your opponent ({who}) to open the link: no clock runs until both players are here", { who });
  }
  return t("Waiting for {who} to open the link: no clock runs until both players are here", { who });
}

// seconds left for the awaited first move (the server aborts the game at zero), or null
function firstLeft() {
  const c = tick.clock;
  if (!c.first || c.first_left === null || c.first_left === undefined) return null;
  return Math.max(0, c.first_left - (performance.now() - tick.at) / 1000);
}

function draw() {
  const box = document.getElementById("clocks");
  if (!box || !tick.clock) return;
  const first = box.querySelector(".first-move");
  const note = box.querySelector(".waiting");
  note.textContent = waitingText();
  note.hidden = note.textContent === "";
  const wait = firstLeft();
  first.hidden = wait === null;
  if (wait !== null) {
    const who = tick.names[tick.clock.first - 1];
    first.textContent = t("{who} must make a first move within {time}, or the game is aborted",
      { who, time: format(wait, tick.clock.kind) });
    first.dataset.left = wait.toFixed(1);
    if (wait <= 0 && !tick.poked && tick.game) {
      tick.poked = true;  // the server aborts the game by itself; asking shows it sooner
      setTimeout(() => { api("GET", `/api/games/${tick.game}`).catch(() => {}); }, 300);
    }
  }
  for (const p of [1, 2]) {
    const row = box.querySelector(`[data-player="${p}"]`);
    const t = left(p);
    row.querySelector(".time").textContent = format(t, tick.clock.kind);
    row.classList.toggle("running", tick.clock.running === p);
    row.classList.toggle("low", t < 10 && tick.clock.kind === "fischer");
    row.dataset.left = t.toFixed(1);
  }
  const running = tick.clock.running;
  if (running && left(running) <= 0 && !tick.poked && tick.game) {
    // the server lets the flag fall by itself; asking now only makes it show sooner
    tick.poked = true;
    setTimeout(() => { api("GET", `/api/games/${tick.game}`).catch(() => {}); }, 300);
  }
}

// seat: the seat this page holds (1, 2; 0 for both; null for a spectator)
export function show(state, seat) {
  const box = document.getElementById("clocks");
  if (!box) return;
  tick.seat = seat === undefined ? null : seat;
  if (!state || !state.clock) { box.hidden = true; stop(); return; }
  tick.clock = state.clock;
  tick.at = performance.now();
  tick.game = state.id;
  tick.poked = false;
  if (!box.childElementCount) {
    const title = document.createElement("p");
    title.className = "info clock-control";
    box.appendChild(title);
    const first = document.createElement("p");
    first.className = "info first-move";
    first.setAttribute("role", "timer");
    first.hidden = true;
    box.appendChild(first);
    const note = document.createElement("p");
    note.className = "info waiting";
    note.setAttribute("role", "status");
    note.hidden = true;
    box.appendChild(note);
    for (const p of [1, 2]) {
      const row = document.createElement("div");
      row.className = "clock";
      row.dataset.player = String(p);
      const who = document.createElement("span");
      who.className = "who";
      const time = document.createElement("span");
      time.className = "time";
      time.setAttribute("role", "timer");
      row.append(who, time);
      box.appendChild(row);
    }
  }
  box.querySelector(".clock-control").textContent = state.clock.running === null && !state.over
    ? t("Clock: {clock} (starts with the first move)", { clock: describe(state.clock.control) })
    : t("Clock: {clock}", { clock: describe(state.clock.control) });
  const names = (state.players || [t("First"), t("Second")]).map(player);
  tick.names = names;
  for (const p of [1, 2]) {
    box.querySelector(`[data-player="${p}"] .who`).textContent = `${names[p - 1]}`;
  }
  box.hidden = false;
  draw();
  const ticking = (state.clock.running || state.clock.first) && waiting().length === 0;
  if (ticking && tick.timer === null) tick.timer = setInterval(draw, 100);
  if (!ticking) stop();
}

function stop() {
  if (tick.timer !== null) { clearInterval(tick.timer); tick.timer = null; }
}
