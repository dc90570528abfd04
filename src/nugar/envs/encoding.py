"""The fixed action space and the observations shared by every RL interface.

Needs only NumPy and the kernels. Action codes are the kernels' own (``docs/architecture.md``);
observations are computed by the compiled ``kernels/batch.py`` functions, so the single-game
adapters and the batched simulator see exactly the same numbers. ``docs/envs.md`` lists both.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import InvalidMoveError
from ..kernels import batch as B
from ..notation import square_name
from ..rules import RuleSet, parse_rules
from ..rules.base import Game
from ..rules.options import AlignmentOptions

#: outcome reasons reported as truncation (house draw rules), not termination
TRUNCATION_REASONS = frozenset({"repetition", "quiet_limit"})

DIRECTIONS = ("up", "right", "down", "left")
_DELTAS = ((1, 0), (0, 1), (-1, 0), (0, -1))


def family_params(rules: RuleSet) -> NDArray[np.int64]:
    """The kernel params array of a rule set (the same one its ``Game`` uses)."""
    if rules.family == "sowing":
        from ..kernels import sowing

        return sowing.make_params(rules)
    from ..kernels import alignment

    assert isinstance(rules.options, AlignmentOptions)
    return alignment.make_params(rules.options)


class Encoder:
    """Action space size, action names and observations of one rule set."""

    def __init__(self, rules: str | RuleSet) -> None:
        self.rules = parse_rules(rules)
        self.family = self.rules.family
        self.params = family_params(self.rules)
        options = self.rules.options
        if isinstance(options, AlignmentOptions):
            self.rows, self.cols = options.rows, options.cols
            n = self.rows * self.cols
            self.num_actions = 6 * n + 1
            self.observation_shape: tuple[int, ...] = (B.ALIGN_PLANES, self.rows, self.cols)
        else:
            self.rows, self.cols = 0, 0
            self.num_actions = options.pits
            self.observation_shape = (int(B.sowing_obs_size(self.params)),)
        self.observation_size = int(np.prod(self.observation_shape))

    def observe(self, game: Game, player: int) -> NDArray[np.float32]:
        """A new observation array of ``game`` from ``player``'s (1 or 2) point of view."""
        if player not in (1, 2):
            raise ValueError(f"player must be 1 or 2, not {player!r}")
        state: NDArray[np.int64] = game.state  # type: ignore[attr-defined]
        out = np.zeros(self.observation_size, np.float32)
        if self.family == "sowing":
            B.sowing_observe(self.params, state, player, out)
        else:
            B.alignment_observe(self.params, state, player, out)
        return out.reshape(self.observation_shape)

    def check_action(self, action: Any) -> int:
        """``action`` as an int code of this space; ``InvalidMoveError`` if it is not one."""
        if isinstance(action, bool | np.bool_):
            raise InvalidMoveError(f"an action is an integer code 0..{self.num_actions - 1}, "
                                   f"not {action!r}")
        try:
            code = operator.index(action)
        except TypeError:
            raise InvalidMoveError(f"an action is an integer code 0..{self.num_actions - 1}, "
                                   f"not {action!r}") from None
        if not 0 <= code < self.num_actions:
            raise InvalidMoveError(f"action {code} is outside the action space "
                                   f"0..{self.num_actions - 1} of {self.rules.text}")
        return code

    def action_name(self, code: int) -> str:
        """Readable name of an action code: ``c3``, ``c3-c4``, ``xe5``, ``pass``, a hole ``4``;
        a step leaving the board (never legal) is named by its direction, ``a1-left``."""
        code = self.check_action(code)
        if self.family == "sowing":
            return str(code + 1)
        n = self.rows * self.cols
        if code < n:
            return square_name(code % self.cols, code // self.cols)
        if code < 5 * n:
            sq, d = divmod(code - n, 4)
            row, col = divmod(sq, self.cols)
            dr, dc = _DELTAS[d]
            if 0 <= row + dr < self.rows and 0 <= col + dc < self.cols:
                return f"{square_name(col, row)}-{square_name(col + dc, row + dr)}"
            return f"{square_name(col, row)}-{DIRECTIONS[d]}"
        if code < 6 * n:
            sq = code - 5 * n
            return "x" + square_name(sq % self.cols, sq // self.cols)
        return "pass"

    def action_names(self) -> list[str]:
        """The name of every code, in code order."""
        return [self.action_name(a) for a in range(self.num_actions)]
