"""Board diagrams for the terminal, as ``rich`` text that stays readable without colour.

:func:`render` is a pure function of a game: it draws the board with its coordinates, marks
the squares or holes of the last turn, and adds a status line (who moves, pieces in hand or
stores, the result once the game is over). Colour only repeats what the characters already
say, so ``NO_COLOR`` output and plain-text logs lose nothing.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from .notation import square_name
from .rules import Game, Move
from .rules.boards import GridBoard, PitBoard

BLACK, WHITE = "●", "○"
_PLAYER_STYLE = {1: "bold", 2: "bold cyan"}
_LAST_STYLE = "reverse"


def player_name(game: Game, player: int) -> str:
    """How the terminal names a player: the family's name (``game.player_name``), e.g.
    Black/White in alignment games, South/North in sowing games."""
    return game.player_name(player)


def status_line(game: Game) -> Text:
    """Who is to move (and in which phase), or how the game ended."""
    outcome = game.outcome
    if outcome is not None:
        if outcome.winner is None:
            head = f"Game over: draw ({outcome.reason})"
        else:
            head = f"Game over: {player_name(game, outcome.winner)} wins ({outcome.reason})"
        return Text(f"{head}, result {outcome.result}", style="bold")
    turns = game.turn_list()
    number = len(turns) + (0 if turns and turns[-1][0] == game.to_move else 1)
    text = Text(f"Turn {number}: ")
    text.append(player_name(game, game.to_move), style=_PLAYER_STYLE[game.to_move])
    text.append(" to move")
    legal = game.legal_moves()
    if legal and all(m.kind == "capture" for m in legal):
        text.append(" (capture a piece: a three was formed)")
    return text


def last_turn_text(game: Game) -> str:
    turns = game.turn_list()
    if not turns:
        return "Last turn: none yet"
    player, moves = turns[-1]
    return f"Last turn: {player_name(game, player)} {game.descriptor.join_turn(moves)}"


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


def _render_grid(game: Game, board: GridBoard) -> list[Text]:
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
        f"{glyphs[p]} {game.player_label(p)}: {hands[p - 1]} in hand, {on_board[p - 1]} on the "
        "board" for p in (1, 2))))
    return lines


def _render_pits(game: Game, board: PitBoard) -> list[Text]:
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
    first, second = game.player_name(1), game.player_name(2)
    return [
        labels(list(range(pits, 0, -1))).append(f"  {second}'s holes"),
        north,
        stores.append(f"  {second}'s store {store2} on the left, {first}'s store {store1} on "
                      "the right"),
        south,
        labels(list(range(1, pits + 1))).append(f"  {first}'s holes"),
        Text(f"Score: {game.player_label(1)} {store1}, {game.player_label(2)} {store2}"),
    ]


def render(game: Game) -> Group:
    """The board, the last turn and the status of ``game`` as one rich renderable."""
    title = Text(f"{game.rules.game} ({game.rules.text})", style="bold underline")
    data = game.descriptor.parts.board(game)
    lines = (_render_pits(game, data) if isinstance(data, PitBoard)
             else _render_grid(game, data))
    return Group(title, *lines, Text(last_turn_text(game)), status_line(game))


def moves_text(moves: list[Move]) -> str:
    """Legal moves on one line, separated by spaces."""
    return " ".join(str(m) for m in moves)
