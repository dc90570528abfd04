// The players' names and the game's result in words, on the game page, in a replay and in an
// analysis (an ES module): the names come from the server in English (presets, states,
// replays: `players`) and are said in the page's language.
import { player, t } from "./i18n.js";

const REASONS = {
  pieces: t("a player was reduced to too few pieces"),
  blocked: t("a player could not move"),
  repetition: t("the same position came up too often"),
  quiet_limit: t("too many turns without a capture"),
  majority: t("a store held more than half of all seeds"),
  empty_side: t("one side's holes were empty, and the seeds were counted"),
  agreement: t("both players agreed"),
};
// Player names per family, as the server sends them ("players" of presets, states, replays),
// said in the page's language (i18n.js: player).
const NAMES = {};

// remember the two players' names of a family, from a preset, a state or a replay
export function learnNames(data) {
  if (data && data.family && Array.isArray(data.players) && data.players.length === 2) {
    NAMES[data.family] = { 1: data.players[0], 2: data.players[1] };
  }
}
export function playerName(family, p) {
  const name = (NAMES[family] || {})[p];
  if (name) return player(name);
  return p === 1 ? t("the first player") : t("the second player");
}
// the name with the place in the order of play, as board legends write it: "South (first)"
export function playerLabel(family, p) {
  const name = playerName(family, p);
  return p === 1 ? t("{name} (first)", { name }) : t("{name} (second)", { name });
}

// who won and why, in words: "White wins (1-0): Black has too few pieces"; a sowing game
// names the stores: "South wins 25 : 23 (South's store : North's store)", and says when the
// smaller store wins (misère rules, Dracala). `score` is [first's store, second's store].
export function resultText(family, winner, reason, result, aborted, score, misere, early) {
  const name = (p) => playerName(family, p);
  if (reason === "aborted" && early) {  // a rated game ended before two turns each
    return t("Aborted before each player made two turns: no result, ratings unchanged");
  }
  if (reason === "aborted") {  // a first move never came: no result, no winner
    const who = aborted ? name(aborted) : t("a player");
    return t("Aborted: {name} did not move (no result)", { name: who });
  }
  const won = winner === 1 || winner === 2;
  const loser = won ? name(3 - winner) : null;
  let head;
  if (family === "sowing" && score && reason !== "resigned" && reason !== "time"
      && reason !== "agreement") {
    const fields = { name: won ? name(winner) : "", a: score[0], b: score[1], first: name(1),
      second: name(2) };
    head = won ? t("{name} wins {a} : {b} ({first}'s store : {second}'s store)", fields)
      : t("Draw {a} : {b} ({first}'s store : {second}'s store)", fields);
  } else {
    head = won ? t("{name} wins ({result})", { name: name(winner), result })
      : t("Draw ({result})", { result });
  }
  let why;
  if (reason === "resigned" && won) why = t("{loser} resigned", { loser });
  else if (reason === "time") {  // a fallen flag: a draw when the other could not have won
    why = won ? t("{loser} ran out of time", { loser })
      : t("time ran out, but the other player could not have won");
  } else if (reason === "pieces" && won) why = t("{loser} has too few pieces", { loser });
  else if (reason === "blocked" && won) why = t("{loser} cannot move", { loser });
  else if (reason === "majority" && won) why = t("{loser}'s store holds more than half of all seeds", { loser });
  else if (reason === "empty_side" && family === "sowing") why = t("a side's holes were empty, and the seeds were counted");
  else why = REASONS[reason] || reason;
  if (misere && family === "sowing" && reason !== "resigned" && reason !== "time"
      && reason !== "agreement") {
    why = won ? t("{why}; the smaller store wins", { why })
      : t("{why}; under these rules the smaller store wins", { why });
  }
  return t("{head}: {why}", { head, why });
}
