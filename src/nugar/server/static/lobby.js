// nugar lobby: the open challenges on the home page, live over /ws/lobby. Posting one uses the
// rules and time control chosen in the form above; accepting one creates the game and takes
// both players to it (the creator is told on his lobby socket).
import { choice as clockChoice, describe } from "./clock.js";
import { api } from "./common.js";
import { currentRulesText } from "./home.js";
import { t, tx } from "./i18n.js";

export function showLobby() {
  const box = document.getElementById("lobby");
  if (!box || location.pathname !== "/") return;
  const KEY = "nugar:lobby:mine";
  const lobby = { ws: null, retry: 0, mine: JSON.parse(sessionStorage.getItem(KEY) || "null") };
  const el = (tag, attrs, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else if (k === "text") e.textContent = v; else e.setAttribute(k, v);
    }
    e.append(...kids);
    return e;
  };
  const COLOUR = { first: t("creator plays first"), second: t("creator plays second"),
    random: t("colours drawn at random") };

  function go(game, seat, key) { location.assign(`/g/${game}#seat=${seat}&key=${key}`); }

  function setMine(mine) {
    lobby.mine = mine;
    if (mine) sessionStorage.setItem(KEY, JSON.stringify(mine)); else sessionStorage.removeItem(KEY);
  }

  // --- the section ---------------------------------------------------------------------------
  const list = el("ul", { id: "challenges", class: "challenges", "aria-live": "polite" });
  const empty = el("p", { id: "lobby-empty", class: "info", text: t("No open challenges yet.") });
  const colour = el("select", { id: "challenge-colour", "aria-label": t("your colour") },
    el("option", { value: "random", text: t("random colour") }),
    el("option", { value: "first", text: t("I play first") }),
    el("option", { value: "second", text: t("I play second") }));
  const privateBox = el("input", { type: "checkbox", id: "challenge-private" });
  // rated: only for a signed-in player (common.js marks the page signed-in), a preset exactly
  const ratedBox = el("input", { type: "checkbox", id: "challenge-rated" });
  const post = el("button", { type: "button", id: "challenge-post",
    text: t("Post an open challenge") });
  const waiting = el("div", { id: "challenge-waiting", class: "waiting", hidden: "" });
  const error = el("p", { id: "lobby-error", class: "error", role: "alert" });
  const invite = el("div", { id: "challenge-invite", class: "invite", hidden: "" });
  box.append(el("h2", { text: t("Lobby: open challenges") }), invite, list, empty,
    el("p", { class: "post" }, colour, " ",
      el("label", { class: "inline" }, privateBox, " ", t("only by link")), " ",
      el("label", { class: "inline needs-account" }, ratedBox, " ", t("rated")), " ", post),
    waiting, error);
  box.hidden = false;

  function row(c) {
    const clock = c.clock ? describe(c.clock) : t("no clock");
    const item = el("li", { class: "challenge", "data-id": c.id },
      el("span", { class: "what", text: `${c.game}: ` }), el("code", { text: c.rules, dir: "ltr" }),
      el("span", { class: "what", text: ` \u00b7 ${clock} \u00b7 ${COLOUR[c.colour] || c.colour} ` }));
    if (c.by) item.append(el("span", { class: "by", text: `${t("by {name} ({rating})", { name: c.by, rating: c.rating })} ` }));
    if (c.rated) item.append(el("strong", { class: "rated", text: `${t("rated")} ` }));
    if (lobby.mine && lobby.mine.id === c.id) {
      item.append(el("em", { text: t("(yours)") }));
    } else {
      const b = el("button", { type: "button", class: "accept", text: t("Accept") });
      b.addEventListener("click", () => accept(c.id));
      item.append(b);
    }
    return item;
  }

  function showList(msg) {
    list.textContent = "";
    for (const c of msg.challenges) list.appendChild(row(c));
    empty.hidden = msg.challenges.length > 0;
  }

  function showWaiting() {
    waiting.textContent = "";
    if (!lobby.mine) { waiting.hidden = true; post.disabled = false; return; }
    const link = el("input", { readonly: "", id: "challenge-link", value: lobby.mine.link,
      "aria-label": t("link to this challenge") });
    const cancel = el("button", { type: "button", id: "challenge-cancel", text: t("Cancel") });
    cancel.addEventListener("click", async () => {
      try { await api("POST", `/api/challenges/${lobby.mine.id}/cancel`, { key: lobby.mine.key }); } catch (e) { /* gone already */ }
      setMine(null);
      showWaiting();
      connect();
    });
    waiting.append(el("p", { text: t("Waiting for an opponent to accept your challenge...") }),
      el("p", {}, t("Or send a friend this link:"), " ", link), cancel);
    waiting.hidden = false;
    post.disabled = true;
  }

  async function accept(id) {
    error.textContent = "";
    try {
      const seat = await api("POST", `/api/challenges/${id}/accept`, { key: lobby.mine ? lobby.mine.key : "" });
      go(seat.id, seat.seat, seat.key);
    } catch (e) {
      error.textContent = e.message;
    }
  }

  post.addEventListener("click", async () => {
    error.textContent = "";
    const body = { rules: currentRulesText(),
      colour: colour.value, public: !privateBox.checked, rated: ratedBox.checked };
    const clock = clockChoice();
    if (clock) body.clock = clock;
    try {
      const made = await api("POST", "/api/challenges", body);
      setMine({ id: made.challenge.id, key: made.key, link: made.link });
      showWaiting();
      connect();
    } catch (e) {
      error.textContent = e.message;
    }
  });

  // --- live list -----------------------------------------------------------------------------
  function connect() {
    if (lobby.ws) { const old = lobby.ws; lobby.ws = null; old.close(); }
    const proto = location.protocol === "https:" ? "wss" : "ws";
    // a creator's key goes in the socket's first message, never in its URL (access logs)
    const mine = lobby.mine;
    const ws = new WebSocket(`${proto}://${location.host}/ws/lobby${mine ? "?creator=1" : ""}`);
    lobby.ws = ws;
    ws.onopen = () => {
      lobby.retry = 0;
      if (mine) ws.send(JSON.stringify({ type: "key", key: mine.key }));
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.type === "lobby") {
        if (lobby.mine && !msg.challenges.some((c) => c.id === lobby.mine.id)) checkMine();
        showList(msg);
      } else if (msg.type === "accepted") {  // only the creator's socket hears it
        setMine(null);
        go(msg.game, msg.seat, msg.key);
      } else if (msg.type === "error") {
        error.textContent = msg.detail;
      }
    };
    ws.onclose = () => {
      if (lobby.ws !== ws) return;
      lobby.retry = Math.min(lobby.retry + 1, 6);
      setTimeout(connect, 500 * lobby.retry);
    };
  }

  // my challenge left the list: accepted (then the socket says where to go), private, or gone
  async function checkMine() {
    const mine = lobby.mine;
    try {
      const c = await api("POST", `/api/challenges/${mine.id}/status`, { key: mine.key });
      if (c.seat && lobby.mine === mine) { setMine(null); go(c.seat.game, c.seat.seat, c.seat.key); }
    } catch (e) {
      if (lobby.mine === mine) { setMine(null); showWaiting(); error.textContent = e.message; }
    }
  }

  // a challenge link: /?challenge=ID shows it at the top, listed or not
  async function showInvite(id) {
    try {
      const c = await api("GET", `/api/challenges/${encodeURIComponent(id)}`);
      invite.textContent = "";
      const clock = c.clock ? describe(c.clock) : t("no clock");
      const b = el("button", { type: "button", id: "invite-accept", text: t("Accept this challenge") });
      b.addEventListener("click", () => accept(c.id));
      invite.append(el("p", {}, ...tx("You are challenged to {game} ({rules}), {clock}; {colour}.",
        { game: c.game, rules: el("code", { text: c.rules, dir: "ltr" }), clock,
          colour: COLOUR[c.colour] || c.colour }), " "), b);
      invite.hidden = false;
    } catch (e) {
      error.textContent = e.message;
    }
  }

  const wanted = new URLSearchParams(location.search).get("challenge");
  if (wanted && !(lobby.mine && lobby.mine.id === wanted)) showInvite(wanted);
  showWaiting();
  connect();
}
