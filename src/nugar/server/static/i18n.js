// nugar's texts in the reader's language (an ES module: the other modules import from it).
// The server writes every page in its language (nugar.server.static_i18n) and embeds a JSON
// block (#nugar-i18n) with what this module needs: {lang, dir, messages (the `webjs`
// catalog), plurals (the language's plural categories in the order of its gettext forms),
// languages ([code, own name] of every language the site is written in)}. Nothing here names
// a language: a new one needs no change in this file.
//
//   t("Resign")                              a message, English when the catalog lacks it
//   t("{who} to move", { who })              with fields: {name} placeholders
//   tn("{n} seed", "{n} seeds", n, { n })    a message with plural forms (Intl.PluralRules)
//   tx("Rules: {code}", { code })            the pieces to append: text and the nodes given
//   num(1234.5)                              a number as the language writes it (0-9 digits)
//   player("South")                          a player's name (the server sends them in English)
//
// In a right-to-left page every text field is wrapped in Unicode isolates (FSI ... PDI), so a
// move ("c3-c4"), a square or a name written left to right keeps its order inside Arabic.

const data = (() => {
  const el = typeof document === "undefined" ? null : document.getElementById("nugar-i18n");
  try { return el ? JSON.parse(el.textContent) : {}; } catch (e) { return {}; }
})();
const root = typeof document === "undefined" ? {} : document.documentElement;
export const lang = data.lang || root.lang || "en";
export const rtl = (data.dir || root.dir) === "rtl";
const MESSAGES = data.messages || {};
// the plural categories in the order of the language's gettext plural forms (Babel's
// Plural-Forms from CLDR, sent by the server), English's where the page has none
const ORDER = Array.isArray(data.plurals) && data.plurals.length ? data.plurals : ["one", "other"];
// the languages of the switch, each in its own name: [[code, name], ...]
export const languages = Array.isArray(data.languages) ? data.languages : [];
const numbers = new Intl.NumberFormat(lang, { numberingSystem: "latn" });
const plurals = new Intl.PluralRules(lang);

export function num(n) { return numbers.format(n); }

function fill(text, fields) {
  if (!fields) return text;
  return text.replace(/\{(\w+)\}/g, (all, key) => {
    if (!(key in fields)) return all;
    const v = fields[key];
    const s = typeof v === "number" ? num(v) : String(v);
    return rtl && typeof v !== "number" ? `\u2068${s}\u2069` : s;
  });
}

export function t(msgid, fields) {
  const found = MESSAGES[msgid];
  return fill(typeof found === "string" && found ? found : msgid, fields);
}

export function tn(singular, plural, n, fields) {
  const forms = MESSAGES[singular];
  let text;
  if (Array.isArray(forms) && forms.length) {
    let i = ORDER.indexOf(plurals.select(n));
    if (i < 0) i = ORDER.length - 1;
    text = forms[Math.min(i, forms.length - 1)] || (n === 1 ? singular : plural);
  } else {
    text = n === 1 ? singular : plural;
  }
  return fill(text, fields);
}

// a message with nodes among its fields (a link, a <code>): the pieces to append, in the
// order the language puts them
export function tx(msgid, fields) {
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
export function player(name) { return PLAYERS[name] ? PLAYERS[name]() : name; }
