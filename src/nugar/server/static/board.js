// nugar board drawing: the SVG picture of a position, drawn in the browser from the board data
// the server sends (`board` of a state, an update, a position or a replay). Plain JS, no build
// step; an ES module. It writes the same markup as the server's Python drawing
// (nugar.server.play.render.svg), character for character: tests/test_board_js.py compares
// the two on many positions of every rule set. Change both together.
//
// Alignment boards put the first player's side (row 1) at the bottom; sowing boards put the
// first player's holes at the bottom, numbered from his left, with his store on the right.
// The picture is an ARIA grid: rows of squares (or of holes with a store) are role="row"
// groups, each square, hole or store a role="gridcell" with a label saying what is there,
// focusable by script (tabindex="-1"); squares carry data-square="c3", holes data-player,
// data-hole and data-cell, which the page uses to make them clickable and to animate sowings.
// The labels are in the page's language (i18n.js; English on a page without its catalog,
// as in the test that compares this drawing with the server's).
import { player, rtl, t, tn } from "./i18n.js";

const SQUARE = 56;
const HOLE = 64;
const MARGIN = 26;  // a grid board's margin (row labels)
const BAND = 30;    // a grid board's bands above and below (pieces in hand)
const FILES = "abcdefghijklmnopqrstuvwxyz";
const PIECE_FILL = { 1: "#1d1d1f", 2: "#fbfbf7" };
const PIECE_EDGE = { 1: "#000", 2: "#555" };

// a number with no decimals as Python's format(x, ".0f") writes it: to the nearest integer,
// an exact half to the even one
function f0(x) {
  let r = Math.round(x);
  if (Math.abs(x - Math.trunc(x)) === 0.5) r = 2 * Math.round(x / 2);
  return String(r === 0 ? 0 : r);
}

// text for markup, as Python's html.escape (quotes included)
function esc(s) {
  // split and join, not regular expressions: pybabel's script reader loses its way in
  // these (and would miss the messages after them)
  return [["&", "&amp;"], ["<", "&lt;"], [">", "&gt;"], ['"', "&quot;"], ["'", "&#x27;"]]
    .reduce((out, [from, to]) => out.split(from).join(to), String(s));
}

function seeds(count) { return tn("{n} seed", "{n} seeds", count, { n: count }); }

// the moves of a turn from their texts ("c3", "c3-c4", "xe5", "pass", "4")
function readMoves(texts) {
  const out = [];
  for (const t of texts || []) {
    const s = String(t);
    if (/^[0-9]+$/.test(s)) out.push({ kind: "sow", hole: Number(s) });
    else if (s === "pass") out.push({ kind: "pass" });
    else if (s.startsWith("x")) out.push({ kind: "capture", squares: [s.slice(1)] });
    else if (s.includes("-")) out.push({ kind: "step", squares: s.split("-") });
    else out.push({ kind: "drop", squares: [s] });
  }
  return out;
}

// the label, then up to 12 pieces after it (8 units a letter: a count in the hundreds never
// runs into them), as many as fit the board's width
function handRow(player, y, count, name, width) {
  // in a right-to-left language the label reads right to left inside the left-to-right
  // board (RLI ... PDI): « الأبيض في اليد: 12 », not « في اليد: 12 الأبيض »
  const said = t("{name} in hand: {count}", { name, count });
  const label = rtl ? `\u2067${said}\u2069` : said;
  const parts = [`<g class="hand" data-player="${player}" aria-hidden="true">`,
    `<text x="${MARGIN}" y="${f0(y + 5)}" font-size="13" fill="#333">${label}</text>`];
  const first = MARGIN + 16 + 8 * label.length;
  const shown = Math.max(0, Math.min(count, 12, Math.floor((width - 10 - first) / 14)));
  for (let i = 0; i < shown; i++) {
    const cx = first + i * 14;
    parts.push(`<circle cx="${cx}" cy="${f0(y)}" r="6" fill="${PIECE_FILL[player]}" `
      + `stroke="${PIECE_EDGE[player]}"/>`);
  }
  parts.push("</g>");
  return parts.join("");
}

function square(name, x, y, classes, fill, what, owner, captured, lit) {
  const out = [`<g class="${classes}" data-square="${name}" role="gridcell" `
    + `tabindex="-1" aria-label="${name}, ${what}">`
    + `<rect x="${x}" y="${y}" width="${SQUARE}" height="${SQUARE}" `
    + `fill="${fill}" stroke="#8a6d45" stroke-width="1"/>`];
  const cx = x + SQUARE / 2;
  const cy = y + SQUARE / 2;
  if (owner === 1 || owner === 2) {
    out.push(`<circle class="piece p${owner}" cx="${f0(cx)}" cy="${f0(cy)}" `
      + `r="${(SQUARE * 0.36).toFixed(1)}" fill="${PIECE_FILL[owner]}" `
      + `stroke="${PIECE_EDGE[owner]}" stroke-width="2"/>`);
  }
  if (captured) {
    const d = SQUARE * 0.22;
    out.push(`<path class="captured" d="M${f0(cx - d)},${f0(cy - d)} `
      + `L${f0(cx + d)},${f0(cy + d)} M${f0(cx + d)},${f0(cy - d)} `
      + `L${f0(cx - d)},${f0(cy + d)}" stroke="#c0392b" stroke-width="4" `
      + `stroke-linecap="round"/>`);
  }
  if (lit) {
    out.push(`<circle class="dot" cx="${f0(cx)}" cy="${f0(cy)}" r="7" `
      + `fill="#2e86de" fill-opacity="0.6"/>`);
  }
  out.push("</g>");
  return out.join("");
}

function gridSvg(v, board, marks, lit) {
  const { rows, cols, grid, hands } = board;
  const width = MARGIN + cols * SQUARE + 10;
  const height = BAND + rows * SQUARE + MARGIN + BAND;
  const movedTo = new Set();
  const movedFrom = new Set();
  const captured = new Set();
  for (const m of marks) {
    if (m.kind === "drop") movedTo.add(m.squares[0]);
    else if (m.kind === "step") { movedFrom.add(m.squares[0]); movedTo.add(m.squares[1]); }
    else if (m.kind === "capture") captured.add(m.squares[0]);
  }
  const names = v.players.map(player);
  const inHand = [1, 2].map((p) => t("{name} {count} in hand", { name: names[p - 1], count: hands[p - 1] }))
    .join(", ");
  const said = t("{game} board, {rows} by {cols}; {hands}", { game: esc(v.game), rows, cols, hands: inHand });
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" class="board alignment" `
    + `viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="grid" `
    + `aria-label="${said}">`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#f3e3c3" rx="8"/>`];
  out.push(handRow(2, BAND / 2 + 2, hands[1], names[1], width));
  const what = { 1: t("{name} piece", { name: names[0] }), 2: t("{name} piece", { name: names[1] }) };
  for (let r = rows - 1; r >= 0; r--) {  // the top row first: the order a screen reader reads
    const y = BAND + (rows - 1 - r) * SQUARE;
    out.push(`<text x="${f0(MARGIN / 2)}" y="${f0(y + SQUARE / 2 + 5)}" font-size="13" `
      + `text-anchor="middle" fill="#5a4630" aria-hidden="true">${r + 1}</text>`
      + `<g role="row" aria-rowindex="${rows - r}">`);
    const row = grid[r];
    for (let c = 0; c < cols; c++) {
      const name = `${FILES[c]}${r + 1}`;
      const x = MARGIN + c * SQUARE;
      let fill = (r + c) % 2 === 0 ? "#e8cfa0" : "#dfc18e";
      const owner = row[c];
      const classes = ["sq"];
      if (movedFrom.has(name)) { classes.push("from"); fill = "#f1e08a"; }
      if (movedTo.has(name)) { classes.push("last"); fill = "#f6e27a"; }
      if (lit.has(name)) classes.push("lit");
      out.push(square(name, x, y, classes.join(" "), fill, what[owner] || t("empty"), owner,
        captured.has(name), lit.has(name)));
    }
    out.push("</g>");
  }
  const base = BAND + rows * SQUARE;
  for (let c = 0; c < cols; c++) {
    out.push(`<text x="${f0(MARGIN + c * SQUARE + SQUARE / 2)}" y="${f0(base + 17)}" `
      + `font-size="13" text-anchor="middle" fill="#5a4630" `
      + `aria-hidden="true">${FILES[c]}</text>`);
  }
  out.push(handRow(1, BAND + rows * SQUARE + MARGIN + BAND / 2 - 2, hands[0], names[0], width));
  out.push("</svg>");
  return out.join("");
}

function pitsSvg(v, board, marks, lit) {
  const [holes1, holes2] = board.holes;
  const [store1, store2] = board.stores;
  const pits = board.pits;
  const names = v.players.map(player);
  const pad = 10;
  const width = pad * 2 + (pits + 2) * HOLE;
  const height = pad * 2 + 2 * HOLE + 44;
  const sown = new Set(marks.filter((m) => m.kind === "sow").map((m) => m.hole));
  const lastPlayer = marks.length ? v.last_mover : null;
  const storesSaid = [1, 2].map((p) => t("{name}'s store {seeds}",
    { name: names[p - 1], seeds: seeds(board.stores[p - 1]) })).join(", ");
  const said = tn("{game} board, {pits} hole a side; {stores}", "{game} board, {pits} holes a side; {stores}",
    pits, { game: esc(v.game), pits, stores: esc(storesSaid) });
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" class="board sowing" `
    + `viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="grid" `
    + `aria-label="${said}">`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#8b5a2b" rx="16"/>`];

  const hole = (player, k, count, x, y) => {
    const cell = player === 1 ? k - 1 : pits + 1 + k - 1;
    const classes = ["hole"];
    if (player === lastPlayer && sown.has(k)) classes.push("last");
    if (player === v.to_move && lit.has(String(k))) classes.push("lit");
    const label = t("{name} hole {hole}, {seeds}", { name: names[player - 1], hole: String(k), seeds: seeds(count) });
    const ring = classes.includes("last") ? "#f6e27a" : "#5e3a17";
    return `<g class="${classes.join(" ")}" data-player="${player}" data-hole="${k}" `
      + `data-cell="${cell}" role="gridcell" tabindex="-1" aria-label="${label}">`
      + `<circle cx="${f0(x)}" cy="${f0(y)}" r="${f0(HOLE * 0.4)}" `
      + `fill="#6b4220" stroke="${ring}" stroke-width="3"/>`
      + `<text class="count" x="${f0(x)}" y="${f0(y + 7)}" font-size="20" `
      + `text-anchor="middle" fill="#fff4dc">${count}</text></g>`;
  };

  const topY = pad + 18 + HOLE / 2;
  const bottomY = topY + HOLE;

  const store = (player, count, x) => {
    const cell = player === 1 ? pits : 2 * pits + 1;
    const label = t("{name}'s store, {seeds}", { name: names[player - 1], seeds: seeds(count) });
    return `<g class="store" data-player="${player}" data-cell="${cell}" role="gridcell" `
      + `tabindex="-1" aria-label="${esc(label)}">`
      + `<rect x="${f0(x + 6)}" y="${f0(topY - HOLE * 0.4)}" width="${HOLE - 12}" `
      + `height="${f0(HOLE * 1.8)}" rx="24" fill="#6b4220" stroke="#5e3a17" `
      + `stroke-width="3"/><text class="count" x="${f0(x + HOLE / 2)}" `
      + `y="${f0((topY + bottomY) / 2 + 8)}" font-size="24" text-anchor="middle" `
      + `fill="#fff4dc">${count}</text></g>`;
  };

  const xs = [];
  for (let i = 0; i < pits; i++) xs.push(pad + (i + 1) * HOLE + HOLE / 2);
  // the second player's row: his store on the left, then his holes, numbered right to left
  // as the first player sees them
  out.push('<g role="row" aria-rowindex="1">');
  out.push(store(2, store2, pad));
  xs.forEach((x, i) => { const k2 = pits - i; out.push(hole(2, k2, holes2[k2 - 1], x, topY)); });
  out.push("</g>");
  // the first player's row: his holes from his left, then his store on the right
  out.push('<g role="row" aria-rowindex="2">');
  xs.forEach((x, i) => out.push(hole(1, i + 1, holes1[i], x, bottomY)));
  out.push(store(1, store1, pad + (pits + 1) * HOLE));
  out.push("</g>");
  xs.forEach((x, i) => {
    out.push(`<text x="${f0(x)}" y="${pad + 12}" font-size="11" text-anchor="middle" `
      + `fill="#f3dcb5" aria-hidden="true">${pits - i}</text>`);
    out.push(`<text x="${f0(x)}" y="${f0(bottomY + HOLE / 2 + 16)}" font-size="11" `
      + `text-anchor="middle" fill="#f3dcb5" aria-hidden="true">${i + 1}</text>`);
  });
  out.push(`<text x="${f0(pad + HOLE / 2)}" y="${height - 8}" font-size="11" `
    + `text-anchor="middle" fill="#f3dcb5" aria-hidden="true">${names[1]}</text>`);
  out.push(`<text x="${f0(pad + (pits + 1.5) * HOLE)}" y="${height - 8}" font-size="11" `
    + `text-anchor="middle" fill="#f3dcb5" aria-hidden="true">${names[0]}</text>`);
  out.push("</svg>");
  return out.join("");
}

// The SVG markup of a position. `view` holds what a state sends: `board` (the board data),
// `game` (its name), `players` (the two names), `last_turn` (the texts of the moves to
// mark: the last turn's) and `last_mover` (who played them); with `highlight` (square
// names, or hole numbers of `to_move`) those cells are lit, as Python's `highlight`.
export function svg(view) {
  const board = view.board;
  const marks = readMoves(view.last_turn);
  const lit = new Set((view.highlight || []).map(String));
  if (board.pits !== undefined) return pitsSvg(view, board, marks, lit);
  return gridSvg(view, board, marks, lit);
}

// the player (1 or 2) whose piece stands on the square ``sq`` ("c3") of a grid board, 0 if none
export function ownerOf(board, sq) {
  const row = board.grid && board.grid[Number(sq.slice(1)) - 1];
  return row ? row[sq.charCodeAt(0) - 97] : 0;
}
