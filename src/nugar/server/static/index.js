// The page of `/`, `/g/{id}` and `/replay` (static/index.html; an ES module): it shows the
// section of its address. Each section is its own module: the new-game form and the lobby
// (home.js, lobby.js), a game (game.js), a pasted record replayed (replay.js).
import { showGame } from "./game.js";
import { showHome } from "./home.js";
import { showLobby } from "./lobby.js";
import { showReplayHome } from "./replay.js";
import { watchWarmup } from "./warmup.js";

watchWarmup();
const path = location.pathname;
const m = path.match(/^\/g\/([A-Za-z0-9]+)$/);
if (m) showGame(m[1]);
else if (path === "/replay") showReplayHome();
else {
  showHome();
  showLobby();
}
