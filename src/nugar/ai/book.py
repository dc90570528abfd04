"""The shipped table of solved opening positions (``data/book.json``): what it holds and how
the perfect player (``perfect.py``) looks positions up in it.

The perfect player (``perfect``, level 8 of Dracala) solves each position it is asked about,
but near the start that is slow: in Dracala for the first few decisions, in standard
Kalah(6, 4) (the ``kalah`` preset) even with the endgame databases on disk (the times are in
docs/solving.md, "The perfect player" and "Perfect play of Kalah(6, 4)"). So the book holds
every position of these rule sets (``BOOK_RULES``) reachable in at most ``BOOK_DEPTHS[rules]``
decisions (their AI profile's ``book_depth``; the game not over), each with its exact value,
the first ``PV_KEPT`` steps of a principal variation and that line's length, and in Dracala
the step the swindle plays there (``perfect:swindle=1``); the starting positions keep the
whole line and also list every optimal first step and the final score. A position short of
the last decision also lists the exact value of each of its legal steps (``steps``; its
children are in the book too), which ``nugar analyse --exact`` shows at once. In Kalah(6, 4)
some positions a few decisions beyond the book's depth are still slow to solve, so the book
also holds every position at which the perfect player, following the book's own steps, can
be asked for a move while at least ``BOOK_SEEDS[rules]`` seeds are on the board (the
profile's ``book_seeds``), whatever the opponent plays (:func:`line_positions`; value, line
and length, no ``steps``). With it the perfect player answers the opening at once and plays
perfectly from the first move even under a time limit of a fraction of a second. Positions are
written out in plain text (:func:`position_text`), not by hash key, so the file stays
readable and independent of the solver's key tables.

``book_writer.py`` builds the file (``python -m nugar.ai.book_writer --output PATH``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from ..kernels import sowing as sowing_kernels
from ..kernels.common import ST_TO_MOVE
from ..rules.options import parse_rules
from ..rules.sowing import SowingGame

#: the decisions from the start that ``opening_positions`` covers by default for a rule set
#: outside the shipped book
BOOK_DEPTH = 4

#: the rule sets of the shipped book
BOOK_RULES: tuple[str, ...] = ("dracala", "dracala(leftovers=last_capturer)", "kalah")

#: each rule set of the book with the decisions from the start it covers: its AI profile's
#: ``book_depth``
BOOK_DEPTHS: dict[str, int] = {
    text: depth for text in BOOK_RULES
    if (depth := parse_rules(text).ai_profile.book_depth) is not None}

#: beyond ``BOOK_DEPTHS``, the book of these rule sets also holds every position at which the
#: perfect player, following the book's own steps, can be asked for a move while at least
#: this many seeds are on the board (the opponent playing anything): their AI profile's
#: ``book_seeds``, chosen below the seed counts of the slowest fresh solves
#: (docs/solving.md, "Perfect play of Kalah(6, 4)")
BOOK_SEEDS: dict[str, int] = {
    text: seeds for text in BOOK_RULES
    if (seeds := parse_rules(text).ai_profile.book_seeds) is not None}
FORMAT = 3

#: steps of the principal variation kept for a position other than the start (``length``
#: is the whole line's)
PV_KEPT = 8


def position_text(params: np.ndarray[Any, Any], state: np.ndarray[Any, Any]) -> str:
    """Everything that decides a position's value, as text: both rows of holes (each from
    its owner's hole 1), both stores, player to move, first-step flag and last capturer."""
    pits = int(params[sowing_kernels.P_PITS])
    rows = []
    for player in (1, 2):
        first = int(sowing_kernels.holes_at(pits, player))
        rows.append(",".join(str(int(v)) for v in state[first:first + pits]))
        rows.append(str(int(state[sowing_kernels.store_at(pits, player)])))
    ext = int(sowing_kernels.fields_at(pits))
    return "|".join([*rows, str(int(state[ST_TO_MOVE])),
                     str(int(state[ext + sowing_kernels.F_FIRST_DONE])),
                     str(int(state[ext + sowing_kernels.F_LAST_CAPTURER]))])


@lru_cache(maxsize=1)
def load() -> dict[tuple[str, str], dict[str, Any]]:
    """The shipped entries, keyed by (rule-set text, position text); empty if none."""
    try:
        text = resources.files("nugar.ai").joinpath("data/book.json").read_text("utf-8")
    except FileNotFoundError:
        return {}
    data = json.loads(text)
    if data.get("format") != FORMAT:
        return {}
    return {(e["rules"], e["position"]): e for e in data["entries"]}


def lookup(rules_text: str, params: np.ndarray[Any, Any], state: np.ndarray[Any, Any]
           ) -> dict[str, Any] | None:
    """The book entry of a position, if the book has it."""
    return load().get((rules_text, position_text(params, state)))


def step_values(rules_text: str, params: np.ndarray[Any, Any], state: np.ndarray[Any, Any]
                ) -> list[tuple[int, int]] | None:
    """``(action, value)`` for every legal step of a position the book holds with the values
    of all its steps (every position short of the book's last decision), the value for the
    player to move if he plays that step; ``None`` when the book cannot tell."""
    entry = lookup(rules_text, params, state)
    if entry is None or "steps" not in entry:
        return None
    return [(int(a), int(v)) for a, v in entry["steps"]]


def opening_positions(rules_text: str, depth: int | None = None) -> list[SowingGame]:
    """Every position of ``rules_text`` reachable from the start in at most ``depth``
    decisions (default: the book's depth for it, ``BOOK_DEPTH`` for a rule set not in the
    book) with the game not over, each once, nearest the start first."""
    if depth is None:
        depth = BOOK_DEPTHS.get(rules_text, BOOK_DEPTH)
    from .. import new_game

    start = new_game(rules_text)
    assert isinstance(start, SowingGame)
    seen = {position_text(start.params, start.state)}
    found, frontier = [start], [start]
    for _ in range(depth):
        following: list[SowingGame] = []
        for game in frontier:
            for action in game.legal_actions():
                child = game.copy()
                child.push_action(action)
                text = position_text(child.params, child.state)
                if child.is_over or text in seen:
                    continue
                seen.add(text)
                assert isinstance(child, SowingGame)
                following.append(child)
        found += following
        frontier = following
    return found


def seeds_on_board(game: SowingGame) -> int:
    """Seeds in the holes, stores left out."""
    return sum(map(sum, game.holes))


def line_positions(rules_text: str, min_seeds: int, step: Callable[[SowingGame], int]
                   ) -> list[SowingGame]:
    """Every position at which a player who always plays ``step(position)`` (an action) is to
    move, with at least ``min_seeds`` seeds on the board, reachable from the start whichever
    side that player takes and whatever the opponent plays; each once, in the order found
    (breadth first, the first player's lines first). ``step`` is called once for each
    position returned, in that order, before any position beyond it is looked at (the book
    writer solves it there)."""
    from .. import new_game

    start = new_game(rules_text)
    assert isinstance(start, SowingGame)
    found: dict[str, SowingGame] = {}
    chosen: dict[str, int] = {}
    for me in (1, 2):
        seen: set[str] = set()
        frontier = [start]
        while frontier:
            following: list[SowingGame] = []
            for game in frontier:
                text = position_text(game.params, game.state)
                if text in seen or game.is_over or seeds_on_board(game) < min_seeds:
                    continue
                seen.add(text)
                actions = game.legal_actions()
                if game.to_move == me:
                    if text not in chosen:
                        found[text] = game
                        chosen[text] = step(game)
                    actions = [chosen[text]]
                for action in actions:
                    child = game.copy()
                    child.push_action(action)
                    assert isinstance(child, SowingGame)
                    following.append(child)
            frontier = following
    return list(found.values())
