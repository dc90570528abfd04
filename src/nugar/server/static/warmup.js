// What the server says of its engine on the home and game pages (an ES module): the warm-up
// notice (the very first run of a server compiles the AI, which takes tens of seconds; GET
// /api/warmup says how far it is: the notice shows while it compiles and goes once it is
// ready; the page asks at load and whenever the computer is to move) and what level 8 has
// of the endgame databases.
import { $, api } from "./common.js";

let warmupTimer = null;

export async function watchWarmup() {
  if (warmupTimer !== null) return;
  let info = null;
  try { info = await api("GET", "/api/warmup"); } catch (e) { return; }
  const box = $("warmup");
  if (!info || info.ready || !info.compiling) { box.hidden = true; return; }
  box.textContent = info.message;
  box.hidden = false;
  warmupTimer = setTimeout(() => { warmupTimer = null; watchWarmup(); }, 1000);
}

// Level 8 reads the endgame databases on the server's disk (Kalah); the server builds the
// small ones in the background on a first game. The note (in the page's language, from GET
// /api/levels?rules=) says what level 8 has, and is asked again while a build runs.
export const TOP_LEVEL = 8;
const databases = { rules: null, timer: null };

export async function watchDatabases(rules) {
  if (databases.rules === rules) return;  // watched already (or being asked)
  databases.rules = rules;
  let info = null;
  try {
    info = await api("GET", `/api/levels?rules=${encodeURIComponent(rules)}`);
  } catch (e) { return; }
  const perfect = info && info.perfect;
  const box = $("databases");
  box.textContent = (perfect && perfect.databases_note) || "";
  box.hidden = !box.textContent;
  const auto = perfect && perfect.databases && perfect.databases.auto;
  if (auto && ["idle", "building", "waiting"].includes(auto.state)) {
    databases.timer = setTimeout(() => { databases.rules = null; watchDatabases(rules); }, 5000);
  }
}
