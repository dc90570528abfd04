"""The server in its players' languages (issue 33): refusals said in the request's language
with the same code, the account's language, the rules pages and the lessons per language."""

from __future__ import annotations

import json
import pickle
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

import nugar.lessons
from nugar.i18n import Text, say
from nugar.server import create_app
from nugar.server.config import ServerConfig
from nugar.server.http import pages
from nugar.server.http.language import COOKIE, language_of
from web_accounts import SAME, accounts, sign_up

#: the words each language says of the refusal of c3 on an occupied c3
OCCUPIED = {"en": "c3 is occupied (by a Black piece)", "fr": "c3 est occupée (par un pion de Noir)",
            "ar": "\u2066c3\u2069 مشغولة (بقطعة من قطع الأسود)"}


def _game(c: TestClient) -> tuple[str, str, str]:
    r = c.post("/api/games", json={"rules": "dara", "mode": "friend"})
    assert r.status_code == 201, r.text
    made = r.json()
    assert c.post(f"/api/games/{made['id']}/move",
                  json={"key": made["keys"]["1"], "move": "c3"}).status_code == 200
    return made["id"], made["keys"]["1"], made["keys"]["2"]


@pytest.mark.parametrize(("headers", "lang"), [
    ({}, "en"),
    ({"Accept-Language": "fr-NE,fr;q=0.9,en;q=0.5"}, "fr"),
    ({"Accept-Language": "ar-SD"}, "ar"),
    ({"Accept-Language": "fr", "Cookie": f"{COOKIE}=ar"}, "ar"),
    ({"Cookie": f"{COOKIE}=fr"}, "fr"),
])
def test_a_refused_move_keeps_its_code_and_says_why_in_the_language(
        client: TestClient, headers: dict[str, str], lang: str) -> None:
    gid, _k1, k2 = _game(client)
    english = client.post(f"/api/games/{gid}/move", json={"key": k2, "move": "c3"})
    said = client.post(f"/api/games/{gid}/move", json={"key": k2, "move": "c3"},
                       headers=headers)
    assert said.status_code == english.status_code == 409
    assert said.json()["error"] == english.json()["error"] == "illegal_move"
    assert english.json()["detail"].startswith("c3 is not legal here: " + OCCUPIED["en"])
    assert OCCUPIED[lang] in said.json()["detail"]
    # the moves a refusal lists are data: the same in every language
    assert english.json()["detail"].rsplit(": ", 1)[1] in said.json()["detail"]
    # and the other refusals of the game: an unknown game, a wrong key
    for path, body in (("/api/games/nosuch/move", {"key": "k", "move": "c3"}),
                       (f"/api/games/{gid}/move", {"key": "wrong", "move": "d4"})):
        en, other = (client.post(path, json=body, headers=h).json() for h in ({}, headers))
        assert en["error"] == other["error"]
        assert other["detail"] == say(_template_of(en["detail"]), lang, "web")


def _template_of(english: str) -> Text:
    """The web catalog's Text of an English refusal (the two used above)."""
    if english.startswith("no game with id"):
        return Text("no game with id {game_id!r}", domain="web", game_id="nosuch")
    return Text("this secret does not open a seat of this game; spectators cannot act",
                domain="web")


def test_the_fast_lane_and_the_route_say_a_refusal_the_same_way(tmp_path: Path) -> None:
    """With the lane on and off (every move through the route) a refused move, an unknown
    game and a body the model refuses get the same bytes, in French and in Arabic."""
    def post_all(lane: bool) -> list[tuple[int, bytes]]:
        config = ServerConfig(f"sqlite:///{tmp_path / f'lane-{lane}.db'}", rate=None,
                              fast_lane=lane)
        out = []
        with TestClient(create_app(config)) as c:
            gid, _k1, k2 = _game(c)
            for lang in ("fr", "ar"):
                h = {"Accept-Language": lang}
                for path, body in ((f"/api/games/{gid}/move", {"key": k2, "move": "c3"}),
                                   (f"/api/games/{gid}/move", {"key": k2, "move": "zz9"}),
                                   ("/api/games/nosuch/move", {"key": k2, "move": "c3"}),
                                   (f"/api/games/{gid}/move", {"key": k2, "move": 3})):
                    r = c.post(path, json=body, headers=h)
                    out.append((r.status_code, r.content))
                r = c.get("/api/games/nosuch", headers=h)
                out.append((r.status_code, r.content))
        return out

    on, off = post_all(True), post_all(False)
    assert on == off
    assert any("n'est pas légal" in body.decode() for _s, body in on)


def test_a_websocket_says_its_errors_in_the_handshake_s_language(
        client: TestClient) -> None:
    gid, _k1, _k2 = _game(client)
    with client.websocket_connect(f"/ws/games/{gid}",
                                  headers={"Accept-Language": "fr"}) as ws:
        ws.send_text("[1]")
        for _ in range(10):
            msg = ws.receive_json()
            if msg["type"] == "error":
                break
        assert msg["error"] == "bad_message"
        assert msg["detail"].startswith("envoyez des objets JSON")
    with client.websocket_connect("/ws/games/nosuch", headers={"Accept-Language": "ar"}) as ws:
        msg = ws.receive_json()
        assert msg["error"] == "unknown_game" and "لا توجد مباراة" in msg["detail"]


def test_the_explain_route_gives_the_engine_s_reason_in_the_language(
        client: TestClient) -> None:
    gid, _k1, _k2 = _game(client)
    for lang, words in OCCUPIED.items():
        r = client.get(f"/api/games/{gid}/explain", params={"move": "c3"},
                       headers={"Accept-Language": lang})
        assert r.json()["moves"][0]["reason"] == words


def test_an_error_page_and_a_json_404_in_the_language(client: TestClient) -> None:
    page = client.get("/no/such/page", headers={"Accept": "text/html",
                                                 "Accept-Language": "ar"})
    assert page.status_code == 404
    assert '<html lang="ar" dir="rtl">' in page.text and "الصفحة غير موجودة" in page.text
    answer = client.get("/api/no/such", headers={"Accept-Language": "fr"})
    assert answer.json() == {"error": "not_found", "detail": "Introuvable"}


# --- the account's language ---------------------------------------------------------------
def test_the_account_keeps_its_language(client: TestClient) -> None:
    assert client.put("/api/account/language", json={"language": "fr"},
                      headers=SAME).status_code == 401
    sign_up(client)
    assert client.get("/api/me").json()["language"] is None
    refused = client.put("/api/account/language", json={"language": "de"}, headers=SAME)
    assert refused.status_code == 422 and refused.json()["error"] == "bad_language"
    assert "en, fr, ar" in refused.json()["detail"]
    done = client.put("/api/account/language", json={"language": "ar-SD"}, headers=SAME)
    assert done.status_code == 204 and done.content == b""
    assert client.get("/api/me").json()["language"] == "ar"
    # the account's language counts where no cookie chose: after the cookie, before the header
    assert client.get("/api/games/nosuch", headers={"Accept-Language": "fr"}).json()[
        "detail"].startswith("لا توجد مباراة")
    client.cookies.set(COOKIE, "fr")
    assert client.get("/api/games/nosuch").json()["detail"].startswith("pas de partie")
    client.cookies.delete(COOKIE)
    # another browser of the same account, signed in: the account's language
    other = TestClient(client.app)
    assert other.post("/api/session", json={"username": "alice", "password": "correct horse"},
                      headers=SAME).status_code == 200
    assert other.get("/api/games/nosuch").json()["detail"].startswith("لا توجد مباراة")


def test_the_account_s_language_is_read_from_the_database_once_then_cached(
        client: TestClient) -> None:
    sign_up(client)
    assert client.put("/api/account/language", json={"language": "fr"},
                      headers=SAME).status_code == 204
    found = accounts(client)
    found._languages.clear()
    found._keys.clear()
    # a fresh process knows nothing: language_of does not wait, the writers' lookup does
    token = client.cookies.get("nugar_session")
    assert token is not None
    assert found.cached_language(token) == (False, None)
    assert client.get("/api/games/nosuch").json()["detail"].startswith("pas de partie")
    assert found.cached_language(token) == (True, "fr")


def test_language_of_reads_the_cached_account_language_without_waiting(app: FastAPI) -> None:
    from starlette.requests import Request

    from nugar.server.players.accounts import Account

    found = app.state.accounts
    with TestClient(app) as c:
        sign_up(c)
        account: Account | None = found.session(c.cookies["nugar_session"])
        assert account is not None
        found.set_language(account.id, "ar")
        cookie = f"nugar_session={c.cookies['nugar_session']}"
    found.account_id(c.cookies["nugar_session"])  # the session's account, cached

    def request(headers: list[tuple[bytes, bytes]]) -> Request:
        return Request({"type": "http", "headers": headers, "method": "GET", "path": "/",
                        "app": app})

    assert language_of(request([(b"cookie", cookie.encode()),
                                (b"accept-language", b"fr")])) == "ar"
    assert language_of(request([(b"cookie", f"{cookie}; {COOKIE}=fr".encode())])) == "fr"
    assert language_of(request([(b"accept-language", b"fr")])) == "fr"


# --- rules pages ---------------------------------------------------------------------------
@pytest.fixture()
def docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The shipped rules pages, with a French and an Arabic Kalah page and nothing else
    translated (a small fake translation: the translated pages are i18ntext1's)."""
    root = tmp_path / "docs"
    shutil.copytree(pages.docs_root(), root)  # type: ignore[arg-type]
    for lang in ("fr", "ar"):
        if (root / lang).exists():
            shutil.rmtree(root / lang)
        (root / lang / "games").mkdir(parents=True)
    (root / "fr" / "games" / "kalah.md").write_text(
        "# Kalah (français)\n\nLes règles : voir [les règles communes](../rules.md) et "
        "[Dara](dara.md).\n", encoding="utf-8")
    (root / "ar" / "games" / "kalah.md").write_text(
        "# كالاه\n\nالحركة `3-6` تبقى من اليسار إلى اليمين.\n\n| حركة | بذور |\n| --- | --- |\n"
        "| `1` | 4 |\n\n| move | seeds |\n| --- | --- |\n| 1 | 4 |\n\n```position\n"
        "kalah 4,4,4,4,4,4:0/4,4,4,4,4,4:0 s\nالبداية\n```\n", encoding="utf-8")
    monkeypatch.setattr(pages, "docs_root", lambda: root)
    return root


def test_a_rules_page_in_the_language_or_in_english_while_untranslated(
        client: TestClient, docs: Path) -> None:
    fr = client.get("/rules/kalah", headers={"Accept-Language": "fr"})
    assert fr.status_code == 200 and '<html lang="fr" dir="ltr">' in fr.text
    assert "Kalah (français)" in fr.text and ">Règles</a>" in fr.text  # the header too
    # its links name the English files and lead to the pages of the site
    assert 'href="/rules/rules"' in fr.text and 'href="/rules/dara"' in fr.text
    dara = client.get("/rules/dara", headers={"Accept-Language": "fr"})
    assert '<html lang="fr" dir="ltr">' in dara.text
    assert '<main class="doc" lang="en" dir="ltr">' in dara.text  # English until translated
    ar = client.get("/rules/kalah", headers={"Cookie": f"{COOKIE}=ar"})
    assert '<html lang="ar" dir="rtl">' in ar.text and "كالاه" in ar.text
    assert '<code dir="ltr">3-6</code>' in ar.text
    assert '<figure class="diagram"><div dir="ltr"><svg' in ar.text
    # a table with Arabic words follows the page; a table of moves and numbers stays ltr
    assert ar.text.count('<div class="table-scroll">') == 1
    assert ar.text.count('<div class="table-scroll" dir="ltr">') == 1
    english = client.get("/rules/kalah")
    assert '<html lang="en" dir="ltr">' in english.text and "français" not in english.text


def test_the_rules_index_lists_titles_in_the_language(client: TestClient,
                                                      docs: Path) -> None:
    fr = client.get("/rules", headers={"Accept-Language": "fr"}).text
    assert "<h1>Règles des jeux</h1>" in fr and "Règles de tous les jeux" in fr
    assert '<a href="/rules/kalah">Kalah (français)</a>' in fr
    ar = client.get("/rules", headers={"Accept-Language": "ar"}).text
    assert '<html lang="ar" dir="rtl">' in ar and '<a href="/rules/kalah">كالاه</a>' in ar
    missing = client.get("/rules/nosuch", headers={"Accept-Language": "fr"})
    assert missing.status_code == 404 and "Page de règles introuvable" in missing.text


# --- lessons -------------------------------------------------------------------------------
@pytest.fixture()
def lessons_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The package's lessons with a fake French Dara lesson (its title and first step's
    right-move reply changed; the real translations are i18ntext1's)."""
    from nugar.server.http import routes_lessons

    root = tmp_path / "lessons"
    data = root / "data"
    data.mkdir(parents=True)
    shipped = Path(nugar.lessons.__file__).parent / "data"
    for f in shipped.glob("*.json"):
        shutil.copy(f, data / f.name)
    lesson: dict[str, Any] = json.loads((data / "dara.json").read_text(encoding="utf-8"))
    lesson["title"] = "Dara, en français"
    lesson["steps"][0]["right"] = "Juste : votre premier pion est sur c3."
    (data / "fr").mkdir()
    (data / "fr" / "dara.json").write_text(json.dumps(lesson), encoding="utf-8")
    monkeypatch.setattr(nugar.lessons, "_data", lambda: data)
    for cached in (routes_lessons._lesson, routes_lessons._lesson_view, routes_lessons._listing):
        cached.cache_clear()
    yield root
    for cached in (routes_lessons._lesson, routes_lessons._lesson_view, routes_lessons._listing):
        cached.cache_clear()


def test_a_lesson_loads_in_its_language_or_in_english(lessons_data: Path) -> None:
    assert nugar.lessons.load("dara", "fr").title == "Dara, en français"
    assert nugar.lessons.load("dara", "ar").title == nugar.lessons.load("dara").title
    assert nugar.lessons.load("kalah", "fr") == nugar.lessons.load("kalah")
    with pytest.raises(ValueError):
        nugar.lessons.load("dara", "de")


def test_the_lessons_api_answers_in_the_language(client: TestClient,
                                                 lessons_data: Path) -> None:
    fr = {"Accept-Language": "fr"}
    listing = client.get("/api/lessons", headers=fr).json()
    assert "Dara, en français" in [lesson["title"] for lesson in listing]
    assert client.get("/api/lessons/dara", headers=fr).json()["title"] == "Dara, en français"
    right = client.post("/api/lessons/dara/steps/0/check", json={"move": "c3"}, headers=fr)
    assert right.json()["reply"] == "Juste : votre premier pion est sur c3."
    # the engine's reason for a refused move, said in the language
    wrong = client.post("/api/lessons/dara/steps/0/check", json={"move": "c9"}, headers=fr)
    assert wrong.json()["verdict"] == "unreadable"
    assert wrong.json()["reply"].startswith("la case 'c9' est hors du plateau")
    arabic = client.post("/api/lessons/dara/steps/0/check", json={"move": "c9"},
                         headers={"Accept-Language": "ar"})
    assert arabic.json()["reply"].startswith("الخانة")
    english = client.post("/api/lessons/dara/steps/0/check", json={"move": "c9"})
    assert english.json()["reply"] == "square 'c9' is off the 5x6 board of dara; squares are " \
        "a1..f5"


def test_a_translated_refusal_keeps_its_status_and_retry_after() -> None:
    from nugar.server.http.middleware import add_error_handlers
    from nugar.server.work.ai_pool import AiBusy

    made = FastAPI()
    add_error_handlers(made)

    @made.get("/busy")
    async def busy() -> None:
        raise AiBusy(retry_after=3)

    with TestClient(made) as c:
        answer = c.get("/busy", headers={"Accept-Language": "fr"})
    assert answer.status_code == 503 and answer.headers["retry-after"] == "3"
    assert answer.json() == {"error": "ai_busy", "detail": "l'ordinateur est occupé par "
                             "d'autres parties\u00a0; réessayez dans 3 s"}


# --- the errors of a rule-set text and of a record (the engine's sentences) -------------------

def _error_of(call: Any) -> ValueError:
    """The error ``call()`` raises (a RulesError, a RecordError)."""
    with pytest.raises(ValueError) as caught:
        call()
    return caught.value


#: a word of each language's sentence about ``dara(rows=99)``, so that an untranslated answer
#: (the English again) fails
ROWS_99 = {"en": "rows must be 1..26, not 99", "fr": "rows doit valoir 1..26, pas 99",
           "ar": "يجب أن يكون \u2066rows\u2069"}


@pytest.mark.parametrize("lang", ["en", "fr", "ar"])
def test_a_bad_rule_set_text_is_refused_in_the_language(client: TestClient, lang: str) -> None:
    """Game creation, the rules check and the levels say a rule-set text's error in the
    request's language, under the same code ``bad_rules``."""
    from nugar.rules import parse_rules

    h = {"Accept-Language": lang}
    for text in ("dara(rows=99)", "chess", "dala(quiet_limit=abc)", "kalah(pits)"):
        said = say(_error_of(lambda text=text: parse_rules(text)), lang)
        for r in (client.post("/api/games", json={"rules": text, "mode": "friend"}, headers=h),
                  client.get("/api/rules", params={"text": text}, headers=h),
                  client.get("/api/levels", params={"rules": text}, headers=h)):
            assert r.status_code == 422, r.text
            assert r.json() == {"error": "bad_rules", "detail": said}
    made = client.post("/api/games", json={"rules": "dara(rows=99)", "mode": "friend"},
                       headers=h).json()
    assert ROWS_99[lang] in made["detail"]


#: a record whose first turn is off the board, then one with four problems (the Rules tag
#: twice, a square off the board, a stray '}', a second game)
BAD_RECORDS = ['[Rules "kalah"]\n\n1. 9 *', '[Rules "dara"]\n[Rules "x"]\n\n1. z9 } 2. 1-0 *\n']


@pytest.mark.parametrize("lang", ["en", "fr", "ar"])
def test_a_bad_record_is_refused_in_the_language(client: TestClient, lang: str) -> None:
    """A pasted record that does not read (``/api/replay``, read in the work pool): the same
    code ``bad_record``, every problem said in the request's language."""
    from nugar.record import load_one

    answers = []
    for record in BAD_RECORDS:
        error = _error_of(lambda record=record: load_one(record))
        said = say(error, lang)
        # the work pool's process sends the refusal back pickled: it says the same
        assert say(pickle.loads(pickle.dumps(error)), lang) == said
        r = client.post("/api/replay", json={"record": record},
                        headers={"Accept-Language": lang})
        assert r.status_code == 422, r.text
        assert r.json() == {"error": "bad_record", "detail": said}
        answers.append(said)
    words = {"en": ("turn 1 (first player) '9'", "problems in the record", "line 2, column 1"),
             "fr": ("tour 1 (premier joueur) '9'", "problèmes dans la partie notée",
                    "ligne 2, colonne 1"),
             "ar": ("الدور 1 (اللاعب الأول)", "مشكلات", "السطر 2، العمود 1")}[lang]
    assert words[0] in answers[0]
    assert words[1] in answers[1] and words[2] in answers[1]
    assert answers[1].count("\n") == 4  # one problem a line, in every language
