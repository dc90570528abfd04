"""Layout shared by the kernels of both families: state header and outcome codes.

A position is a one-dimensional ``int64`` NumPy array ("state"); rule options are another
(``params``). The first fields of every state are the same for both families so that search,
simulators and adapters can read them without knowing the family.
"""

from __future__ import annotations

# state header -------------------------------------------------------------------------------
ST_TO_MOVE = 0   # 1 or 2: the player to decide now
ST_OUTCOME = 1   # OUTCOME_* below
ST_REASON = 2    # REASON_* below
ST_KEY = 3       # Zobrist-style 64-bit key of the position (for tables and repetition)
ST_PLY = 4       # decisions played since the start
HEADER = 5       # family fields start here

# outcome codes ------------------------------------------------------------------------------
OUTCOME_RUNNING = 0
OUTCOME_FIRST = 1   # first player won
OUTCOME_SECOND = 2  # second player won
OUTCOME_DRAW = 3

# reasons ------------------------------------------------------------------------------------
REASON_NONE = 0
REASON_PIECES = 1       # alignment: a player is down to loss_at pieces
REASON_BLOCKED = 2      # a player could not move (blocked=lose), or both were blocked
REASON_REPETITION = 3   # the same position for the repetition-th time
REASON_QUIET_LIMIT = 4  # too many turns without a capture
REASON_MAJORITY = 5     # misere=on: a player's store holds more than half of all seeds
REASON_EMPTY_SIDE = 6   # sowing: the game ended by empty holes and was scored
# (endings that players impose, such as resignation, are kept by the Game: rules/base.py)
