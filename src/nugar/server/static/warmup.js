// The engine's warm-up notice on the home and game pages (an ES module). The very first run
// of a server compiles the AI (it takes tens of seconds); GET /api/warmup says how far it is.
// The notice shows while it compiles and goes once it is ready; the page asks at load and
// whenever the computer is to move.
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
