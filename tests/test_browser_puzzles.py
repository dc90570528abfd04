"""The puzzles page in the browser (playwright on Debian's chromium, the fixtures of
``conftest.py``): a Kalah puzzle of several steps solved by clicks (the turn going on after
its first step), a Dara puzzle failed by a wrong step and its solution shown, the next
puzzle loaded, streak mode, and the page in French."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Page

from browsing import PAGE_ERRORS, answers, new_page, play_turn
from nugar.puzzles import Puzzle, shipped
from puzzle_turns import all_turns


def play(page: Page, puzzle: Puzzle, turn: str) -> None:
    play_turn(page, puzzle.game(), turn)


def open_puzzle(page: Page, server: str, puzzle: Puzzle) -> None:
    page.goto(f"{server}/puzzles/{puzzle.id}")
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    page.wait_for_selector("#board svg")
    assert page.evaluate("document.body.dataset.puzzle") == puzzle.id


def test_a_puzzle_solved_and_one_failed(server: str, browser: Browser, shots: Path) -> None:
    kalah = next(p for p in shipped("kalah") if "store" in p.themes)
    page = new_page(browser)
    open_puzzle(page, server, kalah)
    assert "find the one best turn" in (page.text_content("#task") or "")
    steps = kalah.game().descriptor.split_turn(kalah.solution)
    play(page, kalah, steps[0])
    assert page.get_attribute("#reply", "data-verdict") == "goes_on"
    play(page, kalah, kalah.solution[len(steps[0]) + 1:])
    assert page.get_attribute("#reply", "data-verdict") == "right"
    assert kalah.solution in (page.text_content("#reply") or "")
    assert "Themes:" in (page.text_content("#result") or "")
    assert page.is_visible("#next")
    page.screenshot(path=str(shots / "puzzle-solved.png"))

    dara = next(p for p in shipped("dara") if p.proof["plies"] <= 5)
    wrong = next(t for t, _ in all_turns(dara.game()) if t != dara.solution)
    open_puzzle(page, server, dara)
    play(page, dara, wrong)
    assert page.get_attribute("#reply", "data-verdict") == "wrong"
    assert dara.solution in (page.text_content("#reply") or "")
    # the puzzle is over: a click on the board says so and sends nothing
    n = answers(page)
    page.click("#board [data-square]")
    assert "over" in (page.text_content("#why") or "") and answers(page) == n
    page.click("#next")
    page.wait_for_function(f"() => document.body.dataset.puzzle !== '{dara.id}'")
    assert page.get_attribute("#reply", "data-verdict") is None

    # streak mode: a new puzzle, the streak shown
    page.click("#mode-streak")
    page.wait_for_function("() => (document.getElementById('facts').textContent || '')"
                           ".includes('streak 0')")
    assert page.get_attribute("#mode-streak", "aria-pressed") == "true"
    assert not PAGE_ERRORS.get(page)


def test_the_page_speaks_french(server: str, browser: Browser) -> None:
    page = new_page(browser)
    page.context.add_cookies([{"name": "nugar_lang", "value": "fr", "url": server}])
    open_puzzle(page, server, shipped("dala")[0])
    assert page.text_content("h1") == "Problèmes"
    assert "trouvez le seul meilleur tour" in (page.text_content("#task") or "")
    assert not PAGE_ERRORS.get(page)
