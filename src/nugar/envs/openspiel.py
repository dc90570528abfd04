"""OpenSpiel games for every nugar preset, written against ``pyspiel``'s Python game API.

Importing this module registers ``nugar_dara``, ``nugar_dara_niger``, ``nugar_dara_sheet``,
``nugar_dala``, ``nugar_kalah`` and ``nugar_dracala``; every rule option is a game parameter
with the preset's value as default: ``pyspiel.load_game("nugar_kalah(pits=4,seeds=3)")``.
Switches are booleans, choices are strings, numbers are ints; for ``repetition`` and
``quiet_limit`` the value 0 means ``off``. Actions are the flat codes of ``docs/envs.md``,
observation tensors are the planes documented there. The parameter ``turn_board`` (not a
rule; default false) turns the Dara and Dala board for the second player's observations.

Games and states pickle (for multiprocessing and Ray): a game as its OpenSpiel name with
parameters (each preset's class is a module attribute, found by name when loading), a state as
OpenSpiel's serialisation of its game and history.

:func:`bot` makes a ``pyspiel.Bot`` of any nugar agent spec (``bot("level:8", game)``), to play
nugar's agents against OpenSpiel's own with ``evaluate_bots``. OpenSpiel 2.0.2's C++ MCTS
(``pyspiel.MCTSBot``) crashes on games written in Python; use the Python
``open_spiel.python.algorithms.mcts.MCTSBot``, which works on these games.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import numpy as np
import pyspiel
from numpy.typing import NDArray

from ..ai.base import Agent, Limits
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


#: the game parameter that is not a rule option: observe the board turned for the second
#: player (Dara and Dala; no effect on sowing games), as ``Encoder(turn_board=True)``
TURN_BOARD = "turn_board"


def parameter_specification(preset: Preset) -> dict[str, Any]:
    """The OpenSpiel parameters of ``preset``: every option, with the preset's value, and
    ``turn_board`` (false)."""
    spec: dict[str, Any] = {f.name: _parameter_value(getattr(preset.options, f.name))
                            for f in fields(preset.options)}
    spec[TURN_BOARD] = False
    return spec


def rules_from_parameters(preset: Preset, params: dict[str, Any]) -> RuleSet:
    """The nugar rule set that OpenSpiel ``params`` describe (checked like any rules text)."""
    spec = {f.name: f for f in fields(preset.options)}
    parts = []
    for key, value in params.items():
        f = spec.get(key)
        if f is None:
            raise RulesError(f"unknown parameter {key!r} for {preset.name}; "
                             f"allowed: {', '.join([*spec, TURN_BOARD])}")
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
        rule_params = {k: v for k, v in given.items() if k != TURN_BOARD}
        self.rules = rules_from_parameters(self.preset, rule_params)
        self.encoder = Encoder(self.rules, turn_board=bool(given[TURN_BOARD]))
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

    def __reduce__(self) -> tuple[Any, ...]:
        # pyspiel's own pickling rebuilds the C++ game without running __init__ (no rules
        # then): load it again from its name and parameters instead
        return pyspiel.load_game, (str(self),)


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

    def __reduce__(self) -> tuple[Any, ...]:
        # the game (pickled by name) and the actions played: replayed when loading
        return _replay, (self.get_game(), [int(a) for a in self.history()])


def _replay(game: NugarSpielGame, history: list[int]) -> NugarSpielState:
    """A new state of ``game`` after ``history`` (how states are unpickled)."""
    state = game.new_initial_state()
    for action in history:
        state.apply_action(action)
    return state


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


class NugarBot(pyspiel.Bot):  # type: ignore[misc]  # pyspiel has no type hints
    """A nugar agent as an OpenSpiel bot: ``step`` asks the agent for the state's player to
    move (the agent sees a copy of the nugar game, with its whole history, so repetition
    rules count). Works on the states of the games registered here only."""

    def __init__(self, agent: Agent, limits: Limits | None = None) -> None:
        super().__init__()
        self.agent = agent
        self.limits = limits

    def step(self, state: NugarSpielState) -> int:
        nugar_game = getattr(state, "nugar_game", None)
        if nugar_game is None:
            raise TypeError(f"a nugar bot plays the nugar games only, not {state.get_game()}")
        game = nugar_game.copy()
        return int(game.move_to_action(self.agent.choose(game, self.limits)))

    def restart_at(self, state: NugarSpielState) -> None:
        # a new game: the agent forgets its search table (it reads the whole game at each
        # step, so there is nothing else to follow)
        reset = getattr(self.agent, "reset", None)
        if callable(reset):
            reset()

    def inform_action(self, state: NugarSpielState, player_id: int, action: int) -> None:
        pass

    def provides_policy(self) -> bool:
        return False


def bot(spec: str | Agent, game: NugarSpielGame, limits: Limits | None = None,
        seed: int | None = None) -> NugarBot:
    """A ``pyspiel.Bot`` playing ``spec`` (``"level:8"``, ``"alphabeta:depth=6"``, an
    :class:`~nugar.ai.base.Agent`...) on ``game``'s states, each decision within ``limits``
    (default: the agent's own budget); ``seed`` seeds the agent's random choices.

    >>> import pyspiel
    >>> game = pyspiel.load_game("nugar_kalah(pits=4,seeds=3)")
    >>> b = bot("level:2", game, seed=1)
    >>> b.step(game.new_initial_state()) in range(4)
    True
    """
    if not isinstance(game, NugarSpielGame):
        raise TypeError(f"bot() takes a nugar OpenSpiel game (nugar_...), not {game}")
    if isinstance(spec, str):
        from ..ai.agents import make_agent

        agent = make_agent(spec)
    else:
        agent = spec
    if seed is not None:
        agent.reseed(seed)
    return NugarBot(agent, limits)


def _register() -> None:
    registered = set(pyspiel.registered_names())
    for short_name, preset_name in GAME_NAMES.items():
        preset = PRESETS[preset_name]
        name = f"NugarSpielGame_{preset_name.replace('-', '_')}"
        cls = type(name, (NugarSpielGame,),
                   {"preset": preset, "short_name": short_name, "__module__": __name__,
                    "__qualname__": name})
        # a module attribute, so that pickle finds the class of a game by its name
        globals()[name] = cls
        if short_name not in registered:
            pyspiel.register_game(_game_type(short_name, preset), cls)


_register()
