"""Random sowing rule-set texts (a hypothesis strategy): a preset with any subset of its
options at random values, for the property tests of the sowing family."""

from __future__ import annotations

from hypothesis import strategies as st


# --- strategies ------------------------------------------------------------------------------
@st.composite
def rule_texts(draw: st.DrawFn) -> str:
    preset = draw(st.sampled_from(["kalah", "dracala"]))
    options = {
        "pits": draw(st.integers(1, 7)),
        "seeds": draw(st.integers(1, 7)),
        "skip_origin": draw(st.sampled_from(["on", "off"])),
        "empty_capture": draw(st.sampled_from(["none", "single"])),
        "end": draw(st.sampled_from(["any_side_empty", "mover_empty"])),
        "leftovers": draw(st.sampled_from(["owner", "last_mover", "last_capturer"])),
        "capture_duty": draw(st.sampled_from(["none", "maximal"])),
        "misere": draw(st.sampled_from(["on", "off"])),
    }
    keep = draw(st.lists(st.sampled_from(sorted(options)), unique=True))
    if not keep:
        return preset
    return f"{preset}({','.join(f'{k}={options[k]}' for k in keep)})"
