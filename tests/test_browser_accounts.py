"""Accounts in the browser (playwright on Debian's chromium, with the fixtures of
``test_browser.py``): sign up, see the menu's name on every page, sign out, sign in again;
a game page shows the signed-in player's name, and the home page works signed in."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Page

from browsing import PAGE_ERRORS, new_page


def test_sign_up_sign_out_sign_in_and_the_menu_name(server: str, browser: Browser,
                                                     shots: Path) -> None:
    page = new_page(browser, width=900, height=700)
    page.goto(server + "/")
    page.wait_for_selector("#menu-sign-up")
    page.click("#menu-sign-up")
    page.wait_for_url("**/signup**")
    # a bad name first: the page says why, and the error goes once the field is corrected
    page.fill("#signup-name", "Ada Lovelace")
    page.fill("#signup-password", "analytical engine")
    page.evaluate("document.getElementById('signup-form').noValidate = true")
    page.click("#signup-go")
    page.wait_for_selector("#signup-error:has-text('3 to 20')")
    page.fill("#signup-name", "Ada_1815")
    assert page.text_content("#signup-error") == ""
    page.screenshot(path=str(shots / "signup.png"))
    page.click("#signup-go")
    # back on the page it came from, signed in: the menu names the player
    page.wait_for_url(server + "/")
    page.wait_for_selector("#menu-name:has-text('Ada_1815')")
    page.screenshot(path=str(shots / "signed-in.png"))
    # every page has the menu: a rules page
    page.goto(server + "/rules/dara")
    page.wait_for_selector("#menu-name:has-text('Ada_1815')")
    # a game against the computer, started signed in: the page names the player's seat
    page.goto(server + "/")
    page.wait_for_selector("#preset option", state="attached")
    page.check('input[name="mode"][value="ai"]')
    page.click("#start")
    page.wait_for_url("**/g/**")
    page.wait_for_selector("#players:has-text('Ada_1815')")
    page.fill("#move-input", "c3")
    page.click("#move-go")
    page.wait_for_selector("#moves li")
    # sign out: the menu offers signing in
    page.click("#sign-out")
    page.wait_for_selector("#menu-sign-in")
    page.click("#menu-sign-in")
    page.wait_for_url("**/signin**")
    page.fill("#signin-name", "ada_1815")
    page.fill("#signin-password", "wrong password")
    page.click("#signin-go")
    page.wait_for_selector("#signin-error:has-text('no account')")
    page.fill("#signin-password", "analytical engine")
    page.screenshot(path=str(shots / "signin.png"))
    page.click("#signin-go")
    # back to the game it left from, signed in again
    page.wait_for_url("**/g/**")
    page.wait_for_selector("#menu-name:has-text('Ada_1815')")
    assert not PAGE_ERRORS[page]


def _sign_up(browser: Browser, base: str, name: str) -> Page:
    page = new_page(browser, width=1000, height=800)
    page.goto(base + "/signup")
    page.fill("#signup-name", name)
    page.fill("#signup-password", f"{name} password")
    page.click("#signup-go")
    page.wait_for_selector(f"#menu-name:has-text('{name}')")
    return page


def test_a_rated_lobby_game_changes_both_ratings_and_shows_on_profile_and_leaderboard(
        server: str, browser: Browser, shots: Path) -> None:
    ann = _sign_up(browser, server, "ann_a")
    ben = _sign_up(browser, server, "ben_b")
    ann.wait_for_selector("#preset option", state="attached")
    ann.select_option("#challenge-colour", "first")
    ann.check("#challenge-rated")
    ann.click("#challenge-post")
    ann.wait_for_selector("#challenge-waiting:not([hidden])")
    ben.goto(server + "/")
    ben.wait_for_selector("#challenges li .rated")
    ben.click("#challenges li .accept")
    ben.wait_for_url("**/g/**")
    ann.wait_for_url("**/g/**")
    for page in (ann, ben):
        page.wait_for_selector("#players:has-text('ann_a (1500?)')")
        page.wait_for_selector("#players:has-text('ben_b (1500?')")
    # two turns each (a rated game resigned earlier is aborted, nugar.server.play.rated),
    # then ben resigns: the game is over and both see the changes
    ann.wait_for_selector("#status")
    for n, (page, move) in enumerate(((ann, "c3"), (ben, "a1"), (ann, "e5"), (ben, "b5"))):
        page.wait_for_selector(f"#moves li >> nth={n - 1}" if n else "#status")
        page.fill("#move-input", move)
        page.click("#move-go")
    ben.wait_for_selector("#moves li >> nth=3")
    ann.wait_for_selector("#moves li >> nth=3")
    ben.on("dialog", lambda dialog: dialog.accept())
    ben.click("#resign")
    for page in (ann, ben):
        page.wait_for_selector("#result:not([hidden])")
        page.wait_for_selector('#players .change-up[data-seat="1"]')
        page.wait_for_selector('#players .change-down[data-seat="2"]')
    ann.screenshot(path=str(shots / "rated-game.png"))
    # ann's page: her dara rating, its graph, the game won
    ann.click("#menu-name")
    ann.wait_for_url("**/players/ann_a")
    ann.wait_for_selector('#graphs svg[data-preset="dara"] circle')
    ann.wait_for_selector("#profile-games td:has-text('won')")
    assert "ben_b" in (ann.text_content("#profile-games") or "")
    ann.screenshot(path=str(shots / "profile.png"))
    # the leaderboard: one game leaves both ratings provisional, so nobody is listed yet
    ann.click("#menu-leaderboard")
    ann.wait_for_url("**/leaderboard")
    ann.wait_for_selector("#leaderboard-empty:not([hidden])")
    ann.select_option("#leaderboard-rules", "kalah")
    ann.wait_for_url("**/leaderboard?rules=kalah")
    ann.screenshot(path=str(shots / "leaderboard.png"))
    assert not PAGE_ERRORS[ann] and not PAGE_ERRORS[ben]
