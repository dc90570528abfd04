"""OpenSpiel games for every nugar preset, written against ``pyspiel``'s Python game API.

Importing this module registers ``nugar_dara``, ``nugar_dara_niger``, ``nugar_dara_sheet``,
``nugar_dala``, ``nugar_kalah`` and ``nugar_dracala``; every rule option is a game parameter
with the preset's value as default: ``pyspiel.load_game("nugar_kalah(pits=4,seeds=3)")``.
Switches are booleans, choices are strings, numbers are ints; for ``repetition`` and
``quiet_limit`` the value 0 means ``off``. Actions are the flat codes of ``docs/envs.md``,
observation tensors are the planes documented there.

OpenSpiel 2.0.2's C++ MCTS (``pyspiel.MCTSBot``) crashes on games written in Python; use the
Python ``open_spiel.python.algorithms.mcts.MCTSBot``, which works on these games.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import numpy as np
import pyspiel
from numpy.typing import NDArray

from ..errors import RulesError
from ..rules import PRESETS, RuleSet, new_game, parse_rules
from ..rules.base import Game
from ..rules.options import AlignmentOptions, Preset, format_value
from .encoding import Encoder

#: registered OpenSpiel short name -> nugar preset name
GAME_NAMES: dict[str, str] = {"nugar_" + name.replace("-", "_"): name for name in PRESETS}

#: game length reported when no house rule bounds the game (``quiet_limit=off``): a nominal
#: cap, not a proof; games of that kind may in principle run longer.
NOMINAL_MAX_LENGTH = 100_000


def _parameter_value(value: Any) -> Any:
    """An option value as an OpenSpiel parameter (``None``, i.e. ``off``, becomes 0)."""
    return 0 if value is None else value


def parameter_specification(preset: Preset) -> dict[str, Any]:
    """The OpenSpiel parameters of ``preset``: every option, with the preset's value."""
    return {f.name: _parameter_value(getattr(preset.options, f.name))
            for f in fields(preset.options)}


def rules_from_parameters(preset: Preset, params: dict[str, Any]) -> RuleSet:
    """The nugar rule set that OpenSpiel ``params`` describe (checked like any rules text)."""
    spec = {f.name: f for f in fields(preset.options)}
    parts = []
    for key, value in params.items():
        f = spec.get(key)
        if f is None:
            raise RulesError(f"unknown parameter {key!r} for {preset.name}; "
                             f"allowed: {', '.join(spec)}")
        if f.metadata["kind"] == "int" and f.metadata["off_ok"] and value == 0:
            value = None
        parts.append(f"{key}={format_value(value)}")
    return parse_rules(f"{preset.name}({','.join(parts)})")


def max_game_length(rules: RuleSet) -> int:
    """An upper bound on the decisions of one game (see ``docs/envs.md``)."""
    options = rules.options
    if isinstance(options, AlignmentOptions):
        if options.quiet_limit is None:
            return NOMINAL_MAX_LENGTH
        p = options.pieces
        # drop phase: at most 2p drops and as many passes (+1), each turn drop + capture;
        # move phase: at most 2p captures, quiet_limit turns between them, 2 decisions each.
        return 8 * p + 4 + 2 * (2 * p + 1) * (options.quiet_limit + 1)
    return max(1000, 10 * options.pits * options.seeds * 2)


def _game_type(short_name: str, preset: Preset) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=short_name,
        long_name=f"nugar {preset.game} ({preset.name})",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(preset),
    )


class NugarSpielGame(pyspiel.Game):  # type: ignore[misc]  # pyspiel has no type hints
    """A nugar rule set as an OpenSpiel game; one subclass is registered per preset."""

    preset: Preset
    short_name: str

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = dict(parameter_specification(self.preset))
        given.update(params or {})
        self.rules = rules_from_parameters(self.preset, given)
        self.encoder = Encoder(self.rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.encoder.num_actions,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_game_length(self.rules),
        )
        super().__init__(_game_type(self.short_name, self.preset), info, given)

    def new_initial_state(self) -> NugarSpielState:
        return NugarSpielState(self, new_game(self.rules))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return NugarObserver(self.encoder, params)
        from open_spiel.python.observation import IIGObserverForPublicInfoGame

        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class NugarSpielState(pyspiel.State):  # type: ignore[misc]  # pyspiel has no type hints
    """An OpenSpiel state holding a nugar :class:`~nugar.rules.base.Game`."""

    def __init__(self, game: NugarSpielGame, nugar_game: Game) -> None:
        super().__init__(game)
        self.nugar_game = nugar_game
        self._names = game.encoder

    def current_player(self) -> int:
        if self.nugar_game.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        return self.nugar_game.to_move - 1

    def _legal_actions(self, player: int) -> list[int]:
        if self.nugar_game.is_over or player != self.nugar_game.to_move - 1:
            return []
        return self.nugar_game.legal_actions()

    def _apply_action(self, action: int) -> None:
        self.nugar_game.push_action(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return self._names.action_name(int(action))

    def is_terminal(self) -> bool:
        return self.nugar_game.is_over

    def returns(self) -> list[float]:
        outcome = self.nugar_game.outcome
        if outcome is None or outcome.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if outcome.winner == 1 else [-1.0, 1.0]

    def __str__(self) -> str:
        return str(self.nugar_game)


class NugarObserver:
    """OpenSpiel observer: the planes of ``docs/envs.md`` from the observing player's view."""

    def __init__(self, encoder: Encoder, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params!r}")
        self.encoder = encoder
        shape = encoder.observation_shape
        self.tensor: NDArray[np.float32] = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: NugarSpielState, player: int) -> None:
        self.dict["observation"][...] = self.encoder.observe(state.nugar_game, player + 1)

    def string_from(self, state: NugarSpielState, player: int) -> str:
        game = state.nugar_game
        mover = "nobody (game over)" if game.is_over else game.player_name(game.to_move)
        return f"{game.player_name(player + 1)} observes; to move: {mover}\n{state}"


def _register() -> None:
    registered = set(pyspiel.registered_names())
    for short_name, preset_name in GAME_NAMES.items():
        preset = PRESETS[preset_name]
        cls = type(f"NugarSpielGame_{preset_name.replace('-', '_')}", (NugarSpielGame,),
                   {"preset": preset, "short_name": short_name})
        if short_name not in registered:
            pyspiel.register_game(_game_type(short_name, preset), cls)


_register()
