"""Kalah and Dracala as :class:`~nugar.rules.base.Game` objects over ``kernels/sowing.py``.

The game keeps one state array (``docs/architecture.md``) and a stack of copies for undo; the
rules themselves live only in the compiled kernels. Besides the base API it offers
:meth:`SowingGame.turn_captures` (for the Mancala World ``(-N)`` annotation of records) and
:meth:`SowingGame.from_position` (set up any position).

This module is also the family's implementation (``family.SOWING.parts``, :data:`PARTS`): the
kernel params of a rule set (:func:`make_params`), its action codes, score, observations,
board data (its AI profiles, with their evaluation weights, are in ``profiles.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..errors import InvalidMoveError, NugarError
from ..i18n import Text
from ..kernels import sowing as sowing_kernels
from ..kernels.common import HEADER, ST_TO_MOVE
from ..kernels.dispatch import FAM_SOWING, fam_apply_held
from .base import (
    FamilyDescriptor,
    FamilyParts,
    Game,
    Observation,
    position_fields,
    whole_number,
)
from .boards import PitBoard, Sowing
from .codec import ActionCodec, codec_from_moves
from .family import SOWING
from .moves import Move
from .options import Options, RuleSet, SowingOptions
from .symmetry import Symmetry, identity

if TYPE_CHECKING:
    from .base import IntArray

#: the player to move in a position text: s for South (first player), n for North
POSITION_SYMBOLS = {1: "s", 2: "n"}
_FROM_SYMBOL = {ch: p for p, ch in POSITION_SYMBOLS.items()}

_LEFTOVERS_CODES = {"owner": sowing_kernels.LEFT_OWNER,
                    "last_mover": sowing_kernels.LEFT_LAST_MOVER,
                    "last_capturer": sowing_kernels.LEFT_LAST_CAPTURER}
#: the kernel's P_VARIANT code of (capture_duty, misere)
_VARIANT_CODES = {("none", False): sowing_kernels.VARIANT_PLAIN,
                  ("maximal", True): sowing_kernels.VARIANT_DUTY_MISERE,
                  ("maximal", False): sowing_kernels.VARIANT_DUTY,
                  ("none", True): sowing_kernels.VARIANT_MISERE}


def make_params(options: SowingOptions) -> IntArray:
    """The kernel params array of a sowing rule set (plain Python; the games of a rule set
    share one array through :func:`sowing_params`)."""
    if not isinstance(options, SowingOptions):
        raise TypeError(f"make_params needs SowingOptions, not {type(options).__name__}")
    pits = options.pits
    n_cells = int(sowing_kernels.cell_count(pits))
    rng = np.random.default_rng(0x5EED_50)
    n_keys = sowing_kernels.ZOB_CELLS + n_cells * 128
    keys = rng.integers(-(2**63), 2**63 - 1, size=n_keys, dtype=np.int64)
    for c in range(n_cells):  # an empty cell contributes nothing to the key
        keys[sowing_kernels.ZOB_CELLS + c * 128] = 0
    head = np.zeros(sowing_kernels.P_ZOBRIST, dtype=np.int64)
    head[sowing_kernels.P_PITS] = pits
    head[sowing_kernels.P_SEEDS] = options.seeds
    head[sowing_kernels.P_SKIP_ORIGIN] = 1 if options.skip_origin else 0
    head[sowing_kernels.P_EMPTY_SINGLE] = 1 if options.empty_capture == "single" else 0
    head[sowing_kernels.P_END_MOVER] = 1 if options.end == "mover_empty" else 0
    head[sowing_kernels.P_LEFTOVERS] = _LEFTOVERS_CODES[options.leftovers]
    head[sowing_kernels.P_VARIANT] = _VARIANT_CODES[(options.capture_duty, options.misere)]
    head[sowing_kernels.P_STATE_SIZE] = sowing_kernels.fields_at(pits) + sowing_kernels.N_FIELDS
    return np.concatenate([head, keys]).astype(np.int64)


@lru_cache(maxsize=64)
def sowing_params(options: SowingOptions) -> IntArray:
    """The kernel params of a sowing rule set, shared by its games (never written)."""
    return make_params(options)


class SowingGame(Game):
    """A game of Kalah or Dracala (``new_game("kalah")``, ``new_game("dracala")``).

    >>> from nugar import new_game
    >>> g = new_game("kalah")
    >>> g.play("3")      # 4 seeds from hole 3: the last one lands in the store
    >>> g.to_move, g.score
    (1, (1, 0))
    """

    descriptor: ClassVar[FamilyDescriptor] = SOWING
    _kernel: ClassVar[ModuleType] = sowing_kernels

    def __init__(self, rules: RuleSet | str = "kalah") -> None:
        super().__init__(rules)
        assert isinstance(self.rules.options, SowingOptions)
        self.options: SowingOptions = self.rules.options
        self.pits: int = self.options.pits
        self._captures_at = int(sowing_kernels.fields_at(self.pits)
                                + sowing_kernels.F_LAST_CAPTURES)

    def _start(self, state: IntArray) -> None:
        super()._start(state)
        self._captures: list[int] = []

    # --- setup -----------------------------------------------------------------------------
    @classmethod
    def from_position(cls, rules: RuleSet | str, holes1: Sequence[int], holes2: Sequence[int],
                      stores: tuple[int, int] = (0, 0), to_move: int = 1,
                      first_step_done: bool = True, last_capturer: int = 0) -> SowingGame:
        """A game starting from the given position.

        ``holes1`` and ``holes2`` list each player's holes from his own hole 1; ``stores`` is
        (first, second). ``first_step_done=False`` keeps Dracala's first-step exemption;
        ``last_capturer`` (0, 1 or 2) is who last put seeds into his store. If the position is
        already over (an empty side, a Dracala majority) the game starts ended, leftovers
        going as if the player not to move had made the last step.
        """
        game = cls(rules)
        pits = game.pits
        for name, holes in (("holes1", holes1), ("holes2", holes2)):
            if len(holes) != pits:
                raise NugarError(Text.plural(
                    "{name} must list {pits} hole (pits={pits}), got {count}",
                    "{name} must list {pits} holes (pits={pits}), got {count}", pits, name=name,
                    pits=pits, count=len(holes)))
        values = [*holes1, *holes2, *stores]
        if len(stores) != 2:
            raise NugarError(Text("stores must be two numbers (first, second), got {value!r}",
                                  value=stores))
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 0:
                raise NugarError(Text("seed counts must be whole numbers >= 0, got {value!r}",
                                      value=v))
        if to_move not in (1, 2):
            raise NugarError(Text("to_move must be 1 or 2, got {value!r}", value=to_move))
        if last_capturer not in (0, 1, 2):
            raise NugarError(Text("last_capturer must be 0 (nobody yet), 1 or 2, got "
                                  "{value!r}", value=last_capturer))
        state = np.zeros_like(game.state)
        state[ST_TO_MOVE] = to_move
        for player, holes in ((1, holes1), (2, holes2)):
            first = int(sowing_kernels.holes_at(pits, player))
            state[first:first + pits] = list(holes)
            state[sowing_kernels.store_at(pits, player)] = stores[player - 1]
        ext = int(sowing_kernels.fields_at(pits))
        state[ext + sowing_kernels.F_FIRST_DONE] = 1 if first_step_done else 0
        state[ext + sowing_kernels.F_LAST_CAPTURER] = last_capturer
        sowing_kernels.setup_state(game.params, state)
        game._start(state)
        return game

    # --- position text (Game.position_text, nugar.from_position) ----------------------------
    def _position_fields(self) -> list[str]:
        (holes1, holes2), (store1, store2) = self.holes, self.stores
        board = (",".join(str(v) for v in holes1) + f":{store1}/"
                 + ",".join(str(v) for v in holes2) + f":{store2}")
        fields = [board, POSITION_SYMBOLS[self.to_move]]
        ext = sowing_kernels.fields_start(self._params)
        if (self.options.capture_duty == "maximal"
                and self._state[ext + sowing_kernels.F_FIRST_DONE] == 0):
            fields.append("opening")
        capturer = int(self._state[ext + sowing_kernels.F_LAST_CAPTURER])
        if self.options.leftovers == "last_capturer" and capturer:
            fields.append(f"capturer={POSITION_SYMBOLS[capturer]}")
        return fields

    @classmethod
    def _setup_position(cls, rules: RuleSet, fields: list[str]) -> SowingGame:
        options = rules.options
        assert isinstance(options, SowingOptions)
        pits = options.pits
        names = {p: SOWING.player_name(p) for p in (1, 2)}
        symbols = Text("{first} ({first_name}), {second} ({second_name})",
                       first=POSITION_SYMBOLS[1], first_name=names[1],
                       second=POSITION_SYMBOLS[2], second_name=names[2])
        example = ("/".join([",".join([str(options.seeds)] * pits) + ":0"] * 2)
                   + f" {POSITION_SYMBOLS[1]}")
        if len(fields) < 2:
            raise NugarError(Text("after the rule set come the board and the player to move "
                                  "({symbols}), e.g. {example}", symbols=symbols,
                                  example=example))
        board, mover, *rest = fields
        sides = board.split("/")
        if len(sides) != 2 or any(side.count(":") != 1 for side in sides):
            raise NugarError(Text("the board is {first}'s holes from his hole 1 and ':' his "
                                  "store, '/', then {second}'s the same way, e.g. {example}; "
                                  "not {board!r}", first=names[1], second=names[2],
                                  example=example.split()[0], board=board))
        holes: list[list[int]] = []
        stores: list[int] = []
        for player, side in zip((1, 2), sides, strict=True):
            counts, store = side.split(":")
            values = counts.split(",")
            if len(values) != pits:
                raise NugarError(Text.plural(
                    "{player} has {count} hole; {rules} has {pits} (pits={pits})",
                    "{player} has {count} holes; {rules} has {pits} (pits={pits})", len(values),
                    player=names[player], count=len(values), rules=rules.text, pits=pits))
            holes.append([whole_number(v, Text("a seed count")) for v in values])
            stores.append(whole_number(store, Text("a seed count")))
        total = sum(holes[0]) + sum(holes[1]) + sum(stores)
        in_play = 2 * pits * options.seeds
        if total != in_play:
            raise NugarError(Text("the seeds add up to {total}; {rules} has {in_play} in play "
                                  "(2 x {pits} holes x {seeds} seeds)", total=total,
                                  rules=rules.text, in_play=in_play, pits=pits,
                                  seeds=options.seeds))
        to_move = _FROM_SYMBOL.get(mover, 0)
        if not to_move:
            raise NugarError(Text("the player to move is {symbols}, not {mover!r}",
                                  symbols=symbols, mover=mover))
        given = position_fields(rest, {"opening": "opening", "capturer": "capturer=s"})
        if "opening" in given and options.capture_duty != "maximal":
            raise NugarError(Text("opening (the first step of the game still to come) matters "
                                  "only under capture_duty=maximal (Dracala)"))
        capturer = 0
        if "capturer" in given:
            if options.leftovers != "last_capturer":
                raise NugarError(Text("capturer= matters only under leftovers=last_capturer, "
                                      "not leftovers={leftovers}", leftovers=options.leftovers))
            capturer = _FROM_SYMBOL.get(given["capturer"], 0)
            if not capturer:
                raise NugarError(Text("capturer= is {symbols}, not {value!r}", symbols=symbols,
                                      value=given["capturer"]))
        return cls.from_position(rules, holes[0], holes[1], (stores[0], stores[1]), to_move,
                                 first_step_done="opening" not in given,
                                 last_capturer=capturer)

    # --- what the base class needs ---------------------------------------------------------
    def _apply_action(self, action: int) -> None:
        self._stack.append(self._state.copy())
        fam_apply_held(self._fam, self._params, self._state, action)
        self._captures.append(int(self._state[self._captures_at]))

    def _restore(self) -> None:
        self._state = self._stack.pop()
        self._captures.pop()

    def _copy_into(self, new: SowingGame) -> None:
        new._stack = [s.copy() for s in self._stack]
        new._captures = list(self._captures)

    # --- sowing extras ---------------------------------------------------------------------
    @property
    def holes(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Seeds in each player's holes, each from his own hole 1: (first's, second's)."""
        p = self.pits
        s = self._state
        first = int(sowing_kernels.holes_at(p, 1))
        second = int(sowing_kernels.holes_at(p, 2))
        return tuple(s[first:first + p].tolist()), tuple(s[second:second + p].tolist())

    @property
    def stores(self) -> tuple[int, int]:
        """Seeds in the two stores, first player first."""
        return _stores(self.pits, self._state)

    def _may_win(self, player: int) -> bool:
        """Seeds never leave a store and the seeds in play never change, so a store only
        grows and the two final stores add up to all seeds. ``player`` wins with the bigger
        final store (misere: with the smaller one), so a win is out of reach once the
        opponent's store (misere: ``player``'s own) already holds half of all seeds or more."""
        holes1, holes2 = self.holes
        stores = self.stores
        total = sum(holes1) + sum(holes2) + sum(stores)
        counted = stores[player - 1] if self.options.misere else stores[2 - player]
        return 2 * counted < total

    def step_captures(self) -> list[int | None]:
        """Seeds each of the mover's holes would put into his store if sown now (``None`` for
        an empty hole), whether or not the step is legal; leftovers excluded."""
        caps = np.empty(self.pits, dtype=np.int64)
        bonus = np.empty(self.pits, dtype=np.int64)
        sowing_kernels.step_captures(self._params, self._state, caps, bonus)
        return [None if c < 0 else int(c) for c in caps]

    def turn_captures(self) -> list[int]:
        """Seeds each turn of :meth:`turn_list` put into the mover's store, leftovers excluded
        (the ``(-N)`` of Mancala World records; 0 for a turn without it)."""
        out: list[int] = []
        i = 0
        for _, moves in self.turn_list():
            out.append(sum(self._captures[i:i + len(moves)]))
            i += len(moves)
        return out

    def sowings(self, count: int) -> list[Sowing]:
        """What each of the last ``count`` moves sowed (fewer where fewer were played, or
        where the game started from a set position without their earlier positions): the
        cells its seeds fell into, in the order the kernel sows (:func:`_lap`), and the holes
        its capture or the game's end then emptied."""
        first = max(0, self.ply - count, self.ply - len(self._stack))
        n_cells = int(sowing_kernels.cell_count(self.pits))
        at = HEADER
        out: list[Sowing] = []
        for ply in range(first, self.ply):
            before = self._stack[ply - self.ply + len(self._stack)]
            after = (self._state if ply + 1 == self.ply
                     else self._stack[ply + 1 - self.ply + len(self._stack)])
            player = int(before[ST_TO_MOVE])
            action = self._codec_action(ply)
            order = _lap(self.options, player, action)
            start = int(sowing_kernels.holes_at(self.pits, player)) - at + action
            seeds = int(before[at + start])
            path = tuple(order[i % len(order)] for i in range(seeds))
            counts = [int(v) for v in before[at:at + n_cells]]
            counts[start] = 0
            for cell in path:
                counts[cell] += 1
            final = tuple(int(v) for v in after[at:at + n_cells])
            taken = tuple(c for c in range(n_cells) if final[c] < counts[c])
            out.append(Sowing(ply, player, start, path, taken, final))
        return out

    def _codec_action(self, ply: int) -> int:
        """The action code of the move played at ``ply`` (its hole, from 0)."""
        return self._moves[ply].hole - 1

    # --- why a step is refused (error path only) -------------------------------------------
    def _why_illegal(self, move: Move) -> str:
        caps = np.empty(self.pits, dtype=np.int64)
        bonus = np.empty(self.pits, dtype=np.int64)
        sowing_kernels.step_captures(self._params, self._state, caps, bonus)
        hole = move.hole
        if caps[hole - 1] < 0:
            return Text("hole {hole} is empty", hole=hole)
        if self.options.capture_duty != "maximal":
            return ""
        best = max(int(c) for c in caps)
        mine = int(caps[hole - 1])
        if mine < best:
            holes = [str(h + 1) for h in range(self.pits) if caps[h] == best]
            fields: dict[str, Any] = {"hole": hole, "seeds": _seeds(mine), "best": best}
            if len(holes) == 1:
                return Text("hole {hole} would capture {seeds} while hole {other} captures "
                            "{best}, and a step must capture as many seeds as possible",
                            other=holes[0], **fields)
            return Text("hole {hole} would capture {seeds} while holes {others} capture {best}, "
                        "and a step must capture as many seeds as possible",
                        others=", ".join(holes), **fields)
        ext = sowing_kernels.fields_start(self._params)
        first_done = self._state[ext + sowing_kernels.F_FIRST_DONE] != 0
        givers = [h + 1 for h in range(self.pits) if caps[h] == best and bonus[h]]
        if givers and first_done:
            if bonus[hole - 1]:
                return Text("hole {hole} gives a bonus step, but so does hole {other}, and the "
                            "rightmost step giving a bonus step must be taken", hole=hole,
                            other=givers[-1])
            return Text("hole {other} captures as many seeds ({best}) and gives a bonus step, "
                        "and among the steps capturing the most the rightmost one giving a "
                        "bonus step must be taken", other=givers[-1], best=best)
        return ""

    def _why_turn_ended(self) -> str:
        return Text("the last seed of {move} did not fall into {player}'s store",
                    move=str(self._moves[-1]), player=self.player_name(self._movers[-1]))

    def __str__(self) -> str:
        holes1, holes2 = self.holes
        store1, store2 = self.stores
        width = max(2, *(len(str(v)) for v in (*holes1, *holes2, store1, store2)))
        cell = width + 3

        def row(values: Sequence[int | str]) -> str:
            return "".join(f"{v:>{width}}".center(cell) for v in values)

        pad = " " * cell
        south, north = self.player_name(1), self.player_name(2)
        lines = [
            pad + row(list(range(self.pits, 0, -1))) + f"  holes of {self.player_label(2)}",
            pad + row(holes2[::-1]),
            f"{store2:>{width}}".center(cell) + " " * (cell * self.pits)
            + f"{store1:>{width}}".center(cell)
            + f"  {north}'s store {store2} on the left, {south}'s store {store1} on the right",
            pad + row(holes1),
            pad + row(list(range(1, self.pits + 1))) + f"  holes of {self.player_label(1)}",
        ]
        turns = self.turn_list()
        last = (f"last turn: {self.player_name(turns[-1][0])} "
                f"{'-'.join(str(m) for m in turns[-1][1])}" if turns else "no turn played yet")
        outcome = self.outcome
        if outcome is None:
            status = f"{self.player_name(self.to_move)} to move"
        else:
            status = f"game over: {outcome}, stores {south} {store1}, {north} {store2}"
        header = f"{self.rules.game} ({self.rules.text}): {status}; {last}"
        return "\n".join(line.rstrip() for line in [header, *lines])


def _seeds(count: int) -> str:
    return Text.plural("{count} seed", "{count} seeds", count, count=count)


# --- the family's parts (family.SOWING.parts) -------------------------------------------------

@lru_cache(maxsize=64)
def sowing_codec(rules: RuleSet) -> ActionCodec:
    """The action codes of a sowing rule set: a step from the mover's hole ``k`` is ``k - 1``."""
    options = rules.options
    assert isinstance(options, SowingOptions)
    pits = options.pits

    def resolve(move: Move) -> int:
        if move.kind != "sow":
            raise InvalidMoveError(Text(
                "{move} is not a sowing move; {game} moves are hole numbers 1..{pits}, and a "
                "turn joins them with '-', e.g. '1-6'", move=str(move), game=rules.game,
                pits=pits))
        if not 1 <= move.hole <= pits:
            raise InvalidMoveError(Text(
                "there is no hole {hole} in {rules}; holes are 1..{pits}", hole=move.hole,
                rules=rules.text, pits=pits))
        return move.hole - 1

    return codec_from_moves([Move.sow(k) for k in range(1, pits + 1)],
                            [str(k) for k in range(1, pits + 1)], resolve,
                            lambda action: Text("action {action} is no step", action=action),
                            "(a step from hole k is action k-1)")


def _params_of(options: Options) -> IntArray:
    assert isinstance(options, SowingOptions)
    return sowing_params(options)


def _score(params: IntArray, state: IntArray) -> tuple[int, int]:
    """The two stores, first player first."""
    return _stores(int(params[sowing_kernels.P_PITS]), state)


@lru_cache(maxsize=256)
def _lap(options: SowingOptions, player: int, action: int) -> tuple[int, ...]:
    """The cells the seeds of ``player``'s hole ``action + 1`` fall into, one lap (then the
    lap again), read from the kernel's own sowing rather than written a second time.

    In a probe position whose every other hole holds many seeds, that hole is sown with 1, 2,
    ... seeds; each time the one cell holding exactly one seed more than the time before is
    the next of the lap. The probe's rules end a game only when the player to move has no
    seeds and give each his own leftovers (``end=mover_empty``, ``leftovers=owner``, no
    misère majority: the order of the seeds is the same), so an ending never moves the seed
    just sown; a last seed can only capture where it falls into the emptied hole itself
    (every other hole already holds seeds), and then no cell holds exactly one more. The lap
    is complete when the next seed falls where the first did.
    """
    params = sowing_params(options).copy()
    params[sowing_kernels.P_END_MOVER] = 1
    params[sowing_kernels.P_LEFTOVERS] = sowing_kernels.LEFT_OWNER
    params[sowing_kernels.P_VARIANT] = sowing_kernels.VARIANT_PLAIN
    pits = options.pits
    n_cells = int(sowing_kernels.cell_count(pits))
    many = 4 * n_cells  # seeds in every other hole
    probe = sowing_kernels.initial_state(params).copy()
    for p in (1, 2):
        first = int(sowing_kernels.holes_at(pits, p))
        probe[first:first + pits] = many
        probe[sowing_kernels.store_at(pits, p)] = 0
    probe[ST_TO_MOVE] = player
    origin = int(sowing_kernels.holes_at(pits, player)) - HEADER + action
    probe[HEADER + origin] = 0
    before = probe[HEADER:HEADER + n_cells]
    gained = np.zeros(n_cells, dtype=np.int64)
    order: list[int] = []
    for seeds in range(1, n_cells + 1):
        state = probe.copy()
        state[HEADER + origin] = seeds
        sowing_kernels.apply_action(params, state, action)
        one_more = np.flatnonzero(state[HEADER:HEADER + n_cells] - before - gained == 1)
        cell = int(one_more[0]) if len(one_more) == 1 else origin
        if order and cell == order[0]:
            break
        order.append(cell)
        gained[cell] += 1
    return tuple(order)


def _stores(pits: int, state: IntArray) -> tuple[int, int]:
    return (int(state[sowing_kernels.store_at(pits, 1)]),
            int(state[sowing_kernels.store_at(pits, 2)]))


def _board(game: Game) -> PitBoard:
    assert isinstance(game, SowingGame)
    return PitBoard(game.holes, game.stores, game.options.skip_origin)


def _observation() -> Observation:
    from ..kernels import batch

    def shape(params: IntArray) -> tuple[int, ...]:
        return (int(batch.sowing_obs_size(params)),)

    def position_rows(params: IntArray) -> int:  # the holes and stores, before the flags
        return int(sowing_kernels.cell_count(params[sowing_kernels.P_PITS]))

    return Observation(shape, batch.sowing_observe, position_rows)


#: what the sowing family brings with its kernels (``family.SOWING.parts``)
def _symmetries(rules: RuleSet) -> tuple[Symmetry, ...]:
    """The identity alone: sowing goes one way round (``rules/symmetry.py`` says why)."""
    opts = rules.options
    assert isinstance(opts, SowingOptions)
    return (identity(opts.pits),)


PARTS = FamilyParts(kernel=sowing_kernels, code=FAM_SOWING, game_class=SowingGame,
                    params=_params_of, codec=sowing_codec, score=_score, board=_board,
                    observation=_observation, symmetries=_symmetries)
