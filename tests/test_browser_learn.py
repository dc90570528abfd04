"""The Learn section in the browser (playwright on Debian's chromium, with the fixtures of
``test_browser.py``): a lesson opened from the list, a refused move and a wrong one answered
with their reasons, every step then played right by clicks (a turn that goes on across
clicks, a step chosen then moved) or typed, the lesson completed, and the progress still
there after a reload."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Page

from browsing import PAGE_ERRORS, answers, click_and_wait, new_page, play_turn
from nugar import lessons
from nugar.lessons import Step


def play_by_clicks(page: Page, step: Step, turn: str) -> None:
    """Play ``turn`` on the board as a player does: a square for a drop or a capture, a piece
    then its target for a step, a hole for a sowing."""
    def right_so_far() -> None:
        verdict = page.get_attribute("#reply", "data-verdict")
        assert verdict in ("goes_on", "right"), page.text_content("#reply")
    play_turn(page, step.game(), turn, right_so_far)


def test_a_lesson_completed_after_a_wrong_move(server: str, browser: Browser,
                                              shots: Path) -> None:
    lesson = lessons.load("dala")
    steps = lesson.steps
    page = new_page(browser)
    page.goto(server + "/")
    page.click("#learn-line a")
    page.wait_for_url("**/learn")
    page.wait_for_selector('.lesson-card[data-lesson="dala"]')
    assert page.eval_on_selector_all(".lesson-card", "els => els.map(e => e.dataset.lesson)") \
        == lessons.names()
    card = '.lesson-card[data-lesson="dala"]'
    assert (page.text_content(f"{card} .progress") or "").startswith("Not started")
    page.screenshot(path=str(shots / "learn.png"))
    page.click(f"{card} h2 a")
    page.wait_for_url("**/learn/dala")
    page.wait_for_selector("#board svg")
    assert page.text_content("#instruction") == steps[0].instruction
    assert page.text_content("#lesson-intro") == lesson.intro  # before the first step only
    assert page.text_content("#step-count") == f"Step 1 of {len(steps)}"

    # a move the rules refuse (Dala's first drop goes in the centre): the engine's reason
    click_and_wait(page, '#board [data-square="a1"]')
    assert page.get_attribute("#reply", "data-verdict") == "illegal"
    assert page.text_content("#reply") == steps[0].game().explain("a1")
    assert page.is_visible('#board .refused[data-square="a1"]')
    play_by_clicks(page, steps[0], steps[0].expected[0])
    assert page.text_content("#reply") == steps[0].right
    page.click("#next")
    page.wait_for_function("() => document.body.dataset.step === '1'")
    assert page.is_hidden("#lesson-intro")

    # a legal move that is not the one: the step's own reply, and the step starts again
    click_and_wait(page, '#board [data-square="a6"]')
    assert page.get_attribute("#reply", "data-verdict") == "wrong"
    assert page.text_content("#reply") == steps[1].wrong
    # (the cells say what they offer, as on the game page: a6 may be played again)
    assert page.get_attribute('#board [data-square="a6"]', "aria-label") == "a6, empty, playable"
    page.screenshot(path=str(shots / "learn-lesson.png"))
    # then the right one, over two clicks: the drop, which goes on, then the capture
    play_by_clicks(page, steps[1], steps[1].expected[0])

    # the other steps and the puzzles: by clicks, the last one typed
    for i in range(2, len(steps)):
        page.click("#next")
        page.wait_for_function(f"() => document.body.dataset.step === '{i}'")
        assert page.text_content("#step-title") == steps[i].title
        if i == len(steps) - 1:
            assert page.text_content("#step-count") == f"Step {i + 1} of {len(steps)}: a puzzle"
            n = answers(page)
            page.fill("#move-input", steps[i].expected[0].upper())
            page.press("#move-input", "Enter")
            page.wait_for_function(f"() => Number(document.body.dataset.answers) > {n}")
        else:
            play_by_clicks(page, steps[i], steps[i].expected[0])
        assert page.get_attribute("#reply", "data-verdict") == "right"
    page.wait_for_selector("#done:not([hidden])")
    assert "completed the Dala lesson" in (page.text_content("#done") or "")
    assert page.is_hidden("#next")
    assert len(page.query_selector_all("#steps li.done")) == len(steps)

    # kept in the browser: after a reload, and on the list
    page.reload()
    page.wait_for_selector("#board svg")
    page.wait_for_selector("#done:not([hidden])")
    assert len(page.query_selector_all("#steps li.done")) == len(steps)
    page.goto(server + "/learn")
    page.wait_for_selector(f"{card}.completed")
    assert (page.text_content(f"{card} .progress") or "").startswith("Completed")
    assert (page.text_content('.lesson-card[data-lesson="kalah"] .progress')
            or "").startswith("Not started")
    assert PAGE_ERRORS[page] == []


def test_a_sowing_lesson_by_clicks_on_a_phone(server: str, browser: Browser,
                                             shots: Path) -> None:
    """Kalah's bonus step: a sowing that ends in the store goes on, then the second one; a
    click on the opponent's hole is refused on the page."""
    step = lessons.load("kalah").steps[1]
    page = new_page(browser, width=390, height=844)
    page.goto(server + "/learn/kalah#step=2")
    page.wait_for_function("() => document.body.dataset.step === '1'")
    page.click('#board [data-player="2"][data-hole="3"]')
    assert "North's" in (page.text_content("#why") or "")
    play_by_clicks(page, step, step.expected[0])
    assert page.text_content("#reply") == step.right
    # the page fits the phone's width
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(shots / "learn-phone.png"))
    assert PAGE_ERRORS[page] == []


def test_every_step_is_played_by_clicks(server: str, browser: Browser) -> None:
    """Every step of the other lessons, its first expected turn clicked as a player would:
    the page turns each kind of move (a drop, a step, a pending capture, a pass, a sowing
    with a bonus step) into the text the server reads."""
    page = new_page(browser)
    for name in lessons.names():
        if name == "dala":  # played whole above
            continue
        for i, step in enumerate(lessons.load(name).steps):
            page.goto(f"{server}/learn/{name}#step={i + 1}")
            page.wait_for_function(f"() => document.body.dataset.step === '{i}'")
            play_by_clicks(page, step, step.expected[0])
            assert page.get_attribute("#reply", "data-verdict") == "right", (name, i)
    assert PAGE_ERRORS[page] == []


def _card_progress(page: Page, name: str) -> str:
    page.wait_for_selector(f'.lesson-card[data-lesson="{name}"] .progress')
    return page.text_content(f'.lesson-card[data-lesson="{name}"] .progress') or ""


def _do_step(page: Page, step: Step, index: int) -> None:
    """Play step ``index`` of the open lesson right and wait for the account to keep it."""
    kept = int(page.evaluate("Number(document.body.dataset.kept || 0)"))
    page.evaluate(f"location.hash = '#step={index + 1}'")
    page.wait_for_function(f"() => document.body.dataset.step === '{index}'")
    play_by_clicks(page, step, step.expected[0])
    assert page.get_attribute("#reply", "data-verdict") == "right"
    page.wait_for_function(f"() => Number(document.body.dataset.kept || 0) > {kept}")


def test_signed_in_the_progress_follows_the_account(server: str, browser: Browser) -> None:
    """A step done before signing up is merged into the new account; another browser signed
    in to it shows it, a step done there is kept too, and the first browser then shows both;
    signed out, a browser keeps its own progress only."""
    steps = lessons.load("dala").steps
    first = new_page(browser)
    first.goto(server + "/learn/dala")
    first.wait_for_selector("#board svg")
    play_by_clicks(first, steps[0], steps[0].expected[0])  # done before having an account
    first.goto(server + "/signup")
    first.fill("#signup-name", "learner")
    first.fill("#signup-password", "learner password")
    first.click("#signup-go")
    first.wait_for_selector("#menu-name:has-text('learner')")
    first.goto(server + "/learn")
    assert _card_progress(first, "dala").startswith("1 of ")
    first.wait_for_function("() => Number(document.body.dataset.kept || 0) > 0")  # merged

    other = new_page(browser)  # another browser: nothing in its localStorage
    other.goto(server + "/learn")
    assert _card_progress(other, "dala").startswith("Not started")
    other.goto(server + "/signin")
    other.fill("#signin-name", "learner")
    other.fill("#signin-password", "learner password")
    other.click("#signin-go")
    other.wait_for_selector("#menu-name:has-text('learner')")
    other.goto(server + "/learn")
    assert _card_progress(other, "dala").startswith("1 of ")
    other.goto(server + "/learn/dala")
    other.wait_for_selector("#board svg")
    _do_step(other, steps[1], 1)

    first.goto(server + "/learn")
    assert _card_progress(first, "dala").startswith("2 of ")
    assert PAGE_ERRORS[first] == [] and PAGE_ERRORS[other] == []
    first.context.close()
    other.context.close()


def test_a_lesson_is_played_with_the_keyboard(server: str, browser: Browser) -> None:
    """The lesson's board is the game page's grid: one Tab stop on a playable cell, the
    arrows move the focus, Enter plays the cell; and its header has the account menu."""
    step = lessons.load("dala").steps[0]
    target = step.game().parse_move(step.expected[0]).squares[0]  # the drop the step wants
    page = new_page(browser)
    page.goto(server + "/learn/dala#step=1")
    page.wait_for_function("() => document.body.dataset.step === '0'")
    page.wait_for_selector("#menu-leaderboard")  # the menu every page's header has
    assert page.locator('#board [tabindex="0"]').count() == 1
    assert (page.get_attribute('#board [tabindex="0"]', "aria-label") or "").endswith(
        ", playable")
    page.evaluate("document.querySelector('#board [data-square=\"a1\"]').focus()")
    for _ in range(ord(target[0]) - ord("a")):
        page.keyboard.press("ArrowRight")
    for _ in range(int(target[1:]) - 1):
        page.keyboard.press("ArrowUp")
    assert page.evaluate("document.activeElement.dataset.square") == target
    n = answers(page)
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => Number(document.body.dataset.answers || 0) > {n}")
    assert page.get_attribute("#reply", "data-verdict") == "right"
    assert page.evaluate("document.activeElement.id") == "next"  # on to the next step
    assert PAGE_ERRORS[page] == []
