// Playing on the board by clicks and keys, for the game page (game.js) and the lessons
// (learn.js) alike (an ES module). The server's list of legal moves is the only source of
// what may be played: this module reads a click against it (a move, a piece chosen to step,
// or what the refusal is about), marks what may be clicked, and moves the keyboard's focus
// over the board's ARIA grid (arrows; Home and End along a row; Enter or Space plays the
// cell), each page saying in its own words why a click is refused.
//
// A position here is what a state or a lesson step sends: {family, board, to_move, legal}.
import { ownerOf } from "./board.js";

// the cells a click or a key may play
const CELL = "[data-square], [data-hole], .store";
const SVGNS = "http://www.w3.org/2000/svg";

// a cell's name, the same in every drawing of the board: "c3", "1:4" (a hole), "store:2"
export function cellKey(el) {
  if (el.dataset.square) return el.dataset.square;
  if (el.dataset.hole) return `${el.dataset.player}:${el.dataset.hole}`;
  return `store:${el.dataset.player}`;
}

export function cellByKey(root, key) {
  if (!root || !key) return null;
  if (key.startsWith("store:")) return root.querySelector(`.store[data-player="${key.slice(6)}"]`);
  if (key.includes(":")) {
    const [p, h] = key.split(":");
    return root.querySelector(`[data-player="${p}"][data-hole="${h}"]`);
  }
  return root.querySelector(`[data-square="${key}"]`);
}

// the squares next to a square (a step's targets), from the board's size
export function neighbours(board, sq) {
  const c = sq.charCodeAt(0) - 97;
  const r = Number(sq.slice(1)) - 1;
  const out = [];
  for (const [dc, dr] of [[0, 1], [0, -1], [-1, 0], [1, 0]]) {
    const cc = c + dc, rr = r + dr;
    if (cc >= 0 && rr >= 0 && cc < board.cols && rr < board.rows) out.push(String.fromCharCode(97 + cc) + (rr + 1));
  }
  return out;
}

const isDrop = (m) => /^[a-z]\d+$/.test(m);

// What a click on `cell` means in the position `pos`, with the piece `selected` chosen (a
// square, or null):
//   { play: "c3-c4" }                 a legal move: play it
//   { select: "c3" } / { select: null }   a piece chosen to step, or chosen again: let go
//   { refuse, square, from, ask }     not a legal move: `refuse` says what the click was
//     ("store", "other-hole": the other player's hole, "hole": an own hole not playable now,
//     "capture": a capture is due, "drop", "stuck": an own piece with no step, "opponent":
//     the other player's piece, "step": a step of the chosen piece, "empty": an empty
//     square with nothing chosen) and `ask` the moves whose refusal the engine can explain
export function choose(pos, selected, cell) {
  const moves = pos.legal || [];
  if (pos.family === "sowing") {
    if (!cell.dataset.hole) return { refuse: "store", ask: [] };
    const hole = cell.dataset.hole;
    if (Number(cell.dataset.player) !== pos.to_move) return { refuse: "other-hole", ask: [] };
    return moves.includes(hole) ? { play: hole } : { refuse: "hole", square: hole, ask: [hole] };
  }
  const sq = cell.dataset.square;
  if (!sq) return { refuse: "empty", ask: [] };
  if (selected && moves.includes(`${selected}-${sq}`)) return { play: `${selected}-${sq}` };
  if (moves.includes(sq)) return { play: sq };
  if (moves.includes(`x${sq}`)) return { play: `x${sq}` };
  if (moves.some((m) => m.startsWith(`${sq}-`))) return { select: selected === sq ? null : sq };
  const out = { square: sq, from: selected };
  if (moves.length && moves.every((m) => m.startsWith("x"))) {
    return { ...out, refuse: "capture", ask: [sq, `x${sq}`] };  // a capture is due
  }
  if (moves.some(isDrop) || !moves.some((m) => m.includes("-"))) return { ...out, refuse: "drop", ask: [sq] };
  // the step phase
  const owner = ownerOf(pos.board, sq);
  if (owner === pos.to_move) {
    return { ...out, refuse: "stuck", ask: neighbours(pos.board, sq).map((n) => `${sq}-${n}`) };
  }
  if (owner) return { ...out, refuse: "opponent", ask: [`${sq}-${neighbours(pos.board, sq)[0]}`] };
  if (selected) return { ...out, refuse: "step", ask: [`${selected}-${sq}`] };
  return { ...out, refuse: "empty", ask: [] };
}

// the pieces that have a step now
export function steppers(pos) {
  return [...new Set((pos.legal || []).filter((m) => m.includes("-")).map((m) => m.split("-")[0]))];
}

function addDot(el) {
  // a small marker in the middle of a square: a legal drop or step target
  const r = el.querySelector("rect");
  if (!r) return;
  const c = document.createElementNS(SVGNS, "circle");
  c.setAttribute("cx", String(Number(r.getAttribute("x")) + Number(r.getAttribute("width")) / 2));
  c.setAttribute("cy", String(Number(r.getAttribute("y")) + Number(r.getAttribute("height")) / 2));
  c.setAttribute("r", "7");
  c.setAttribute("class", "legal-dot");
  el.appendChild(c);
}

// the marks of what may be played, taken off the drawing
export function unmark(svg) {
  for (const el of svg.querySelectorAll(".legal-dot")) el.remove();
  for (const el of svg.querySelectorAll(".lit, .sel, .target, .cap-target, .hinted")) {
    el.classList.remove("lit", "sel", "target", "cap-target", "hinted");
  }
}

// mark on the drawing `svg` what may be played in `pos`: the holes, drops and captures, the
// pieces that can step and, with one chosen (`selected`), its targets
export function mark(svg, pos, selected) {
  const moves = pos.legal || [];
  const at = (sq) => svg.querySelector(`[data-square="${sq}"]`);
  if (pos.family === "sowing") {
    for (const m of moves) {
      const el = svg.querySelector(`[data-player="${pos.to_move}"][data-hole="${m}"]`);
      if (el) el.classList.add("lit");
    }
    return;
  }
  for (const m of moves) {
    if (isDrop(m)) {
      const el = at(m);
      if (el) { el.classList.add("lit"); addDot(el); }
    } else if (m.startsWith("x")) {
      const el = at(m.slice(1));
      if (el) el.classList.add("lit", "cap-target");
    } else if (m.includes("-")) {
      const [from, to] = m.split("-");
      const el = at(from);
      if (el) el.classList.add("lit");
      if (selected === from) {
        const target = at(to);
        if (target) { target.classList.add("target"); addDot(target); }
      }
    }
  }
  if (selected) {
    const el = at(selected);
    if (el) el.classList.add("sel");
  }
}

// what a screen reader says of each cell: its contents (drawn by board.js) and what it
// offers now ("c3, empty, playable"; the chosen piece is aria-selected); `words` names the
// marks in the page's language: {sel, target, capture, lit, hinted}
export function label(svg, words) {
  for (const el of svg.querySelectorAll('[role="gridcell"]')) {
    if (el.dataset.label === undefined) el.dataset.label = el.getAttribute("aria-label") || "";
    const notes = [];
    if (el.classList.contains("sel")) notes.push(words.sel);
    else if (el.classList.contains("target")) notes.push(words.target);
    else if (el.classList.contains("cap-target")) notes.push(words.capture);
    else if (el.classList.contains("lit")) notes.push(words.lit);
    if (el.classList.contains("hinted")) notes.push(words.hinted);
    el.setAttribute("aria-label", [el.dataset.label, ...notes].join(", "));
    el.setAttribute("aria-selected", el.classList.contains("sel") ? "true" : "false");
  }
}

// Clicks and keys on the board element `el` (which holds the drawing): `play(cell)` is called
// for a click, or Enter or Space, on a cell. Returns what the page calls after drawing:
// `draw(markup)` replaces the drawing, the keyboard's focus kept on the board, and `roving()`
// gives the one cell reachable by Tab (the one last focused, else a playable one, else the
// first), focused again when the board had the focus.
export function boardInput(el, play) {
  const focus = { key: null, on: false };

  function focusCell(cell) {
    const svg = el.querySelector("svg");
    if (!svg) return;
    for (const c of svg.querySelectorAll('[role="gridcell"][tabindex="0"]')) c.setAttribute("tabindex", "-1");
    cell.setAttribute("tabindex", "0");
    focus.key = cellKey(cell);
    cell.focus();
  }

  el.addEventListener("click", (ev) => {
    const cell = ev.target.closest(CELL);
    if (cell) play(cell);
  });
  // arrows move the focus, Enter or Space plays the cell
  el.addEventListener("keydown", (ev) => {
    const cell = ev.target.closest && ev.target.closest('[role="gridcell"]');
    if (!cell) return;
    const rows = [...el.querySelectorAll('[role="row"]')];
    const r = rows.findIndex((row) => row.contains(cell));
    const cells = [...rows[r].querySelectorAll('[role="gridcell"]')];
    const c = cells.indexOf(cell);
    let to = null;
    if (ev.key === "ArrowLeft") to = cells[c - 1];
    else if (ev.key === "ArrowRight") to = cells[c + 1];
    else if (ev.key === "ArrowUp" || ev.key === "ArrowDown") {
      // the cell of the row above or below nearest to this one across
      const row = rows[r + (ev.key === "ArrowUp" ? -1 : 1)];
      const mid = (o) => { const b = o.getBoundingClientRect(); return b.left + b.width / 2; };
      if (row) {
        const x = mid(cell);
        for (const o of row.querySelectorAll('[role="gridcell"]')) {
          if (!to || Math.abs(mid(o) - x) < Math.abs(mid(to) - x)) to = o;
        }
      }
    } else if (ev.key === "Home") to = cells[0];
    else if (ev.key === "End") to = cells[cells.length - 1];
    else if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      ev.stopPropagation();
      play(cell);
      return;
    } else return;
    ev.preventDefault();
    ev.stopPropagation();
    if (to) focusCell(to);
  });
  el.addEventListener("focusout", (ev) => {
    if (!ev.relatedTarget || !el.contains(ev.relatedTarget)) focus.on = false;
  });
  el.addEventListener("focusin", (ev) => {
    focus.on = true;
    const cell = ev.target.closest && ev.target.closest('[role="gridcell"]');
    if (cell) focus.key = cellKey(cell);  // focused by Tab, a click or a script
  });

  return {
    // draw `markup` on the board; a focus on the board stays there (on the new drawing's cell)
    draw(markup) {
      const had = el.contains(document.activeElement);
      el.innerHTML = markup;
      if (had) focus.on = true;  // removing the focused cell took the focus away
    },
    roving() {
      const svg = el.querySelector("svg");
      const cells = svg ? svg.querySelectorAll('[role="gridcell"]') : [];
      if (!cells.length) return;
      const pick = cellByKey(svg, focus.key) || svg.querySelector('[role="gridcell"].lit') || cells[0];
      for (const c of cells) c.setAttribute("tabindex", c === pick ? "0" : "-1");
      if (focus.on && document.activeElement !== pick) pick.focus({ preventScroll: true });
    },
  };
}
