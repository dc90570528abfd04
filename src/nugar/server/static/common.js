// What every page of nugar shares (an ES module, imported by each page's own module, and
// the one script of the server's rules pages): the one helper that asks the server
// (`api`), the header's language switch and its account menu. The header itself is written
// by the server, once for every page (static/parts/header.html, nugar.server.static_i18n).
//
//   api("POST", "/api/games", body)   the answer's JSON; a refusal throws an Error whose
//                                     message is the server's sentence and `code` its code
//   api("GET", path, undefined, { text: true })   the answer's text (a record)
//   connection.onBack(fn)             fn() once a request is answered again after the
//                                     server could not be reached
//
// The session is an HttpOnly cookie this script never sees: the menu asks GET /api/me who is
// signed in.
import { languages, lang, t, tn } from "./i18n.js";

export const $ = (id) => document.getElementById(id);

// whether the last request found the server out of reach, and the sentence said about it
export const connection = {
  lost: false,
  text: "",
  back: new Set(),
  onBack(fn) { this.back.add(fn); },
  // the server answered again (a request, a websocket opened)
  restored() {
    if (!this.lost) return;
    this.lost = false;
    for (const fn of this.back) fn();
  },
};

export async function api(method, path, body, options) {
  const init = { method, headers: {}, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    connection.lost = true;  // "Failed to fetch": the server cannot be reached (for now)
    connection.text = t("the server cannot be reached ({error})", { error: e.message });
    const err = new Error(connection.text);
    err.unreachable = true;
    throw err;
  }
  connection.restored();
  if (options && options.text && res.ok) return res.text();
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    const err = new Error(data && data.detail ? data.detail
      : t("request failed ({status})", { status: String(res.status) }));
    err.code = data && data.error;
    err.status = res.status;
    throw err;
  }
  return data;
}

export function link(href, text) {
  const a = document.createElement("a");
  a.href = href;
  a.textContent = text;
  return a;
}

// --- the language switch -------------------------------------------------------------------
export function chooseLanguage(code) {
  document.cookie = `nugar_lang=${code}; path=/; max-age=31536000; SameSite=Lax`;
  // a signed-in player keeps it with the account too (401 signed out: the cookie is enough)
  api("PUT", "/api/account/language", { language: code }).catch(() => null)
    .then(() => location.reload());
}

function addSwitch(header) {
  if (document.getElementById("lang-switch")) return;
  const sel = document.createElement("select");
  sel.id = "lang-switch";
  sel.className = "lang-switch";
  sel.setAttribute("aria-label", t("Language"));
  for (const [code, name] of languages) {  // each language in its own name, from the server
    const o = document.createElement("option");
    o.value = code;
    o.lang = code;
    o.textContent = name;
    sel.appendChild(o);
  }
  sel.value = lang;
  sel.addEventListener("change", () => chooseLanguage(sel.value));
  header.appendChild(sel);
}

// --- the account menu ----------------------------------------------------------------------
// the leaderboard; the signed-in name, a link to his page, and "Sign out", or links to sign
// in and up (a signed-in page's body has the class "signed-in"); for a signed-in player, the
// reminder of the games waiting for his move.
async function showMenu(menu) {
  let me = null;
  try {
    me = await api("GET", "/api/me");
  } catch (e) {
    me = null;
  }
  menu.textContent = "";
  const board = link("/leaderboard", t("Leaderboard"));
  board.id = "menu-leaderboard";
  menu.append(board);
  if (me) {
    document.body.classList.add("signed-in");
    const who = link(`/players/${encodeURIComponent(me.username)}`, me.username);
    who.className = "who";
    who.id = "menu-name";
    const out = document.createElement("button");
    out.type = "button";
    out.id = "sign-out";
    out.textContent = t("Sign out");
    out.addEventListener("click", async () => {
      await api("DELETE", "/api/session").catch(() => null);
      location.reload();
    });
    menu.append(who, out);
    remind(me);
  } else {
    const back = location.pathname === "/signin" || location.pathname === "/signup"
      ? "" : `?next=${encodeURIComponent(location.pathname + location.search + location.hash)}`;
    const inLink = link(`/signin${back}`, t("Sign in"));
    inLink.id = "menu-sign-in";
    const upLink = link(`/signup${back}`, t("Sign up"));
    upLink.id = "menu-sign-up";
    menu.append(inLink, upLink);
  }
  return me;
}

// --- the reminder ----------------------------------------------------------------------------
// "It is your turn in 2 games", under the header of every page a signed-in player opens (the
// page after signing in, too), linking the games that wait for him (the most urgent first,
// GET /api/me/games) and his list of games in progress on his own page.
const REMINDED = 3;

export function gameLabel(g) {
  return g.opponent ? t("{rules} against {opponent}", { rules: g.rules, opponent: g.opponent })
    : g.rules;
}

async function remind(me) {
  let mine;
  try {
    mine = await api("GET", "/api/me/games");
  } catch (e) {
    return;
  }
  if (!mine.your_turn || document.getElementById("turn-reminder")) return;
  const box = document.createElement("p");
  box.id = "turn-reminder";
  box.className = "reminder";
  box.setAttribute("role", "status");
  box.append(tn("It is your turn in {n} game.", "It is your turn in {n} games.", mine.your_turn,
    { n: mine.your_turn }), " ");
  const waiting = mine.games.filter((g) => g.your_turn).slice(0, REMINDED);
  waiting.forEach((g, i) => {
    if (i) box.append(" \u00b7 ");
    box.append(link(`/g/${g.id}`, gameLabel(g)));
  });
  box.append(" \u00b7 ", link(`/players/${encodeURIComponent(me.username)}#my-games`,
    t("all my games")));
  const top = document.querySelector("header.top");
  top.after(box);
}

const header = document.querySelector("header.top");
if (header && $("account-menu")) showMenu($("account-menu"));
if (header) addSwitch(header);
