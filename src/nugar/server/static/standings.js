// A player's page (/players/NAME: ratings per preset, a rating graph per preset drawn as
// SVG here, finished games newest first, paged; on the signed-in player's own page his games
// in progress, those waiting for his move first) and the leaderboard (/leaderboard?rules=).
import { describe, format as timeLeft } from "./clock.js";
import { $ as byId, api, link } from "./common.js";
import { lang, num, t, tn } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";

function cell(row, content) {
  const td = document.createElement("td");
  if (content instanceof Node) td.append(content); else td.textContent = content;
  row.append(td);
}

// the table `tableId` with a row for each of `items` (its cells from `cells(item)`), shown
// when there are any; else the note `emptyId`
function rows(tableId, emptyId, items, cells) {
  const table = byId(tableId);
  table.hidden = items.length === 0;
  byId(emptyId).hidden = items.length > 0;
  const body = table.tBodies[0];
  body.textContent = "";
  for (const item of items) {
    const row = document.createElement("tr");
    for (const content of cells(item)) cell(row, content);
    body.append(row);
  }
}

function svgEl(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

// one preset's ratings after each rated game, as a line over the games' order
function graph(preset, points) {
  const W = 600, H = 180, PAD = 36;
  const values = points.map((p) => p.rating);
  let lo = Math.min(...values), hi = Math.max(...values);
  if (hi - lo < 50) { lo -= 25; hi += 25; }
  const x = (i) => PAD + (points.length === 1 ? (W - 2 * PAD) / 2 : i * (W - 2 * PAD) / (points.length - 1));
  const y = (v) => H - PAD / 2 - (v - lo) * (H - PAD) / (hi - lo);
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": tn("{preset} rating over {n} rated game", "{preset} rating over {n} rated games",
      points.length, { preset, n: points.length }) });
  svg.dataset.preset = preset;
  for (const v of [lo, (lo + hi) / 2, hi]) {
    svg.append(svgEl("line", { x1: PAD, x2: W - PAD / 2, y1: y(v), y2: y(v) }));
    const t = svgEl("text", { x: 2, y: y(v) + 4 });
    t.textContent = String(Math.round(v));
    svg.append(t);
  }
  svg.append(svgEl("polyline", { points: points.map((p, i) => `${x(i)},${y(p.rating)}`).join(" ") }));
  points.forEach((p, i) => {
    const c = svgEl("circle", { cx: x(i), cy: y(p.rating), r: 3 });
    const title = svgEl("title", {});
    title.textContent = t("{rating} after game {game}", { rating: Math.round(p.rating), game: String(p.game) });
    c.append(title);
    svg.append(c);
  });
  const box = document.createElement("div");
  const h = document.createElement("h3");
  h.textContent = t("{preset}: rating over rated games", { preset });
  box.append(h, svg);
  return box;
}

// counts as the page's language writes them; ratings stay as the server writes them
const RESULT = { win: t("won"), loss: t("lost"), draw: t("draw"), aborted: t("aborted") };
// a date as the page's language writes it (0-9 digits, as every number on the pages)
const DATE = new Intl.DateTimeFormat(lang,
  { year: "numeric", month: "short", day: "numeric", numberingSystem: "latn", timeZone: "UTC" });

async function profile(name) {
  byId("profile").hidden = false;
  byId("profile-name").textContent = name;
  document.title = `${name} - nugar`;
  let page = Number(new URLSearchParams(location.search).get("page") || "1") || 1;
  let data;
  try {
    data = await api("GET", `/api/players/${encodeURIComponent(name)}?page=${page}`);
  } catch (e) {
    byId("profile-error").textContent = e.message;
    return;
  }
  byId("profile-name").textContent = data.username;
  rows("profile-ratings", "profile-unrated", Object.entries(data.ratings), ([preset, r]) =>
    [preset, r.display, num(Math.round(r.deviation)), num(r.games)]);
  const graphs = byId("graphs");
  graphs.textContent = "";
  for (const [preset, points] of Object.entries(data.history)) graphs.append(graph(preset, points));
  rows("profile-games", "profile-nogames", data.games, (g) => {
    const change = g.rating_change;
    return [link(`/g/${g.id}`, g.rules), g.opponent || t("anonymous"),
      `${RESULT[g.result] || ""} ${g.score || ""}`.trim(),
      change === null ? (g.rated ? "" : t("unrated"))
        : `${change >= 0 ? "+" : "\u2212"}${Math.abs(Math.round(change))}`,
      DATE.format(new Date(g.ended * 1000))];
  });
  const turn = (to) => { location.search = `?page=${to}`; };
  byId("games-newer").hidden = page <= 1;
  byId("games-older").hidden = !data.more;
  byId("games-newer").onclick = () => turn(page - 1);
  byId("games-older").onclick = () => turn(page + 1);
}

// the signed-in player's games in progress, when this page is his (GET /api/me/games)
async function myGames(name, page = 1) {
  let mine;
  try {
    const me = await api("GET", "/api/me");
    if (me.username.toLowerCase() !== name.toLowerCase()) return;
    mine = await api("GET", `/api/me/games?page=${page}`);
  } catch (e) {
    return;  // signed out (or the server away): the page shows what anyone sees
  }
  byId("my-games").hidden = false;
  rows("my-games-table", "my-games-none", mine.games, (g) => {
    const game = link(`/g/${g.id}`, g.rules);
    if (g.clock) game.title = describe(g.clock.control);
    const row = [game, g.opponent || "",
      g.your_turn ? t("your turn") : t("their turn"),
      g.left === null ? (g.clock ? "" : t("no clock")) : timeLeft(g.left, g.clock.kind)];
    return row;
  });
  const body = byId("my-games-table").tBodies[0];
  mine.games.forEach((g, i) => { if (g.your_turn) body.rows[i].classList.add("your-turn"); });
  byId("my-games-before").hidden = page <= 1;
  byId("my-games-after").hidden = !mine.more;
  byId("my-games-before").onclick = () => myGames(name, page - 1);
  byId("my-games-after").onclick = () => myGames(name, page + 1);
  if (location.hash === "#my-games") byId("my-games").scrollIntoView();
}

async function leaderboard() {
  byId("leaderboard").hidden = false;
  document.title = t("Leaderboard - nugar");
  const select = byId("leaderboard-rules");
  const wanted = new URLSearchParams(location.search).get("rules");
  if (wanted) select.value = wanted;
  async function show() {
    byId("leaderboard-error").textContent = "";
    let data;
    try {
      data = await api("GET", `/api/leaderboard?rules=${encodeURIComponent(select.value)}`);
    } catch (e) {
      byId("leaderboard-error").textContent = e.message;
      return;
    }
    rows("leaderboard-table", "leaderboard-empty", data.players, (p) => [num(p.rank),
      link(`/players/${encodeURIComponent(p.username)}`, p.username), p.display,
      num(Math.round(p.deviation)), num(p.games)]);
  }
  select.addEventListener("change", () => {
    history.replaceState(null, "", `/leaderboard?rules=${encodeURIComponent(select.value)}`);
    show();
  });
  await show();
}

const m = location.pathname.match(/^\/players\/([^/]+)$/);
if (m) {
  profile(decodeURIComponent(m[1]));
  myGames(decodeURIComponent(m[1]));
}
else if (location.pathname === "/leaderboard") leaderboard();
