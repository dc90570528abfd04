"""Endgame tablebases of Dara and Dala: every movement-phase position of a few pieces, solved.

A tablebase position has every piece dropped and no capture owed; it is seen from the side to
move, with ``m`` pieces against ``o`` (its *material*, each side above ``loss_at``). For every
such position the tables give the value for the side to move (win, draw, loss), the plies to
the end of the game under best play (the winner's shortest, the loser's longest) and the
plies to the next capture (the same, counted to the next capture or the end: what the quiet
limit needs). A ply is a turn: a step with the capture it makes. Repetition draws, so the
positions neither side can force to an end are draws; the quiet limit is not in the tables
(``docs/solving.md`` says how a player uses the capture distance against it).

The rules are the kernels' (``kernels/alignment.py``): ``tbkernels.generate`` sets every
position up as a kernel state and follows its legal actions through ``apply_action``, so the
rule options the movement phase reads (the board, ``long_lines``, ``protect_threes``,
``all_protected``, ``blocked``, ``loss_at``) act here as in play. ``no_return`` (``dara-sheet``)
makes the last step part of the position, which the index leaves out: such rule sets are
refused. Boards of up to 63 squares (every preset).

Tables are built by *layer*: the materials (m, o) and (o, m) together (a quiet step of one
leads to the other), from the fewest pieces up, since a capture leads into a smaller material
whose table is already built. Each material is a file ``m{m}-{o}.tb`` in :func:`tb_directory`:

* a 4096-byte header: the magic ``NUGARTB1``, a 4-byte length and a JSON object with the
  format version, the rule key, the board, the material, the counts and the CRC-32 of the
  data;
* the data: the bitmap of class representatives (one bit per full index, ``int64`` words),
  the prefix counts (one ``int64`` per word) and the packed values (one ``uint32`` per
  stored position; ``tbkernels`` describes the index and the packing).

A file is used only when its header matches and its data has the size and checksum the header
gives; a material is written to ``.part`` and renamed when complete, so an interrupted build
resumes at the first layer missing. Files are memory-mapped when first probed.
"""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import time
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import NugarError
from ..kernels import alignment as al
from ..kernels import endgames as eg
from ..kernels.common import OUTCOME_DRAW, OUTCOME_RUNNING, ST_OUTCOME, ST_TO_MOVE
from ..rules.base import Game
from ..rules.family import family_of
from ..rules.options import AlignmentOptions, RuleSet
from . import tbkernels as tk
from .egdb import Reserved, data_dir

IntArray = npt.NDArray[np.int64]

FORMAT_VERSION = 1
MAGIC = b"NUGARTB1"
HEADER_BYTES = 4096
MAX_SQUARES = 63
MAX_SIDE_PIECES = 8      # the binomial table's width: pieces of one side in a table


class TablebaseError(NugarError):
    """No tablebase covers these rules or this position, or a table cannot be built."""


def options_of(rules: RuleSet) -> AlignmentOptions:
    """The alignment options of ``rules`` if the tablebases cover them, else a
    :class:`TablebaseError` saying why not."""
    opts = rules.options
    if not isinstance(opts, AlignmentOptions):
        raise TablebaseError(f"no tablebase for {rules.text}: tablebases cover the alignment "
                             f"games (Dara, Dala) only")
    if opts.no_return:
        raise TablebaseError(f"no tablebase for {rules.text}: with no_return the last step "
                             f"is part of the position, and the tablebase index leaves it out")
    if opts.rows * opts.cols > MAX_SQUARES:
        raise TablebaseError(f"no tablebase for {rules.text}: boards of up to {MAX_SQUARES} "
                             f"squares only")
    return opts


def rules_key(rules: RuleSet) -> str:
    """What the tables depend on: the board and the options the movement phase reads (not
    the drops, the pieces in hand, repetition's count or the quiet limit)."""
    o = options_of(rules)
    return (f"tb-{o.rows}x{o.cols}-ll{o.long_lines}-pt{int(o.protect_threes)}"
            f"-ap{o.all_protected}-bl{o.blocked}-la{o.loss_at}")


def tb_directory(rules: RuleSet, root: Path | None = None) -> Path:
    """The folder of ``rules``' tables under the user's data folder (as the Kalah
    databases': ``egdb.data_dir``)."""
    return (root if root is not None else data_dir()) / "tablebase" / rules_key(rules)


def symmetries(rows: int, cols: int) -> list[list[int]]:
    """The board's symmetries as square permutations (square ``r * cols + c``), the identity
    first: the four reflections and turns of a rectangle, eight of a square board."""
    def perm(f: Callable[[int, int], tuple[int, int]]) -> list[int]:
        out = []
        for sq in range(rows * cols):
            r, c = f(sq // cols, sq % cols)
            out.append(r * cols + c)
        return out

    maps: list[Callable[[int, int], tuple[int, int]]] = [
        lambda r, c: (r, c), lambda r, c: (r, cols - 1 - c),
        lambda r, c: (rows - 1 - r, c), lambda r, c: (rows - 1 - r, cols - 1 - c)]
    if rows == cols:
        maps += [lambda r, c: (c, r), lambda r, c: (c, rows - 1 - r),
                 lambda r, c: (cols - 1 - c, r), lambda r, c: (cols - 1 - c, rows - 1 - r)]
    return [perm(f) for f in maps]


def sym_tables(rows: int, cols: int) -> IntArray:
    """Byte look-up tables of the symmetries: ``t[s, k, b]`` is the image under symmetry ``s``
    of the squares ``8k..8k+7`` given by the bits of ``b``."""
    perms = symmetries(rows, cols)
    nbytes = (rows * cols + 7) // 8
    t = np.zeros((len(perms), nbytes, 256), dtype=np.int64)
    for s, p in enumerate(perms):
        for k in range(nbytes):
            for b in range(256):
                out = 0
                for bit in range(8):
                    sq = 8 * k + bit
                    if (b >> bit) & 1 and sq < rows * cols:
                        out |= 1 << p[sq]
                t[s, k, b] = out
    return t


def binomials() -> IntArray:
    """``C(n, k)`` for ``n`` up to 64 and ``k`` up to :data:`MAX_SIDE_PIECES`."""
    t = np.zeros((MAX_SQUARES + 2, MAX_SIDE_PIECES + 1), dtype=np.int64)
    for n in range(MAX_SQUARES + 2):
        t[n, 0] = 1
        for k in range(1, MAX_SIDE_PIECES + 1):
            t[n, k] = 0 if n == 0 else t[n - 1, k - 1] + t[n - 1, k]
    return t


@dataclass
class Table:
    """One material's table: its representatives' bitmap, prefix counts and packed values."""

    m: int
    o: int
    full: int            # full indices (positions before symmetry)
    size: int            # positions stored: one per class
    bitmap: IntArray
    prefix: IntArray
    values: npt.NDArray[np.uint32]

    @property
    def nbytes(self) -> int:
        return int(self.bitmap.nbytes + self.prefix.nbytes + self.values.nbytes)


@dataclass(frozen=True)
class Entry:
    """A position's value in the tables, for the side to move."""

    value: int           # 1 win, 0 draw, -1 loss
    plies: int           # to the end of the game (0 for a draw)
    to_capture: int      # to the next capture or the end (0 for a draw)

    @classmethod
    def unpack(cls, code: int) -> Entry:
        low = code & 0xFFFF
        return cls((low & 3) - 1, low >> 2, code >> 16)


@dataclass
class LayerResult:
    """What building one layer did (``status``: ``built`` or ``kept``)."""

    materials: list[tuple[int, int]]
    positions: int
    bytes: int
    status: str
    seconds: float = 0.0
    levels: int = 0
    counts: dict[str, int] = field(default_factory=dict)


class Geometry:
    """What every table of one rule set shares: the params (quiet limit off), the binomials
    and the symmetry tables."""

    def __init__(self, rules: RuleSet) -> None:
        opts = options_of(rules)
        self.rules = rules
        self.rows, self.cols = opts.rows, opts.cols
        self.n = opts.rows * opts.cols
        self.loss_at = opts.loss_at
        self.pieces = opts.pieces
        params = family_of(rules).parts.params(opts).copy()
        params[al.P_QUIET] = 0        # the quiet limit is not in the tables
        params[al.P_REPETITION] = 0
        self.params: IntArray = params
        self.binom = binomials()
        self.symtab = sym_tables(opts.rows, opts.cols)
        self.nbytes = (self.n + 7) // 8

    def full_count(self, m: int, o: int) -> int:
        return int(self.binom[self.n, m] * self.binom[self.n - m, o])

    def materials(self, max_pieces: int) -> list[tuple[int, int]]:
        """Every material of at most ``max_pieces`` pieces with both sides above
        ``loss_at``, fewest pieces first."""
        lo = self.loss_at + 1
        hi = min(self.pieces, MAX_SIDE_PIECES)
        out = [(a, b) for a in range(lo, hi + 1) for b in range(lo, hi + 1)
               if a + b <= max_pieces and a + b <= self.n]
        return sorted(out, key=lambda ab: (ab[0] + ab[1], -ab[0]))

    def layers(self, max_pieces: int) -> list[tuple[int, int]]:
        """The layers (m, o), m >= o, in build order."""
        return [(a, b) for a, b in self.materials(max_pieces) if a >= b]

    def subset(self, k: int, rank: int) -> int:
        """The ``k``-subset of colex rank ``rank``, as a bitboard."""
        out = 0
        for i in range(k, 0, -1):
            c = i - 1
            while int(self.binom[c + 1, i]) <= rank:
                c += 1
            rank -= int(self.binom[c, i])
            out |= 1 << c
        return out

    def _chunks(self, m: int, workers: int) -> list[tuple[int, int]]:
        movers = int(self.binom[self.n, m])
        parts = max(1, min(movers, 8 * max(1, workers)))
        return [(movers * i // parts, movers * (i + 1) // parts) for i in range(parts)]

    def classes(self, m: int, o: int, workers: int = 1) -> tuple[IntArray, IntArray, int, int]:
        """The bitmap and prefix counts of material (m, o)'s representatives, their number
        and the number of full indices (in ``workers`` threads)."""
        full = self.full_count(m, o)
        per = int(self.binom[self.n - m, o])
        words = (full + 63) // 64
        bitmap = np.zeros(words, dtype=np.int64)

        def mark(r0: int, r1: int) -> tuple[int, IntArray, int]:
            w0, w1 = r0 * per // 64, (r1 * per + 63) // 64
            local = np.zeros(max(0, w1 - w0), dtype=np.int64)
            count = tk.mark_classes(self.binom, self.symtab, self.nbytes, self.n, m, o, r0, r1,
                                    self.subset(m, r0), local, w0)
            return w0, local, int(count)

        size = 0
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            for w0, local, count in pool.map(lambda r: mark(*r), self._chunks(m, workers)):
                bitmap[w0:w0 + local.shape[0]] |= local
                size += count
        prefix = np.zeros(words, dtype=np.int64)
        tk.prefix_counts(bitmap, prefix)
        return bitmap, prefix, size, full

    def list_classes(self, m: int, o: int, bitmap: IntArray, prefix: IntArray,
                     movers: IntArray, others: IntArray, workers: int = 1) -> None:
        """The boards of every representative of material (m, o), in table order."""
        per = int(self.binom[self.n - m, o])

        def fill(r0: int, r1: int) -> None:
            f0 = r0 * per
            p0 = 0
            if f0 < per * int(self.binom[self.n, m]):
                w = f0 >> 6
                p0 = int(prefix[w]) + bin(int(bitmap[w]) & ((1 << (f0 & 63)) - 1)).count("1")
            tk.list_classes(self.binom, self.n, m, o, r0, r1, self.subset(m, r0), bitmap, p0,
                            movers, others)

        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            list(pool.map(lambda r: fill(*r), self._chunks(m, workers)))


_EMPTY_I = np.zeros(1, dtype=np.int64)
_EMPTY_U = np.zeros(1, dtype=np.uint32)

#: progress(phase, done, total, seconds since the layer started)
Progress = Callable[[str, int, int, float], None]


@dataclass(frozen=True)
class LayerWork:
    """What generating the turns of a layer's positions reads, but their boards: the rules'
    params, the index tables, the layer's two materials (A, positions ``0..split-1``, and B
    from ``off_b`` on; one material when they are equal) and the lower tables a capture
    leads to (``tbkernels.generate`` says more). Read only: threads share one, and a Ray
    cluster holds one copy in its object store (``scale/tb_ray.py``)."""

    params: IntArray
    binom: IntArray
    symtab: IntArray
    nbytes: int
    split: int
    off_b: int
    stride: int
    bm_a: IntArray
    pf_a: IntArray
    bm_b: IntArray
    pf_b: IntArray
    lower_a: tuple[IntArray, IntArray, npt.NDArray[np.uint32]]
    lower_b: tuple[IntArray, IntArray, npt.NDArray[np.uint32]]


@dataclass
class RangeMoves:
    """The turns of a range of a layer's positions: each position's edges into the layer
    (``stride`` slots, ``outdeg`` used), its shortest won exit, whether an exit draws and
    its longest lost exit (``tbkernels.generate``)."""

    edges: npt.NDArray[np.int32]
    outdeg: npt.NDArray[np.int32]
    ewin: npt.NDArray[np.int32]
    edraw: npt.NDArray[np.uint8]
    eloss: npt.NDArray[np.int32]

    @classmethod
    def empty(cls, count: int, stride: int) -> RangeMoves:
        return cls(np.full(count * stride, -1, dtype=np.int32),
                   np.zeros(count, dtype=np.int32), np.zeros(count, dtype=np.int32),
                   np.zeros(count, dtype=np.uint8), np.zeros(count, dtype=np.int32))

    def view(self, lo: int, hi: int, stride: int) -> RangeMoves:
        """Positions ``lo..hi-1`` of these, sharing their memory."""
        return RangeMoves(self.edges[lo * stride:hi * stride], self.outdeg[lo:hi],
                          self.ewin[lo:hi], self.edraw[lo:hi], self.eloss[lo:hi])


def generate_range(work: LayerWork, lo: int, hi: int, movers: IntArray, others: IntArray,
                   out: RangeMoves | None = None) -> RangeMoves:
    """The turns of the layer's positions ``lo..hi-1``, whose boards are ``movers`` and
    ``others`` (the range's own: position ``lo`` first), into ``out`` (a view of the whole
    layer's arrays; fresh arrays when ``None``). The one piece of work of the moves phase:
    the local threads and the Ray tasks both run it."""
    if out is None:
        out = RangeMoves.empty(hi - lo, work.stride)
    # the kernel counts positions from the range's start: A ends at split - lo
    tk.generate(work.params, work.binom, work.symtab, work.nbytes, 0, hi - lo, movers, others,
                work.split - lo, work.bm_a, work.pf_a, work.bm_b, work.pf_b, work.off_b,
                *work.lower_a, *work.lower_b, work.stride, out.edges, out.outdeg, out.ewin,
                out.edraw, out.eloss)
    return out


#: runs the moves phase of a layer: ``runner(work, movers, others, ranges, out, done)``
#: computes :func:`generate_range` for every ``(lo, hi)`` of ``ranges`` into
#: ``out.view(lo, hi, work.stride)`` and calls ``done(lo, hi)`` as each range is in place
RangeRunner = Callable[[LayerWork, IntArray, IntArray, list[tuple[int, int]], RangeMoves,
                        Callable[[int, int], None]], None]


def thread_runner(workers: int) -> RangeRunner:
    """The local moves phase: ``workers`` threads (the kernels release the GIL), each range
    written in place."""
    def run(work: LayerWork, movers: IntArray, others: IntArray,
            ranges: list[tuple[int, int]], out: RangeMoves,
            done: Callable[[int, int], None]) -> None:
        def one(lo: int, hi: int) -> None:
            generate_range(work, lo, hi, movers[lo:hi], others[lo:hi],
                           out.view(lo, hi, work.stride))

        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            futures = [pool.submit(one, lo, hi) for lo, hi in ranges]
            for (lo, hi), fut in zip(ranges, futures, strict=True):
                fut.result()
                done(lo, hi)

    return run


def move_ranges(total: int) -> list[tuple[int, int]]:
    """How the moves phase of a layer of ``total`` positions is split (the same ranges
    locally and on Ray): up to 256 ranges of at least 4096 positions."""
    chunks = max(1, min(256, total // 4096))
    bounds = [total * i // chunks for i in range(chunks + 1)]
    return [(bounds[i], bounds[i + 1]) for i in range(chunks)]


def build_layer(geo: Geometry, m: int, o: int,
                lower: Callable[[int, int], Table | None], workers: int = 1,
                progress: Progress | None = None,
                runner: RangeRunner | None = None) -> tuple[list[Table], LayerResult]:
    """Solve the layer of materials (m, o) and (o, m) (one table when m == o), given the
    tables of the smaller materials a capture leads to (``lower(a, b)``; ``None`` where a
    side has lost). ``workers`` threads mark and list the classes; ``runner`` generates
    the turns (default: :func:`thread_runner` with ``workers`` threads); the retrograde
    passes run here."""
    start = time.perf_counter()

    def say(phase: str, done: int, total: int) -> None:
        if progress is not None:
            progress(phase, done, total, time.perf_counter() - start)

    mats = [(m, o)] if m == o else [(m, o), (o, m)]
    parts = []
    for a, b in mats:
        say(f"classes {a}-{b}", 0, 1)
        parts.append(geo.classes(a, b, workers))
    sizes = [p[2] for p in parts]
    total = sum(sizes)
    movers = np.zeros(total, dtype=np.int64)
    others = np.zeros(total, dtype=np.int64)
    off = 0
    for (a, b), (bitmap, prefix, size, _) in zip(mats, parts, strict=True):
        geo.list_classes(a, b, bitmap, prefix, movers[off:off + size],
                         others[off:off + size], workers)
        off += size
    stride = 4 * max(m, o)

    def low(a: int, b: int) -> tuple[IntArray, IntArray, npt.NDArray[np.uint32]]:
        t = lower(a, b) if a > geo.loss_at and b > geo.loss_at else None
        if t is None:
            return _EMPTY_I, _EMPTY_I, _EMPTY_U
        return t.bitmap, t.prefix, t.values

    bm_a, pf_a = parts[0][0], parts[0][1]
    bm_b, pf_b = (parts[1][0], parts[1][1]) if m != o else (bm_a, pf_a)
    work = LayerWork(geo.params, geo.binom, geo.symtab, geo.nbytes, sizes[0],
                     sizes[0] if m != o else 0, stride, bm_a, pf_a, bm_b, pf_b,
                     low(o - 1, m), low(m - 1, o))
    moves = RangeMoves.empty(total, stride)
    done = [0]

    def placed(lo: int, hi: int) -> None:
        done[0] += hi - lo
        say("moves", done[0], total)

    say("moves", 0, total)
    (runner or thread_runner(workers))(work, movers, others, move_ranges(total), moves,
                                       placed)
    del work
    edges, outdeg, ewin, edraw, eloss = (moves.edges, moves.outdeg, moves.ewin, moves.edraw,
                                         moves.eloss)
    del moves
    movers = others = np.zeros(0, dtype=np.int64)   # the boards are no longer needed
    rev_ptr = np.zeros(total + 1, dtype=np.int64)
    rev = np.zeros(int(outdeg.sum()), dtype=np.int32)
    tk.reverse_edges(edges, outdeg, stride, rev_ptr, rev)
    edges = np.zeros(0, dtype=np.int32)   # the forward edges are no longer needed
    say("retrograde", 0, 2)
    dtm = np.zeros(total, dtype=np.int32)
    val = np.zeros(total, dtype=np.int8)
    levels = tk.retrograde(outdeg, rev_ptr, rev, ewin, edraw, eloss, dtm, val)
    say("retrograde", 1, 2)
    # plies to the next capture: the same game with every exit one ply away
    cwin = np.where(ewin < tk.INF, 1, tk.INF).astype(np.int32)
    closs = np.minimum(eloss, 1).astype(np.int32)
    dtc = np.zeros(total, dtype=np.int32)
    cval = np.zeros(total, dtype=np.int8)
    tk.retrograde(outdeg, rev_ptr, rev, cwin, edraw, closs, dtc, cval)
    if not np.array_equal(val, cval):
        raise TablebaseError("internal error: the capture distances disagree with the values")
    say("retrograde", 2, 2)
    values = np.zeros(total, dtype=np.uint32)
    tk.pack(val, dtm, dtc, values)
    tables = []
    off = 0
    for (a, b), (bitmap, prefix, size, full) in zip(mats, parts, strict=True):
        tables.append(Table(a, b, full, size, bitmap, prefix, values[off:off + size].copy()))
        off += size
    counts = {"win": int((val > 0).sum()), "draw": int((val == 0).sum()),
              "loss": int((val < 0).sum())}
    result = LayerResult(mats, total, sum(t.nbytes for t in tables), "built",
                         time.perf_counter() - start, int(levels), counts)
    return tables, result


# --- files -------------------------------------------------------------------------------------
def table_path(directory: Path, m: int, o: int) -> Path:
    return directory / f"m{m}-{o}.tb"


def _header_fields(geo: Geometry, t: Table, crc: int) -> dict[str, Any]:
    return {"format": FORMAT_VERSION, "rules": rules_key(geo.rules),
            "board": {"rows": geo.rows, "cols": geo.cols}, "material": [t.m, t.o],
            "full": t.full, "size": t.size, "words": int(t.bitmap.shape[0]), "crc32": crc}


def _crc(arrays: list[npt.NDArray[Any]]) -> int:
    crc = 0
    for a in arrays:
        crc = zlib.crc32(np.ascontiguousarray(a).view(np.uint8).data, crc)
    return crc


def write_table(geo: Geometry, directory: Path, t: Table) -> Path:
    """Write one material's file atomically (``.part``, then renamed)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = table_path(directory, t.m, t.o)
    part = path.with_suffix(".tb.part")
    arrays: list[npt.NDArray[Any]] = [t.bitmap, t.prefix, t.values]
    text = json.dumps(_header_fields(geo, t, _crc(arrays)), sort_keys=True).encode()
    block = MAGIC + len(text).to_bytes(4, "little") + text
    if len(block) > HEADER_BYTES:
        raise TablebaseError("tablebase header too long")
    with open(part, "wb") as fh:
        fh.write(block.ljust(HEADER_BYTES, b"\0"))
        for a in arrays:
            np.ascontiguousarray(a).tofile(fh)
    os.replace(part, path)
    return path


def read_table(geo: Geometry, directory: Path, m: int, o: int,
               check: bool = True) -> Table | None:
    """The table of material (m, o) from its file, memory-mapped; ``None`` if it is missing,
    foreign, truncated or corrupted."""
    path = table_path(directory, m, o)
    try:
        with open(path, "rb") as fh:
            head = fh.read(HEADER_BYTES)
        if head[:8] != MAGIC:
            return None
        length = int.from_bytes(head[8:12], "little")
        fields = json.loads(head[12:12 + length])
        words, size = int(fields["words"]), int(fields["size"])
        expect = _header_fields(geo, Table(m, o, int(fields["full"]), size,
                                           np.zeros(words, dtype=np.int64),
                                           np.zeros(0, dtype=np.int64),
                                           np.zeros(0, dtype=np.uint32)), fields["crc32"])
        if fields != expect or fields["full"] != geo.full_count(m, o):
            return None
        if path.stat().st_size != HEADER_BYTES + 16 * words + 4 * size:
            return None
        bitmap = np.memmap(path, dtype=np.int64, mode="r", offset=HEADER_BYTES, shape=(words,))
        prefix = np.memmap(path, dtype=np.int64, mode="r", offset=HEADER_BYTES + 8 * words,
                           shape=(words,))
        values = np.memmap(path, dtype=np.uint32, mode="r", offset=HEADER_BYTES + 16 * words,
                           shape=(size,))
    except (OSError, ValueError, KeyError, json.JSONDecodeError):
        return None
    if check and _crc([bitmap, prefix, values]) != fields["crc32"]:
        return None
    return Table(m, o, int(fields["full"]), size, np.asarray(bitmap), np.asarray(prefix),
                 np.asarray(values))


def build(rules: RuleSet, max_pieces: int, root: Path | None = None, workers: int = 1,
          progress: Callable[[tuple[int, int], str, int, int, float], None] | None = None,
          layer_done: Callable[[LayerResult], None] | None = None,
          runner: RangeRunner | None = None) -> list[LayerResult]:
    """Build (or complete) the tables of every material of at most ``max_pieces`` pieces on
    disk; layers whose files are present and sound are kept. ``runner`` runs each layer's
    moves phase (default: ``workers`` threads; ``scale/tb_ray.py``: Ray tasks); the rest
    runs here, in ``workers`` threads where it can, and only this process writes files."""
    geo = Geometry(rules)
    directory = tb_directory(rules, root)
    tables: dict[tuple[int, int], Table] = {}

    def lower(a: int, b: int) -> Table | None:
        if (a, b) not in tables:
            t = read_table(geo, directory, a, b)
            if t is None:
                raise TablebaseError(f"the table of {a} against {b} is missing")
            tables[(a, b)] = t
        return tables[(a, b)]

    results = []
    for m, o in geo.layers(max_pieces):
        mats = [(m, o)] if m == o else [(m, o), (o, m)]
        kept = [read_table(geo, directory, a, b) for a, b in mats]
        if all(t is not None for t in kept):
            r = LayerResult(mats, sum(t.size for t in kept if t is not None),
                            sum(t.nbytes for t in kept if t is not None), "kept")
        else:
            def report(phase: str, done: int, total: int, seconds: float,
                       key: tuple[int, int] = (m, o)) -> None:
                if progress is not None:
                    progress(key, phase, done, total, seconds)

            built, r = build_layer(geo, m, o, lower, workers, report, runner)
            for t in built:
                write_table(geo, directory, t)
                tables[(t.m, t.o)] = t
        results.append(r)
        if layer_done is not None:
            layer_done(r)
    return results


# --- probing -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Choice:
    """One turn of a tablebase position and where it leads, for the side to move."""

    turn: str
    value: int
    plies: int
    to_capture: int
    actions: tuple[int, ...] = ()     # the turn's decisions, as action codes

    def to_json(self) -> dict[str, Any]:
        return {"move": self.turn, "value": self.value, "plies": self.plies,
                "to_capture": self.to_capture}


class Tablebase:
    """The tables of one rule set on disk, each mapped when first probed."""

    def __init__(self, rules: RuleSet, root: Path | None = None,
                 tables: dict[tuple[int, int], Table] | None = None) -> None:
        self.geo = Geometry(rules)
        self.rules = rules
        self.directory = tb_directory(rules, root)
        self._tables: dict[tuple[int, int], Table | None] = dict(tables or {})
        self._region: Reserved | None = None
        self._endgames: eg.Endgames | None = None

    def table(self, m: int, o: int) -> Table | None:
        """Material (m, o)'s table, or ``None`` where it is not built."""
        if (m, o) not in self._tables:
            self._tables[(m, o)] = read_table(self.geo, self.directory, m, o)
        return self._tables[(m, o)]

    def endgames(self) -> eg.Endgames:
        """Every table built on disk, as the record the alpha-beta search probes
        (``kernels/endgames.py``; no tables: ``NO_ENDGAMES``), made on the first call.

        Each sound file (checked as :meth:`table` checks it) is mapped whole, read-only, at
        a page boundary of one reserved stretch of address space, which the search reads as
        ``int64`` words (bitmaps, prefix counts) and as ``uint32`` (values): the tables stay
        in the operating system's file cache, shared by every process that maps them."""
        if self._endgames is not None:
            return self._endgames
        width = MAX_SIDE_PIECES + 1
        found = [(m, o, t) for m, o in self.geo.materials(2 * MAX_SIDE_PIECES)
                 if (t := self.table(m, o)) is not None]
        if not found:
            self._endgames = eg.NO_ENDGAMES
            return self._endgames
        page = mmap.PAGESIZE
        places = []
        at = 0
        for _, _, t in found:
            places.append(at)
            length = HEADER_BYTES + t.nbytes
            at += (length + page - 1) // page * page
        region = Reserved(at)
        slots = np.full(((MAX_SIDE_PIECES + 1) * width, eg.SL_FIELDS), -1, dtype=np.int64)
        for (m, o, t), place in zip(found, places, strict=True):
            region.map_file(table_path(self.directory, m, o), place, HEADER_BYTES + t.nbytes)
            words = int(t.bitmap.shape[0])
            row = slots[m * width + o]
            row[eg.SL_BITMAP] = (place + HEADER_BYTES) // 8
            row[eg.SL_PREFIX] = row[eg.SL_BITMAP] + words
            row[eg.SL_VALUES] = (place + HEADER_BYTES + 16 * words) // 4
        self._region = region
        g = self.geo
        self._endgames = eg.Endgames(
            eg.EG_TABLEBASE, max(m + o for m, o, _ in found), g.nbytes, width, g.binom,
            g.symtab, slots, region.view(ctypes.c_int64), region.view(ctypes.c_uint32),
            eg.NO_ENDGAMES.db, eg.NO_ENDGAMES.db_base)
        return self._endgames

    def material(self, state: IntArray) -> tuple[int, int] | None:
        """The material of a tablebase position (mover first), ``None`` for another state."""
        if (int(state[ST_OUTCOME]) != OUTCOME_RUNNING or int(state[al.ST_PENDING]) != 0
                or int(state[al.ST_HAND1]) != 0 or int(state[al.ST_HAND2]) != 0):
            return None
        me = int(state[ST_TO_MOVE])
        return int(state[al.ST_ON1 + me - 1]), int(state[al.ST_ON1 + 2 - me])

    def probe_boards(self, mover: int, other: int) -> Entry | None:
        """The entry of the position with the mover on ``mover`` and the opponent on
        ``other``, or ``None`` where no table holds it."""
        m, o = bin(mover).count("1"), bin(other).count("1")
        if m <= self.geo.loss_at or o <= self.geo.loss_at:
            return None
        t = self.table(m, o)
        if t is None:
            return None
        g = self.geo
        return Entry.unpack(tk.probe_code(g.binom, g.symtab, g.nbytes, g.n, t.bitmap,
                                          t.prefix, t.values, mover, other))

    def probe_state(self, state: IntArray) -> Entry | None:
        """The entry of a kernel state, ``None`` if it is no tablebase position or its
        table is not built."""
        if self.material(state) is None:
            return None
        me = int(state[ST_TO_MOVE])
        return self.probe_boards(int(state[al.ST_BOARD + me - 1]),
                                 int(state[al.ST_BOARD + 2 - me]))

    def probe(self, game: Game) -> Entry | None:
        """The entry of a game's position (see :meth:`probe_state`)."""
        return self.probe_state(game.state)

    def choices(self, game: Game) -> list[Choice]:
        """Every turn of a tablebase position with its value, best first (wins soonest,
        then draws, then losses latest)."""
        params = self.geo.params
        state = game.state.copy()
        me = int(state[ST_TO_MOVE])
        acts = np.zeros(6 * self.geo.n + 1, dtype=np.int64)
        caps = np.zeros(6 * self.geo.n + 1, dtype=np.int64)
        family = family_of(self.rules)
        out = []
        for a in acts[:al.legal_actions(params, state, acts)]:
            child = state.copy()
            al.apply_action(params, child, int(a))
            follow = [-1]
            if int(child[al.ST_PENDING]) != 0:
                follow = [int(c) for c in caps[:al.legal_actions(params, child, caps)]]
            for c in follow:
                after = child.copy()
                moves = [game.action_to_move(int(a))]
                if c >= 0:
                    al.apply_action(params, after, c)
                    moves.append(game.action_to_move(c))
                codes = (int(a),) if c < 0 else (int(a), c)
                out.append(self._choice(family.join_turn(moves), me, state, after, codes))
        return sorted(out, key=_choice_order)

    def capture_choices(self, game: Game) -> list[Choice]:
        """Every capture a tablebase position's step owes, with its value, best first (a
        position with every piece dropped and a capture owed); a capture's ``to_capture``
        counts to the next capture after it."""
        state = game.state.copy()
        params = self.geo.params
        me = int(state[ST_TO_MOVE])
        caps = np.zeros(6 * self.geo.n + 1, dtype=np.int64)
        out = []
        for c in caps[:al.legal_actions(params, state, caps)]:
            after = state.copy()
            al.apply_action(params, after, int(c))
            # its capture distance counts to the next capture after this one
            out.append(self._choice(str(game.action_to_move(int(c))), me, state, after,
                                    (int(c),), captured=False))
        return sorted(out, key=_choice_order)

    def _choice(self, turn: str, me: int, before: IntArray, after: IntArray,
                actions: tuple[int, ...], captured: bool | None = None) -> Choice:
        res = int(after[ST_OUTCOME])
        if res != OUTCOME_RUNNING:
            value = 0 if res == OUTCOME_DRAW else (1 if res == me else -1)
            return Choice(turn, value, 0 if value == 0 else 1, 0 if value == 0 else 1,
                          actions)
        e = self.probe_state(after)
        if e is None:
            raise TablebaseError(f"the table after {turn} is not built")
        if captured is None:
            captured = int(after[al.ST_ON1 + 2 - me]) != int(before[al.ST_ON1 + 2 - me])
        if e.value == 0:
            return Choice(turn, 0, 0, 0, actions)
        return Choice(turn, -e.value, e.plies + 1, 1 if captured else e.to_capture + 1,
                      actions)

    def decide(self, game: Game) -> Choice | None:
        """The tables' decision for ``game``'s player to move, or ``None`` where they do
        not cover the position (pieces in hand, a table not built).

        In a tablebase position: the shortest win among the turns whose next capture comes
        before the quiet limit (counting from the game's quiet counter), else the win with
        the nearest capture; a draw where there is no win; the longest loss otherwise. With
        a capture owed after a step (every piece dropped), the best capture the same way.
        The choice's first action is the decision to play now.
        """
        state = game.state
        if (int(state[ST_OUTCOME]) != OUTCOME_RUNNING or int(state[al.ST_HAND1]) != 0
                or int(state[al.ST_HAND2]) != 0):
            return None
        try:
            if int(state[al.ST_PENDING]) != 0:
                options = self.capture_choices(game)
            elif self.probe_state(state) is None:
                return None
            else:
                options = self.choices(game)
        except TablebaseError:
            return None
        if not options:
            return None
        limit = options_of(self.rules).quiet_limit
        left = None if limit is None else limit - int(state[al.ST_QUIET])
        if int(state[al.ST_PENDING]) != 0 and limit is not None:
            left = limit + 1   # this capture starts the count again
        wins = [c for c in options if c.value > 0]
        if wins and left is not None:
            safe = [c for c in wins if c.to_capture <= left]
            return min(safe, key=lambda c: c.plies) if safe else \
                min(wins, key=lambda c: (c.to_capture, c.plies))
        return options[0]


def _choice_order(c: Choice) -> tuple[int, int]:
    if c.value > 0:
        return (0, c.plies)
    if c.value == 0:
        return (1, 0)
    return (2, -c.plies)


def answer(tb: Tablebase, game: Game) -> dict[str, Any]:
    """The JSON answer of ``nugar solve --position``: the value, the plies to the end and to
    the next capture, and every turn with its value, best first."""
    entry = tb.probe(game)
    if entry is None:
        material = tb.material(game.state)
        if material is None:
            raise TablebaseError("not a tablebase position: every piece must be dropped "
                                 "(hand=0,0), no capture owed and the game running")
        raise TablebaseError(f"no table of {material[0]} against {material[1]} pieces here: "
                             f"build it with nugar solve {tb.rules.text} --build-tb N "
                             f"(in {tb.directory})")
    return {"value": entry.value, "plies": entry.plies, "to_capture": entry.to_capture,
            "best": [c.to_json() for c in tb.choices(game)]}


def game_of(rules: RuleSet, mover: int, other: int, to_move: int = 1) -> Game:
    """The game of a tablebase position: ``to_move`` (1 or 2) on ``mover``, the other player
    on ``other``, every piece dropped."""
    from ..rules import from_state

    params = family_of(rules).parts.params(options_of(rules))
    state = al.empty_state(params)
    state[ST_TO_MOVE] = to_move
    state[al.ST_BOARD + to_move - 1] = mover
    state[al.ST_BOARD + 2 - to_move] = other
    al.finish_setup(params, state)
    return from_state(rules, state)


def statistics(tb: Tablebase, m: int, o: int) -> dict[str, Any] | None:
    """Shares of wins, draws and losses for the side to move among the stored positions
    (one per symmetry class) of material (m, o), the longest win and a position of it, the
    longest distance of a win to its next capture and the wins the rule set's quiet limit
    turns into draws from a fresh counter ("cursed": the next capture lies beyond it);
    ``None`` where the table is not built."""
    t = tb.table(m, o)
    if t is None:
        return None
    low = np.asarray(t.values) & 0xFFFF
    val = (low & 3).astype(np.int64) - 1
    plies = (low >> 2).astype(np.int64)
    out: dict[str, Any] = {"material": [m, o], "positions": t.size, "full": t.full,
                           "bytes": t.nbytes}
    for name, v in (("win", 1), ("draw", 0), ("loss", -1)):
        out[name] = int((val == v).sum())
    to_capture = (np.asarray(t.values) >> 16).astype(np.int64)
    out["longest_to_capture"] = int(np.where(val == 1, to_capture, 0).max(initial=0))
    limit = options_of(tb.rules).quiet_limit
    out["cursed"] = 0 if limit is None else int(((val == 1) & (to_capture > limit)).sum())
    if out["win"]:
        won = np.where(val == 1, plies, -1)
        i = int(np.argmax(won))
        movers = np.zeros(t.size, dtype=np.int64)
        others = np.zeros(t.size, dtype=np.int64)
        tb.geo.list_classes(m, o, np.ascontiguousarray(t.bitmap),
                            np.ascontiguousarray(t.prefix), movers, others)
        game = game_of(tb.rules, int(movers[i]), int(others[i]))
        out["longest_win"] = int(plies[i])
        out["longest_win_position"] = game.position_text()
        out["longest_win_board"] = str(game)
    return out
