"""The rules a lesson can teach, as tags: one list per family, drawn from the headings of the
rules page (``src/nugar/docs/rules.md``). Each tag names the heading it belongs to and the
rule options it stands for, so that a test can check that every heading of the page, and
every option on which the presets differ, is taught by some step of some lesson."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RuleTag:
    """One rule a step may teach: its ``name`` (what a step's ``tags`` list holds), the
    ``family`` whose rules it belongs to (``FamilyDescriptor.name``), the ``heading`` of the
    rules page that states it (a ``###`` heading of the family's section), the rule
    ``options`` it is about, if any, and a line saying what it is."""

    name: str
    family: str
    heading: str
    options: tuple[str, ...]
    summary: str


_A, _S = "alignment", "sowing"

#: every rule tag, in the order of the rules page
RULE_TAGS: tuple[RuleTag, ...] = (
    RuleTag("board", _A, "Board, pieces, squares", ("rows", "cols", "pieces"),
            "the board, its squares' names, and the pieces in hand at the start"),
    RuleTag("centre-first", _A, "Board, pieces, squares", ("centre_first",),
            "Dala: the first four drops fill the four centre squares"),
    RuleTag("notation", _A, "Notation", (),
            "how drops, steps, captures and whole turns are written"),
    RuleTag("drop", _A, "The two phases", (),
            "the drop phase: a piece from hand onto an empty square"),
    RuleTag("drop-limit", _A, "The two phases", ("drop_limit",),
            "a drop may not make a line of four (Dara) or of three (Dara in Niger)"),
    RuleTag("step", _A, "The two phases", (),
            "the move phase: a piece steps to a neighbouring empty square, never diagonally"),
    RuleTag("blocked", _A, "The two phases", ("blocked",),
            "a player without a legal move passes"),
    RuleTag("three", _A, "Lines and threes", (),
            "a three is exactly three pieces in a row or column; a move that forms one captures"),
    RuleTag("drop-capture", _A, "Lines and threes", ("drop_capture",),
            "whether a three made by a drop captures (Dala) or not (Dara)"),
    RuleTag("new-three", _A, "Lines and threes", (),
            "a three that already stood counts again only once it was broken and re-made"),
    RuleTag("long-lines", _A, "Lines and threes", ("long_lines",),
            "a step may not make a line of four (Dara); in Dala it may, and earns nothing"),
    RuleTag("capture", _A, "Capture", (),
            "after forming a three, the mover takes one opposing piece off the board"),
    RuleTag("protected-three", _A, "Capture", ("protect_threes", "all_protected"),
            "a piece standing in a three of its own may not be taken (Dara), or may (Dala, "
            "the rule sheet)"),
    RuleTag("no-return", _A, "Alignment options", ("no_return",),
            "the rule sheet: a piece may not step straight back where it came from"),
    RuleTag("too-few-pieces", _A, "End of the game", ("loss_at",),
            "a player left with two pieces loses"),
    RuleTag("quiet-limit", _A, "End of the game", ("quiet_limit", "repetition"),
            "too long without a capture, or a position repeated, is a draw"),
    RuleTag("presets", _A, "Alignment presets", (),
            "what Dara, Dara in Niger, the rule sheet and Dala change"),
    RuleTag("board", _S, "Board and sowing", ("pits", "seeds"),
            "two rows of holes, a store at each player's right, seeds in every hole"),
    RuleTag("sowing", _S, "Board and sowing", (),
            "a step lifts a hole's seeds and sows them one by one counter-clockwise"),
    RuleTag("lap", _S, "Board and sowing", ("skip_origin",),
            "a big hole's sowing goes round the board, past the other store"),
    RuleTag("bonus-step", _S, "Board and sowing", (),
            "a step ending in the mover's own store earns another step"),
    RuleTag("capture", _S, "Board and sowing", ("empty_capture",),
            "the last seed in an own empty hole takes the seeds facing it"),
    RuleTag("notation", _S, "Notation", (),
            "steps as hole numbers, a turn's steps joined by '-'"),
    RuleTag("kalah-end", _S, "Kalah", ("end",),
            "the game ends when a side is empty; the bigger store wins"),
    RuleTag("capture-duty", _S, "Dracala", ("capture_duty",),
            "Dracala: a step must capture as much as any step can"),
    RuleTag("bonus-preference", _S, "Dracala", ("capture_duty",),
            "Dracala: among the best captures, a bonus step first, the rightmost"),
    RuleTag("misere", _S, "Dracala", ("misere",),
            "Dracala: more than half of the seeds in your store loses"),
    RuleTag("leftovers", _S, "Sowing options", ("leftovers",),
            "who gets the seeds left in holes at the end: their owner (Kalah), the player "
            "who made the last step (Dracala)"),
    RuleTag("presets", _S, "Sowing presets", (),
            "what Dracala changes in Kalah"),
)


def tags_of(family: str) -> dict[str, RuleTag]:
    """The rule tags of the family named ``family`` (``FamilyDescriptor.name``), by name."""
    return {tag.name: tag for tag in RULE_TAGS if tag.family == family}
