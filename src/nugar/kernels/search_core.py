"""Compiled game-tree search shared by both families: negamax alpha-beta and UCT.

The search is written once for both families; a family code (``FAM_*``) picks the rules
kernels (through ``dispatch``), the evaluation and the move-ordering shortcut at each call.
Everything the search needs lives in preallocated ``int64`` arrays owned by the caller, so a
search allocates nothing per node and never grows past its table size.

Records
-------
The kernels take a few records instead of long lists of arrays: :class:`SearchGame` (the
family code, params and weights of the game), :class:`SearchTables` (the alpha-beta
buffers), :class:`UctTree` and :class:`UctSettings` (the UCT buffers and settings). They are
``NamedTuple`` records rather than numba structrefs, as a tuple costs nothing at run time:
numba passes its members as separate arguments of the compiled function and reads a field
like a local variable, so ``tables.ctx`` is exactly the array parameter it replaces (the
same node counts, and the same speed within the measurement's few percent:
docs/benchmarks.md, "Search kernels take one record"). A structref is a reference-counted
object on the heap whose fields are loaded through a pointer: reference counting is what the
``kernel_noalloc`` kernels are compiled without, and each structref needs a type class, a
proxy and registration. A NamedTuple is also made by plain Python code, is typed by mypy,
and runs unchanged under ``NUMBA_DISABLE_JIT=1``. The records are never changed; the kernels
write into their arrays. The flattening has one price: a record handed to a function that
stays a call is passed member by member, so the one such helper at every inner node,
``_order_moves``, takes the arrays it reads instead. Where Python calls in, numba types a
record argument at every call, its arrays in a slower way than array arguments: the
alpha-beta search's entries, :func:`search_root` (called once per iteration of iterative
deepening) and :func:`principal_variation`, are plain functions that pass the members to
their compiled parts (``_search_root`` makes them into the records again).

The alpha-beta loop is a state machine over an explicit stack of frames; each of its steps
is a small function (``kernel_inline``) that numba inlines into the loop, so the split costs
no call.

Conventions
-----------
* Scores are integers from the point of view of the player to decide at a node. A won game
  is ``WIN - ply`` (sooner wins score higher), a draw is 0, the evaluation stays far below
  ``WIN_BOUND``.
* Several decisions in a row by the same player (a capture after a three, a sowing bonus
  step) are searched **without negation**: a child whose player to move is the parent's
  mover returns a score for that same player.
* When the depth runs out in the middle of a turn (a pending capture or bonus step), the
  search goes on through that player's remaining decisions (a quiescence of sorts), so no
  position with a pending capture is ever evaluated statically.
* A position at the start of a turn that already occurred earlier on the path (or in the
  game, as given by the caller) is scored as a draw.
* With endgame tables (``SearchTables.endgames``, ``kernels/endgames.py``) a node below the
  root that they cover is a leaf with its exact value (``_endgame_leaf``): a Dara or Dala
  tablebase position scores as a won or lost game ``plies`` turns later, or a draw; a Kalah
  position within the databases' reach, and a Kalah game over while they are probed, score
  their exact final margin (``EXACT``), so the search plays for the margin as the solver
  does. Without tables (the default) nothing is probed.
* ``ctx`` holds counters and results, ``stop[0]`` is set by another thread to abort (the
  hard time limit); the search checks it every 64 nodes, and the node limit at every node.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from . import endgames as _eg
from . import rng as _rng
from . import search_alignment as _align_eval
from . import search_sowing as _sow_eval
from .common import OUTCOME_DRAW, OUTCOME_RUNNING, ST_KEY, ST_OUTCOME, ST_TO_MOVE
from .dispatch import FAM_ALIGNMENT as FAM_ALIGNMENT  # the family codes, also read from here
from .dispatch import FAM_SOWING as FAM_SOWING
from .dispatch import fam_apply, fam_legal
from .endgames import (
    EG_DATABASE,
    EG_NONE,
    EG_TABLEBASE,
    NO_ENDGAMES,
    ByteArray,
    Endgames,
    U32Array,
)
from .jit import kernel, kernel_inline, kernel_noalloc

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

WIN = 1_000_000
WIN_BOUND = WIN - 10_000   # scores beyond this are forced wins or losses
#: a position whose final margin is known exactly (the Kalah databases probed, or the game
#: over while they are) scores ``EXACT + 100 * margin`` when won, ``-EXACT + 100 * margin``
#: when lost: above (below) every evaluation, ordered by the margin as the solver orders
#: values, and never moved by the ply as the ``WIN`` scores are
EXACT = 500_000
EXACT_BOUND = EXACT - 100_000   # scores beyond this (below WIN_BOUND) are exact margins
INF = 2_000_000
MAX_PLY = 160


class SearchGame(NamedTuple):
    """What the search knows of a game: the family code that picks the rules kernels and the
    evaluation, the rules' params, the evaluation weights and the number of action codes."""

    fam: int
    params: IntArray
    weights: IntArray
    n_actions: int


class SearchTables(NamedTuple):
    """The buffers of an alpha-beta search, made once by the caller (``rows`` is
    ``MAX_PLY + 2``); the kernels write into the arrays, never replace them."""

    stack: IntArray    # (rows, state size): the position at each ply, the root in row 0
    moves: IntArray    # (rows, n_actions): the legal moves at each ply
    order: IntArray    # (rows, n_actions): their move-ordering scores
    tt_keys: IntArray  # transposition table (2**k slots): the key held in each slot
    tt_data: IntArray  # and its entry (``tt_pack``)
    killers: IntArray  # (rows, 2): the last two moves that caused a cutoff at each ply
    history: IntArray  # (3, n_actions): cutoff credit by player and move
    path: IntArray     # keys of the turn starts so far (game, then search path): repetitions
    ctx: IntArray      # CX_* counters, settings and results
    stop: IntArray     # stop[0] != 0: abort (set by the caller's timer thread)
    pv: IntArray       # the principal variation written by ``principal_variation``
    #: the endgame tables probed at the nodes below the root (``_endgame_leaf``); none by
    #: default, and then the search probes nothing
    endgames: Endgames = NO_ENDGAMES

# The rules come through dispatch's switches; the evaluation and the move-ordering shortcut,
# which only the search needs, through the switches below (same pattern, one branch a family).


@kernel_noalloc
def _evaluate(fam: int, params: IntArray, state: IntArray, weights: IntArray,
              scratch: IntArray) -> int:
    if fam == FAM_SOWING:
        return _sow_eval.evaluate(params, state, weights)
    return _align_eval.evaluate_with(params, state, weights, scratch)


@kernel
def _scratch(fam: int, params: IntArray) -> IntArray:
    """Work space of the evaluation, allocated once per search."""
    if fam == FAM_SOWING:
        return np.empty((6, 1), dtype=np.int64)  # unused: the sowing evaluation needs none
    return _align_eval.new_scratch(params)


@kernel_noalloc
def _surely_quiet(fam: int, params: IntArray, state: IntArray, action: int, me: int) -> bool:
    """Whether move ordering may skip playing ``action`` (by ``me``) to see if it keeps the
    turn or wins: ``False`` means "play it and see". Every sowing step is played (a bonus
    step or an ending is as cheap to find that way)."""
    if fam == FAM_SOWING:
        return False
    return bool(_align_eval.surely_quiet(params, state, action, me))


# ctx fields
CX_NODES = 0        # nodes visited in this search call
CX_NODE_LIMIT = 1   # abort once this many nodes are visited
CX_ABORTED = 2      # 1 once the search was aborted (stop flag or node limit)
CX_PATH_LEN = 3     # used entries of the path-key array
CX_ROOT_MOVE = 4    # best root action of the current iteration (-1 none yet)
CX_ROOT_SCORE = 5   # its score
CX_SELDEPTH = 6     # deepest ply reached
CX_ROOT_HINT = 7    # root move to search first (the last iteration's best; -1 none)
CX_NOISE = 8        # evaluation noise: each leaf score moves by up to this much (0 none)
CX_NOISE_SEED = 9   # seed of that noise (a 31-bit number), fixed for a game
CX_CONTEMPT = 10    # a draw scores -this for the root player (and +this for the other)
CX_ROOT_PLAYER = 11 # the player to move at the root
CX_ENDGAME = 12     # nodes the endgame tables settled (``_endgame_leaf``)
CX_SIZE = 13

# transposition-table entry: key array + packed data word
TT_EXACT = 1
TT_LOWER = 2
TT_UPPER = 3
_SCORE_SHIFT = 32
_DEPTH_SHIFT = 24
_FLAG_SHIFT = 22
_MOVE_MASK = (1 << 22) - 1


@kernel_noalloc
def tt_pack(score: int, depth: int, flag: int, move: int) -> int:
    return ((score << _SCORE_SHIFT) | ((depth & 0xFF) << _DEPTH_SHIFT)
            | ((flag & 3) << _FLAG_SHIFT) | ((move + 1) & _MOVE_MASK))


@kernel_noalloc
def tt_unpack(data: int) -> tuple[int, int, int, int]:
    score = data >> _SCORE_SHIFT
    depth = (data >> _DEPTH_SHIFT) & 0xFF
    flag = (data >> _FLAG_SHIFT) & 3
    move = (data & _MOVE_MASK) - 1
    return score, depth, flag, move


@kernel_noalloc
def _to_tt(score: int, ply: int) -> int:
    """Win scores are stored relative to the node, so they stay right wherever it recurs."""
    if score > WIN_BOUND:
        return score + ply
    if score < -WIN_BOUND:
        return score - ply
    return score


@kernel_noalloc
def _from_tt(score: int, ply: int) -> int:
    if score > WIN_BOUND:
        return score - ply
    if score < -WIN_BOUND:
        return score + ply
    return score


@kernel_noalloc
def _terminal_score(outcome: int, player: int, ply: int) -> int:
    """Score of an ended game for ``player``, reached at ``ply``."""
    if outcome == OUTCOME_DRAW:
        return 0
    if outcome == player:
        return WIN - ply
    return -(WIN - ply)


@kernel_noalloc
def _draw_score(ctx: IntArray, player: int) -> int:
    """A draw for ``player``: ``-contempt`` for the root player, ``+contempt`` otherwise."""
    contempt = int(ctx[CX_CONTEMPT])
    if player == ctx[CX_ROOT_PLAYER]:
        return -contempt
    return contempt


@kernel_noalloc
def _leaf_noise(ctx: IntArray, key: int) -> int:
    """A pseudo-random offset in ``[-noise, noise]`` that depends only on the position's key
    and the game's seed, so a position keeps its offset wherever it recurs in the search
    (the transposition table stays consistent): ``rng.mix`` of the two."""
    amp = int(ctx[CX_NOISE])
    h = _rng.mix(key, ctx[CX_NOISE_SEED])
    return int(h % (2 * amp + 1) - amp)


@kernel_noalloc
def _leaf(game: SearchGame, state: IntArray, scratch: IntArray, ctx: IntArray) -> int:
    """The static evaluation of a search leaf, with the level's noise when it has some."""
    v = _evaluate(game.fam, game.params, state, game.weights, scratch)
    if ctx[CX_NOISE] > 0:
        v += _leaf_noise(ctx, state[ST_KEY])
    return v


@kernel_noalloc
def _is_repeat(path: IntArray, length: int, key: int) -> bool:
    # only the most recent turn starts can repeat in practice (captures and drops are
    # irreversible, and quiet_limit caps the rest), so the scan is bounded
    lo = length - 120
    if lo < 0:
        lo = 0
    for i in range(length - 1, lo - 1, -1):
        if path[i] == key:
            return True
    return False


# frame fields of the explicit search stack (one row per ply)
FR_DEPTH = 0
FR_ALPHA = 1
FR_BETA = 2
FR_ORIG_ALPHA = 3
FR_BEST = 4
FR_BEST_MOVE = 5
FR_INDEX = 6       # index of the move being searched
FR_COUNT = 7       # number of legal moves
FR_CONT = 8        # 1: this node continues its player's turn
FR_SLOT = 9        # table slot
FR_SAME = 10       # 1: the child being searched has the same player to move
FR_STAGE = 11      # 0 full window, 1 null window (a re-search may follow), 2 re-search
FR_PATH_LEN = 12   # repetition path length on entry
FR_ME = 13         # player to move here
FR_FIELDS = 14

_ENTER = 0
_NEXT = 1
_RETURN = 2
_GOT = 3


@kernel_noalloc
def _order_moves(fam: int, params: IntArray, state: IntArray, child: IntArray, mv: IntArray,
                 sc: IntArray, n: int, me: int, depth: int, tt_move: int, k0: int, k1: int,
                 history: IntArray) -> None:
    """Score the ``n`` legal moves ``mv`` of ``state`` for ``me`` into ``sc``: the table's
    move first, then winning and turn-keeping moves (played into ``child`` to see), the
    killers ``k0``, ``k1``, the history.

    It takes the arrays it reads rather than the records: it stays a call (neither numba nor
    LLVM inlines it), and a record is passed to a call member by member, each array as its
    pointer, shape and strides: 110 arguments instead of these 53 at every inner node.
    """
    for i in range(n):
        a = mv[i]
        s = history[me, a]
        if a == tt_move:
            s += 1 << 50
        elif a == k0:
            s += 1 << 40
        elif a == k1:
            s += 1 << 39
        if depth >= 2 and n > 1 and a != tt_move:
            # moves that keep the turn (a three formed, a bonus step) or win come early
            if _surely_quiet(fam, params, state, a, me):
                sc[i] = s
                continue
            for j in range(state.shape[0]):  # a loop: a slice copy may allocate
                child[j] = state[j]
            fam_apply(fam, params, child, a)
            if child[ST_OUTCOME] == me:
                s += 1 << 48
            elif child[ST_OUTCOME] == OUTCOME_RUNNING and child[ST_TO_MOVE] == me:
                s += 1 << 45
        sc[i] = s


def search_root(game: SearchGame, tables: SearchTables, root_depth: int) -> int:
    """One iteration of iterative deepening from ``tables.stack[0]`` to ``root_depth``
    decisions.

    Returns the score for the player to move at the root. The best root move is left in
    ``ctx[CX_ROOT_MOVE]``, also when the iteration is aborted (then it is the best among the
    root moves searched to the end). The recursion of negamax is run on an explicit stack
    (``frames``), because numba's on-disk cache cannot hold recursive functions.

    The records cross into compiled code as their members (:func:`_search_root`; the module
    doc says why), as iterative deepening calls this from Python once per iteration
    (docs/benchmarks.md, "Dracala's per-call cost").
    """
    t, e = tables, tables.endgames
    return _search_root(*game, t.stack, t.moves, t.order, t.tt_keys, t.tt_data, t.killers,
                        t.history, t.path, t.ctx, t.stop, t.pv, e.kind, e.reach, e.nbytes,
                        e.slot_width, e.binom, e.symtab, e.slots, e.words, e.codes, e.db,
                        e.db_base, root_depth)


@kernel
def _search_root(fam: int, params: IntArray, weights: IntArray, n_actions: int,
                 stack: IntArray, moves: IntArray, order: IntArray, tt_keys: IntArray,
                 tt_data: IntArray, killers: IntArray, history: IntArray, path: IntArray,
                 ctx: IntArray, stop: IntArray, pv: IntArray, eg_kind: int, eg_reach: int,
                 eg_nbytes: int, eg_slot_width: int, eg_binom: IntArray, eg_symtab: IntArray,
                 eg_slots: IntArray, eg_words: IntArray, eg_codes: U32Array, eg_db: ByteArray,
                 eg_db_base: IntArray, root_depth: int) -> int:
    """:func:`search_root` compiled: the members of its two records, in their order
    (``SearchGame``'s, then ``SearchTables``', its ``endgames`` record's members in place of
    it), made into the records again here."""
    game = SearchGame(fam, params, weights, n_actions)
    endgames = Endgames(eg_kind, eg_reach, eg_nbytes, eg_slot_width, eg_binom, eg_symtab,
                        eg_slots, eg_words, eg_codes, eg_db, eg_db_base)
    tables = SearchTables(stack, moves, order, tt_keys, tt_data, killers, history, path, ctx,
                          stop, pv, endgames)
    ctx[CX_ABORTED] = 0
    ctx[CX_ROOT_MOVE] = -1
    ctx[CX_ROOT_SCORE] = 0
    ctx[CX_ROOT_PLAYER] = stack[0][ST_TO_MOVE]
    frames = np.zeros((stack.shape[0], FR_FIELDS), dtype=np.int64)
    scratch = _scratch(fam, params)
    return _search_loop(game, tables, root_depth, frames, scratch)


@kernel_noalloc
def _search_loop(game: SearchGame, tables: SearchTables, root_depth: int, frames: IntArray,
                 scratch: IntArray) -> int:
    """:func:`search_root`'s loop over buffers made once (compiled without reference
    counting, which would cost more than the rules at every node).

    A state machine over the frames, one step a turn of the loop: ``_ENTER`` a node,
    try its ``_NEXT`` move, ``_RETURN`` a node's score to its parent, and the parent has
    ``_GOT`` the value of a move. ``value`` carries the score between the steps: a returned
    node's own, then the move's value for the parent's player.
    """
    frames[0, FR_DEPTH] = root_depth
    frames[0, FR_ALPHA] = -INF
    frames[0, FR_BETA] = INF
    frames[0, FR_CONT] = 1
    ply = 0
    mode = _ENTER
    value = 0
    while True:
        if mode == _ENTER:
            if _count_node(tables.ctx, tables.stop, ply):
                return 0
            mode, value = _enter(game, tables, frames, scratch, ply)
            continue
        if mode == _NEXT:
            mode, value = _next_move(game, tables, frames, ply)
            if mode == _ENTER:
                ply += 1
            continue
        if mode == _RETURN:
            if ply == 0:
                return value
            ply -= 1
            mode, value = _returned(tables, frames, ply, value)
            if mode == _ENTER:
                ply += 1
                continue
        # _GOT, also straight after a _RETURN
        mode, value = _got(tables, frames, ply, value)


# The steps of the loop, inlined into it by numba (``kernel_inline``): the same compiled
# code as one long loop body.


@kernel_inline
def _count_node(ctx: IntArray, stop: IntArray, ply: int) -> bool:
    """Count a node entered at ``ply``; whether the search must stop (the node limit, or
    the stop flag, looked at every 64 nodes)."""
    ctx[CX_NODES] += 1
    if ctx[CX_NODES] >= ctx[CX_NODE_LIMIT] or ((ctx[CX_NODES] & 63) == 0 and stop[0] != 0):
        ctx[CX_ABORTED] = 1
    if ctx[CX_ABORTED] != 0:
        return True
    if ply > ctx[CX_SELDEPTH]:
        ctx[CX_SELDEPTH] = ply
    return False


@kernel_inline
def _enter(game: SearchGame, tables: SearchTables, frames: IntArray, scratch: IntArray,
           ply: int) -> tuple[int, int]:
    """Enter the node at ``ply``: ``(_RETURN, score)`` for a leaf or a node the table
    settles, else ``(_NEXT, 0)`` with its moves generated and ordered."""
    ctx = tables.ctx
    fr = frames[ply]
    state = tables.stack[ply]
    me = state[ST_TO_MOVE]
    depth = fr[FR_DEPTH]
    fr[FR_ME] = me
    fr[FR_PATH_LEN] = ctx[CX_PATH_LEN]
    if ply > 0 and tables.endgames.kind != EG_NONE:
        known, score = _endgame_leaf(game.fam, game.params, tables.endgames, ctx, state, ply)
        if known:
            return _RETURN, score
    if (depth <= 0 and fr[FR_CONT] == 0) or ply >= tables.stack.shape[0] - 2:
        return _RETURN, _leaf(game, state, scratch, ctx)
    settled, score, tt_move = _probe(tables, fr, state[ST_KEY], ply)
    if settled:
        return _RETURN, score
    if ply == 0 and ctx[CX_ROOT_HINT] >= 0:
        # the table slot may have been overwritten: the last iteration's best move
        # must come first, so that an unfinished iteration's choice stays sound
        tt_move = ctx[CX_ROOT_HINT]
    n = fam_legal(game.fam, game.params, state, tables.moves[ply])
    if n == 0:
        return _RETURN, _leaf(game, state, scratch, ctx)
    _order_moves(game.fam, game.params, state, tables.stack[ply + 1], tables.moves[ply],
                 tables.order[ply], n, me, depth, tt_move, tables.killers[ply, 0],
                 tables.killers[ply, 1], tables.history)
    fr[FR_COUNT] = n
    fr[FR_INDEX] = 0
    fr[FR_ORIG_ALPHA] = fr[FR_ALPHA]
    fr[FR_BEST] = -INF
    fr[FR_BEST_MOVE] = -1
    return _NEXT, 0


@kernel_inline
def _probe(tables: SearchTables, fr: IntArray, key: int, ply: int) -> tuple[bool, int, int]:
    """Look the node of frame ``fr`` up in the table (and note its slot): whether the entry
    settles the node, with which score, and the entry's best move (-1 none)."""
    slot = key & (tables.tt_keys.shape[0] - 1)
    fr[FR_SLOT] = slot
    if tables.tt_keys[slot] != key:
        return False, 0, -1
    t_score, t_depth, t_flag, t_move = tt_unpack(tables.tt_data[slot])
    if t_depth >= fr[FR_DEPTH] and ply > 0:
        t_score = _from_tt(t_score, ply)
        if (t_flag == TT_EXACT or (t_flag == TT_LOWER and t_score >= fr[FR_BETA])
                or (t_flag == TT_UPPER and t_score <= fr[FR_ALPHA])):
            return True, t_score, t_move
    return False, 0, t_move


@kernel_inline
def _next_move(game: SearchGame, tables: SearchTables, frames: IntArray,
               ply: int) -> tuple[int, int]:
    """Play the best-ordered move not searched yet at ``ply`` into the next row of the
    stack: ``(_GOT, value)`` when its value is known at once (the game ended, a
    repetition), ``(_ENTER, 0)`` with the child's frame set to search it, or
    ``(_RETURN, score)`` when no move is left."""
    fr = frames[ply]
    i = fr[FR_INDEX]
    if i >= fr[FR_COUNT]:
        return _RETURN, _store(tables.tt_keys, tables.tt_data, tables.stack[ply][ST_KEY], fr, ply)
    a = _pick_next(tables.moves[ply], tables.order[ply], i, fr[FR_COUNT])
    state = tables.stack[ply]
    child = tables.stack[ply + 1]
    for j in range(state.shape[0]):  # a loop: a slice copy may allocate
        child[j] = state[j]
    fam_apply(game.fam, game.params, child, a)
    ctx = tables.ctx
    me = fr[FR_ME]
    outcome = child[ST_OUTCOME]
    if outcome != OUTCOME_RUNNING:
        if tables.endgames.kind == EG_DATABASE and game.fam == FAM_SOWING:
            # scored as the databases' positions are: by the margin
            return _GOT, _margin_score(ctx, me, _eg.store_margin(game.params, child, me))
        if outcome == OUTCOME_DRAW:
            return _GOT, _draw_score(ctx, me)
        return _GOT, _terminal_score(outcome, me, ply + 1)
    if child[ST_TO_MOVE] == me:
        fr[FR_SAME] = 1
    else:
        key = child[ST_KEY]
        if _is_repeat(tables.path, ctx[CX_PATH_LEN], key):
            return _GOT, _draw_score(ctx, me)
        _push_path(tables, key)
        fr[FR_SAME] = 0
    # the first move gets the full window, the others a null-window probe first
    fr[FR_STAGE] = 0 if i == 0 else 1
    _open_child(fr, frames[ply + 1], i != 0)
    return _ENTER, 0


@kernel_noalloc
def _endgame_leaf(fam: int, params: IntArray, eg: Endgames, ctx: IntArray, state: IntArray,
                  ply: int) -> tuple[bool, int]:
    """Whether the endgame tables ``eg`` settle the node at ``ply`` (never the root: it
    needs a move), and its score for its player to move: a tablebase position scores ``WIN
    - (ply + plies)`` when won, its negation when lost (the search's own scale, counted
    from the root) and a draw as the search's draws; a position the Kalah databases cover
    scores its exact final margin (``_margin_score``). A call, not inlined: the loop stays
    as small as without tables, and only a search with tables pays for the call."""
    me = state[ST_TO_MOVE]
    if eg.kind == EG_TABLEBASE and fam == FAM_ALIGNMENT:
        known, value, plies = _eg.tablebase_probe(eg, params, state)
        if not known:
            return False, 0
        ctx[CX_ENDGAME] += 1
        if value == 0:
            return True, _draw_score(ctx, me)
        dist = ply + plies
        if dist > WIN - WIN_BOUND - 1:
            dist = WIN - WIN_BOUND - 1  # a win however long stays a win
        return True, value * (WIN - dist)
    if eg.kind == EG_DATABASE and fam == FAM_SOWING:
        known, margin = _eg.database_margin(eg, params, state)
        if not known:
            return False, 0
        ctx[CX_ENDGAME] += 1
        return True, _margin_score(ctx, me, margin)
    return False, 0


@kernel_inline
def _margin_score(ctx: IntArray, player: int, margin: int) -> int:
    """The score of an exact final ``margin`` for ``player`` (``EXACT``; 0 a draw)."""
    if margin > 0:
        return EXACT + 100 * margin
    if margin < 0:
        return -EXACT + 100 * margin
    return _draw_score(ctx, player)


@kernel_inline
def _pick_next(mv: IntArray, sc: IntArray, i: int, n: int) -> int:
    """Bring the best-scored of moves ``i..n-1`` to index ``i`` (a step of selection sort:
    a cutoff usually comes before the rest need sorting); returns it."""
    j_best = i
    for j in range(i + 1, n):
        if sc[j] > sc[j_best]:
            j_best = j
    if j_best != i:
        tmp = mv[i]
        mv[i] = mv[j_best]
        mv[j_best] = tmp
        tmp = sc[i]
        sc[i] = sc[j_best]
        sc[j_best] = tmp
    return int(mv[i])


@kernel_inline
def _push_path(tables: SearchTables, key: int) -> None:
    """Add the key of a turn start to the repetition path."""
    ctx = tables.ctx
    tables.path[ctx[CX_PATH_LEN]] = key
    ctx[CX_PATH_LEN] += 1


@kernel_inline
def _open_child(fr: IntArray, cf: IntArray, null_window: bool) -> None:
    """Set the child frame ``cf`` for the move being searched at frame ``fr``: a decision
    less, and the parent's window (a null window just above alpha for a probe), negated
    unless the child continues the same player's turn."""
    alpha = fr[FR_ALPHA]
    beta = alpha + 1 if null_window else fr[FR_BETA]
    cf[FR_DEPTH] = fr[FR_DEPTH] - 1
    cf[FR_CONT] = fr[FR_SAME]
    if fr[FR_SAME] == 1:
        cf[FR_ALPHA] = alpha
        cf[FR_BETA] = beta
    else:
        cf[FR_ALPHA] = -beta
        cf[FR_BETA] = -alpha


@kernel_inline
def _returned(tables: SearchTables, frames: IntArray, ply: int, score: int) -> tuple[int, int]:
    """The child of ``ply`` returned ``score``: ``(_GOT, value)`` with the move's value for
    this node's player, or ``(_ENTER, 0)`` to search the child again with the full window
    when its null-window probe says the move is better."""
    fr = frames[ply]
    tables.ctx[CX_PATH_LEN] = fr[FR_PATH_LEN]
    v = score if fr[FR_SAME] == 1 else -score
    if fr[FR_STAGE] == 1 and fr[FR_ALPHA] < v < fr[FR_BETA]:
        fr[FR_STAGE] = 2
        if fr[FR_SAME] == 0:
            _push_path(tables, tables.stack[ply + 1][ST_KEY])
        _open_child(fr, frames[ply + 1], False)
        return _ENTER, 0
    return _GOT, v


@kernel_inline
def _got(tables: SearchTables, frames: IntArray, ply: int, v: int) -> tuple[int, int]:
    """The move being searched at ``ply`` is worth ``v``: ``(_RETURN, score)`` on a cutoff,
    else ``(_NEXT, 0)`` for the next move."""
    fr = frames[ply]
    a = tables.moves[ply, fr[FR_INDEX]]
    if v > fr[FR_BEST]:
        fr[FR_BEST] = v
        fr[FR_BEST_MOVE] = a
        if ply == 0:
            tables.ctx[CX_ROOT_MOVE] = a
            tables.ctx[CX_ROOT_SCORE] = v
    if v > fr[FR_ALPHA]:
        fr[FR_ALPHA] = v
    if fr[FR_ALPHA] >= fr[FR_BETA]:
        _credit_cutoff(tables, ply, fr[FR_ME], a, fr[FR_DEPTH])
        return _RETURN, _store(tables.tt_keys, tables.tt_data, tables.stack[ply][ST_KEY], fr, ply)
    fr[FR_INDEX] += 1
    return _NEXT, 0


@kernel_inline
def _credit_cutoff(tables: SearchTables, ply: int, me: int, a: int, depth: int) -> None:
    """Move ``a`` of ``me`` caused a cutoff at ``ply`` (``depth`` decisions left): make it a
    killer of the ply and credit it in the history (halved all over when it grows large)."""
    killers = tables.killers
    history = tables.history
    if a != killers[ply, 0]:
        killers[ply, 1] = killers[ply, 0]
        killers[ply, 0] = a
    history[me, a] += depth * depth if depth > 0 else 1
    if history[me, a] > (1 << 30):
        for p in range(history.shape[0]):
            for q in range(history.shape[1]):
                history[p, q] >>= 1


@kernel_noalloc
def _store(tt_keys: IntArray, tt_data: IntArray, key: int, fr: IntArray, ply: int) -> int:
    """Write the finished node of frame ``fr`` at ``ply`` (its key ``key``) into the table;
    returns its score. It stays a call, so it takes the arrays it writes rather than the
    record (as ``_order_moves`` does), which the endgame tables made longer."""
    best = fr[FR_BEST]
    if best <= fr[FR_ORIG_ALPHA]:
        flag = TT_UPPER
    elif best >= fr[FR_BETA]:
        flag = TT_LOWER
    else:
        flag = TT_EXACT
    depth = fr[FR_DEPTH]
    slot = fr[FR_SLOT]
    tt_keys[slot] = key
    tt_data[slot] = tt_pack(_to_tt(best, ply), depth if depth > 0 else 0, flag,
                            fr[FR_BEST_MOVE])
    return int(best)


def principal_variation(game: SearchGame, tables: SearchTables, state: IntArray,
                        first: int) -> int:
    """Follow the table's best moves from ``state`` after ``first``; write them into
    ``tables.pv`` and return how many. The compiled part takes the members it reads, as
    :func:`search_root`'s does (docs/benchmarks.md, "Dracala's per-call cost")."""
    return _principal_variation(game.fam, game.params, game.n_actions, tables.tt_keys,
                                tables.tt_data, tables.pv, state, first)


@kernel
def _principal_variation(fam: int, params: IntArray, n_actions: int, tt_keys: IntArray,
                         tt_data: IntArray, out: IntArray, state: IntArray, first: int) -> int:
    """:func:`principal_variation` compiled, ``out`` its ``tables.pv``."""
    cur = state.copy()
    buf = np.empty(n_actions, dtype=np.int64)
    count = 0
    move = first
    mask = tt_keys.shape[0] - 1
    while count < out.shape[0] and move >= 0 and cur[ST_OUTCOME] == OUTCOME_RUNNING:
        n = fam_legal(fam, params, cur, buf)
        ok = False
        for i in range(n):
            if buf[i] == move:
                ok = True
                break
        if not ok:
            break
        out[count] = move
        count += 1
        fam_apply(fam, params, cur, move)
        key = cur[ST_KEY]
        slot = key & mask
        if tt_keys[slot] != key:
            break
        move = tt_unpack(tt_data[slot])[3]
    return count


# --- Monte Carlo tree search -------------------------------------------------------------------

# node arrays (int64): parent, first child, number of children, action, visits, mover
ND_PARENT = 0
ND_CHILD = 1
ND_NCHILD = 2
ND_ACTION = 3
ND_VISITS = 4
ND_MOVER = 5     # the player who made the move leading to this node
ND_FIELDS = 6


class UctTree(NamedTuple):
    """The buffers of a UCT search, made once by the caller."""

    nodes: IntArray     # (capacity, ND_FIELDS): the tree, node 0 the root
    values: FloatArray  # (capacity,): each node's summed rewards for the player who moved in
    ctx: IntArray       # CX_* counters and limits (CX_NODES, CX_NODE_LIMIT, CX_ABORTED)
    stop: IntArray      # stop[0] != 0: abort (set by the caller's timer thread)


class UctSettings(NamedTuple):
    """How a UCT search plays: the most playouts, the exploration constant, the playout
    cutoff in decisions (0: to the end) with the logistic width of its evaluation, and the
    seed of the random numbers."""

    playouts: int
    exploration: float
    cutoff: int
    scale: float
    seed: int


@kernel_noalloc
def _rollout(game: SearchGame, settings: UctSettings, state: IntArray, buf: IntArray,
             stream: IntArray, scratch: IntArray) -> float:
    """Random play from ``state`` (in place); the reward in [0, 1] for the first player.

    With a ``settings.cutoff`` > 0 the playout stops after that many decisions and the
    evaluation, squashed by a logistic curve of width ``settings.scale``, stands in for the
    result.
    """
    fam = game.fam
    params = game.params
    cutoff = settings.cutoff
    steps = 0
    while state[ST_OUTCOME] == OUTCOME_RUNNING:
        if cutoff > 0 and steps >= cutoff:
            v = _evaluate(fam, params, state, game.weights, scratch)
            if state[ST_TO_MOVE] != 1:
                v = -v
            return float(1.0 / (1.0 + np.exp(-v / settings.scale)))
        n = fam_legal(fam, params, state, buf)
        if n == 0:
            break
        fam_apply(fam, params, state, buf[_rng.pick(_rng.draw(stream), n)])
        steps += 1
    outcome = state[ST_OUTCOME]
    if outcome == 1:
        return 1.0
    if outcome == 2:
        return 0.0
    return 0.5


@kernel
def mcts(game: SearchGame, root: IntArray, tree: UctTree, settings: UctSettings) -> int:
    """UCT from ``root`` for at most ``settings.playouts`` playouts (or until the stop flag or
    the node limit).

    The tree is built in ``tree.nodes`` from node 0, the root. When it is full, leaves are no
    longer expanded but playouts go on. Returns the number of playouts made.
    """
    fam = game.fam
    params = game.params
    nodes = tree.nodes
    values = tree.values
    ctx = tree.ctx
    stop = tree.stop
    playouts = settings.playouts
    exploration = settings.exploration
    buf = np.empty(game.n_actions, dtype=np.int64)
    scratch = _scratch(fam, params)
    state = root.copy()
    stream = np.zeros(1, dtype=np.int64)  # the random numbers of this search (module rng)
    stream[0] = _rng.seed_state(settings.seed)
    capacity = nodes.shape[0]
    nodes[0, ND_PARENT] = -1
    nodes[0, ND_CHILD] = -1
    nodes[0, ND_NCHILD] = 0
    nodes[0, ND_ACTION] = -1
    nodes[0, ND_VISITS] = 0
    nodes[0, ND_MOVER] = 3 - root[ST_TO_MOVE]
    values[0] = 0.0
    used = 1
    done = 0
    ctx[CX_ABORTED] = 0
    while done < playouts:
        if stop[0] != 0 or ctx[CX_NODES] >= ctx[CX_NODE_LIMIT]:
            ctx[CX_ABORTED] = 1
            break
        state[:] = root
        node = 0
        # selection
        while nodes[node, ND_NCHILD] > 0 and state[ST_OUTCOME] == OUTCOME_RUNNING:
            first = nodes[node, ND_CHILD]
            count = nodes[node, ND_NCHILD]
            log_n = np.log(nodes[node, ND_VISITS] + 1.0)
            best = first
            best_u = -1.0
            for c in range(first, first + count):
                vis = nodes[c, ND_VISITS]
                if vis == 0:
                    u = 1e9 + (_rng.draw(stream) & 1023)
                else:
                    u = values[c] / vis + exploration * np.sqrt(log_n / vis)
                if u > best_u:
                    best_u = u
                    best = c
            node = best
            fam_apply(fam, params, state, nodes[node, ND_ACTION])
            ctx[CX_NODES] += 1
        # expansion
        if state[ST_OUTCOME] == OUTCOME_RUNNING and nodes[node, ND_NCHILD] == 0:
            n = fam_legal(fam, params, state, buf)
            if n > 0 and used + n <= capacity:
                mover = state[ST_TO_MOVE]
                nodes[node, ND_CHILD] = used
                nodes[node, ND_NCHILD] = n
                for i in range(n):
                    c = used + i
                    nodes[c, ND_PARENT] = node
                    nodes[c, ND_CHILD] = -1
                    nodes[c, ND_NCHILD] = 0
                    nodes[c, ND_ACTION] = buf[i]
                    nodes[c, ND_VISITS] = 0
                    nodes[c, ND_MOVER] = mover
                    values[c] = 0.0
                used += n
                node = used - n + _rng.pick(_rng.draw(stream), n)
                fam_apply(fam, params, state, nodes[node, ND_ACTION])
                ctx[CX_NODES] += 1
        # simulation
        reward_first = _rollout(game, settings, state, buf, stream, scratch)
        # back-propagation
        while node >= 0:
            nodes[node, ND_VISITS] += 1
            if nodes[node, ND_MOVER] == 1:
                values[node] += reward_first
            else:
                values[node] += 1.0 - reward_first
            node = nodes[node, ND_PARENT]
        done += 1
    ctx[CX_SELDEPTH] = used
    return done
