"""Game records: a PGN-like text form, a JSON form, and a checked reader for both.

The text form is tag pairs followed by numbered movetext of whole turns::

    [Game "Dara"]
    [Rules "dara-niger(quiet_limit=off)"]
    [First "Ann"]
    [Second "Bo"]
    [Date "2026.11.22"]
    [Result "1-0"]
    [Termination "pieces"]

    1. c3 d4 2. e2 c2 {a comment} 3. ... 1-0

Reading also accepts a bare list of turns (the rule set is then given by the caller) and
Mancala World style sowing records, ``9. 2-6 (-3)....4 (-1)``, whose ``(-N)`` annotations are
checked against the seeds each turn put into the mover's store (rules page). A text without
tag pairs whose moves are numbered lines may carry other lines of text (a heading, the
players, a sentence copied with the moves from a web page): they are skipped, and each is
listed in :attr:`Parsed.skipped`. Every record read is replayed on the rules engine; each
problem found is reported with its line, column and reason, in one :class:`RecordError`.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import IllegalMoveError, InvalidMoveError, NugarError, RulesError
from .i18n import Text, join
from .rules import PRESETS, Game, RuleSet, new_game, parse_rules
from .rules.family import FAMILIES
from .rules.moves import Move

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
STANDARD_TAGS = ("Game", "Rules", "First", "Second", "Date", "Result", "Score", "Termination")
_LINE_WIDTH = 79


class RecordError(NugarError):
    """A record that cannot be read or does not replay.

    ``line`` and ``column`` (1-based; ``None`` when the input has no lines, as for JSON) say
    where the first problem is, ``reason`` what it is (a :class:`~nugar.i18n.Text`).
    ``problems`` lists every problem found, this one first; the error's message (``str()``,
    and its one argument, a :class:`~nugar.i18n.Text` that a face may say in another
    language) shows them all, one per line.
    """

    def __init__(self, reason: str, line: int | None = None, column: int | None = None,
                 source: str | None = None) -> None:
        self.reason = reason
        self.line = line
        self.column = column
        self.source = source
        self._problems: list[RecordError] = [self]
        super().__init__(self.located())

    @property
    def problems(self) -> list[RecordError]:
        """Every problem found, this one first."""
        return self._problems

    @problems.setter
    def problems(self, problems: list[RecordError]) -> None:
        self._problems = problems
        self.args = (self._message(),)

    def located(self) -> str:
        """This one problem as ``source, line L, column C: reason``."""
        position: str | None = None
        if self.line is not None:
            position = (Text("line {line}", line=self.line) if self.column is None
                        else Text("line {line}, column {column}", line=self.line,
                                  column=self.column))
        where = (Text("{source}, {position}", source=self.source, position=position)
                 if self.source and position else position or self.source)
        if not where:
            return self.reason
        return Text("{where}: {reason}", where=where, reason=self.reason)

    def _message(self) -> str:
        if len(self._problems) == 1:
            return self.located()
        count = len(self._problems)
        return Text.plural("{count} problem in the record:\n  {problems}",
                           "{count} problems in the record:\n  {problems}", count, count=count,
                           problems=join("\n  ", [p.located() for p in self._problems]))

    def __str__(self) -> str:
        return str(self._message())


@dataclass
class Record:
    """One game read from a record, replayed and checked.

    ``result`` is the record's result (``None`` for ``*``); it equals ``game.result`` except
    for a game the record says ended off the board (a loss on time, say) and which the rules
    alone do not end. ``comments`` maps a turn index to the comments written after that turn
    (index ``-1``: before the first turn).
    """

    tags: dict[str, str]
    rules: RuleSet
    turns: list[str]
    result: str | None
    game: Game
    comments: dict[int, list[str]] = field(default_factory=dict)

    def dumps(self) -> str:
        """The record as text, tags in their order, comments kept."""
        return _format(self.tags, self.turns, self.result, self.comments)


# --- writing -------------------------------------------------------------------------------


def score_text(game: Game) -> str:
    """The two stores of a sowing game as a record shows them: ``"38 : 26"``."""
    first, second = game.score
    return f"{first} : {second}"


def game_tags(game: Game, tags: Mapping[str, str] | None = None) -> dict[str, str]:
    """The tag pairs of a game: the standard ones first, then the caller's others.

    ``Game``, ``Rules``, ``Result``, ``Score`` and ``Termination`` always come from the game
    itself, so a record never contradicts its moves.
    """
    given = dict(tags or {})
    for key, value in given.items():
        _check_tag(key, value)
    outcome = game.outcome
    out: dict[str, str] = {
        "Game": game.rules.game,
        "Rules": game.rules.text,
        "First": given.get("First", "?"),
        "Second": given.get("Second", "?"),
        "Date": given.get("Date", _dt.datetime.now(_dt.UTC).strftime("%Y.%m.%d")),
        "Result": outcome.result if outcome else "*",
    }
    if game.descriptor.score_tag:
        out["Score"] = score_text(game)
    if outcome is not None:
        out["Termination"] = outcome.reason
    for key, value in given.items():
        if key not in STANDARD_TAGS:
            out[key] = value
    return out


def dumps(game: Game, tags: Mapping[str, str] | None = None,
          comments: Mapping[int, list[str]] | None = None) -> str:
    """The text record of ``game``; ``tags`` adds ``First``, ``Second``, ``Date`` or others;
    ``comments`` maps a turn index to the comments written after it (``-1``: before the
    first turn), as :attr:`Record.comments` (an analysis' evaluations and marks).

    >>> from nugar import new_game
    >>> g = new_game("kalah")
    >>> g.play("3")
    >>> print(dumps(g, {"Date": "2026.01.02"}))  # doctest: +NORMALIZE_WHITESPACE
    [Game "Kalah"]
    [Rules "kalah"]
    [First "?"]
    [Second "?"]
    [Date "2026.01.02"]
    [Result "*"]
    [Score "1 : 0"]
    <BLANKLINE>
    1. 3 *
    <BLANKLINE>
    """
    return _format(game_tags(game, tags), game.turns(), game.result, comments or {})


def _check_tag(key: str, value: str) -> None:
    if not isinstance(key, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", key):
        raise RecordError(Text("bad tag name {key!r}: use letters, digits and _ only, "
                               "starting with a letter", key=key))
    if not isinstance(value, str) or "\n" in value or "\r" in value:
        raise RecordError(Text("bad value for tag {key}: give one line of text", key=key))


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _format(tags: Mapping[str, str], turns: list[str], result: str | None,
            comments: Mapping[int, list[str]]) -> str:
    lines = [f'[{key} "{_quote(value)}"]' for key, value in tags.items()]
    head = "\n".join(lines) + "\n\n" if lines else ""
    return head + movetext(turns, result, comments) + "\n"


def movetext(turns: list[str], result: str | None = None,
             comments: Mapping[int, list[str]] | None = None) -> str:
    """Numbered turns, comments and result, wrapped at 79 characters: ``1. c3 d4 2. e2 *``."""
    comments = comments or {}
    words: list[str] = [f"{{{c}}}" for c in comments.get(-1, [])]
    for i, turn in enumerate(turns):
        number = i // 2 + 1
        if i % 2 == 0:
            words.append(f"{number}.")
        elif i == 0 or comments.get(i - 1):
            words.append(f"{number}...")
        words.append(turn)
        words.extend(f"{{{c}}}" for c in comments.get(i, []))
    words.append(result or "*")
    body: list[str] = []
    current = ""
    for word in words:
        if current and len(current) + 1 + len(word) > _LINE_WIDTH:
            body.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    body.append(current)
    return "\n".join(body)


def to_json(game: Game, tags: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A JSON-ready form of a game for programs: rules, turns, result, score and tags."""
    outcome = game.outcome
    return {
        "format": "nugar-game",
        "version": 1,
        "game": game.rules.game,
        "rules": game.rules.text,
        "turns": game.turns(),
        "result": outcome.result if outcome else None,
        "termination": outcome.reason if outcome else None,
        "score": list(game.score),
        "to_move": None if outcome else game.to_move,
        "tags": game_tags(game, tags),
    }


def from_json(obj: Mapping[str, Any] | str) -> Game:
    """Replay the JSON form of a game (a dict, or its JSON text) and check what it states."""
    if isinstance(obj, str):
        try:
            obj = json.loads(obj)
        except json.JSONDecodeError as exc:
            raise RecordError(Text("not JSON: {error}", error=exc.msg), exc.lineno,
                              exc.colno) from None
    if not isinstance(obj, Mapping):
        raise RecordError(Text("a JSON game is an object with 'rules' and 'turns', not {kind}",
                               kind=type(obj).__name__))
    rules_text = obj.get("rules")
    if not isinstance(rules_text, str):
        raise RecordError(Text("a JSON game needs 'rules', a rule-set text such as 'dara'"))
    try:
        game = new_game(rules_text)
    except RulesError as exc:
        raise RecordError(Text("'rules': {error}", error=_said(exc))) from None
    turns = obj.get("turns", [])
    if not isinstance(turns, list) or not all(isinstance(t, str) for t in turns):
        raise RecordError(Text("'turns' must be a list of turn texts such as ['c3', 'd4']"))
    for i, turn in enumerate(turns):
        mover = game.to_move
        reason = _play_turn(game, turn) or (_open_turn(game, mover) if i + 1 < len(turns)
                                             else None)
        if reason:
            raise RecordError(Text("'turns'[{index}] (turn {turn}): {reason}", index=i,
                                   turn=i + 1, reason=reason))
    result = obj.get("result")
    if result == "*":
        result = None
    if result is not None and result not in RESULTS:
        raise RecordError(Text("'result' {result!r} is not one of 1-0, 0-1, 1/2-1/2 or null",
                               result=result))
    problem = _settle_result(game, result, obj.get("termination"))
    if problem:
        raise RecordError(Text("'result': {problem}", problem=problem))
    score = obj.get("score")
    if score is not None and (not isinstance(score, list | tuple)
                              or list(score) != list(game.score)):
        raise RecordError(Text("'score' says {score} but the replayed game has {replayed}",
                               score=score, replayed=list(game.score)))
    return game


# --- reading -------------------------------------------------------------------------------

#: a line of movetext: a move number (``12.``), a comment, or a result at its start
_MOVETEXT_LINE_RE = re.compile(r"\s*(?:\d+\.|[{;]|(?:1-0|0-1|1/2-1/2|\*)(?![\w/-]))")
_NUMBERED_LINE_RE = re.compile(r"\s*\d+\.")
_TAG_LINE_RE = re.compile(r"\s*\[")
_NOTE_WIDTH = 60


@dataclass(frozen=True)
class SkippedLine:
    """A line of a record's text that is not movetext and was left out (``line`` 1-based)."""

    line: int
    text: str

    def note(self, source: str | None = None) -> str:
        """``source, line 2: skipped, not movetext: 'Ralf Gering (South) - ...'``."""
        text = " ".join(self.text.split())
        if len(text) > _NOTE_WIDTH:
            text = text[:_NOTE_WIDTH - 3].rstrip() + "..."
        where = f"{source}, line {self.line}" if source else f"line {self.line}"
        return f"{where}: skipped, not movetext: {text!r}"


@dataclass
class Parsed:
    """What reading a text gives: its games, and the lines of text left out as not movetext."""

    records: list[Record]
    skipped: list[SkippedLine] = field(default_factory=list)


@dataclass
class _Lines:
    """A text with its prose lines blanked out (so line numbers stay), what was blanked, and
    the lines read as movetext only because they continue the line above."""

    text: str
    skipped: list[SkippedLine]
    continued: set[int]


def _movetext_lines(text: str) -> _Lines:
    """Find the movetext of a text copied with the words around it.

    Only a text without tag pairs that has at least one numbered line (``1. 4 (-1)....6-3``)
    is sorted; any other is all movetext, as written. In a sorted text, a line is movetext if
    it starts with a move number, a comment or a result, if it continues the movetext line
    right above it (no blank line between: a wrapped line, so that a move is never dropped
    without a word), or if it lies inside a comment opened above. Every other line (a heading,
    the players, a sentence; a paragraph after the moves, below a blank line) is skipped.
    """
    lines = text.split("\n")
    if (any(_TAG_LINE_RE.match(line) for line in lines)
            or not any(_NUMBERED_LINE_RE.match(line) for line in lines)):
        return _Lines(text, [], set())
    skipped: list[SkippedLine] = []
    continued: set[int] = set()
    in_moves = in_comment = False
    for i, line in enumerate(lines):
        if in_comment:
            in_comment = _ends_in_comment(line, True)
            in_moves = True
        elif not line.strip():
            in_moves = False
        elif _MOVETEXT_LINE_RE.match(line) or in_moves:
            if not _MOVETEXT_LINE_RE.match(line):
                continued.add(i + 1)
            in_comment = _ends_in_comment(line, False)
            in_moves = True
        else:
            skipped.append(SkippedLine(i + 1, line.strip()))
            lines[i] = ""
    return _Lines("\n".join(lines), skipped, continued)


def _ends_in_comment(line: str, in_comment: bool) -> bool:
    """Whether a ``{`` comment is still open at the end of ``line``."""
    for char in line:
        if in_comment:
            in_comment = char != "}"
        elif char == "{":
            in_comment = True
        elif char == ";":
            break
    return in_comment


_TOKEN_RE = re.compile(r"""
    (?P<ws>\s+)
  | (?P<tag>\[)
  | (?P<comment>\{[^}]*\}?)
  | (?P<linecomment>;[^\n]*)
  | (?P<annot>\(\s*[-\u2212]?\s*\d+\s*\))
  | (?P<result>(?:1-0|0-1|1/2-1/2|\*)(?![\w/-]))
  | (?P<number>\d+\.+)
  | (?P<dots>\.+)
  | (?P<word>[^\s\[\]{}();.]+)
  | (?P<other>.)
""", re.X | re.S)
_TAG_RE = re.compile(r'\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\\n]|\\.)*)"\s*\]')


@dataclass
class _Token:
    kind: str
    text: str
    line: int
    column: int


def _tokens(text: str) -> Iterator[_Token]:
    line, line_start, pos = 1, 0, 0
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        assert m is not None  # the last alternative matches any character
        kind = m.lastgroup or "other"
        chunk = m.group()
        if kind == "tag":
            tag = _TAG_RE.match(text, pos)
            if tag:
                chunk = tag.group()
            else:  # report the rest of the line as the malformed tag
                end = text.find("\n", pos)
                chunk = text[pos:] if end < 0 else text[pos:end]
                kind = "badtag"
        if kind != "ws":
            yield _Token(kind, chunk, line, pos - line_start + 1)
        newlines = chunk.count("\n")
        if newlines:
            line += newlines
            line_start = pos + chunk.rfind("\n") + 1
        pos += len(chunk)


@dataclass
class _Turn:
    text: str
    line: int
    column: int
    annotation: _Token | None = None
    open_reason: str | None = None


@dataclass
class _Pending:
    """A game being read: its tags, its movetext so far and its replay."""

    tags: dict[str, str] = field(default_factory=dict)
    tag_tokens: dict[str, _Token] = field(default_factory=dict)
    game: Game | None = None
    dead: bool = False
    started: bool = False
    after_number: bool = False
    turns: list[_Turn] = field(default_factory=list)
    comments: dict[int, list[str]] = field(default_factory=dict)
    result: _Token | None = None
    first: _Token | None = None
    has_content: bool = False


class _Reader:
    """Reads a text game by game, collecting every problem instead of stopping at the first."""

    def __init__(self, text: str, rules: str | RuleSet | None, source: str | None,
                 continued: set[int] | None = None, max_games: int | None = None,
                 max_moves: int | None = None) -> None:
        self.text = text
        self.max_games = max_games  # stop with a problem where a game beyond these begins
        self.games_begun = 0
        self.max_moves = max_moves  # stop with a problem once the games hold more moves
        self.moves_read = 0
        self.stopped = False
        self.default_rules = rules
        self.source = source
        self.problems: list[RecordError] = []
        self.records: list[Record] = []
        self.continued = continued or set()  # unnumbered lines read as wrapped movetext
        self.first_on_line = False

    def problem(self, reason: str, where: _Token | _Turn | None) -> None:
        line = where.line if where else None
        column = where.column if where else None
        self.problems.append(RecordError(reason, line, column, self.source))

    def read(self) -> list[Record]:
        cur = _Pending()
        line = 0
        for tok in _tokens(self.text):
            self.first_on_line, line = tok.line != line, tok.line
            if tok.kind not in ("comment", "linecomment") and not cur.has_content:
                self.games_begun += 1
                if self.max_games is not None and self.games_begun > self.max_games:
                    n = self.max_games
                    self.problem(Text.plural(
                        "expected at most {n} game in the record, found {more} or more: game "
                        "{more} starts here (the text from here on is not read)",
                        "expected at most {n} games in the record, found {more} or more: game "
                        "{more} starts here (the text from here on is not read)", n, n=n,
                        more=n + 1), tok)
                    return self.records
            if self.stopped:
                return self.records
            if tok.kind in ("tag", "badtag"):
                if cur.started:  # the tags of the next game end this one
                    self.finish(cur)
                    cur = _Pending()
                cur.has_content = True
                self.read_tag(cur, tok)
            elif tok.kind in ("comment", "linecomment"):
                self.read_comment(cur, tok)
            elif tok.kind == "result":
                if not cur.started:
                    self.start(cur, tok)
                cur.result = tok
                self.finish(cur)
                cur = _Pending()
            else:
                if not cur.started:
                    self.start(cur, tok)
                self.read_move_token(cur, tok)
        if cur.has_content:
            self.finish(cur)
        return self.records

    # tags and comments
    def read_tag(self, cur: _Pending, tok: _Token) -> None:
        if tok.kind == "badtag":
            self.problem(Text("malformed tag pair {tag!r}; write [Name \"value\"]",
                              tag=tok.text.strip()), tok)
            return
        m = _TAG_RE.match(tok.text)
        assert m is not None
        key = m.group(1)
        value = re.sub(r"\\(.)", r"\1", m.group(2))
        if key in cur.tags:
            self.problem(Text("tag {key} is given twice", key=key), tok)
            return
        cur.tags[key] = value
        cur.tag_tokens[key] = tok

    def read_comment(self, cur: _Pending, tok: _Token) -> None:
        if tok.kind == "comment" and not tok.text.endswith("}"):
            self.problem(Text("comment opened with {opening} is never closed with {closing}",
                              opening="'{'", closing="'}'"), tok)
            return
        body = tok.text[1:-1] if tok.kind == "comment" else tok.text[1:]
        body = " ".join(body.split())
        if tok.kind == "comment" and "{" in body:
            self.problem(Text("{opening} inside a comment: comments do not nest",
                              opening="'{'"), tok)
            return
        cur.has_content = True
        cur.comments.setdefault(len(cur.turns) - 1, []).append(body)

    # movetext
    def start(self, cur: _Pending, tok: _Token) -> None:
        cur.started = True
        cur.has_content = True
        cur.first = tok
        rules = self.resolve_rules(cur, tok)
        if rules is None:
            cur.dead = True
        else:
            cur.game = new_game(rules)

    def resolve_rules(self, cur: _Pending, tok: _Token | None) -> RuleSet | None:
        rules: RuleSet | None = None
        if "Rules" in cur.tags:
            try:
                rules = parse_rules(cur.tags["Rules"])
            except RulesError as exc:
                self.problem(Text("tag Rules: {error}", error=_said(exc)),
                             cur.tag_tokens["Rules"])
                return None
        elif "Game" in cur.tags:
            preset = PRESETS.get(cur.tags["Game"].strip().lower())
            if preset is None:
                games = sorted({p.game for p in PRESETS.values()})
                self.problem(Text("tag Game: unknown game {game!r}; known: {games} (or give a "
                                  "[Rules \"...\"] tag)", game=cur.tags["Game"],
                                  games=", ".join(games)), cur.tag_tokens["Game"])
                return None
            rules = parse_rules(preset.name)
        elif self.default_rules is not None:
            try:
                rules = parse_rules(self.default_rules)
            except RulesError as exc:
                self.problem(_said(exc), None)
                return None
        else:
            self.problem(Text("the record does not say its rules: add a tag such as "
                              "[Rules \"dara\"] (presets: {presets}) or give the rule set "
                              "when reading it", presets=", ".join(PRESETS)), tok)
            return None
        game_tag = cur.tags.get("Game")
        if game_tag is not None and game_tag.strip().lower() != rules.game.lower():
            self.problem(Text("tag Game says {game!r} but the rules {rules!r} are {actual}",
                              game=game_tag, rules=rules.text, actual=rules.game),
                         cur.tag_tokens["Game"])
        return rules

    def read_move_token(self, cur: _Pending, tok: _Token) -> None:
        if tok.kind == "dots":
            return
        if tok.kind == "number" and cur.after_number:
            # "9. 4....5": after a move number, digits with dots are a one-hole turn
            digits = tok.text.rstrip(".")
            tok = _Token("word", digits, tok.line, tok.column)
        if tok.kind == "number":
            cur.after_number = True
            number = int(tok.text.rstrip("."))
            expected = len(cur.turns) // 2 + 1
            if number != expected and not cur.dead:
                self.problem(Text("move number {number} where {expected} was expected",
                                  number=number, expected=expected), tok)
            return
        cur.after_number = False
        if tok.kind == "annot":
            self.read_annotation(cur, tok)
            return
        if tok.kind == "other":
            self.problem(Text("unexpected character {char!r}; movetext holds move numbers "
                              "such as '1.', turns, comments in {braces}, and a result",
                              char=tok.text, braces="{}"), tok)
            return
        self.read_turn(cur, tok)

    def read_annotation(self, cur: _Pending, tok: _Token) -> None:
        if cur.dead:
            return
        assert cur.game is not None
        if not cur.game.descriptor.capture_annotations:
            where = " or ".join(f.name for f in FAMILIES.values() if f.capture_annotations)
            self.problem(Text("capture annotation {annotation} only belongs in {games} games",
                              annotation=tok.text, games=where), tok)
            return
        if not cur.turns or cur.turns[-1].annotation is not None:
            self.problem(Text("capture annotation {annotation} must follow a turn",
                              annotation=tok.text), tok)
            return
        cur.turns[-1].annotation = tok

    def read_turn(self, cur: _Pending, tok: _Token) -> None:
        if cur.dead:
            return
        game = cur.game
        assert game is not None
        if cur.turns and cur.turns[-1].open_reason:
            last = cur.turns[-1]
            self.problem(Text("turn {number} {turn!r}: {reason}", number=len(cur.turns),
                              turn=last.text, reason=last.open_reason), last)
            cur.dead = True
            return
        mover = game.to_move
        before = len(game.move_stack)
        reason = _play_turn(game, tok.text)
        if reason and self.first_on_line and tok.line in self.continued:
            reason = Text("{reason} (line {line} does not start with a move number; it is read "
                          "as movetext because it follows the moves directly: if it is other "
                          "text, put a blank line before it)", reason=reason, line=tok.line)
        if reason:
            self.problem(Text("turn {number} ({player}) {turn!r}: {reason}",
                              number=len(cur.turns) + 1, player=_player(mover), turn=tok.text,
                              reason=reason), tok)
            cur.dead = True
            return
        # the moves this token played are one turn (an unfinished turn before it ends the
        # game above); joined here, not with game.turns(), which would make reading quadratic
        played = game.move_stack[before:]
        self.moves_read += len(played)
        if self.max_moves is not None and self.moves_read > self.max_moves:
            self.problem(Text.plural(
                "the record holds more than {most} move, the most read here (the text from "
                "here on is not read)", "the record holds more than {most} moves, the most "
                "read here (the text from here on is not read)", self.max_moves,
                most=self.max_moves), tok)
            cur.dead = self.stopped = True
            return
        cur.turns.append(_Turn(game.descriptor.join_turn(played), tok.line, tok.column,
                               open_reason=_open_turn(game, mover, played)))

    # a finished game
    def finish(self, cur: _Pending) -> None:
        if cur.dead:
            return
        if cur.game is None:
            first = cur.first or next(iter(cur.tag_tokens.values()), None)
            rules = self.resolve_rules(cur, first)
            if rules is None:
                return
            cur.game = new_game(rules)
        game = cur.game
        self.check_annotations(cur)
        ok, result = self.check_result(cur)
        if not ok:
            return
        self.check_tag_against(cur, "Score", score_text(game) if game.descriptor.score_tag
                               else None)
        outcome = game.outcome
        if outcome is not None:
            self.check_tag_against(cur, "Termination", outcome.reason)
        tags = dict(cur.tags)
        self.records.append(Record(tags, game.rules, game.turns(), result, game,
                                   cur.comments))

    def check_annotations(self, cur: _Pending) -> None:
        """Check Mancala World ``(-N)`` annotations; with any present, a turn without one
        must have put no seed into the store."""
        if (cur.game is None or not cur.game.descriptor.capture_annotations
                or not any(t.annotation for t in cur.turns)):
            return
        for i, (turn, captured) in enumerate(zip(cur.turns, cur.game.turn_captures(),
                                                 strict=True)):
            if turn.annotation is None:
                if captured:
                    self.problem(Text.plural(
                        "turn {number} {turn!r} put {captured} seed in the store but has no "
                        "'(-{captured})' annotation", "turn {number} {turn!r} put {captured} "
                        "seeds in the store but has no '(-{captured})' annotation", captured,
                        number=i + 1, turn=turn.text, captured=captured), turn)
                continue
            claimed = int(re.sub(r"[^\d]", "", turn.annotation.text))
            if claimed != captured:
                self.problem(Text.plural(
                    "turn {number} {turn!r} is annotated {annotation} but put {captured} seed "
                    "in the store", "turn {number} {turn!r} is annotated {annotation} but put "
                    "{captured} seeds in the store", captured, number=i + 1, turn=turn.text,
                    annotation=turn.annotation.text, captured=captured), turn.annotation)

    def check_result(self, cur: _Pending) -> tuple[bool, str | None]:
        """Whether the stated result fits the game, and that result (``None`` for ``*``)."""
        game = cur.game
        assert game is not None
        tag = cur.tags.get("Result")
        token = cur.result.text if cur.result else None
        if tag is not None and tag not in RESULTS:
            self.problem(Text("tag Result {tag!r} is not one of {results}", tag=tag,
                              results=", ".join(RESULTS)), cur.tag_tokens["Result"])
            return False, None
        if tag is not None and token is not None and tag != token:
            self.problem(Text("the movetext ends with {token} but the Result tag says {tag}",
                              token=token, tag=tag), cur.result)
            return False, None
        stated = token or tag
        if stated is None:  # a record that states no result (a bare list of turns)
            return True, game.result
        where: _Token | None = cur.result or cur.tag_tokens.get("Result")
        result = None if stated in (None, "*") else stated
        problem = _settle_result(game, result, cur.tags.get("Termination"))
        if problem:
            self.problem(problem, where or cur.first)
            return False, None
        return True, result

    def check_tag_against(self, cur: _Pending, key: str, actual: str | None) -> None:
        stated = cur.tags.get(key)
        if stated is None or actual is None:
            return
        if re.sub(r"\s+", "", stated) != re.sub(r"\s+", "", actual):
            self.problem(Text("tag {key} says {stated!r} but the replayed game gives "
                              "{actual!r}", key=key, stated=stated, actual=actual),
                         cur.tag_tokens[key])


def _said(exc: BaseException) -> str:
    """The sentence an error carries: its :class:`~nugar.i18n.Text` when it was raised with
    one, so a problem quoting it can still be translated whole; else its text."""
    if len(exc.args) == 1 and isinstance(exc.args[0], Text):
        return exc.args[0]
    return str(exc)


def _player(player: int) -> str:
    return Text("first player") if player == 1 else Text("second player")


def _play_turn(game: Game, text: str) -> str | None:
    """Play one turn; the reason it cannot be played, or ``None``."""
    if game.is_over:
        return Text("the game is already over ({outcome}); no more turns can follow",
                    outcome=str(game.outcome))
    try:
        game.play(text)
    except (InvalidMoveError, IllegalMoveError) as exc:
        return _said(exc)
    return None


def _open_turn(game: Game, mover: int, played: list[Move] | None = None) -> str | None:
    """Why the turn just played by ``mover`` is not complete, or ``None`` if it is.

    Only the last turn of a record may stop half way (a game saved while a capture is to be
    chosen); any other turn must be whole, or the turns after it would go to the wrong player.
    """
    if game.is_over or game.to_move != mover:
        return None
    legal = game.legal_moves()
    last = game.turns()[-1] if played is None else game.descriptor.join_turn(played)
    whole = last + game.descriptor.turn_joiner + str(legal[0])
    return Text("the turn is not complete: the same player must still move (legal: {legal}); "
                "write the whole turn, e.g. {whole!r}",
                legal=", ".join(str(m) for m in legal), whole=whole)


def _settle_result(game: Game, result: str | None, termination: object) -> str | None:
    """Check a stated result against the replayed game; a stated ending that the rules do not
    decide (a resignation, an agreed draw, a loss on time, an adjudication) is applied."""
    actual = game.result
    if actual is not None:
        if result is None:
            return Text("the record says the game is unfinished (*) but it is over: {outcome}",
                        outcome=str(game.outcome))
        if result != actual:
            return Text("the record says {result} but the game ended {outcome}",
                        result=result, outcome=str(game.outcome))
        return None
    if result is None:
        return None
    winner = {"1-0": 1, "0-1": 2}.get(result)
    if termination == "resigned":
        if winner is None:
            return Text("a resignation cannot end in a draw")
        game.resign(3 - winner)
    elif termination == "agreement":
        if result != "1/2-1/2":
            return Text("a draw by agreement ends 1/2-1/2, not {result}", result=result)
        game.agree_draw()
    elif termination == "time":
        if winner is not None:
            game.lose_on_time(3 - winner)
        elif game.can_win(1) and game.can_win(2):
            return Text("a draw on time needs a player who could no longer win; here both "
                        "still could, so a fallen flag is a loss (1-0 or 0-1)")
        else:
            game.draw_on_time()
    elif termination == "adjudication":
        game.adjudicate(winner)
    return None


def parse(text: str, rules: str | RuleSet | None = None, *,
          source: str | None = None, max_games: int | None = None,
          max_moves: int | None = None) -> Parsed:
    """Read every game in ``text`` (records separated by tags or results), and say which
    lines were skipped as not movetext (the words around the moves of a text copied from a
    web page; ``docs/records.md`` says which lines those are).

    ``rules`` is used for games that carry neither a ``Rules`` nor a ``Game`` tag (a bare list
    of turns, a Mancala World record). ``source`` (a file name) prefixes error locations.
    With ``max_games``, reading stops where a game beyond that many begins (a problem: the
    rest of the text is not read, so a long text of many games costs nothing more); with
    ``max_moves``, likewise once the games read hold more moves than that.
    Raises :class:`RecordError` listing every problem found, each with line and column.
    """
    if not isinstance(text, str):
        raise RecordError(Text("a record is text, not {kind}", kind=type(text).__name__))
    lines = _movetext_lines(text)
    reader = _Reader(lines.text, rules, source, lines.continued, max_games, max_moves)
    records = reader.read()
    if reader.problems:
        first = reader.problems[0]
        first.problems = reader.problems
        raise first
    return Parsed(records, lines.skipped)


def loads(text: str, rules: str | RuleSet | None = None, *,
          source: str | None = None) -> list[Record]:
    """The games of ``text``: :func:`parse` without the skipped lines."""
    return parse(text, rules, source=source).records


def load_one(text: str, rules: str | RuleSet | None = None, *,
             source: str | None = None, max_moves: int | None = None) -> Record:
    """Read a text holding exactly one game; reading stops where a second game begins, or
    (with ``max_moves``) once the game holds more moves than that."""
    records = parse(text, rules, source=source, max_games=1, max_moves=max_moves).records
    if len(records) != 1:
        count = len(records)
        raise RecordError(Text.plural("expected one game in the record, found {count}",
                                      "expected one game in the record, found {count} games",
                                      count, count=count), source=source)
    return records[0]


def parse_file(path: str | os.PathLike[str], rules: str | RuleSet | None = None) -> Parsed:
    """:func:`parse` a record file (UTF-8); errors name the file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")  # a byte-order mark is not movetext
    except UnicodeDecodeError as exc:
        raise RecordError(Text("{path} is not UTF-8 text ({error})", path=str(p),
                               error=exc.reason)) from None
    return parse(text, rules, source=str(p))


def read_file(path: str | os.PathLike[str], rules: str | RuleSet | None = None) -> list[Record]:
    """Read every game of a record file (UTF-8)."""
    return parse_file(path, rules).records


def write_file(path: str | os.PathLike[str], text: str) -> None:
    """Write a record file atomically: a temporary file beside it, then a rename."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


__all__ = [
    "Parsed",
    "Record",
    "RecordError",
    "SkippedLine",
    "dumps",
    "from_json",
    "game_tags",
    "load_one",
    "loads",
    "movetext",
    "parse",
    "parse_file",
    "read_file",
    "score_text",
    "to_json",
    "write_file",
]
