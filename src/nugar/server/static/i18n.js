// nugar's texts in the reader's language: the first script of every page. The server writes
// the page in its language (nugar.server.static_i18n) and embeds the `webjs` catalog in a JSON
// block (#nugar-i18n: {lang, dir, messages}); the same catalog is GET /i18n/{lang}.json.
//
//   t("Resign")                              a message, English when the catalog lacks it
//   t("{who} to move", { who })              with fields: {name} placeholders
//   tn("{n} seed", "{n} seeds", n, { n })    a message with plural forms (Intl.PluralRules)
//   nugarI18n.tx("Rules: {code}", { code })  the pieces to append: text and the nodes given
//   nugarI18n.num(1234.5)                    a number as the language writes it (0-9 digits)
//   nugarI18n.player("South")                a player's name (the server sends them in English)
//
// In a right-to-left page every text field is wrapped in Unicode isolates (FSI ... PDI), so a
// move ("c3-c4"), a square or a name written left to right keeps its order inside Arabic.
// The language switch (English / Français / العربية / Hausa) is added to every page's header.
"use strict";

(function () {
  const data = (() => {
    const el = document.getElementById("nugar-i18n");
    try { return el ? JSON.parse(el.textContent) : {}; } catch (e) { return {}; }
  })();
  const LANG = data.lang || document.documentElement.lang || "en";
  const RTL = (data.dir || document.documentElement.dir) === "rtl";
  const MESSAGES = data.messages || {};
  // a page written without the catalog (the rules pages, written by the server in their
  // language) fetches it: `nugarI18n.ready` settles once it is here
  const ready = data.messages || LANG === "en" ? Promise.resolve()
    : fetch(`/i18n/${encodeURIComponent(LANG)}.json`).then((r) => (r.ok ? r.json() : {}))
      .then((found) => { Object.assign(MESSAGES, found); }).catch(() => null);
  const NAMES = { en: "English", fr: "Français", ar: "العربية", ha: "Hausa" };
  // the plural categories in the order of each language's gettext plural forms (Babel's
  // Plural-Forms from CLDR: Arabic zero, one, two, few, many, other; French one, many, other;
  // English one, other)
  const ORDER = { ar: ["zero", "one", "two", "few", "many", "other"], fr: ["one", "many", "other"],
    en: ["one", "other"] };
  const numbers = new Intl.NumberFormat(LANG, { numberingSystem: "latn" });
  const plurals = new Intl.PluralRules(LANG);

  function num(n) { return numbers.format(n); }

  function fill(text, fields) {
    if (!fields) return text;
    return text.replace(/\{(\w+)\}/g, (all, key) => {
      if (!(key in fields)) return all;
      const v = fields[key];
      const s = typeof v === "number" ? num(v) : String(v);
      return RTL && typeof v !== "number" ? `\u2068${s}\u2069` : s;
    });
  }

  function t(msgid, fields) {
    const found = MESSAGES[msgid];
    return fill(typeof found === "string" && found ? found : msgid, fields);
  }

  function tn(singular, plural, n, fields) {
    const forms = MESSAGES[singular];
    let text;
    if (Array.isArray(forms) && forms.length) {
      const order = ORDER[LANG] || ["one", "other"];
      let i = order.indexOf(plurals.select(n));
      if (i < 0) i = order.length - 1;
      text = forms[Math.min(i, forms.length - 1)] || (n === 1 ? singular : plural);
    } else {
      text = n === 1 ? singular : plural;
    }
    return fill(text, fields);
  }

  // a message with nodes among its fields (a link, a <code>): the pieces to append, in the
  // order the language puts them
  function tx(msgid, fields) {
    const found = MESSAGES[msgid];
    const text = typeof found === "string" && found ? found : msgid;
    const out = [];
    let last = 0;
    text.replace(/\{(\w+)\}/g, (all, key, at) => {
      if (at > last) out.push(text.slice(last, at));
      const v = fields[key];
      out.push(v instanceof Node ? v : fill(all, fields));
      last = at + all.length;
      return all;
    });
    if (last < text.length) out.push(text.slice(last));
    return out;
  }

  // the players' names the rules give (sent in English by the API)
  const PLAYERS = { Black: () => t("Black"), White: () => t("White"), South: () => t("South"),
    North: () => t("North") };
  function player(name) { return PLAYERS[name] ? PLAYERS[name]() : name; }

  // --- the language switch -------------------------------------------------------------------
  function choose(lang) {
    document.cookie = `nugar_lang=${lang}; path=/; max-age=31536000; SameSite=Lax`;
    // a signed-in player keeps it with the account too (401 signed out: the cookie is enough)
    fetch("/api/account/language", {
      method: "PUT", credentials: "same-origin", headers: { "content-type": "application/json" },
      body: JSON.stringify({ language: lang }),
    }).catch(() => null).then(() => location.reload());
  }

  function addSwitch() {
    const header = document.querySelector("header.top");
    if (!header || document.getElementById("lang-switch")) return;
    const sel = document.createElement("select");
    sel.id = "lang-switch";
    sel.className = "lang-switch";
    sel.setAttribute("aria-label", t("Language"));
    for (const [code, name] of Object.entries(NAMES)) {
      const o = document.createElement("option");
      o.value = code;
      o.lang = code;
      o.textContent = name;
      sel.appendChild(o);
    }
    sel.value = LANG;
    sel.addEventListener("change", () => choose(sel.value));
    header.appendChild(sel);
  }

  window.t = t;
  window.tn = tn;
  window.nugarI18n = { lang: LANG, rtl: RTL, t, tn, tx, num, player, choose, ready };
  const start = () => ready.then(addSwitch);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
