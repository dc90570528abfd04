// The account menu in every page's header (the leaderboard; the signed-in name, a link to
// his page, and "Sign out", or links to sign in and up), the sign-up and sign-in pages'
// forms, and the names, ratings and rating changes of the players on a game's page. The session is an HttpOnly cookie this script never sees: it
// asks GET /api/me who is signed in.
"use strict";
(() => {
  const byId = (id) => document.getElementById(id);
  // the texts in the page's language (i18n.js). A page that does not load i18n.js itself (the
  // rules pages, written by the server) gets it here, with its catalog, before the menu is drawn.
  const i18nReady = window.nugarI18n ? window.nugarI18n.ready : new Promise((resolve) => {
    const script = document.createElement("script");
    script.src = "/static/i18n.js";
    script.onload = () => window.nugarI18n.ready.then(resolve);
    script.onerror = resolve;
    document.head.appendChild(script);
  });
  const t = (msgid, fields) => (window.nugarI18n ? window.nugarI18n.t(msgid, fields) : msgid);

  async function call(method, path, body) {
    const init = { method, headers: {}, credentials: "same-origin" };
    if (body !== undefined) {
      init.headers["content-type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const r = await fetch(path, init);
    const data = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(data.detail || `${r.status} ${r.statusText}`);
    return data;
  }

  function link(href, text) {
    const a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    return a;
  }

  // where to go once signed in: the page named by ?next= on this site, else the home page
  function next() {
    const to = new URLSearchParams(location.search).get("next") || "/";
    return to.startsWith("/") && !to.startsWith("//") ? to : "/";
  }

  async function showMenu() {
    let menu = byId("account-menu");
    const header = document.querySelector("header.top");
    if (!menu && header) {  // a page without the placeholder (a rules page): add it
      menu = document.createElement("span");
      menu.id = "account-menu";
      menu.className = "account-menu";
      header.appendChild(menu);
    }
    if (!menu) return null;
    let me = null;
    try {
      me = await call("GET", "/api/me");
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
        await call("DELETE", "/api/session").catch(() => null);
        location.reload();
      });
      menu.append(who, out);
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

  function form(name, path) {
    const section = byId(name);
    if (!section) return;
    section.hidden = false;
    document.title = name === "signup" ? t("Sign up - nugar") : t("Sign in - nugar");
    const error = byId(`${name}-error`);
    for (const input of section.querySelectorAll("input")) {
      input.addEventListener("input", () => { error.textContent = ""; });
    }
    byId(`${name}-form`).addEventListener("submit", async (ev) => {
      ev.preventDefault();
      error.textContent = "";
      const button = byId(`${name}-go`);
      button.disabled = true;
      try {
        await call("POST", path, { username: byId(`${name}-name`).value.trim(),
                                   password: byId(`${name}-password`).value });
        location.assign(next());
      } catch (e) {
        error.textContent = e.message;
      } finally {
        button.disabled = false;
      }
    });
  }

  // a game's page: who holds each seat, for the seats signed-in players hold
  async function showPlayers() {
    const m = location.pathname.match(/^\/g\/([A-Za-z0-9]+)$/);
    const box = byId("players");
    if (!m || !box) return;
    let found = null;
    try {
      found = await call("GET", `/api/games/${m[1]}/players`);
    } catch (e) {
      return;
    }
    const names = [1, 2].map((s) => found.players[String(s)]);
    if (!names[0] && !names[1]) return;
    box.textContent = "";
    [1, 2].forEach((seat, i) => {
      if (i) box.append(" \u00b7 ");
      box.append(seat === 1 ? t("First:") : t("Second:"), " ");
      const name = names[i];
      if (name && name !== "deleted player") {
        box.append(link(`/players/${encodeURIComponent(name)}`, name));
      } else {
        box.append(name ? t("deleted player") : t("anonymous"));  // the API's word for a deleted one
      }
      const rating = found.rated && found.ratings ? found.ratings[String(seat)] : null;
      if (rating) {
        const shown = document.createElement("span");
        shown.className = "rating";
        shown.dataset.seat = String(seat);
        shown.textContent = ` (${rating.display})`;
        box.append(shown);
        if (rating.change !== null) {
          const change = document.createElement("span");
          change.className = `change ${rating.change >= 0 ? "change-up" : "change-down"}`;
          change.dataset.seat = String(seat);
          change.textContent = ` ${rating.change >= 0 ? "+" : "\u2212"}${Math.abs(Math.round(rating.change))}`;
          box.append(change);
        }
      }
    });
    if (found.rated) box.append(` \u00b7 ${t("rated")}`);
    box.hidden = false;
  }

  // once the game ends (its result shows), the rating changes are stored: ask again
  function watchResult() {
    const result = byId("result");
    if (!result || !location.pathname.startsWith("/g/")) return;
    let shown = !result.hidden;
    new MutationObserver(() => {
      if (!result.hidden && !shown) setTimeout(showPlayers, 300);
      shown = !result.hidden;
    }).observe(result, { attributes: true, attributeFilter: ["hidden"] });
  }

  if (location.pathname === "/signup") form("signup", "/api/accounts");
  if (location.pathname === "/signin") form("signin", "/api/session");
  i18nReady.then(showMenu);
  // app.js opens the page's seat first (which names its holder): ask once it has
  document.addEventListener("nugar:seat-opened", showPlayers);
  watchResult();
})();
