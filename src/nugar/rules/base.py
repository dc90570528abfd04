"""What every game object shares: moves as values, outcomes, and the checked ``play`` path.

A family module (``alignment.py``, ``sowing.py``) subclasses :class:`Game` and supplies the
action codes and the calls into its compiled kernel; everything a user touches (``play``,
``undo``, ``turns``, ``result``) is implemented once here.
"""

from __future__ import annotations

import copy as _copy
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Literal

from ..errors import IllegalMoveError, InvalidMoveError, NugarError, RulesError
from ..notation import join_turn, normalize, split_turn
from .options import PRESETS, Family, RuleSet, parse_rules, player_label, player_name

MoveKind = Literal["drop", "step", "capture", "pass", "sow"]

_MOVE_RE = re.compile(r"^(?:(?P<drop>[a-z][1-9][0-9]?)|(?P<from>[a-z][1-9][0-9]?)-"
                      r"(?P<to>[a-z][1-9][0-9]?)|x(?P<cap>[a-z][1-9][0-9]?)|(?P<pass>pass)"
                      r"|(?P<hole>[0-9]+))$")


@dataclass(frozen=True, slots=True)
class Move:
    """One decision. Immutable and hashable; ``str(move)`` is its canonical text.

    >>> Move.parse("c3-c4")
    Move.parse('c3-c4')
    >>> str(Move.sow(4))
    '4'
    """

    kind: MoveKind
    squares: tuple[str, ...] = ()
    hole: int = 0

    @classmethod
    def drop(cls, square: str) -> Move:
        return cls("drop", (square.strip().lower(),))

    @classmethod
    def step(cls, origin: str, target: str) -> Move:
        return cls("step", (origin.strip().lower(), target.strip().lower()))

    @classmethod
    def capture(cls, square: str) -> Move:
        return cls("capture", (square.strip().lower(),))

    @classmethod
    def pass_(cls) -> Move:
        return cls("pass")

    @classmethod
    def sow(cls, hole: int) -> Move:
        return cls("sow", (), hole)

    @classmethod
    def parse(cls, text: str) -> Move:
        """Parse the text of one move (not a whole turn) of either family."""
        t = normalize(text) if isinstance(text, str) else ""
        m = _MOVE_RE.match(t)
        if not m:
            raise InvalidMoveError(
                f"cannot read {text!r} as a move; forms: drop 'c3', step 'c3-c4', capture "
                "'xe5', 'pass', or a hole number such as '4'")
        if m.group("drop"):
            return cls.drop(m.group("drop"))
        if m.group("from"):
            return cls.step(m.group("from"), m.group("to"))
        if m.group("cap"):
            return cls.capture(m.group("cap"))
        if m.group("pass"):
            return cls.pass_()
        return cls.sow(int(m.group("hole")))

    @property
    def text(self) -> str:
        return str(self)

    def __str__(self) -> str:
        if self.kind == "sow":
            return str(self.hole)
        if self.kind == "pass":
            return "pass"
        if self.kind == "capture":
            return "x" + self.squares[0]
        return "-".join(self.squares)

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: the winner (1, 2, or ``None`` for a draw) and why."""

    winner: int | None
    reason: str

    @property
    def result(self) -> str:
        return {1: "1-0", 2: "0-1", None: "1/2-1/2"}[self.winner]

    def __str__(self) -> str:
        return f"{self.result} ({self.reason})"


class Game(ABC):
    """A game in progress under one rule set. Subclasses: ``AlignmentGame``, ``SowingGame``.

    The checked entry point is :meth:`play` (move or whole-turn text, or a :class:`Move`);
    :meth:`push` and :meth:`push_action` apply a move without checking it, for search.
    """

    family: ClassVar[Family]

    def __init__(self, rules: RuleSet | str) -> None:
        rule_set = parse_rules(rules)
        if rule_set.family != self.family:
            names = ", ".join(p.name for p in PRESETS.values() if p.family == self.family)
            article = "an" if self.family[0] in "aeiou" else "a"
            raise RulesError(f"{type(self).__name__} needs {article} {self.family} rule set "
                             f"({names}), not {rule_set.text!r}")
        self.rules = rule_set
        self._moves: list[Move] = []
        self._movers: list[int] = []
        self._resigned: Outcome | None = None

    # --- what a family supplies ------------------------------------------------------------
    @abstractmethod
    def legal_actions(self) -> list[int]:
        """Action codes of the legal moves now (empty when the game is over)."""

    @abstractmethod
    def action_to_move(self, action: int) -> Move:
        """The move of an action code."""

    @abstractmethod
    def move_to_action(self, move: Move) -> int:
        """The action code of a move; ``InvalidMoveError`` if it cannot exist in this game."""

    @abstractmethod
    def _apply_action(self, action: int) -> None:
        """Apply an action without checking it, saving what ``_restore`` needs."""

    @abstractmethod
    def _restore(self) -> None:
        """Undo the last ``_apply_action``."""

    @property
    @abstractmethod
    def to_move(self) -> int:
        """The player to decide now: 1 (first) or 2 (second)."""

    @abstractmethod
    def _engine_outcome(self) -> Outcome | None:
        """The outcome the rules have reached, or ``None`` while the game runs."""

    @property
    @abstractmethod
    def score(self) -> tuple[int, int]:
        """Sowing: the two stores; alignment: pieces left (board plus hand). First player first."""

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
        return player_name(self.family, player)

    def player_label(self, player: int) -> str:
        """The name with the place in the order of play, e.g. ``"South (first)"``."""
        return player_label(self.family, player)

    # --- moves -----------------------------------------------------------------------------
    def parse_move(self, text: str | Move) -> Move:
        """Parse one move text and check that it can exist on this board (not that it is legal)."""
        move = text if isinstance(text, Move) else Move.parse(text)
        self.move_to_action(move)
        return move

    def legal_moves(self) -> list[Move]:
        """The legal moves of the player to decide now, in a fixed order."""
        if self._resigned is not None:
            return []
        return [self.action_to_move(a) for a in self.legal_actions()]

    def is_legal(self, move: str | Move) -> bool:
        try:
            action = self.move_to_action(self.parse_move(move))
        except InvalidMoveError:
            return False
        return self._resigned is None and action in self.legal_actions()

    def push_action(self, action: int) -> None:
        """Apply an action code without any check (fast path for search)."""
        mover = self.to_move
        self._apply_action(action)
        self._moves.append(self.action_to_move(action))
        self._movers.append(mover)

    def push(self, move: Move) -> None:
        """Apply a move without checking legality (fast path for search)."""
        self.push_action(self.move_to_action(move))

    def play(self, move: str | Move) -> None:
        """Play one move, or one whole turn given as text (``"c3-c4xe5"``, ``"1-6"``).

        Raises ``InvalidMoveError`` for text that is not a move of this game and
        ``IllegalMoveError`` for a move that is not legal now; either way the game is unchanged.
        """
        try:
            if isinstance(move, Move):
                moves = [self.parse_move(move)]
            elif isinstance(move, str):
                moves = [self.parse_move(t) for t in split_turn(self.family, move)]
            else:
                raise InvalidMoveError(
                    f"a move is given as text or a Move, not {type(move).__name__}")
        except InvalidMoveError as exc:
            raise InvalidMoveError(f"{exc}; {self._legal_text()}") from None
        start = len(self._moves)
        mover = self.to_move
        for i, m in enumerate(moves):
            try:
                self._check_legal(m, whole=move if len(moves) > 1 else None,
                                  mover=mover if i > 0 else None)
            except IllegalMoveError:
                while len(self._moves) > start:
                    self.undo()
                raise
            self.push_action(self.move_to_action(m))

    def _check_legal(self, move: Move, whole: str | Move | None, mover: int | None) -> None:
        outcome = self.outcome
        if outcome is not None:
            raise IllegalMoveError(f"{move} cannot be played: the game is over ({outcome})")
        if mover is not None and self.to_move != mover:
            why = self._why_turn_ended()
            raise IllegalMoveError(
                f"turn {whole!r} cannot continue with {move}: {self.player_name(mover)}'s turn "
                f"ended with {self._moves[-1]}{f', as {why}' if why else ''}")
        if move not in self.legal_moves():
            where = f" (in turn {whole!r})" if whole is not None else ""
            why = self._why_illegal(move)
            raise IllegalMoveError(f"{move} is not legal here{where}{f': {why}' if why else ''}; "
                                   f"{self._legal_text()}")

    def _legal_text(self) -> str:
        """What may be played now, for error messages."""
        outcome = self.outcome
        if outcome is not None:
            return f"the game is over ({outcome})"
        moves = ", ".join(str(m) for m in self.legal_moves()) or "nothing"
        return f"{self.player_name(self.to_move)} may play: {moves}"

    def undo(self) -> Move | None:
        """Take back the last move (or a resignation or agreed draw); returns the move taken
        back, ``None`` for a resignation or agreed draw."""
        if self._resigned is not None:
            self._resigned = None
            return None
        if not self._moves:
            raise IllegalMoveError("nothing to undo: no move has been played")
        self._restore()
        self._movers.pop()
        return self._moves.pop()

    def undo_turn(self) -> list[Move]:
        """Take back the whole last turn (all consecutive moves of its player)."""
        if self._resigned is not None:
            self._resigned = None
            return []
        if not self._moves:
            raise IllegalMoveError("nothing to undo: no move has been played")
        mover = self._movers[-1]
        undone: list[Move] = []
        while self._moves and self._movers[-1] == mover:
            m = self.undo()
            assert m is not None
            undone.append(m)
        return undone[::-1]

    @property
    def move_stack(self) -> list[Move]:
        """Every move played so far, oldest first."""
        return list(self._moves)

    def turn_list(self) -> list[tuple[int, list[Move]]]:
        """The game so far as turns: ``(player, moves)`` pairs."""
        out: list[tuple[int, list[Move]]] = []
        for mover, move in zip(self._movers, self._moves, strict=True):
            if out and out[-1][0] == mover and self._continues_turn(out[-1][1], move):
                out[-1][1].append(move)
            else:
                out.append((mover, [move]))
        return out

    def _continues_turn(self, turn: list[Move], move: Move) -> bool:
        """Whether ``move`` by the same player belongs to the same turn as ``turn``.

        Alignment: only a capture continues a drop or step (a blocked opponent passes
        explicitly, so two turns of one player never touch). Sowing: consecutive steps of one
        player are one turn (bonus steps).
        """
        if self.family == "sowing":
            return True
        return move.kind == "capture" and turn[-1].kind in ("drop", "step")

    def turns(self) -> list[str]:
        """The game so far as turn texts, e.g. ``["c3", "d4", "c3-c4xe5"]`` or ``["1-6", "5"]``."""
        return [join_turn(self.family, moves) for _, moves in self.turn_list()]

    # --- outcome ---------------------------------------------------------------------------
    @property
    def outcome(self) -> Outcome | None:
        """The outcome with its reason, or ``None`` while the game runs."""
        return self._resigned or self._engine_outcome()

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
        if self.outcome is not None:
            raise IllegalMoveError(f"cannot resign: the game is over ({self.outcome})")
        loser = self.to_move if player is None else player
        if loser not in (1, 2):
            raise IllegalMoveError(f"player must be 1 or 2, not {player!r}")
        self._resigned = Outcome(3 - loser, "resigned")

    def agree_draw(self) -> None:
        """Both players agree to a draw (offer and accept are the caller's business);
        ``undo`` takes it back like a resignation."""
        if self.outcome is not None:
            raise IllegalMoveError(f"cannot agree a draw: the game is over ({self.outcome})")
        self._resigned = Outcome(None, "agreement")

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
                    raise NugarError("result= is given twice")
                result = _parse_result(item[len("result="):])
            else:
                rest.append(item)
        game = cls._setup_position(rules, rest)
        derived = game.outcome
        if result is None or result == derived:
            return game
        if derived is None and result.reason in ("resigned", "agreement"):
            game._resigned = result
            return game
        if game._impose_outcome(result):
            return game
        now = "is still running" if derived is None else f"is over: {derived}"
        raise NugarError(f"result={result.result}:{result.reason} does not fit the position, "
                         f"which by the rules {now}")

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
    def copy(self) -> Game:
        """An independent copy, history included."""
        return _copy.deepcopy(self)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.rules.text!r} turns={self.turns()!r}>"


_RESULT_WINNERS: dict[str, int | None] = {"1-0": 1, "0-1": 2, "1/2-1/2": None}
#: reasons a result may give, with the results each allows
_RESULT_REASONS: dict[str, tuple[str, ...]] = {
    "pieces": ("1-0", "0-1"), "blocked": ("1-0", "0-1", "1/2-1/2"),
    "repetition": ("1/2-1/2",), "quiet_limit": ("1/2-1/2",), "majority": ("1-0", "0-1"),
    "empty_side": ("1-0", "0-1", "1/2-1/2"), "resigned": ("1-0", "0-1"),
    "agreement": ("1/2-1/2",),
}


def _parse_result(text: str) -> Outcome:
    """``1-0:pieces`` as an :class:`Outcome`; ``NugarError`` naming what is allowed."""
    result, _, reason = text.partition(":")
    if result not in _RESULT_WINNERS or reason not in _RESULT_REASONS:
        raise NugarError(f"result={text} is not a result; write result=RESULT:REASON with "
                         f"RESULT 1-0, 0-1 or 1/2-1/2 and REASON one of "
                         f"{', '.join(_RESULT_REASONS)}, e.g. result=1-0:pieces")
    if result not in _RESULT_REASONS[reason]:
        raise NugarError(f"result={text}: a game ended by {reason} ends "
                         f"{' or '.join(_RESULT_REASONS[reason])}, not {result}")
    return Outcome(_RESULT_WINNERS[result], reason)


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
            raise NugarError(f"unknown field {item!r}; after the board and the player to move "
                             f"may come: {examples}")
        if bool(eq) != ("=" in example):
            raise NugarError(f"field {name} is written like {example}, not {item!r}")
        if eq and not value:
            raise NugarError(f"field {name} needs a value, e.g. {example}")
        if name in out:
            raise NugarError(f"field {name} is given twice")
        out[name] = value
    return out


def whole_number(text: str, what: str) -> int:
    """``text`` as a whole number >= 0 (at most six digits), else ``NugarError`` on ``what``."""
    if not re.fullmatch(r"[0-9]{1,6}", text):
        raise NugarError(f"{what} must be a whole number such as 4, not {text!r}")
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

