"""Board diagrams for the terminal, as ``rich`` text that stays readable without colour.

:func:`render` is a pure function of a game: it draws the board with its coordinates, marks
the squares or holes of the last turn, and adds a status line (who moves, pieces in hand or
stores, the result once the game is over). Colour only repeats what the characters already
say, so ``NO_COLOR`` output and plain-text logs lose nothing.

Every function takes the reader's language (``lang``, :mod:`nugar.i18n`; the ``cli`` catalog):
``nugar play`` and ``nugar replay`` draw in the terminal's language, the engine protocol in
English. Move texts, squares and hole numbers are the same in every language.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from .i18n import gettext_for, say
from .notation import square_name
from .rules import Game, Move
from .rules.boards import GridBoard, PitBoard

BLACK, WHITE = "●", "○"
_PLAYER_STYLE = {1: "bold", 2: "bold cyan"}
_LAST_STYLE = "reverse"


def player_name(game: Game, player: int, lang: str = "en") -> str:
    """How the terminal names a player: the family's name (``game.player_name``), e.g.
    Black/White in alignment games, South/North in sowing games, in ``lang``."""
    return say(game.player_name(player), lang, "cli")


def player_label(game: Game, player: int, lang: str = "en") -> str:
    """The name with the place in the order of play, e.g. ``South (first)``, in ``lang``."""
    _ = gettext_for(lang, "cli")
    place = _("first") if player == 1 else _("second")
    return _("{name} ({place})").format(name=player_name(game, player, lang), place=place)


def reason_text(reason: str, lang: str = "en") -> str:
    """How a game ended, in words of ``lang`` (the termination's word in English)."""
    return say(reason, lang, "cli")


def status_line(game: Game, lang: str = "en") -> Text:
    """Who is to move (and in which phase), or how the game ended."""
    _ = gettext_for(lang, "cli")
    outcome = game.outcome
    if outcome is not None:
        reason = reason_text(outcome.reason, lang)
        if outcome.winner is None:
            head = _("Game over: draw ({reason}), result {result}")
        else:
            head = _("Game over: {name} wins ({reason}), result {result}")
        return Text(head.format(reason=reason, result=outcome.result,
                                name=player_name(game, outcome.winner or 1, lang)),
                    style="bold")
    turns = game.turn_list()
    number = len(turns) + (0 if turns and turns[-1][0] == game.to_move else 1)
    before, _sep, after = _("Turn {number}: {name} to move").partition("{name}")
    text = Text(before.format(number=number))
    text.append(player_name(game, game.to_move, lang), style=_PLAYER_STYLE[game.to_move])
    text.append(after.format(number=number))
    legal = game.legal_moves()
    if legal and all(m.kind == "capture" for m in legal):
        text.append(_(" (capture a piece: a three was formed)"))
    return text


def last_turn_text(game: Game, lang: str = "en") -> str:
    _ = gettext_for(lang, "cli")
    turns = game.turn_list()
    if not turns:
        return _("Last turn: none yet")
    player, moves = turns[-1]
    return _("Last turn: {name} {turn}").format(name=player_name(game, player, lang),
                                               turn=game.descriptor.join_turn(moves))


def _last_marks(game: Game) -> set[str]:
    """Squares (alignment) or ``"p<player>h<hole>"`` holes (sowing) of the last turn."""
    turns = game.turn_list()
    if not turns:
        return set()
    player, moves = turns[-1]
    marks: set[str] = set()
    for move in moves:
        if move.kind == "sow":
            marks.add(f"p{player}h{move.hole}")
        else:
            marks.update(move.squares)
    return marks


def _render_grid(game: Game, board: GridBoard, lang: str) -> list[Text]:
    _ = gettext_for(lang, "cli")
    rows, cols = board.rows, board.cols
    marks = _last_marks(game)
    width = len(str(rows))
    files = "".join(f" {chr(ord('a') + c)} " for c in range(cols))
    lines = [Text(" " * (width + 1) + files, style="dim")]
    for r in range(rows - 1, -1, -1):
        line = Text(f"{r + 1:>{width}} ", style="dim")
        for c in range(cols):
            sq = square_name(c, r)
            owner = board.owner(c, r)
            glyph = {0: "·", 1: BLACK, 2: WHITE}[owner]
            if sq in marks:  # brackets mark the last turn even without colour
                line.append(f"[{glyph}]", style=_LAST_STYLE)
            else:
                line.append(f" {glyph} ", style=_PLAYER_STYLE.get(owner, "dim"))
        line.append(f" {r + 1}", style="dim")
        lines.append(line)
    lines.append(Text(" " * (width + 1) + files, style="dim"))
    hands, on_board = board.hands, board.on_board
    glyphs = {1: BLACK, 2: WHITE}
    lines.append(Text("; ".join(
        _("{glyph} {label}: {hand} in hand, {board} on the board").format(
            glyph=glyphs[p], label=player_label(game, p, lang), hand=hands[p - 1],
            board=on_board[p - 1]) for p in (1, 2))))
    return lines


def _render_pits(game: Game, board: PitBoard, lang: str) -> list[Text]:
    _ = gettext_for(lang, "cli")
    holes1, holes2 = board.holes
    store1, store2 = board.stores
    pits = len(holes1)
    marks = _last_marks(game)
    width = max(2, *(len(str(v)) for v in (*holes1, *holes2, store1, store2)))
    cell = width + 2
    pad = " " * (cell + 1)

    def hole(player: int, number: int, seeds: int) -> Text:
        if f"p{player}h{number}" in marks:
            return Text(f"[{seeds:>{width}}]", style=_LAST_STYLE)
        return Text(f" {seeds:>{width}} ", style=_PLAYER_STYLE[player])

    def labels(numbers: list[int]) -> Text:
        return Text(pad + "".join(f" {n:>{width}} " for n in numbers), style="dim")

    north = Text(pad)
    for k in range(pits, 0, -1):
        north.append(hole(2, k, holes2[k - 1]))
    south = Text(pad)
    for k in range(1, pits + 1):
        south.append(hole(1, k, holes1[k - 1]))
    stores = Text(f"({store2:>{width}})" + " " * (cell * pits + 1) + f"({store1:>{width}})")
    first, second = player_name(game, 1, lang), player_name(game, 2, lang)
    return [
        labels(list(range(pits, 0, -1))).append("  " + _("{name}'s holes").format(name=second)),
        north,
        stores.append("  " + _("{second}'s store {store2} on the left, {first}'s store "
                               "{store1} on the right").format(
            first=first, second=second, store1=store1, store2=store2)),
        south,
        labels(list(range(1, pits + 1))).append("  " + _("{name}'s holes").format(name=first)),
        Text(_("Score: {first} {store1}, {second} {store2}").format(
            first=player_label(game, 1, lang), second=player_label(game, 2, lang),
            store1=store1, store2=store2)),
    ]


def render(game: Game, lang: str = "en") -> Group:
    """The board, the last turn and the status of ``game`` as one rich renderable, its words
    in ``lang``."""
    title = Text(f"{game.rules.game} ({game.rules.text})", style="bold underline")
    data = game.descriptor.parts.board(game)
    lines = (_render_pits(game, data, lang) if isinstance(data, PitBoard)
             else _render_grid(game, data, lang))
    return Group(title, *lines, Text(last_turn_text(game, lang)), status_line(game, lang))


def moves_text(moves: list[Move]) -> str:
    """Legal moves on one line, separated by spaces."""
    return " ".join(str(m) for m in moves)
