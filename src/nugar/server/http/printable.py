"""The pages for teachers and museums: a game's rule sheet and board to print, and the page on
its people and history.

- ``/rules/<name>/sheet``: the first part of the game's rules page ("How to play": the board,
  the pieces, a turn, how a game is won, its sources) with its diagrams, alone, which
  ``static/print.css`` lays out on one A4 page. The rules pages are translated, so the sheet
  is in every language they are, and a preset with its own page (``dara-niger``) has its own
  sheet.
- ``/rules/<name>/board``: the preset's board as line art measured in millimetres, to print
  on A4 and play on with stones or seeds: an alignment board's squares with their
  coordinates, a sowing board's holes with their numbers (each player's from his own left)
  and the two stores, each side named after its player, and how many pieces or seeds to bring.
- ``/rules/<name>/history``: the game's people and history from the sources (local names, how
  boards and pieces are made), ``docs/history/<game>.md`` and its translations
  ``docs/<lang>/history/<game>.md``; a preset shows its game's page.

Each page says its language and direction as the rules pages do (:func:`.pages.wrap_page`),
the board keeps its geometry in a right-to-left page, and each leads to the others, to the
rules page and to a Print button (``static/print.js``); the links and the button are not
printed.
"""

from __future__ import annotations

from html import escape

from ...i18n import Text, direction, say
from ...notation import FILES
from ...rules import PRESETS, Game, new_game
from ...rules.boards import GridBoard, PitBoard
from .pages import localized_text, node, page_of, render, shipped, teaching_links, wrap_page

#: the folder of the history pages, relative to the package's ``docs`` folder
HISTORY = "history"

# the printed board, in millimetres: the widest and tallest it may be on A4 paper (12 mm
# margins, the title and a line of text above it), a square's and a hole's largest size
_WIDTH, _HEIGHT = 184.0, 200.0
_CELL, _HOLE = 28.0, 24.0
_LABEL = 5.0  # the coordinates' and the numbers' size
_INK = "#000"


def first_part(text: str) -> str:
    """A page's title line and its first ``##`` part (its "How to play"), fenced blocks
    kept whole (a ``#`` inside one is not a heading)."""
    lines = text.split("\n")
    title = ""
    start: int | None = None
    end = len(lines)
    fenced = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if fenced:
            continue
        if line.startswith("# ") and not title:
            title = line
        elif line.startswith("## "):
            if start is not None:
                end = i
                break
            start = i
    return "\n".join([title, *(lines[start:end] if start is not None else [])])


def sheet_page(name: str, lang: str) -> str | None:
    """The rule sheet of ``name`` (a game or a preset) in ``lang``, or ``None`` when there is
    no game page by that name (the rules contract has no sheet)."""
    rel = page_of(name)
    if rel is None:
        return None
    text, here, content = localized_text(rel, lang)
    body, title = render(first_part(text), here, shipped(), direction(content) == "rtl",
                         content)
    links = teaching_links(name, lang, "sheet", print_button=True)
    return wrap_page(title or name, links + body, lang, content, kind="sheet")


def history_page(name: str, lang: str) -> str | None:
    """The page on the people and history of ``name``'s game in ``lang`` (the English page
    where it is not translated), or ``None`` when there is none."""
    key = name.lower()
    if page_of(key) is None:
        return None
    preset = PRESETS.get(key)
    for stem in (key, preset.game.lower() if preset is not None else key):
        rel = f"{HISTORY}/{stem}.md"
        if node(rel).is_file():
            break
    else:
        return None
    text, here, content = localized_text(rel, lang)
    body, title = render(text, here, shipped(), direction(content) == "rtl", content)
    links = teaching_links(key, lang, "history", print_button=True)
    end = body.find("</h1>") + 5
    return wrap_page(title or key, body[:end] + links + body[end:], lang, content,
                     kind="history")


def board_page(name: str, lang: str) -> str | None:
    """The board of preset ``name`` to print, in ``lang``, or ``None`` when there is no
    preset by that name."""
    key = name.lower()
    if key not in PRESETS:
        return None
    game = new_game(key)
    title = say(Text("Board to print: {game}", domain="web",
                     game=f"{game.rules.game} ({game.rules.text})"), lang)
    board = game.descriptor.parts.board(game)
    if isinstance(board, PitBoard):
        seeds = board.holes[0][0]
        bring = Text.plural("Print this page on A4 paper, then put {count} seed in each hole: "
                            "a seed, a pebble or a bean. The stores start empty.",
                            "Print this page on A4 paper, then put {count} seeds in each hole: "
                            "seeds, pebbles or beans. The stores start empty.", seeds,
                            domain="web", count=seeds)
        picture = pits_svg(game, board, lang)
    elif isinstance(board, GridBoard):
        pieces = board.hands[0]
        bring = Text.plural("Print this page on A4 paper. Each player needs {count} piece of "
                            "his own colour: a stone, a seed, a bottle top or a short stick.",
                            "Print this page on A4 paper. Each player needs {count} pieces of "
                            "his own colour: stones, seeds, bottle tops or short sticks.",
                            pieces, domain="web", count=pieces)
        picture = grid_svg(game, board, lang)
    else:  # a family drawn another way has no board to print yet
        return None
    body = (f"<h1>{escape(title)}</h1>{teaching_links(key, lang, 'board', print_button=True)}"
            f'<p class="bring">{escape(say(bring, lang, "web"))}</p>'
            f'<div class="print-board" dir="ltr">{picture}</div>')
    return wrap_page(title, body, lang, kind="print-board")


def _text(x: float, y: float, words: str, size: float = _LABEL, anchor: str = "middle") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:.1f}" text-anchor="{anchor}" '
            f'fill="{_INK}">{escape(words)}</text>')


def _svg(width: float, height: float, label: str, parts: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="print-board" '
            f'viewBox="0 0 {width:.1f} {height:.1f}" width="{width:.1f}mm" '
            f'height="{height:.1f}mm" role="img" aria-label="{escape(label)}">'
            + "".join(parts) + "</svg>")


def grid_svg(game: Game, board: GridBoard, lang: str) -> str:
    """An alignment board as line art in millimetres: the squares, the column letters and
    row numbers on every side, the second player's side at the top and the first player's at
    the bottom (``a1`` at the bottom left)."""
    rows, cols = board.rows, board.cols
    edge = 2 * _LABEL + 2  # the coordinates around the squares and a player's name
    cell = min(_CELL, (_WIDTH - 2 * edge) / cols, (_HEIGHT - 2 * edge) / rows)
    width, height = 2 * edge + cols * cell, 2 * edge + rows * cell
    names = [say(game.player_name(p), lang) for p in (1, 2)]
    parts = [_text(width / 2, _LABEL, names[1]), _text(width / 2, height - 1, names[0])]
    for c in range(cols):
        x = edge + (c + 0.5) * cell
        letter = FILES[c]
        parts += [_text(x, edge - 1.5, letter), _text(x, edge + rows * cell + _LABEL + 0.5,
                                                      letter)]
    for r in range(rows):
        y = edge + (rows - r - 0.5) * cell + _LABEL / 3
        parts += [_text(edge - 2.5, y, str(r + 1)),
                  _text(edge + cols * cell + 2.5, y, str(r + 1))]
        for c in range(cols):
            parts.append(f'<rect x="{edge + c * cell:.1f}" y="{edge + (rows - 1 - r) * cell:.1f}" '
                         f'width="{cell:.1f}" height="{cell:.1f}" fill="none" stroke="{_INK}" '
                         'stroke-width="0.5"/>')
    label = say(Text("{game} board to print", domain="web", game=game.rules.game), lang)
    return _svg(width, height, label, parts)


def pits_svg(game: Game, board: PitBoard, lang: str) -> str:
    """A sowing board as line art in millimetres: the first player's holes at the bottom and
    the second player's at the top, each numbered from its owner's left, the first player's
    store on the right and the second player's on the left."""
    pits = len(board.holes[0])
    store = _HOLE
    gap = 3.0
    hole = min(_HOLE, (_WIDTH - 2 * store - 2 * gap) / pits - gap)
    band = _LABEL + 4  # a row of numbers and a player's name
    width = 2 * store + 2 * gap + pits * (hole + gap)
    height = 2 * band + 2 * hole + 3 * gap + _LABEL
    names = [say(game.player_name(p), lang) for p in (1, 2)]
    top, bottom = band + gap, band + 2 * gap + hole
    parts = [_text(width / 2, _LABEL, names[1]), _text(width / 2, height - 1, names[0])]
    for x in (0.0, width - store):  # the second player's store, then the first player's
        parts.append(f'<rect x="{x + 0.5:.1f}" y="{top:.1f}" width="{store - 1:.1f}" '
                     f'height="{2 * hole + gap:.1f}" rx="{store / 2 - 0.5:.1f}" fill="none" '
                     f'stroke="{_INK}" stroke-width="0.5"/>')
    for k in range(pits):
        cx = store + gap + k * (hole + gap) + hole / 2
        for cy, number, y in ((bottom + hole / 2, k + 1, bottom + hole + _LABEL + 1),
                              (top + hole / 2, pits - k, top - 2)):
            parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{hole / 2:.1f}" fill="none" '
                         f'stroke="{_INK}" stroke-width="0.5"/>')
            parts.append(_text(cx, y, str(number)))
    label = say(Text("{game} board to print", domain="web", game=game.rules.game), lang)
    return _svg(width, height, label, parts)
