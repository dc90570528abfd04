// The home page's new-game form (an ES module): the presets and their options, the rule-set
// text they make, the opponent, the AI level, the seat and the time control (clock.js);
// starting the game takes the player to its page with his seat's key.
import { addClockChoice, choice as clockChoice } from "./clock.js";
import { $, api } from "./common.js";
import { t } from "./i18n.js";
import { learnNames, playerLabel } from "./names.js";

let PRESETS = [];

export function currentRulesText() {
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
  // a description that names its game already ("Dracala: mandatory ...") is not prefixed again
  const named = preset.description.toLowerCase().startsWith(preset.game.toLowerCase());
  // the rules' own words are in the catalog too (nugar.rules.texts)
  const description = t(preset.description);
  const about = named ? description : `${preset.game}: ${description}`;
  $("preset-info").textContent = t("{about}. Source: {source}", { about, source: t(preset.source) });
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
    input.addEventListener("input", () => { $("home-error").textContent = ""; });
    input.addEventListener("change", updateRulesText);
    label.appendChild(input);
    const doc = document.createElement("span");
    doc.className = "doc";
    doc.textContent = `${t(opt.meaning)} (${allowedSaid(opt)})`;
    label.appendChild(doc);
    box.appendChild(label);
  }
  $("rules-link").href = `/rules/${preset.name}`;
  updateRulesText();
}

// the values an option takes, in the page's language: the values themselves are data (on,
// off, a choice's names), a number's range is said with words
function allowedSaid(opt) {
  if (opt.kind !== "int") return opt.allowed;
  const range = opt.off_allowed ? t("{lo}..{hi} or off", { lo: opt.min, hi: opt.max })
    : `${opt.min}..${opt.max}`;
  return t("int {range}", { range });
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

export async function showHome() {
  $("home").hidden = false;
  addClockChoice();
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
  // a field changed after a refusal: the refusal no longer describes the form
  $("new-game").addEventListener("input", () => { $("home-error").textContent = ""; });
  $("new-game").addEventListener("change", () => { $("home-error").textContent = ""; });
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
    if (clockChoice()) body.clock = clockChoice();
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
