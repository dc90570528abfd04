"""Rule sets as data: option dataclasses, presets and the ``"preset(k=v,...)"`` syntax.

The option names, values, defaults and sources are those of the project's rules page
(``nugar/docs/rules.md``), which cites the texts behind them: the Wikipedia articles
"Dara (game)" and "Dala (game)", a commercial Dara rule sheet, and Mancala World's "Dracala".
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any, Literal

from ..errors import RulesError
from ..i18n import Text
from .profiles import DALA_PROFILE, DARA_PROFILE, DRACALA_PROFILE, KALAH_PROFILE, AiProfile

Family = Literal["alignment", "sowing"]

# --- option declarations ------------------------------------------------------------------
# Each option field carries metadata describing its kind so that parsing, printing and
# documentation all come from one place:
#   kind="int":    whole number in [lo, hi]; off_ok means "off" is accepted and stored as None;
#                  `limit` says why the bounds are what they are (the game pages repeat it)
#   kind="switch": on/off (true/false accepted), stored as bool
#   kind="choice": one of `values`
# Every number is bounded: the upper bounds are what the kernels handle (array sizes, the
# counts the position keys tell apart), or, where the kernels set none, a bound far beyond
# any real game.


def _int(default: int | None, lo: int, hi: int, *, off_ok: bool = False, doc: str = "",
         limit: str = "") -> Any:
    return field(default=default, metadata={"kind": "int", "lo": lo, "hi": hi,
                                            "off_ok": off_ok, "doc": doc, "limit": limit})


#: the largest board: 26 columns a..z by 26 rows (square names a1..z26)
MAX_SIDE = 26
#: the position keys of the sowing kernel (kernels/sowing.py, _cell_key: two 6-bit digits) tell
#: apart the seed counts 0..4,159 of a hole or store, and 2 x 32 holes x 64 seeds = 4,096 seeds
#: stay within that; the search's scores also stay below its win bound with that many seeds
MAX_PITS = 32
MAX_SEEDS = 64


def _switch(default: bool, doc: str = "") -> Any:
    return field(default=default, metadata={"kind": "switch", "doc": doc})


def _choice(default: str, values: tuple[str, ...], doc: str = "") -> Any:
    return field(default=default, metadata={"kind": "choice", "values": values, "doc": doc})


@dataclass(frozen=True)
class AlignmentOptions:
    """Options of the alignment family (Dara, Dala). Defaults are the ``dara`` preset."""

    rows: int = _int(5, 1, MAX_SIDE, doc="board rows",
                     limit="squares are named a1..z26")
    cols: int = _int(6, 1, MAX_SIDE, doc="board columns",
                     limit="squares are named a1..z26")
    pieces: int = _int(12, 1, MAX_SIDE * MAX_SIDE,
                       doc="pieces per player, all in hand at the start",
                       limit="no more than the 676 squares of the largest board")
    centre_first: bool = _switch(False, "the first four drops fill the four centre squares")
    drop_capture: bool = _switch(False, "a three formed by a drop captures")
    drop_limit: str = _choice("no_four", ("none", "no_four", "no_three"),
                              "a drop may not make a line of four or more / three or more")
    long_lines: str = _choice("forbidden", ("forbidden", "allowed"),
                              "whether a step may make a line of four or more")
    protect_threes: bool = _switch(True, "a piece standing in a three cannot be captured")
    all_protected: str = _choice("forfeit", ("forfeit", "take_any"),
                                 "when every opponent piece is protected")
    no_return: bool = _switch(False, "a piece may not step straight back where it came from")
    blocked: str = _choice("pass", ("pass", "lose"), "a player without a legal move")
    loss_at: int = _int(2, 0, MAX_SIDE * MAX_SIDE - 1,
                        doc="a player with this many pieces or fewer loses",
                        limit="below pieces")
    repetition: int | None = _int(3, 2, 100, off_ok=True,
                                  doc="draw on this occurrence of a position",
                                  limit="a bound far beyond real play (the kernels set none)")
    quiet_limit: int | None = _int(100, 1, 1000, off_ok=True,
                                   doc="draw after this many capture-free move-phase turns",
                                   limit="ten times the default; the batched simulator keeps "
                                         "quiet_limit + 2 position keys per game")

    def __post_init__(self) -> None:
        _check_ranges(self)
        if self.pieces <= self.loss_at:
            raise RulesError(Text(
                "pieces={pieces} must be greater than loss_at={loss_at}: "
                "otherwise the game would be lost before it starts",
                pieces=self.pieces, loss_at=self.loss_at))


@dataclass(frozen=True)
class SowingOptions:
    """Options of the sowing family (Kalah, Dracala). Defaults are the ``kalah`` preset."""

    pits: int = _int(6, 1, MAX_PITS, doc="holes per player",
                     limit="2 x pits x seeds <= 4,096 seeds: counts the position keys "
                           "tell apart")
    seeds: int = _int(4, 1, MAX_SEEDS, doc="seeds per hole at the start",
                      limit="2 x pits x seeds <= 4,096 seeds: counts the position keys "
                            "tell apart")
    skip_origin: bool = _switch(False, "laps pass over the emptied starting hole")
    empty_capture: str = _choice("none", ("none", "single"),
                                 "last seed in an own empty hole facing an empty hole")
    end: str = _choice("any_side_empty", ("any_side_empty", "mover_empty"),
                       "when the game ends")
    leftovers: str = _choice("owner", ("owner", "last_mover", "last_capturer"),
                             "who gets the seeds left in holes at the end")
    capture_duty: str = _choice("none", ("none", "maximal"),
                                "maximal: only the steps capturing the most are legal, then "
                                "the rightmost one giving a bonus step")
    misere: bool = _switch(False, "a store holding more than half of all seeds loses")

    def __post_init__(self) -> None:
        _check_ranges(self)


Options = AlignmentOptions | SowingOptions


def range_text(f: dataclasses.Field[Any]) -> str:
    """The numbers an int option accepts, e.g. ``"1..26"`` or ``"2..100 or off"`` (a
    :class:`~nugar.i18n.Text`: the refusals that name it say it in the reader's language)."""
    meta = f.metadata
    if meta["off_ok"]:
        return Text("{lo}..{hi} or off", lo=meta["lo"], hi=meta["hi"])
    return f"{meta['lo']}..{meta['hi']}"


def _check_ranges(options: AlignmentOptions | SowingOptions) -> None:
    """Refuse an int option outside its declared bounds (also when the options object is made
    directly, not parsed from text): ``pits must be 1..32, not 40``."""
    for f in fields(options):
        if f.metadata["kind"] != "int":
            continue
        value = getattr(options, f.name)
        if value is None and f.metadata["off_ok"]:
            continue
        if (isinstance(value, bool) or not isinstance(value, int)
                or not f.metadata["lo"] <= value <= f.metadata["hi"]):
            raise RulesError(Text("{name} must be {range}, not {value!r}", name=f.name,
                                  range=range_text(f), value=value))


def option_fields(options_type: type[Options]) -> list[dataclasses.Field[Any]]:
    """The declared option fields of an options class, in declaration order."""
    return list(fields(options_type))


def describe_values(f: dataclasses.Field[Any]) -> str:
    """Human text of the values an option accepts, e.g. ``"on/off"`` or ``"int 2..100 or off"``
    (the values themselves are data, typed the same in every language; the words around a
    number's range are a :class:`~nugar.i18n.Text`, said in the reader's language)."""
    meta = f.metadata
    kind = meta["kind"]
    if kind == "switch":
        return "on/off"
    if kind == "choice":
        return "/".join(meta["values"])
    return Text("int {range}", range=range_text(f))


def format_value(value: Any) -> str:
    """Canonical text of an option value (``on``/``off``, numbers, names)."""
    if value is None:
        return "off"
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def parse_value(f: dataclasses.Field[Any], raw: str) -> Any:
    """An option's value from its text (``on``, ``off``, ``6``, ``last_mover``), checked
    against the field's metadata; ``RulesError`` names what is allowed. The agents' options
    (``nugar.ai.options``) use the same metadata and read their numbers with it too."""
    meta = f.metadata
    kind = meta["kind"]
    text = raw.strip().lower()
    if kind == "switch":
        if text in ("on", "true"):
            return True
        if text in ("off", "false"):
            return False
        raise RulesError(Text("option {name}: bad value {value!r}; allowed: on, off (or true, "
                              "false)", name=f.name, value=raw))
    if kind == "choice":
        values: tuple[str, ...] = meta["values"]
        if text in values:
            return text
        raise RulesError(Text("option {name}: bad value {value!r}; allowed: {values}",
                              name=f.name, value=raw, values=", ".join(values)))
    if text == "off" and meta["off_ok"]:
        return None
    if not re.fullmatch(r"[+-]?\d+", text):
        raise RulesError(Text("option {name}: bad value {value!r}; allowed: int {range}",
                              name=f.name, value=raw, range=range_text(f)))
    if len(text) > 12:  # far out of every range (and int() refuses very long digit strings)
        raise RulesError(Text("{name} must be {range}, not {value}...", name=f.name,
                              range=range_text(f), value=text[:12]))
    number = int(text)
    if not meta["lo"] <= number <= meta["hi"]:
        raise RulesError(Text("{name} must be {range}, not {value}", name=f.name,
                              range=range_text(f), value=number))
    return number


# --- presets -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Preset:
    """A named rule set: a game, a family, its source text and its option values."""

    name: str
    game: str
    family: Family
    source: str
    description: str
    options: Options

    @property
    def overrides(self) -> dict[str, Any]:
        """Option values that differ from the family defaults."""
        base = type(self.options)()
        return {f.name: getattr(self.options, f.name) for f in fields(self.options)
                if getattr(self.options, f.name) != getattr(base, f.name)}


#: where each preset's rules come from: title, publisher and address (the rules page,
#: nugar/docs/rules.md, says which rule comes from which source)
DARA_WIKIPEDIA = 'Wikipedia, "Dara (game)", https://en.wikipedia.org/wiki/Dara_(game)'
DARA_SHEET = "a commercial Dara rule sheet (printed with a game set; no public copy)"
DALA_WIKIPEDIA = 'Wikipedia, "Dala (game)", https://en.wikipedia.org/wiki/Dala_(game)'
DRACALA_MANCALA_WORLD = 'Mancala World, "Dracala", https://mancala.fandom.com/wiki/Dracala'
KALAH_SOURCE = ('Wikipedia, "Kalah", https://en.wikipedia.org/wiki/Kalah; Irving, Donkers and '
                'Uiterwijk, "Solving Kalah", ICGA Journal 23(3), 2000')

_PRESET_LIST: tuple[Preset, ...] = (
    Preset("dara", "Dara", "alignment", DARA_WIKIPEDIA,
           "Dara as the Wikipedia article describes it", AlignmentOptions()),
    Preset("dara-niger", "Dara", "alignment", DARA_WIKIPEDIA,
           "Dara as played in Niger: no drop may make three in a row",
           AlignmentOptions(drop_limit="no_three")),
    Preset("dara-sheet", "Dara", "alignment", DARA_SHEET,
           "Dara as a commercial rule sheet gives it: any piece may be taken, no stepping back",
           AlignmentOptions(protect_threes=False, no_return=True)),
    Preset("dala", "Dala", "alignment", DALA_WIKIPEDIA,
           "Dala of Sudan: 6x6, centre first, drops capture, fours allowed",
           AlignmentOptions(rows=6, cols=6, centre_first=True, drop_capture=True,
                            drop_limit="none", long_lines="allowed", protect_threes=False)),
    Preset("kalah", "Kalah", "sowing", KALAH_SOURCE,
           "Kalah, the base game of Dracala (6 holes, 4 seeds)", SowingOptions()),
    Preset("dracala", "Dracala", "sowing", DRACALA_MANCALA_WORLD,
           "Dracala: mandatory maximal capture, bonus preference, capturing a majority loses",
           SowingOptions(seeds=6, leftovers="last_mover", capture_duty="maximal",
                         misere=True)),
)

_PRESETS: dict[str, Preset] = {p.name: p for p in _PRESET_LIST}
#: every preset by name, in the order they were registered (read only: add with
#: :func:`register_preset`)
PRESETS: Mapping[str, Preset] = MappingProxyType(_PRESETS)


def register_preset(preset: Preset) -> None:
    """Add a preset: a variant of a family made of option values, with its own name.

    >>> register_preset(PRESETS["kalah"])
    Traceback (most recent call last):
    ...
    nugar.errors.RulesError: a preset named 'kalah' is already registered
    """
    if not isinstance(preset, Preset):
        raise RulesError(Text("register_preset takes a Preset, not {kind}",
                              kind=type(preset).__name__))
    if not re.fullmatch(r"[a-z][a-z0-9_-]*", preset.name):
        raise RulesError(Text("a preset name is lower-case letters, digits, '_' and '-', "
                              "starting with a letter, not {name!r}", name=preset.name))
    if preset.name in _PRESETS:
        raise RulesError(Text("a preset named {name!r} is already registered",
                              name=preset.name))
    _PRESETS[preset.name] = preset


def unregister_preset(name: str) -> None:
    """Remove a preset added by :func:`register_preset` (the built-in ones stay)."""
    if any(p.name == name for p in _PRESET_LIST):
        raise RulesError(Text("{name!r} is a built-in preset and cannot be removed",
                              name=name))
    if _PRESETS.pop(name, None) is None:
        raise RulesError(Text("no preset named {name!r} is registered", name=name))


@dataclass(frozen=True)
class RuleSet:
    """A preset plus option values: everything that defines a game's rules."""

    preset: Preset
    options: Options

    @property
    def name(self) -> str:
        return self.preset.name

    @property
    def game(self) -> str:
        return self.preset.game

    @property
    def family(self) -> Family:
        return self.preset.family

    @property
    def sowing_options(self) -> SowingOptions:
        """The options as the sowing family's typed record (holes, seeds, ...), for code that
        handles only sowing games; a :class:`~nugar.errors.RulesError` for any other rule
        set.

        >>> parse_rules("kalah(pits=4)").sowing_options.pits
        4
        """
        if not isinstance(self.options, SowingOptions):
            raise RulesError(Text("{rules} is not a sowing game (Kalah, Dracala): it has no "
                                  "holes, seeds or stores", rules=self.text))
        return self.options

    @property
    def misere(self) -> bool:
        """Whether a bigger score is worse under these rules (the sowing option ``misere``):
        a store holding more than half of all seeds loses."""
        return bool(getattr(self.options, "misere", False))

    @property
    def ai_profile(self) -> AiProfile:
        """The AI profile of these rules (``profiles.py``: tuned evaluation, level table, MCTS
        scale, book depth), one of their family's (``FamilyDescriptor.ai_profiles``). Read
        from the rules themselves, never from the preset's name: captures in the drop phase
        or lines of four allowed make an alignment game play like Dala; misère
        (``misere=on``) makes a sowing game play like Dracala."""
        opts = self.options
        if isinstance(opts, AlignmentOptions):
            return (DALA_PROFILE if opts.drop_capture or opts.long_lines == "allowed"
                    else DARA_PROFILE)
        return DRACALA_PROFILE if self.misere else KALAH_PROFILE

    @property
    def overrides(self) -> dict[str, Any]:
        """Option values that differ from the preset."""
        return {f.name: getattr(self.options, f.name) for f in fields(self.options)
                if getattr(self.options, f.name) != getattr(self.preset.options, f.name)}

    @property
    def text(self) -> str:
        """Canonical text: the preset name plus its overrides in declaration order."""
        extra = self.overrides
        if not extra:
            return self.preset.name
        inner = ",".join(f"{k}={format_value(v)}" for k, v in extra.items())
        return f"{self.preset.name}({inner})"

    def with_options(self, **changes: Any) -> RuleSet:
        """A copy with some options changed (values as Python objects, checked)."""
        names = {f.name for f in fields(self.options)}
        for key in changes:
            if key not in names:
                raise RulesError(Text("unknown option {option!r} for {preset}; allowed: "
                                      "{options}", option=key, preset=self.preset.name,
                                      options=", ".join(sorted(names))))
        return RuleSet(self.preset, replace(self.options, **changes))

    def __str__(self) -> str:
        return self.text


_RULES_RE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_-]*)\s*(?:\((.*)\))?\s*$", re.S)

#: the longest rule-set text read (every option of a preset written out takes about 250
#: characters); longer texts are refused before parsing, wherever they come from
MAX_RULES_TEXT = 300


def parse_rules(text: str | RuleSet) -> RuleSet:
    """Parse ``"preset"`` or ``"preset(option=value,...)"`` into a :class:`RuleSet`.

    >>> parse_rules("kalah(pits=4,seeds=3)").text
    'kalah(pits=4,seeds=3)'
    >>> parse_rules("dala(quiet_limit=off)").options.quiet_limit is None
    True
    """
    if isinstance(text, RuleSet):
        return text
    if not isinstance(text, str):
        raise RulesError(Text("a rule set is given as text such as 'dara' or "
                              "'kalah(pits=4)', not {kind}", kind=type(text).__name__))
    if len(text) > MAX_RULES_TEXT:
        raise RulesError(Text.plural(
            "a rule-set text is at most {most} character, not {length}: {start!r}...",
            "a rule-set text is at most {most} characters, not {length}: {start!r}...",
            MAX_RULES_TEXT, most=MAX_RULES_TEXT, length=len(text), start=text[:40]))
    m = _RULES_RE.match(text)
    if not m:
        raise RulesError(Text("cannot read rule set {text!r}; write a preset name, optionally "
                              "followed by options, e.g. 'dala(quiet_limit=off)'. "
                              "Presets: {presets}", text=text, presets=", ".join(PRESETS)))
    name = m.group(1).lower()
    preset = PRESETS.get(name)
    if preset is None:
        raise RulesError(Text("unknown preset {name!r}; allowed: {presets}", name=m.group(1),
                              presets=", ".join(PRESETS)))
    inner = m.group(2)
    by_name = {f.name: f for f in fields(preset.options)}
    changes: dict[str, Any] = {}
    if inner is not None and inner.strip():
        for part in inner.split(","):
            if "=" not in part:
                raise RulesError(Text("option {option!r} in {text!r} needs a value, written "
                                      "name=value; options: {options}", option=part.strip(),
                                      text=text, options=", ".join(by_name)))
            key, raw = (s.strip() for s in part.split("=", 1))
            key_l = key.lower()
            f = by_name.get(key_l)
            if f is None:
                raise RulesError(Text("unknown option {option!r} for {preset}; allowed: "
                                      "{options}", option=key, preset=preset.name,
                                      options=", ".join(by_name)))
            if key_l in changes:
                raise RulesError(Text("option {option} is given twice in {text!r}",
                                      option=key_l, text=text))
            changes[key_l] = parse_value(f, raw)
    try:
        options = replace(preset.options, **changes)
    except TypeError as exc:  # pragma: no cover - guarded by the field check above
        raise RulesError(str(exc)) from None
    return RuleSet(preset, options)
