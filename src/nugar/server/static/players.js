// The players of a game's page (an ES module, used by game.js): the names of the signed-in
// players holding its seats, with their ratings and, once a rated game has ended, the rating
// changes.
import { $, api, link } from "./common.js";
import { t } from "./i18n.js";

// a game's page: who holds each seat, for the seats signed-in players hold
export async function showPlayers(game) {
  const box = $("players");
  if (!box) return;
  let found = null;
  try {
    found = await api("GET", `/api/games/${game}/players`);
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
    if (found.bots && found.bots[String(seat)]) {  // a bot account plays this seat
      const bot = document.createElement("span");
      bot.className = "bot-label";
      bot.textContent = ` ${t("BOT")}`;
      box.append(bot);
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
export function watchResult(game) {
  const result = $("result");
  if (!result) return;
  let shown = !result.hidden;
  new MutationObserver(() => {
    if (!result.hidden && !shown) setTimeout(() => showPlayers(game), 300);
    shown = !result.hidden;
  }).observe(result, { attributes: true, attributeFilter: ["hidden"] });
}
