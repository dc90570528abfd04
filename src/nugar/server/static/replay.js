// Replaying a pasted record (`/replay`, an ES module): the server reads the record and draws
// one position per request; the board, the move list and the arrows are the game page's
// (game.js), with nothing to play.
import { forReplay as analysisForReplay } from "./analysis.js";
import { $, api } from "./common.js";
import { goTo, navigate, parseHash, ui } from "./game.js";
import { t } from "./i18n.js";
import { learnNames, resultText } from "./names.js";

export function showReplayHome() {
  $("replay-home").hidden = false;
  navigate();
  const game = parseHash().game;
  if (game && /^[A-Za-z0-9]+$/.test(game)) {
    // "Replay" after a game: its record, read at once
    api("GET", `/api/games/${game}/record`, undefined, { text: true }).then((text) => {
      $("record-text").value = text;
      $("replay-go").click();
    }).catch((e) => {
      $("replay-error").textContent = e.status ? t("no record of game {game} ({status})",
        { game, status: String(e.status) }) : e.message;
    });
  }
  $("record-text").addEventListener("input", () => { $("replay-error").textContent = ""; });
  $("replay-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("replay-error").textContent = "";
    try {
      const record = $("record-text").value;
      const r = await api("POST", "/api/replay", { record });
      ui.replay = { ...r, record, drawn: { [r.position.turn]: r.position } };
      learnNames(r);
      ui.key = null;
      $("play").hidden = false;
      $("title").textContent = t("{game} (replay)", { game: r.game });
      $("rules-line").textContent = t("Rules: {rules}", { rules: r.rules });
      for (const id of ["typed", "undo", "hint", "takeback", "draw", "resign", "offer", "share"]) $(id).hidden = true;
      $("download").hidden = true;
      const res = $("result");
      if (r.result) {
        res.hidden = false;
        res.textContent = resultText(r.family, r.winner, r.reason, r.result, null, r.score, r.misere);
      }
      ui.state = { family: r.family };
      goTo(r.turns.length);
      analysisForReplay(record, r.family);
    } catch (e) {
      $("replay-error").textContent = e.message;
    }
  });
}
