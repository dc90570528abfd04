"""Agent options as data: every agent declares its options once, as the fields of a frozen
dataclass with metadata, the way the rule sets declare theirs (``nugar.rules.options``).

That one declaration gives

* the reading of the text after an agent's name (``alphabeta:depth=4,noise=20``), with
  errors that name the allowed options and their ranges;
* the canonical spec text (``agent.spec``): the options that differ from their defaults, in
  the order declared, so that ``make_agent(agent.spec)`` builds a twin;
* the constructor's defaults: ``AlphaBetaAgent()``, ``AlphaBetaAgent(depth=4)`` or
  ``AlphaBetaAgent(AlphaBetaOptions(depth=4))``.

The field metadata (``kind`` and its bounds) is that of the rule options: ``int`` is a whole
number in ``lo..hi``, read by the rules' own value parser. Agents add two kinds: ``float``, a
number from ``lo`` (or above it, with ``above``) up to ``hi`` (unbounded when ``None``), and
``weights``, whole numbers separated by ``/``. An option whose default is ``None`` is "not
given" until set (``alphabeta``'s ``depth``: no depth limit of its own).

>>> from nugar.ai.simple import GreedyOptions
>>> GreedyOptions.parse("greedy:noise=0.3", {"noise": "0.3"}).spec
'greedy:noise=0.3'
>>> GreedyOptions.parse("greedy:noise=2", {"noise": "2"})
Traceback (most recent call last):
ValueError: agent 'greedy:noise=2': noise must be a number 0..1, not 2
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar, Self, TypeVar

from ..rules.options import describe_values, format_value, parse_value, range_text

#: the largest seed an agent accepts (the rules' parser reads at most twelve digits)
SEED_MAX = 10**12 - 1
#: a bound far beyond any real search budget, for counts that have no natural one
COUNT_MAX = 10**12 - 1


def int_option(default: int | None, lo: int, hi: int, doc: str) -> Any:
    """A whole-number option in ``lo..hi`` (``None`` as default: not given)."""
    return field(default=default, metadata={"kind": "int", "lo": lo, "hi": hi,
                                            "off_ok": False, "doc": doc})


def float_option(default: float | None, lo: float, hi: float | None = None, *,
                 above: bool = False, doc: str) -> Any:
    """A number option from ``lo`` (above it when ``above``) up to ``hi`` (no bound: None)."""
    return field(default=default, metadata={"kind": "float", "lo": lo, "hi": hi,
                                            "above": above, "doc": doc})


def weights_option(doc: str) -> Any:
    """Whole numbers separated by ``/`` (evaluation weights), ``None`` when not given."""
    return field(default=None, metadata={"kind": "weights", "doc": doc})


def seed_option() -> Any:
    """The seed of whatever an agent draws at random (not given: a fresh one each run)."""
    return int_option(None, 0, SEED_MAX, "seed of the agent's random choices")


def _number(value: float) -> str:
    """Short text of a number that reads back to the same value (``64`` for 64.0)."""
    short = f"{value:g}"
    return short if float(short) == value else repr(float(value))


def describe(f: dataclasses.Field[Any]) -> str:
    """The values an option accepts, e.g. ``int 1..64``, ``number > 0`` or ``number 0..1``."""
    meta = f.metadata
    kind = meta["kind"]
    if kind == "float":
        lo, hi = _number(meta["lo"]), meta["hi"]
        if hi is None:
            return f"number {'>' if meta['above'] else '>='} {lo}"
        if meta["above"]:
            return f"number > {lo} and <= {_number(hi)}"
        return f"number {lo}..{_number(hi)}"
    if kind == "weights":
        return "whole numbers separated by /"
    return describe_values(f)


def value_text(f: dataclasses.Field[Any], value: Any) -> str:
    """The canonical text of an option value in a spec."""
    kind = f.metadata["kind"]
    if kind == "float":
        return _number(value)
    if kind == "weights":
        return "/".join(str(int(x)) for x in value)
    return format_value(value)


def check_value(f: dataclasses.Field[Any], value: Any) -> None:
    """Raise ``ValueError`` if ``value`` is outside what the option ``f`` accepts."""
    meta = f.metadata
    kind = meta["kind"]
    if value is None and f.default is None:
        return
    if kind == "weights":
        if not (isinstance(value, tuple) and value
                and all(isinstance(x, int) and not isinstance(x, bool) for x in value)):
            raise ValueError(f"{f.name} lists whole-number evaluation weights separated by "
                             f"'/', e.g. {f.name}=100/18/30/40/35; not {value!r}")
        return
    if kind == "int":
        if (isinstance(value, bool) or not isinstance(value, int)
                or not meta["lo"] <= value <= meta["hi"]):
            raise ValueError(f"{f.name} must be {range_text(f)}, not {value!r}")
        return
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{f.name} must be a {describe(f)}, not {value!r}")
    lo, hi = meta["lo"], meta["hi"]
    low_ok = value > lo if meta["above"] else value >= lo
    if not math.isfinite(value) or not low_ok or (hi is not None and value > hi):
        raise ValueError(f"{f.name} must be a {describe(f)}, not {_number(value)}")


def parse_text(f: dataclasses.Field[Any], raw: str) -> Any:
    """Read the text of one option value (``ValueError`` saying what is allowed)."""
    kind = f.metadata["kind"]
    text = raw.strip()
    if kind == "int":
        return parse_value(f, text)  # the rules' parser: RulesError is a ValueError
    if kind == "weights":
        try:
            value: Any = tuple(int(x) for x in text.split("/"))
        except ValueError:
            value = text
        check_value(f, value)
        return value
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"option {f.name}: bad value {raw!r}; allowed: {describe(f)}"
                         ) from None
    check_value(f, value)
    return value


_OptionsT = TypeVar("_OptionsT", bound="AgentOptions")


@dataclass(frozen=True)
class AgentOptions:
    """Base of the option dataclasses of the agents. A subclass is a frozen dataclass whose
    fields are declared with :func:`int_option`, :func:`float_option`, :func:`seed_option`
    or :func:`weights_option`, and names its agent in ``agent``."""

    #: the agent's name in spec text (``alphabeta``)
    agent: ClassVar[str] = ""

    def __post_init__(self) -> None:
        for f in fields(self):
            check_value(f, getattr(self, f.name))

    @classmethod
    def allowed(cls) -> str:
        """The options with the values each accepts, for error messages and help."""
        return ", ".join(f"{f.name} ({describe(f)})" for f in fields(cls)) or "none"

    @classmethod
    def parse(cls, spec: str, raw: Mapping[str, str]) -> Self:
        """The options given as text in ``raw`` (``{"depth": "6"}``) of the agent ``spec``;
        ``ValueError`` naming the spec, the option and what is allowed otherwise."""
        by_name = {f.name: f for f in fields(cls)}
        unknown = sorted(set(raw) - set(by_name))
        if unknown:
            raise ValueError(f"agent {spec!r}: unknown option(s) {', '.join(unknown)} for "
                             f"{cls.agent}; allowed: {cls.allowed()}")
        try:
            return cls(**{key: parse_text(by_name[key], text) for key, text in raw.items()})
        except ValueError as err:
            raise ValueError(f"agent {spec!r}: {err}") from None

    def changed(self, changes: Mapping[str, Any]) -> Self:
        """A copy with some options changed (values as Python objects, checked)."""
        unknown = sorted(set(changes) - {f.name for f in fields(self)})
        if unknown:
            raise ValueError(f"unknown option(s) {', '.join(unknown)} for {self.agent}; "
                             f"allowed: {self.allowed()}")
        return replace(self, **changes)

    @property
    def given(self) -> dict[str, str]:
        """The options that differ from their defaults, as text, in declaration order."""
        return {f.name: value_text(f, getattr(self, f.name)) for f in fields(self)
                if getattr(self, f.name) != f.default}

    @property
    def spec(self) -> str:
        """The canonical spec text: ``alphabeta:depth=4,noise=20``, or the bare name."""
        text = ",".join(f"{k}={v}" for k, v in self.given.items())
        return self.agent + (":" + text if text else "")


def configure(options_type: type[_OptionsT], options: _OptionsT | None,
              changes: Mapping[str, Any]) -> _OptionsT:
    """The options an agent's constructor is given: ``options`` (default: the declared
    defaults) with keyword ``changes`` applied."""
    base = options_type() if options is None else options
    if not isinstance(base, options_type):
        raise TypeError(f"{options_type.__name__} expected, not {type(base).__name__}")
    return base.changed(changes) if changes else base
