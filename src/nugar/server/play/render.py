"""Board pictures as SVG text, and the board as plain data for the browser.

``svg(game, last_move=..., highlight=...)`` is a pure function of the game: the docs and
notebooks can embed it, and ``GET /api/games/{id}/svg`` serves it. The web page draws the
same markup itself from ``board_data`` (``static/board.js``: states and updates carry no
SVG); ``tests/test_board_js.py`` checks that the two are equal, so a change here is made
there too. Every square carries ``data-square="c3"`` and every
hole ``data-player``/``data-hole``, so the browser can make them clickable without knowing the
layout. Alignment boards put the first player's side (row 1) at the bottom; sowing boards put
the first player's holes at the bottom, numbered from his left, with his store on the right.

For screen readers and keyboards the picture is an ARIA grid (``role="grid"``): each row of
squares, or of holes with a store, is a ``role="row"`` group and each square, hole or store a
``role="gridcell"`` with a label saying what is there ("c3, Black piece", "South hole 4, 5
seeds"), focusable by script (``tabindex="-1"``: the page moves a roving ``tabindex="0"``
over them); the pieces in hand and the stores are also said in the grid's own label; the
row and file labels drawn around the board are hidden from screen readers.

``svg(..., lang="fr")`` says the labels (drawn and read) in another language with the web
app's own words (the ``webjs`` catalog, as ``board.js`` does in the page), so a rules page's
diagrams speak the page's language; in a right-to-left language each name is isolated as the
script isolates it (FSI...PDI) and the pieces-in-hand label is laid out right to left inside
the left-to-right board (RLI...PDI: « الأبيض في اليد: 12 », not « في اليد: 12 الأبيض »).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from html import escape
from typing import Any

from ...i18n import SOURCE, direction, translations
from ...notation import FILES, square_name
from ...rules.base import Game, Move
from ...rules.boards import GridBoard, PitBoard

SQUARE = 56
HOLE = 64
_PIECE_FILL = {1: "#1d1d1f", 2: "#fbfbf7"}
_PIECE_EDGE = {1: "#000", 2: "#555"}
#: Unicode isolates: first strong, right to left, pop
_FSI, _RLI, _PDI = "\u2068", "\u2067", "\u2069"


class _Words:
    """The board's labels in ``lang``, filled in as ``static/i18n.js`` fills them (a text
    field isolated in a right-to-left language, a number as it is); English is the template
    itself, so the English picture stays what ``board.js`` draws without a catalog."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.rtl = direction(lang) == "rtl"
        self._catalog = translations(lang, "webjs")

    def _fill(self, text: str, fields: dict[str, Any]) -> str:
        for key, value in fields.items():
            said = str(value)
            if self.rtl and not isinstance(value, int):
                said = f"{_FSI}{said}{_PDI}"
            text = text.replace("{" + key + "}", said)
        return text

    def t(self, msgid: str, /, **fields: Any) -> str:
        return self._fill(self._catalog.gettext(msgid) if self.lang != SOURCE else msgid, fields)

    def tn(self, one: str, many: str, number: int, /, **fields: Any) -> str:
        text = (self._catalog.ngettext(one, many, number) if self.lang != SOURCE
                else one if number == 1 else many)
        return self._fill(text, fields)

    def player(self, name: str) -> str:
        return self._catalog.gettext(name) if self.lang != SOURCE else name

    def seeds(self, count: int) -> str:
        return self.tn("{n} seed", "{n} seeds", count, n=count)

    def hand(self, name: str, count: int) -> str:
        label = self.t("{name} in hand: {count}", name=name, count=count)
        return f"{_RLI}{label}{_PDI}" if self.rtl else label


def board_data(game: Game) -> dict[str, Any]:
    """The position as plain JSON-able data (what the browser animates and labels): the
    family's name and its board data (``nugar.rules.boards``)."""
    return {"family": game.descriptor.name, **game.descriptor.parts.board(game).as_json()}


def _as_moves(last_move: Move | Sequence[Move] | None) -> list[Move]:
    if last_move is None:
        return []
    if isinstance(last_move, Move):
        return [last_move]
    return list(last_move)


def svg(game: Game, last_move: Move | Sequence[Move] | None = None,
        highlight: Iterable[str | int] = (), lang: str = SOURCE) -> str:
    """An SVG picture of the position, its labels in ``lang``.

    ``last_move`` (one move or the moves of a turn) is marked; ``highlight`` names squares
    (``"c3"``) or, for sowing, the mover's hole numbers to emphasise (e.g. the legal moves).
    """
    marks = _as_moves(last_move)
    lit = {str(h) for h in highlight}
    board = game.descriptor.parts.board(game)
    words = _Words(lang)
    if isinstance(board, PitBoard):
        return _pits_svg(game, board, marks, lit, words)
    return _grid_svg(game, board, marks, lit, words)


def _grid_svg(game: Game, board: GridBoard, marks: list[Move], lit: set[str],
              words: _Words) -> str:
    rows, cols, grid, hands = board.rows, board.cols, board.grid, board.hands
    margin, band = _MARGIN, _BAND
    width = margin + cols * SQUARE + 10
    height = band + rows * SQUARE + margin + band
    moved_to: set[str] = set()
    moved_from: set[str] = set()
    captured: set[str] = set()
    for m in marks:
        if m.kind == "drop":
            moved_to.add(m.squares[0])
        elif m.kind == "step":
            moved_from.add(m.squares[0])
            moved_to.add(m.squares[1])
        elif m.kind == "capture":
            captured.add(m.squares[0])
    names = (words.player(game.player_name(1)), words.player(game.player_name(2)))
    in_hand = ", ".join(words.t("{name} {count} in hand", name=names[p - 1],
                                count=hands[p - 1]) for p in (1, 2))
    said = words.t("{game} board, {rows} by {cols}; {hands}", game=escape(game.rules.game),
                   rows=rows, cols=cols, hands=in_hand)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="board alignment" '
           f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="grid" '
           f'aria-label="{said}">',
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="#f3e3c3" rx="8"/>']

    out.append(_hand_row(2, band / 2 + 2, hands[1], words.hand(names[1], hands[1]), width))
    what = {1: words.t("{name} piece", name=names[0]), 2: words.t("{name} piece", name=names[1])}
    empty = words.t("empty")
    marked = moved_from | moved_to | captured | lit
    rows_drawn, files = _grid_layout(rows, cols)
    for (head, cells), row in zip(rows_drawn, reversed(grid), strict=True):
        out.append(head)
        for c, name, x, y, fill in cells:
            owner = row[c]
            if name not in marked:  # most squares: the plain look
                out.append(_square(name, x, y, "sq", fill, what.get(owner, empty), owner,
                                   False, False))
                continue
            classes = ["sq"]
            if name in moved_from:
                classes.append("from")
                fill = "#f1e08a"
            if name in moved_to:
                classes.append("last")
                fill = "#f6e27a"
            if name in lit:
                classes.append("lit")
            out.append(_square(name, x, y, " ".join(classes), fill, what.get(owner, empty),
                               owner, name in captured, name in lit))
        out.append("</g>")
    out.append(files)
    out.append(_hand_row(1, band + rows * SQUARE + margin + band / 2 - 2, hands[0],
                         words.hand(names[0], hands[0]), width))
    out.append("</svg>")
    return "".join(out)


_MARGIN, _BAND = 26, 30  # a grid board's margin (row labels) and bands (pieces in hand)


@functools.lru_cache(maxsize=64)
def _grid_layout(rows: int, cols: int
                 ) -> tuple[list[tuple[str, list[tuple[int, str, int, int, str]]]], str]:
    """What a grid board of ``rows`` by ``cols`` always draws: per row, top row first, its
    label and row group's opening, and its squares ``(column, name, x, y, plain
    fill)``; then the file labels under the board."""
    margin, top = _MARGIN, _BAND
    drawn = []
    for r in reversed(range(rows)):  # the top row first: the order a screen reader reads
        y = top + (rows - 1 - r) * SQUARE
        head = (f'<text x="{margin / 2:.0f}" y="{y + SQUARE / 2 + 5:.0f}" font-size="13" '
                f'text-anchor="middle" fill="#5a4630" aria-hidden="true">{r + 1}</text>'
                f'<g role="row" aria-rowindex="{rows - r}">')
        cells = [(c, square_name(c, r), margin + c * SQUARE, y,
                  "#e8cfa0" if (r + c) % 2 == 0 else "#dfc18e") for c in range(cols)]
        drawn.append((head, cells))
    base = top + rows * SQUARE
    files = "".join(f'<text x="{margin + c * SQUARE + SQUARE / 2:.0f}" y="{base + 17:.0f}" '
                    f'font-size="13" text-anchor="middle" fill="#5a4630" '
                    f'aria-hidden="true">{FILES[c]}</text>' for c in range(cols))
    return drawn, files


@functools.lru_cache(maxsize=1024)
def _hand_row(player: int, y: float, count: int, label: str, width: int) -> str:
    """The ``count`` pieces ``player`` has in hand, drawn above or below a board ``width``
    wide: the ``label``, then up to 12 pieces after it (a generous 8 units per letter of the
    13-unit font, so a count in the hundreds never runs into them), as many as fit."""
    margin = _MARGIN
    parts = [f'<g class="hand" data-player="{player}" aria-hidden="true">',
             f'<text x="{margin}" y="{y + 5:.0f}" font-size="13" fill="#333">{label}</text>']
    first = margin + 16 + 8 * len(label)
    for i in range(max(0, min(count, 12, (width - 10 - first) // 14))):
        cx = first + i * 14
        parts.append(f'<circle cx="{cx}" cy="{y:.0f}" r="6" fill="{_PIECE_FILL[player]}" '
                     f'stroke="{_PIECE_EDGE[player]}"/>')
    parts.append("</g>")
    return "".join(parts)


@functools.lru_cache(maxsize=4096)
def _square(name: str, x: int, y: int, classes: str, fill: str, what: str, owner: int,
            captured: bool, lit: bool) -> str:
    """One square of a grid board; a board has few squares and each few looks, so they are
    drawn once and remembered (at most 4096 of them)."""
    out = [f'<g class="{classes}" data-square="{name}" role="gridcell" '
           f'tabindex="-1" aria-label="{name}, {what}">'
           f'<rect x="{x}" y="{y}" width="{SQUARE}" height="{SQUARE}" '
           f'fill="{fill}" stroke="#8a6d45" stroke-width="1"/>']
    cx, cy = x + SQUARE / 2, y + SQUARE / 2
    if owner in (1, 2):
        out.append(f'<circle class="piece p{owner}" cx="{cx:.0f}" cy="{cy:.0f}" '
                   f'r="{SQUARE * 0.36:.1f}" fill="{_PIECE_FILL[owner]}" '
                   f'stroke="{_PIECE_EDGE[owner]}" stroke-width="2"/>')
    if captured:
        d = SQUARE * 0.22
        out.append(f'<path class="captured" d="M{cx - d:.0f},{cy - d:.0f} '
                   f'L{cx + d:.0f},{cy + d:.0f} M{cx + d:.0f},{cy - d:.0f} '
                   f'L{cx - d:.0f},{cy + d:.0f}" stroke="#c0392b" stroke-width="4" '
                   'stroke-linecap="round"/>')
    if lit:
        out.append(f'<circle class="dot" cx="{cx:.0f}" cy="{cy:.0f}" r="7" '
                   'fill="#2e86de" fill-opacity="0.6"/>')
    out.append("</g>")
    return "".join(out)


@functools.lru_cache(maxsize=4096)
def _hole(player: int, k: int, cell: int, classes: str, label: str, count: int, x: float,
          y: float) -> str:
    """One hole of a sowing board, remembered like :func:`_square`."""
    ring = "#f6e27a" if "last" in classes.split() else "#5e3a17"
    return (f'<g class="{classes}" data-player="{player}" data-hole="{k}" '
            f'data-cell="{cell}" role="gridcell" tabindex="-1" aria-label="{label}">'
            f'<circle cx="{x:.0f}" cy="{y:.0f}" r="{HOLE * 0.4:.0f}" '
            f'fill="#6b4220" stroke="{ring}" stroke-width="3"/>'
            f'<text class="count" x="{x:.0f}" y="{y + 7:.0f}" font-size="20" '
            f'text-anchor="middle" fill="#fff4dc">{count}</text></g>')


def _pits_svg(game: Game, board: PitBoard, marks: list[Move], lit: set[str],
              words: _Words) -> str:
    holes1, holes2 = board.holes
    store1, store2 = board.stores
    pits = board.pits
    pad = 10
    width = pad * 2 + (pits + 2) * HOLE
    height = pad * 2 + 2 * HOLE + 44
    sown = {m.hole for m in marks if m.kind == "sow"}
    turns = game.turn_list()
    last_player = turns[-1][0] if marks and turns else None
    names = (words.player(game.player_name(1)), words.player(game.player_name(2)))
    stores_said = ", ".join(words.t("{name}'s store {seeds}", name=names[p - 1],
                                    seeds=words.seeds(board.stores[p - 1])) for p in (1, 2))
    said = words.tn("{game} board, {pits} hole a side; {stores}",
                    "{game} board, {pits} holes a side; {stores}", pits,
                    game=escape(game.rules.game), pits=pits, stores=escape(stores_said))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="board sowing" '
           f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="grid" '
           f'aria-label="{said}">',
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="#8b5a2b" rx="16"/>']

    def hole(player: int, k: int, count: int, x: float, y: float) -> str:
        cell = k - 1 if player == 1 else pits + 1 + k - 1
        classes = ["hole"]
        if player == last_player and k in sown:
            classes.append("last")
        if player == game.to_move and str(k) in lit:
            classes.append("lit")
        label = words.t("{name} hole {hole}, {seeds}", name=names[player - 1], hole=str(k),
                        seeds=words.seeds(count))
        return _hole(player, k, cell, " ".join(classes), label, count, x, y)

    top_y = pad + 18 + HOLE / 2
    bottom_y = top_y + HOLE

    def store(player: int, count: int, x: float) -> str:
        cell = pits if player == 1 else 2 * pits + 1
        label = words.t("{name}'s store, {seeds}", name=names[player - 1],
                        seeds=words.seeds(count))
        return (f'<g class="store" data-player="{player}" data-cell="{cell}" role="gridcell" '
                f'tabindex="-1" aria-label="{escape(label)}">'
                f'<rect x="{x + 6:.0f}" y="{top_y - HOLE * 0.4:.0f}" width="{HOLE - 12}" '
                f'height="{HOLE * 1.8:.0f}" rx="24" fill="#6b4220" stroke="#5e3a17" '
                f'stroke-width="3"/><text class="count" x="{x + HOLE / 2:.0f}" '
                f'y="{(top_y + bottom_y) / 2 + 8:.0f}" font-size="24" text-anchor="middle" '
                f'fill="#fff4dc">{count}</text></g>')

    xs = [pad + (i + 1) * HOLE + HOLE / 2 for i in range(pits)]
    # the second player's row: his store on the left, then his holes, numbered right to left
    # as the first player sees them
    out.append('<g role="row" aria-rowindex="1">')
    out.append(store(2, store2, pad))
    for i, x in enumerate(xs):
        k2 = pits - i
        out.append(hole(2, k2, holes2[k2 - 1], x, top_y))
    out.append("</g>")
    # the first player's row: his holes from his left, then his store on the right
    out.append('<g role="row" aria-rowindex="2">')
    for i, x in enumerate(xs):
        out.append(hole(1, i + 1, holes1[i], x, bottom_y))
    out.append(store(1, store1, pad + (pits + 1) * HOLE))
    out.append("</g>")
    for i, x in enumerate(xs):
        out.append(f'<text x="{x:.0f}" y="{pad + 12}" font-size="11" text-anchor="middle" '
                   f'fill="#f3dcb5" aria-hidden="true">{pits - i}</text>')
        out.append(f'<text x="{x:.0f}" y="{bottom_y + HOLE / 2 + 16:.0f}" font-size="11" '
                   f'text-anchor="middle" fill="#f3dcb5" aria-hidden="true">{i + 1}</text>')
    out.append(f'<text x="{pad + HOLE / 2:.0f}" y="{height - 8}" font-size="11" '
               f'text-anchor="middle" fill="#f3dcb5" aria-hidden="true">'
               f'{names[1]}</text>')
    out.append(f'<text x="{pad + (pits + 1.5) * HOLE:.0f}" y="{height - 8}" font-size="11" '
               f'text-anchor="middle" fill="#f3dcb5" aria-hidden="true">'
               f'{names[0]}</text>')
    out.append("</svg>")
    return "".join(out)

