"""Board symmetries (``rules/symmetry.py``) checked against the kernels.

For each listed symmetry a random game and its image are played side by side through the public
``Game`` API (the image game plays the image of each move); at every decision the image of the
legal mask must be the image game's mask, and the image of each player's observation (the
kernels' planes, ``Encoder.observe``) the image game's observation; both games must end alike.
That is: apply the symmetry to a position, play the mapped move in the engine, and compare with
mapping the engine's result.
"""

from __future__ import annotations

import numpy as np
import pytest

import nugar
from nugar.envs.encoding import Encoder
from nugar.rules.symmetry import Symmetry

NON_SQUARE = ["dara", "dara-niger", "dara-sheet",
              "dara(rows=3,cols=5,pieces=4,loss_at=1,no_return=on,quiet_limit=8,repetition=2)"]
SQUARE = ["dala", "dara(rows=4,cols=4,pieces=6,centre_first=on,drop_capture=on)",
          "dala(rows=4,cols=4,pieces=6,blocked=lose,all_protected=take_any)"]
SOWING = ["kalah", "dracala"]


def _mask(game: nugar.Game, size: int) -> np.ndarray:
    mask = np.zeros(size, bool)
    mask[game.legal_actions()] = True
    return mask


def _side_by_side(rules: str, sym: Symmetry, enc: Encoder, seed: int, limit: int = 400
                  ) -> tuple[bool, int]:
    """Play a random game and its image; returns (every check held, decisions played)."""
    game, image = nugar.new_game(rules), nugar.new_game(rules)
    rng = np.random.default_rng(seed)
    plies = 0
    while not game.is_over and plies < limit:
        if game.to_move != image.to_move or image.is_over:
            return False, plies
        if not (sym.action_vector(_mask(game, enc.num_actions))
                == _mask(image, enc.num_actions)).all():
            return False, plies
        for player in (1, 2):
            if not (sym.observation(enc.observe(game, player))
                    == enc.observe(image, player)).all():
                return False, plies
        action = int(rng.choice(game.legal_actions()))
        game.push_action(action)
        image.push_action(sym.action(action))
        plies += 1
    same_end = (game.outcome is None) == (image.outcome is None)
    if game.outcome is not None and image.outcome is not None:
        same_end = (game.outcome.reason, game.outcome.winner) == (image.outcome.reason,
                                                                   image.outcome.winner)
    return same_end, plies


@pytest.mark.parametrize(("rules", "names"), [
    ("dara", ["identity", "mirror_columns", "mirror_rows", "half_turn"]),
    ("dala", ["identity", "mirror_columns", "mirror_rows", "half_turn", "transpose",
              "quarter_turn", "three_quarter_turn", "anti_transpose"]),
    ("kalah", ["identity"]), ("dracala", ["identity"])])
def test_each_board_lists_its_symmetries(rules: str, names: list[str]) -> None:
    syms = Encoder(rules).symmetries
    assert [s.name for s in syms] == names
    enc = Encoder(rules)
    for sym in syms:  # each a permutation of the codes and of the board's squares
        assert sorted(sym.actions.tolist()) == list(range(enc.num_actions))
        if sym.board_index is not None:
            assert sorted(sym.board_index.tolist()) == list(range(np.prod(sym.board_shape)))
            assert sym.board_shape == enc.observation_shape[1:]
    game = nugar.new_game(rules)
    game.push_action(0)
    obs = enc.observe(game, 1)
    assert syms[0].name == "identity" and (syms[0].observation(obs) == obs).all()
    assert syms[0].actions.tolist() == list(range(enc.num_actions))


@pytest.mark.parametrize("turn_board", [False, True])
@pytest.mark.parametrize("rules", NON_SQUARE + SQUARE + SOWING)
def test_symmetries_hold_in_the_kernels(rules: str, turn_board: bool) -> None:
    enc = Encoder(rules, turn_board=turn_board)
    for sym in enc.symmetries:
        played, seed = 0, 0
        while played < 60:  # two games or more, short ones on the small boards
            held, plies = _side_by_side(rules, sym, enc, seed)
            assert held, f"{rules}: {sym.name} fails after {plies} decisions (seed {seed})"
            played += plies
            seed += 1


def test_the_quarter_turn_moves_squares_as_drawn() -> None:
    """On Dala's board, row 1 at the bottom: a1 goes to f1 by the counter-clockwise quarter
    turn, a step up becomes a step left, and a capture on a6 becomes one on a1."""
    syms = {s.name: s for s in Encoder("dala").symmetries}
    turn, n = syms["quarter_turn"], 36
    assert turn.action(0) == 5  # drop a1 -> drop f1
    assert turn.action(n + 4 * 0 + 0) == n + 4 * 5 + 3  # a1-a2 -> f1-e1
    assert turn.action(5 * n + 30) == 5 * n + 0  # xa6 -> xa1
    assert turn.action(6 * n) == 6 * n  # pass
    mirror = syms["mirror_columns"]
    assert Encoder("dala").action_name(mirror.action(n + 4 * 7 + 1)) == "e2-d2"  # b2-c2


def test_mirrored_sowing_is_not_a_symmetry() -> None:
    """Why sowing lists the identity alone: the mirror image of the holes (hole k and hole
    P + 1 - k exchanged, for the codes and the observation) breaks at once in the kernels."""
    enc = Encoder("kalah")
    p = 6
    holes = np.arange(p)[::-1]
    obs_index = np.arange(enc.observation_size)
    obs_index[:p] = holes
    obs_index[p + 1:2 * p + 1] = p + 1 + holes
    mirror = Symmetry("mirror", holes.astype(np.int64), obs_index.astype(np.int64),
                      enc.observation_shape)  # the whole vector as the "board"
    held, plies = _side_by_side("kalah", mirror, enc, seed=0)
    assert not held and plies <= 2


def test_observations_of_a_batch_and_bad_shapes() -> None:
    enc = Encoder("dara")
    sym = enc.symmetries[3]  # half turn
    game = nugar.new_game("dara")
    game.push_action(0)
    batch = np.stack([enc.observe(game, 1), enc.observe(game, 2)])
    assert (sym.observation(batch) == batch[:, :, ::-1, ::-1]).all()
    masks = np.stack([_mask(game, enc.num_actions)] * 3)
    assert sym.action_vector(masks).shape == (3, enc.num_actions)
    with pytest.raises(ValueError, match=r"board's axes \(5, 6\)"):
        sym.observation(np.zeros((13, 6, 5), np.float32))
    # observations with history are mapped plane by plane alike
    history = enc.observe_history(game, 1, 4)
    assert (sym.observation(history) == history[:, ::-1, ::-1]).all()


def test_jax_environments_list_the_same_symmetries() -> None:
    jax = pytest.importorskip("jax")
    import nugar.jax as nj

    for rules in ("dala", "kalah"):
        env = nj.make(rules)
        enc = Encoder(rules)
        assert [s.name for s in env.symmetries] == [s.name for s in enc.symmetries]
        state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), 2))
        state = jax.jit(jax.vmap(env.step))(state, jax.numpy.argmax(state.legal_action_mask,
                                                                    axis=1))
        for sym in env.symmetries:
            mapped = jax.jit(sym.observation)(state.observation)
            assert (np.asarray(mapped) == sym.observation(np.asarray(state.observation))).all()
            mask = np.asarray(sym.action_vector(state.legal_action_mask))
            assert (mask == sym.action_vector(np.asarray(state.legal_action_mask))).all()
