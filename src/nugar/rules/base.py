"""What every game object shares, and what a family supplies to it.

A family (``docs/architecture.md``, "Families") is described once by a
:class:`FamilyDescriptor` (registered in ``family.py``): its names, notation and options, and in
:class:`FamilyParts` (loaded with the compiled kernels on first use) its kernel module, params,
action codes, observations, board data and AI profiles. A family module (``alignment.py``,
``sowing.py``) subclasses :class:`Game` for what really differs (undo data, position texts,
error explanations, the text board); everything else (``play``, ``undo``, ``turns``,
``result``, the legal moves, the state and its outcome) is implemented once here.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Self

from ..errors import IllegalMoveError, InvalidMoveError, NugarError, RulesError
from ..i18n import Text
from ..kernels.common import (
    OUTCOME_DRAW,
    OUTCOME_FIRST,
    OUTCOME_RUNNING,
    ST_KEY,
    ST_OUTCOME,
    ST_REASON,
    ST_TO_MOVE,
)
from .boards import Board, Sowing
from .codec import ActionCodec
from .moves import Move, Outcome, Termination
from .options import PRESETS, Options, RuleSet, parse_rules
from .profiles import AiProfile

if TYPE_CHECKING:  # numpy itself is imported when a game is made (``import nugar`` stays light)
    import numpy as np
    from numpy.typing import NDArray

    from .symmetry import Symmetry

    IntArray = NDArray[np.int64]
    FloatArray = NDArray[np.float32]

#: the termination of each kernel reason code (``kernels/common.py``, ``REASON_*``)
_KERNEL_TERMINATIONS: tuple[Termination | None, ...] = (
    None, Termination.PIECES, Termination.BLOCKED, Termination.REPETITION,
    Termination.QUIET_LIMIT, Termination.MAJORITY, Termination.EMPTY_SIDE,
    Termination.RESIGNATION)
_ORDINALS = (Text("first"), Text("second"))


@dataclass(frozen=True)
class Observation:
    """The fixed observation of the RL interfaces for one family (``docs/envs.md``):
    ``shape(params)``, ``observe(params, state, player, out)`` writing it flat into a
    ``float32`` array (compiled, ``kernels/batch.py``), and ``position_rows``: how many of its
    first rows (along the first axis) show the position proper, the pieces or the seeds (what
    an observation with history stacks for past positions; the rest is flags and counters)."""

    shape: Callable[[IntArray], tuple[int, ...]]
    observe: Callable[[IntArray, IntArray, int, FloatArray], None]
    position_rows: Callable[[IntArray], int]


def check_history(history: int) -> int:
    """The number of positions an observation with history stacks (``Encoder.observe_history``,
    ``nugar.jax.make(history=...)``) as given, or ``ValueError`` saying what is allowed."""
    if isinstance(history, bool) or not isinstance(history, int) or history < 1:
        raise ValueError(f"history must be a whole number of positions >= 1, not {history!r}")
    return history


@dataclass(frozen=True)
class FamilyParts:
    """What a family brings that needs its compiled kernels (loaded on first use).

    ``kernel``: the module of its compiled rules; ``code``: its family code in the kernels
    written once for all families (``kernels/dispatch.py``: the search, the batched
    simulator, perft); ``game_class``: its :class:`Game`; ``params(options)``: the kernel params
    of a rule set (the same options give the same array, never written); ``codec(rules)``: its
    action codes; ``score(params, state)``: the score of a state (``Game.score``);
    ``board(game)``: the position as board data for the pictures; ``observation()``: the
    observation of the RL interfaces, which imports its kernels when first asked for;
    ``symmetries(rules)``: the board symmetries its rules keep (``rules/symmetry.py``). (The
    evaluation weights come with each AI profile: ``AiProfile.weights``.)"""

    kernel: ModuleType
    code: int
    game_class: type[Game]
    params: Callable[[Options], IntArray]
    codec: Callable[[RuleSet], ActionCodec]
    score: Callable[[IntArray, IntArray], tuple[int, int]]
    board: Callable[[Game], Board]
    observation: Callable[[], Observation]
    symmetries: Callable[[RuleSet], tuple[Symmetry, ...]]


_LOADED: dict[str, FamilyParts] = {}


@dataclass(frozen=True)
class FamilyDescriptor:
    """One family of games, described once (``family.py`` registers them).

    The fields here are plain data, available without the compiled kernels: the family's
    name (as ``Preset.family`` gives it), its options class, how texts name the two players,
    what ``Game.score`` counts (``score_label``), its notation (``split_turn`` cuts a turn text
    into move texts, ``turn_joiner`` joins them back, ``continues_turn(last, move)`` says
    whether a move of the same player belongs to the turn ending with ``last``), whether
    records carry a ``Score`` tag and Mancala World capture annotations, whether the exact
    solver covers it, and its AI profiles (``ai_profiles``: every one ``RuleSet.ai_profile``
    can give its rule sets). ``implementation`` names the module holding the family's
    ``PARTS``.
    """

    name: str
    options_type: type[Options]
    player_names: tuple[str, str]
    score_label: str
    split_turn: Callable[[str], list[str]]
    turn_joiner: str
    continues_turn: Callable[[Move, Move], bool]
    score_tag: bool
    capture_annotations: bool
    solvable: bool
    ai_profiles: tuple[AiProfile, ...]
    implementation: str

    @property
    def parts(self) -> FamilyParts:
        """The family's :class:`FamilyParts` (importing its module, and numba, the first time)."""
        parts = _LOADED.get(self.name)
        if parts is None:
            parts = import_module(self.implementation).PARTS
            assert isinstance(parts, FamilyParts)
            _LOADED[self.name] = parts
        return parts

    def player_name(self, player: int) -> str:
        """How texts name player 1 (first) or 2 (second), e.g. ``Black`` or ``North`` (a
        :class:`~nugar.i18n.Text`, so a sentence naming the player translates the name too)."""
        if player not in (1, 2):
            raise ValueError(f"a player is 1 (first) or 2 (second), not {player!r}")
        return self.player_names[player - 1]

    def player_label(self, player: int) -> str:
        """The name with the player's place in the order of play, e.g. ``South (first)``."""
        return Text("{player} ({place})", player=self.player_name(player),
                    place=_ORDINALS[player - 1])

    def join_turn(self, moves: list[Move]) -> str:
        """The text of one turn from its moves, e.g. ``c3-c4xe5`` or ``1-6``."""
        return self.turn_joiner.join(str(m) for m in moves)


class Game(ABC):
    """A game in progress under one rule set. Subclasses: ``AlignmentGame``, ``SowingGame``.

    The checked entry point is :meth:`play` (move or whole-turn text, or a :class:`Move`);
    :meth:`push` and :meth:`push_action` apply a move without checking it, for search.
    """

    #: the family of this game class (set by the family module)
    descriptor: ClassVar[FamilyDescriptor]
    #: the family's compiled rules (``descriptor.parts.kernel``)
    _kernel: ClassVar[ModuleType]

    def __init__(self, rules: RuleSet | str) -> None:
        import numpy as np

        rule_set = parse_rules(rules)
        family = self.descriptor.name
        if rule_set.family != family:
            names = ", ".join(p.name for p in PRESETS.values() if p.family == family)
            if family[0] in "aeiou":
                raise RulesError(Text("{kind} needs an {family} rule set ({names}), not "
                                      "{rules!r}", kind=type(self).__name__, family=family,
                                      names=names, rules=rule_set.text))
            raise RulesError(Text("{kind} needs a {family} rule set ({names}), not {rules!r}",
                                  kind=type(self).__name__, family=family, names=names,
                                  rules=rule_set.text))
        self.rules = rule_set
        parts = self.descriptor.parts
        self._params: IntArray = parts.params(rule_set.options)
        self._fam: int = parts.code  # the family's code for the kernels' switches
        self._legal_kernel = _legal_kernel()
        self._codec: ActionCodec = parts.codec(rule_set)
        self._buf: IntArray = np.empty(self._codec.size, dtype=np.int64)
        self._moves: list[Move] = []
        self._movers: list[int] = []
        self._imposed: Outcome | None = None  # an ending the rules did not decide
        self._start(self._kernel.initial_state(self._params))

    def _start(self, state: IntArray) -> None:
        """Make ``state`` the position, with nothing to undo (a family adds its records)."""
        self._state: IntArray = state
        self._stack: list[Any] = []

    @classmethod
    def from_state(cls, rules: RuleSet | str, state: IntArray) -> Self:
        """A game whose position is a kernel state array (copied), such as a row of the
        batched simulator's states: no move history, no earlier positions. The array is
        trusted (only its length is checked): it must come from the kernels of these rules."""
        import numpy as np

        game = cls(rules)
        array = np.asarray(state)
        if array.dtype != np.int64 or array.shape != game._state.shape:
            raise NugarError(Text.plural(
                "a state of {rules} is {size} int64 number, not an array of shape {shape} "
                "and type {dtype}", "a state of {rules} is {size} int64 numbers, not an array "
                "of shape {shape} and type {dtype}", game._state.shape[0], rules=game.rules.text,
                size=game._state.shape[0], shape=array.shape,
                                  dtype=array.dtype))
        game._start(array.copy())
        return game

    # --- the state -------------------------------------------------------------------------
    @property
    def state(self) -> IntArray:
        """The kernel state array of the position (``docs/architecture.md``); read only:
        change the game through its methods."""
        return self._state

    @property
    def params(self) -> IntArray:
        """The kernel params array of the rule set (shared by its games; read only)."""
        return self._params

    @property
    def family(self) -> str:
        """The family's name, e.g. ``"sowing"`` (data, for texts and records)."""
        return self.descriptor.name

    @property
    def to_move(self) -> int:
        """The player to decide now: 1 (first) or 2 (second)."""
        return int(self._state[ST_TO_MOVE])

    @property
    def key(self) -> int:
        """The position's 64-bit key (what decides the game from here, in the kernel's
        terms)."""
        return int(self._state[ST_KEY])

    @property
    def score(self) -> tuple[int, int]:
        """What the family counts (``descriptor.score_label``), first player first: sowing the
        two stores, alignment the pieces left (board plus hand)."""
        return self.descriptor.parts.score(self._params, self._state)

    def legal_actions(self) -> list[int]:
        """Action codes of the legal moves now (empty when the game is over)."""
        if self._imposed is not None:
            return []
        n = self._legal_kernel(self._fam, self._params, self._state, self._buf)
        return self._buf[:n].tolist()  # type: ignore[no-any-return]

    def action_to_move(self, action: int) -> Move:
        """The move of an action code (``InvalidMoveError`` for a code that has none)."""
        return self._codec.to_move(action)

    def move_to_action(self, move: Move) -> int:
        """The action code of a move; ``InvalidMoveError`` if it cannot exist in this game."""
        return self._codec.to_action(move)

    def repetition_keys(self) -> list[int]:
        """Keys of the earlier turn-start positions a return to which the rules count as a
        repetition, oldest first (the search scores a return to one as a draw); empty in a
        family whose positions never recur."""
        return []

    def _engine_outcome(self) -> Outcome | None:
        """The outcome the rules have reached, or ``None`` while the game runs."""
        code = int(self._state[ST_OUTCOME])
        if code == OUTCOME_RUNNING:
            return None
        termination = _KERNEL_TERMINATIONS[int(self._state[ST_REASON])]
        assert termination is not None
        return Outcome(None if code == OUTCOME_DRAW else 1 if code == OUTCOME_FIRST else 2,
                       termination)

    # --- what a family supplies ------------------------------------------------------------
    @abstractmethod
    def _apply_action(self, action: int) -> None:
        """Apply an action without checking it, saving what ``_restore`` needs."""

    @abstractmethod
    def _restore(self) -> None:
        """Undo the last ``_apply_action``."""

    @abstractmethod
    def _copy_into(self, new: Self) -> None:
        """Give ``new`` (a shallow copy of this game) its own copies of the family's mutable
        records (the undo stack and whatever else ``_apply_action`` keeps)."""

    @abstractmethod
    def __str__(self) -> str:
        """A readable text board."""

    def _why_illegal(self, move: Move) -> str:
        """Why ``move`` (which exists on this board) is not legal now, in a few words; called
        only on the error path of :meth:`play`. A family overrides it; ``""``: no reason known."""
        return ""

    def _why_turn_ended(self) -> str:
        """Why the last move ended its player's turn (for a turn text that goes on after it);
        ``""``: no reason known."""
        return ""

    # --- names -----------------------------------------------------------------------------
    def player_name(self, player: int) -> str:
        """How texts name player 1 or 2: Black/White (alignment), South/North (sowing)."""
        return self.descriptor.player_name(player)

    def player_label(self, player: int) -> str:
        """The name with the place in the order of play, e.g. ``"South (first)"``."""
        return self.descriptor.player_label(player)


    # --- moves -----------------------------------------------------------------------------
    def parse_move(self, text: str | Move) -> Move:
        """Parse one move text and check that it can exist on this board (not that it is legal)."""
        move = text if isinstance(text, Move) else Move.parse(text)
        self.move_to_action(move)
        return move

    def legal_moves(self) -> list[Move]:
        """The legal moves of the player to decide now, in a fixed order."""
        if self._imposed is not None:
            return []
        to_move = self._codec.to_move
        return [to_move(a) for a in self.legal_actions()]

    def is_legal(self, move: str | Move) -> bool:
        """Whether ``move`` (text of one move, or a :class:`Move`) may be played now; text
        that is not a move of this game is simply not legal."""
        try:
            action = self.move_to_action(self.parse_move(move))
        except InvalidMoveError:
            return False
        return self._imposed is None and action in self.legal_actions()

    def push_action(self, action: int) -> None:
        """Apply an action code without any check (fast path for search)."""
        mover = int(self._state[ST_TO_MOVE])
        self._apply_action(action)
        self._moves.append(self._codec.to_move(action))
        self._movers.append(mover)

    def push(self, move: Move) -> None:
        """Apply a move without checking legality (fast path for search)."""
        self.push_action(self._codec.to_action(move))

    def play(self, move: str | Move) -> None:
        """Play one move, or one whole turn given as text (``"c3-c4xe5"``, ``"1-6"``).

        Raises ``InvalidMoveError`` for text that is not a move of this game and
        ``IllegalMoveError`` for a move that is not legal now; either way the game is unchanged.
        """
        try:
            if isinstance(move, Move):
                moves = [self.parse_move(move)]
            elif isinstance(move, str):
                moves = [self.parse_move(t) for t in self.descriptor.split_turn(move)]
            else:
                raise InvalidMoveError(Text("a move is given as text or a Move, not {kind}",
                                            kind=type(move).__name__))
        except InvalidMoveError as exc:
            raise InvalidMoveError(Text("{error}; {legal}", error=_said(exc),
                                        legal=self._legal_text())) from None
        start = len(self._moves)
        mover = self.to_move
        for i, m in enumerate(moves):
            try:
                action = self._check_legal(m, whole=move if len(moves) > 1 else None,
                                           mover=mover if i > 0 else None)
            except IllegalMoveError:
                while len(self._moves) > start:
                    self.undo()
                raise
            self.push_action(action)

    def explain(self, move: str | Move) -> str | None:
        """``None`` if the single ``move`` may be played now, else why not in one sentence
        (the reason :meth:`play` gives, without its list of the legal moves): what a user
        interface says when a click or a typed move is refused.

        >>> from nugar import new_game
        >>> g = new_game("dara")
        >>> g.play("c3")
        >>> g.explain("c3")
        'c3 is occupied (by a Black piece)'
        >>> g.explain("d4") is None
        True
        """
        outcome = self.outcome
        if outcome is not None:
            return game_over(outcome)
        try:
            parsed = self.parse_move(move)
        except InvalidMoveError as exc:
            return _said(exc)
        if parsed in self.legal_moves():
            return None
        return self._why_illegal(parsed) or Text("{move} is not legal here", move=str(parsed))

    def _check_legal(self, move: Move, whole: str | Move | None, mover: int | None) -> int:
        """The action code of ``move`` when it may be played now, else ``IllegalMoveError``
        (legal: its code is among the legal ones and stands for exactly this move)."""
        outcome = self.outcome
        if outcome is not None:
            raise IllegalMoveError(Text("{move} cannot be played: {over}", move=str(move),
                                        over=game_over(outcome)))
        if mover is not None and self.to_move != mover:
            why = self._why_turn_ended()
            fields = {"turn": f"{whole!r}", "move": str(move),
                      "player": self.player_name(mover), "last": str(self._moves[-1])}
            raise IllegalMoveError(
                Text("turn {turn} cannot continue with {move}: {player}'s turn ended with "
                     "{last}, as {why}", why=why, **fields) if why else
                Text("turn {turn} cannot continue with {move}: {player}'s turn ended with "
                     "{last}", **fields))
        action = self.move_to_action(move)
        if action not in self.legal_actions() or self._codec.to_move(action) != move:
            why = self._why_illegal(move)
            said = {"move": str(move), "legal": self._legal_text()}
            if whole is not None:
                said["turn"] = f"{whole!r}"
                refusal = (Text("{move} is not legal here (in turn {turn}): {why}; {legal}",
                                why=why, **said) if why else
                           Text("{move} is not legal here (in turn {turn}); {legal}", **said))
            else:
                refusal = (Text("{move} is not legal here: {why}; {legal}", why=why, **said)
                           if why else Text("{move} is not legal here; {legal}", **said))
            raise IllegalMoveError(refusal)
        return action

    def _legal_text(self) -> str:
        """What may be played now, for error messages."""
        outcome = self.outcome
        if outcome is not None:
            return game_over(outcome)
        moves = ", ".join(str(m) for m in self.legal_moves())
        return Text("{player} may play: {moves}", player=self.player_name(self.to_move),
                    moves=moves or Text("nothing"))

    def undo(self) -> Move | None:
        """Take back the last move, or an ending imposed on a running game (a resignation, an
        agreed draw, an adjudication, a loss on time); returns the move taken back, ``None``
        for an imposed ending."""
        if self._imposed is not None:
            self._imposed = None
            return None
        if not self._moves:
            raise IllegalMoveError(Text("nothing to undo: no move has been played"))
        self._restore()
        self._movers.pop()
        return self._moves.pop()

    def undo_turn(self) -> list[Move]:
        """Take back the whole last turn (all consecutive moves of its player), or an imposed
        ending (then ``[]``)."""
        if self._imposed is not None:
            self._imposed = None
            return []
        if not self._moves:
            raise IllegalMoveError(Text("nothing to undo: no move has been played"))
        mover = self._movers[-1]
        undone: list[Move] = []
        while self._moves and self._movers[-1] == mover:
            m = self.undo()
            assert m is not None
            undone.append(m)
        return undone[::-1]

    def undo_to_turn_of(self, player: int) -> list[Move]:
        """Take back whole turns, newest first, until ``player``'s last turn is gone: then
        ``player`` is to move again where he last decided. Any imposed ending goes too. Returns
        the moves taken back, oldest first.

        This is the takeback of a game against the computer (the human's turn and the replies
        after it) and of an accepted takeback offer (the asker's turn and the opponent's
        replies). ``IllegalMoveError`` (the game unchanged) if ``player`` has not moved yet.

        >>> from nugar import new_game
        >>> g = new_game("kalah")
        >>> g.play("3"); g.play("1"); g.play("2")
        >>> [str(m) for m in g.undo_to_turn_of(1)], g.to_move, g.turns()
        (['3', '1', '2'], 1, [])
        """
        if player not in (1, 2):
            raise IllegalMoveError(Text("player must be 1 or 2, not {player}",
                                        player=f"{player!r}"))
        if not self.has_moved(player):
            raise IllegalMoveError(Text("nothing to take back: {player} has not moved yet",
                                        player=self.player_name(player)))
        self._imposed = None
        undone: list[Move] = []
        while True:
            mover = self._movers[-1]
            undone[:0] = self.undo_turn()
            if mover == player:
                return undone

    def has_moved(self, player: int) -> bool:
        """Whether ``player`` (1 or 2) has made a move in this game (a pass counts)."""
        return player in self._movers

    @property
    def move_stack(self) -> list[Move]:
        """Every move played so far, oldest first."""
        return list(self._moves)

    def turn_list(self) -> list[tuple[int, list[Move]]]:
        """The game so far as turns: ``(player, moves)`` pairs."""
        out: list[tuple[int, list[Move]]] = []
        self.extend_turns(out, 0)
        return out

    @property
    def ply(self) -> int:
        """How many moves have been played (``len(move_stack)`` without the copy)."""
        return len(self._moves)

    def extend_turns(self, turns: list[tuple[int, list[Move]]], done: int) -> int:
        """Bring ``turns``, the :meth:`turn_list` of this game's first ``done`` moves, up to
        the whole game, in place (a caller that keeps the turns of a game as it grows spares
        going over every turn again); returns the index of the first turn changed or added.
        ``done`` must not exceed the moves played, and those moves must be the ones
        ``turns`` was made from (after a move is taken back, start again from ``[]``)."""
        if not 0 <= done <= len(self._moves):
            raise ValueError(f"done is a number of moves played, 0 to {len(self._moves)}, "
                             f"not {done!r}")
        first = len(turns)
        continues = self.descriptor.continues_turn
        for mover, move in zip(self._movers[done:], self._moves[done:], strict=True):
            if turns and turns[-1][0] == mover and continues(turns[-1][1][-1], move):
                first = min(first, len(turns) - 1)
                turns[-1][1].append(move)
            else:
                turns.append((mover, [move]))
        return first

    def turn_captures(self) -> list[int]:
        """What each turn of :meth:`turn_list` captured: pieces taken (alignment); a family
        that counts captures otherwise overrides it (sowing: seeds put into the store)."""
        return [sum(1 for m in moves if m.kind == "capture") for _, moves in self.turn_list()]

    def sowings(self, count: int) -> list[Sowing]:
        """What the last ``count`` moves sowed, seed by seed (:class:`~.boards.Sowing`), oldest
        first, for a picture that draws them; empty for a family whose moves sow nothing
        (sowing overrides it)."""
        return []

    def turns(self) -> list[str]:
        """The game so far as turn texts, e.g. ``["c3", "d4", "c3-c4xe5"]`` or ``["1-6", "5"]``."""
        return [self.descriptor.join_turn(moves) for _, moves in self.turn_list()]

    # --- outcome ---------------------------------------------------------------------------
    @property
    def outcome(self) -> Outcome | None:
        """The outcome with its reason, or ``None`` while the game runs."""
        return self._imposed or self._engine_outcome()

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    @property
    def result(self) -> str | None:
        """``"1-0"``, ``"0-1"``, ``"1/2-1/2"``, or ``None`` while the game runs."""
        outcome = self.outcome
        return None if outcome is None else outcome.result

    def resign(self, player: int | None = None) -> None:
        """The given player (default: the one to move) resigns; ``undo`` takes it back."""
        loser = self._player_arg(player, Text("resign"))
        self._impose(Outcome(3 - loser, Termination.RESIGNATION), Text("resign"))

    def agree_draw(self) -> None:
        """Both players agree to a draw (offer and accept are the caller's business);
        ``undo`` takes it back like a resignation."""
        self._impose(Outcome(None, Termination.AGREEMENT), Text("agree a draw"))

    def adjudicate(self, winner: int | None) -> None:
        """An arbiter ends the running game: ``winner`` 1 or 2 wins, ``None`` makes it a draw;
        ``undo`` takes it back like a resignation."""
        if winner is not None and winner not in (1, 2):
            raise IllegalMoveError(Text("the winner of an adjudication is 1, 2 or None (a "
                                        "draw), not {winner}", winner=f"{winner!r}"))
        self._impose(Outcome(winner, Termination.ADJUDICATION), Text("adjudicate"))

    def lose_on_time(self, player: int | None = None) -> None:
        """The given player (default: the one to move) has run out of time and loses;
        ``undo`` takes it back like a resignation."""
        loser = self._player_arg(player, Text("lose on time"))
        self._impose(Outcome(3 - loser, Termination.TIME), Text("lose on time"))

    def draw_on_time(self) -> None:
        """A flag fell, but the other player could not have won (:meth:`can_win`): a draw
        (``Termination.TIME``, ``1/2-1/2``); ``undo`` takes it back like a resignation."""
        self._impose(Outcome(None, Termination.TIME), Text("draw on time"))

    def time_out(self, player: int | None = None) -> Outcome:
        """The given player's (default: the one to move's) flag has fallen: a loss on time, or
        a draw on time when the opponent could not possibly win (:meth:`can_win`). Returns the
        outcome."""
        loser = self._player_arg(player, Text("run out of time"))
        if self.can_win(3 - loser):
            self.lose_on_time(loser)
        else:
            self.draw_on_time()
        outcome = self.outcome
        assert outcome is not None
        return outcome

    def can_win(self, player: int) -> bool:
        """Whether ``player`` could still win by some series of legal moves of both players.

        ``False`` only where the family's test proves a win impossible from here (alignment:
        too few pieces to ever make a three; sowing: the stores already decide it, see the
        games' pages); ``True`` where it cannot tell. A finished game: whether ``player`` won.
        A fallen flag is a draw, not a loss, when the opponent cannot win (:meth:`time_out`).
        """
        player = self._player_arg(player, Text("ask whether a player can win"))
        outcome = self.outcome
        if outcome is not None:
            return outcome.winner == player
        return self._may_win(player)

    def _may_win(self, player: int) -> bool:
        """The family's test behind :meth:`can_win` on a running game: ``False`` only when
        ``player`` cannot win whatever both players do (the base class cannot tell)."""
        return True

    def _player_arg(self, player: int | None, what: str) -> int:
        if player is None:
            return self.to_move
        if isinstance(player, bool) or player not in (1, 2):
            raise IllegalMoveError(Text("cannot {what}: player must be 1 or 2, not {player}",
                                        what=what, player=f"{player!r}"))
        return player

    def _impose(self, outcome: Outcome, what: str) -> None:
        """End the running game with an ending the rules do not decide."""
        if self.outcome is not None:
            raise IllegalMoveError(Text("cannot {what}: {over}", what=what,
                                        over=game_over(self.outcome)))
        self._imposed = outcome

    # --- positions -------------------------------------------------------------------------
    def position_text(self) -> str:
        """The position as one line of text, to share it or set it up again with
        ``nugar.from_position`` (format: ``docs/records.md``, "Positions").

        It holds the rule set and everything that decides the legal moves and the outcome
        from here on: the board (holes and stores), pieces in hand, the player to move, an
        owed capture, the quiet counter (under a ``quiet_limit``), the last steps (under
        ``no_return``), Dracala's first-step exemption, the last capturer (under
        ``leftovers=last_capturer``), and the result of a finished game. It does not hold
        the moves that led here, nor the earlier positions the repetition rule counts.

        >>> from nugar import new_game
        >>> g = new_game("kalah(pits=3,seeds=2)")
        >>> g.play("3")
        >>> g.position_text()
        'kalah(pits=3,seeds=2) 2,2,0:1/3,2,2:0 n'
        """
        parts = [self.rules.text, *self._position_fields()]
        outcome = self.outcome
        if outcome is not None:
            parts.append(f"result={outcome.result}:{outcome.reason}")
        return " ".join(parts)

    @abstractmethod
    def _position_fields(self) -> list[str]:
        """The fields of :meth:`position_text` after the rule set, the result left out."""

    @classmethod
    @abstractmethod
    def _setup_position(cls, rules: RuleSet, fields: list[str]) -> Game:
        """A game set up from the fields of a position text after the rule set (the result
        left out); ``NugarError`` saying what is wrong."""

    def _impose_outcome(self, outcome: Outcome) -> bool:
        """End a game just set up from a position with ``outcome``, which the position alone
        does not decide but the rules could have reached there (alignment: a repetition, both
        players blocked); ``False`` where they could not."""
        return False

    @classmethod
    def _read_position(cls, rules: RuleSet, fields: list[str]) -> Game:
        """The game of a position text's fields (after the rule set), its result applied."""
        result: Outcome | None = None
        rest = []
        for item in fields:
            if item.startswith("result="):
                if result is not None:
                    raise NugarError(Text("result= is given twice"))
                result = _parse_result(item[len("result="):])
            else:
                rest.append(item)
        game = cls._setup_position(rules, rest)
        derived = game.outcome
        if result is None or result == derived:
            return game
        if derived is None and not result.termination.by_rules:
            game._imposed = result
            return game
        if game._impose_outcome(result):
            return game
        if derived is None:
            raise NugarError(Text("result={result}:{reason} does not fit the position, which "
                                  "by the rules is still running", result=result.result,
                                  reason=result.reason))
        raise NugarError(Text("result={result}:{reason} does not fit the position, which by "
                              "the rules is over: {outcome}", result=result.result,
                              reason=result.reason, outcome=str(derived)))

    def __eq__(self, other: object) -> bool:
        """Games are equal when their positions are (:meth:`position_text`): the same rule set,
        board, hands or stores, player to move, and everything else that decides the game from
        here; how they got there (move history, the repetition record) does not count."""
        if not isinstance(other, Game):
            return NotImplemented
        return self.position_text() == other.position_text()

    def __hash__(self) -> int:
        """The hash of the position, so that equal games hash alike. A game changes as it is
        played, and its hash with it: do not play on with a game that is a dict key or in a
        set (use ``game.position_text()`` as a lasting key instead)."""
        return hash(self.position_text())

    # --- misc ------------------------------------------------------------------------------
    def copy(self) -> Self:
        """An independent copy, history included (the params and the action table are
        shared: they are never written)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new._state = self._state.copy()
        new._moves = list(self._moves)
        new._movers = list(self._movers)
        new._buf = self._buf.copy()
        self._copy_into(new)
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> Self:
        return self.copy()

    def __getstate__(self) -> dict[str, Any]:
        """What a pickle keeps: the rules' shared params and action table (and the compiled
        kernel) are made again from the rule set when it is read."""
        return {k: v for k, v in self.__dict__.items()
                if k not in ("_params", "_codec", "_legal_kernel")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        parts = self.descriptor.parts
        self._params = parts.params(self.rules.options)
        self._codec = parts.codec(self.rules)
        self._fam = parts.code
        self._legal_kernel = _legal_kernel()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.rules.text!r} turns={self.turns()!r}>"


def _legal_kernel() -> Any:
    """The kernel the game API asks for legal moves with (``dispatch.fam_legal_held``),
    imported when the first game is made: importing the rules loads no compiler."""
    from ..kernels.dispatch import fam_legal_held

    return fam_legal_held


_RESULT_WINNERS: dict[str, int | None] = {"1-0": 1, "0-1": 2, "1/2-1/2": None}


def _parse_result(text: str) -> Outcome:
    """``1-0:pieces`` as an :class:`Outcome`; ``NugarError`` naming what is allowed."""
    result, _, reason = text.partition(":")
    words = [str(t) for t in Termination]
    if result not in _RESULT_WINNERS or reason not in words:
        raise NugarError(Text("result={text} is not a result; write result=RESULT:REASON "
                              "with RESULT 1-0, 0-1 or 1/2-1/2 and REASON one of {reasons}, "
                              "e.g. result=1-0:pieces", text=text, reasons=", ".join(words)))
    termination = Termination(reason)
    if result not in termination.results:
        raise NugarError(Text("result={text}: a game ended by {reason} ends {results}, not "
                              "{result}", text=text, reason=reason,
                              results=" or ".join(termination.results), result=result))
    return Outcome(_RESULT_WINNERS[result], termination)


def position_fields(items: list[str], allowed: dict[str, str]) -> dict[str, str]:
    """The named fields of a position text after the board and the player to move.

    ``allowed`` maps each field name to an example (``"hand=12,12"``, or a bare ``"capture"``
    for a flag); the answer maps each given name to its value (``""`` for a flag).
    """
    out: dict[str, str] = {}
    examples = ", ".join([*allowed.values(), "result=1-0:pieces"])
    for item in items:
        name, eq, value = item.partition("=")
        example = allowed.get(name)
        if example is None:
            raise NugarError(Text("unknown field {item!r}; after the board and the player to "
                                  "move may come: {examples}", item=item, examples=examples))
        if bool(eq) != ("=" in example):
            raise NugarError(Text("field {name} is written like {example}, not {item!r}",
                                  name=name, example=example, item=item))
        if eq and not value:
            raise NugarError(Text("field {name} needs a value, e.g. {example}", name=name,
                                  example=example))
        if name in out:
            raise NugarError(Text("field {name} is given twice", name=name))
        out[name] = value
    return out


def whole_number(text: str, what: str) -> int:
    """``text`` as a whole number >= 0 (at most six digits), else ``NugarError`` on ``what``
    (a field's name, or a :class:`~nugar.i18n.Text` such as "a hand")."""
    if not re.fullmatch(r"[0-9]{1,6}", text):
        raise NugarError(Text("{what} must be a whole number such as 4, not {text!r}",
                              what=what, text=text))
    return int(text)


def perft(game: Game, depth: int) -> int:
    """Number of distinct decision sequences of exactly ``depth`` decisions from ``game``.

    A capture decision and a bonus step each count as one decision; a line that ends the
    game before ``depth`` counts 0 (the convention of ``fixtures/perft.md``).
    """
    if depth == 0:
        return 1
    if game.is_over:
        return 0
    actions = game.legal_actions()
    if depth == 1:
        return len(actions)
    total = 0
    for a in actions:
        game._apply_action(a)
        total += perft(game, depth - 1)
        game._restore()
    return total


__all__ = ["FamilyDescriptor", "FamilyParts", "Game", "Move", "Observation",
           "Outcome", "Termination", "perft", "position_fields",
           "whole_number"]


def game_over(outcome: Outcome) -> Text:
    """``the game is over (1-0 (pieces))``: the sentence for a move or a request refused
    because the game has ended (the outcome is written as records write it)."""
    return Text("the game is over ({outcome})", outcome=str(outcome))


def _said(exc: BaseException) -> str:
    """The sentence an error carries: its :class:`~nugar.i18n.Text` when it was raised with
    one (so it can still be translated), else its text."""
    if len(exc.args) == 1 and isinstance(exc.args[0], Text):
        return exc.args[0]
    return str(exc)
