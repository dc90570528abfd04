"""A bot on a nugar server: the client behind ``nugar bot``.

It reads the bot's event stream (``GET /api/bot/stream/event``, NDJSON: docs/server.md
"Bots"), accepts the challenges made to it whose rules its player takes, and plays each game
it is in on a thread of its own: it reads the game's stream and, whenever the bot's seat is
to move, asks its player for a decision and sends it (``POST /api/bot/game/{id}/move/{m}``).
A player is either a program speaking ``nugar engine``'s protocol on its stdin and stdout
(:class:`EnginePlayer`: ``rules``, ``newgame``, ``play``, ``go``; docs/engine-protocol.md) or
one of nugar's agents in this process (:class:`AgentPlayer`).

A dropped connection is opened again after :data:`RETRY` seconds (the streams restart with
the full state, so nothing is missed); a refused token (401, 403) ends the bot with the
server's reason, as :class:`BotError`.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Protocol
from urllib.parse import quote

import httpx

#: seconds before a dropped stream is opened again
RETRY = 2.0
#: seconds a stream may stay silent (the server sends a heartbeat every few seconds)
READ_TIMEOUT = 60.0
#: the longest line read from a stream (a game's state is a few kB)
MAX_LINE = 1 << 20


class BotError(Exception):
    """The server refused the bot (a bad token, not a bot) or its player failed."""


class Player(Protocol):
    """Chooses the bot's decisions."""

    def choose(self, rules: str, moves: list[str]) -> str:
        """The decision to play after ``moves`` (the game's decisions so far) under
        ``rules``."""

    def close(self) -> None:
        """Free what the player holds."""


class AgentPlayer:
    """One of nugar's agents (``level:4``, ``random``, ...) choosing in this process."""

    def __init__(self, spec: str) -> None:
        from .ai import make_agent

        self.spec = spec
        self.agent = make_agent(spec)  # a bad spec fails now, before any game
        self.lock = threading.Lock()

    def choose(self, rules: str, moves: list[str]) -> str:
        from .ai import Limits
        from .rules import new_game, parse_rules

        game = new_game(parse_rules(rules))
        for move in moves:
            game.play(move)
        with self.lock:  # one agent, used by the games' threads in turn
            return str(self.agent.choose(game, Limits()))

    def close(self) -> None:
        pass


class EnginePlayer:
    """A program speaking the engine protocol, started once and shared by the games (one
    question at a time). ``go``: the words sent after ``go`` (e.g. ``movetime 1000``)."""

    def __init__(self, command: str, go: str = "") -> None:
        self.command = command
        self.go = go
        try:
            self.proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, text=True, bufsize=1)
        except (OSError, ValueError) as exc:
            raise BotError(f"cannot start the engine {command!r}: {exc}") from None
        self.lock = threading.Lock()
        self.ask("protocol_version")

    def ask(self, line: str) -> str:
        """Send one command; its answer's payload, or :class:`BotError` with the engine's
        reason."""
        stdin, stdout = self.proc.stdin, self.proc.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(line + "\n")
            stdin.flush()
            lines: list[str] = []
            while True:
                got = stdout.readline()
                if not got:
                    raise BotError(f"the engine {self.command!r} stopped (exit code "
                                   f"{self.proc.poll()})")
                if got.strip() == "" and lines:
                    break
                if got.strip():
                    lines.append(got.rstrip("\n"))
        except (BrokenPipeError, OSError) as exc:
            raise BotError(f"the engine {self.command!r} stopped: {exc}") from None
        reply = "\n".join(lines)
        status, _, payload = reply.partition(" ")
        if status.startswith("?"):
            raise BotError(f"the engine refused {line!r}: {payload}")
        if not status.startswith("="):
            raise BotError(f"the engine answered {reply[:200]!r}, not the protocol")
        return payload

    def choose(self, rules: str, moves: list[str]) -> str:
        with self.lock:
            self.ask(f"rules {rules}")
            for move in moves:
                self.ask(f"play {move}")
            return self.ask(f"go {self.go}".strip()).strip()

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.ask("quit")
            except BotError:
                pass
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def player_of(engine: str | None, agent: str | None, go: str = "") -> Player:
    """The player ``nugar bot`` was given: an engine command or an agent spec."""
    if engine:
        return EnginePlayer(engine, go)
    try:
        return AgentPlayer(agent or "level:4")
    except ValueError as exc:
        raise BotError(str(exc)) from None


class Bot:
    """One bot account (by its token) on the server at ``url``, played by ``player``.
    ``accept``: whether a challenge with these rules is taken (else declined). ``games``:
    stop after that many games (``None``: run until stopped). ``log``: where it says what it
    does."""

    def __init__(self, url: str, token: str, player: Player, *,
                 accept: Callable[[dict[str, Any]], bool] | None = None,
                 games: int | None = None, log: Callable[[str], None] = print) -> None:
        self.url = url.rstrip("/")
        self.player = player
        self.accept = accept or (lambda challenge: True)
        self.games_left = games
        self.log = log
        self.client = httpx.Client(headers={"Authorization": f"Bearer {token}"},
                                   timeout=httpx.Timeout(30.0, read=READ_TIMEOUT))
        self.playing: dict[str, threading.Thread] = {}
        self.finished = threading.Event()
        self.error: BaseException | None = None

    # --- the HTTP side -------------------------------------------------------------------
    def _refused(self, response: httpx.Response) -> BotError:
        try:
            body = response.json()
            said = f"{body.get('error')}: {body.get('detail')}"
        except (ValueError, AttributeError):
            said = response.text[:200]
        return BotError(f"the server refused {response.request.method} "
                        f"{response.request.url.path} ({response.status_code}): {said}")

    def post(self, path: str) -> dict[str, Any]:
        r = self.client.post(self.url + path)
        if r.status_code >= 400:
            raise self._refused(r)
        found: dict[str, Any] = r.json()
        return found

    def stream(self, path: str) -> Iterator[dict[str, Any]]:
        """The JSON objects of an NDJSON stream (heartbeats skipped), until it ends."""
        with self.client.stream("GET", self.url + path) as r:
            if r.status_code >= 400:
                r.read()
                raise self._refused(r)
            for text in r.iter_lines():
                if self.finished.is_set():
                    return
                if len(text) > MAX_LINE:
                    raise BotError("the server sent a line longer than the bot reads")
                if text.strip():
                    yield json.loads(text)

    # --- the loops -----------------------------------------------------------------------
    def run(self) -> None:
        """Follow the events until stopped (or :data:`games` games were played); a refusal
        ends it with :class:`BotError`."""
        try:
            while not self.finished.is_set():
                try:
                    for event in self.stream("/api/bot/stream/event"):
                        self.on_event(event)
                        if self.finished.is_set():
                            break
                except (httpx.TransportError, json.JSONDecodeError) as exc:
                    if self.finished.is_set():
                        break
                    self.log(f"the event stream dropped ({exc}); again in {RETRY:g} s")
                    time.sleep(RETRY)
                if self.error is not None:
                    raise self.error
        finally:
            self.finished.set()
            for thread in list(self.playing.values()):
                thread.join(10)
            self.client.close()
        if self.error is not None:
            raise self.error

    def on_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "challenge":
            challenge = event.get("challenge") or {}
            cid = str(challenge.get("id"))
            if self.accept(challenge):
                self.log(f"accepting challenge {cid} ({challenge.get('rules')})")
                try:
                    self.post(f"/api/bot/challenge/{cid}/accept")
                except BotError as exc:  # taken back meanwhile: not the bot's failure
                    self.log(str(exc))
            else:
                self.log(f"declining challenge {cid} ({challenge.get('rules')})")
                self.post(f"/api/bot/challenge/{cid}/decline")
        elif kind == "gameStart":
            gid = str((event.get("game") or {}).get("id"))
            old = self.playing.get(gid)
            if old is None or not old.is_alive():
                self.log(f"playing game {gid}")
                thread = threading.Thread(target=self._game, args=(gid,), daemon=True)
                self.playing[gid] = thread
                thread.start()

    def _game(self, gid: str) -> None:
        try:
            while not self.finished.is_set():
                try:
                    if self.play(gid):
                        break
                except (httpx.TransportError, json.JSONDecodeError) as exc:
                    self.log(f"game {gid}: the stream dropped ({exc}); again in {RETRY:g} s")
                    time.sleep(RETRY)
        except BaseException as exc:  # the bot stops with the reason
            self.error = exc
            self.finished.set()
            return
        self.log(f"game {gid} ended")
        if self.games_left is not None:
            self.games_left -= 1
            if self.games_left <= 0:
                self.finished.set()

    def play(self, gid: str) -> bool:
        """Play the game ``gid`` until its stream ends; whether the game is over."""
        seat = None
        for message in self.stream(f"/api/bot/game/stream/{gid}"):
            if message.get("type") == "gameFull":
                seat = message.get("seat")
            state = message.get("state") or {}
            if state.get("over"):
                return True
            if state.get("to_move") == seat and state.get("legal"):
                move = self.player.choose(str(state["rules"]), list(state.get("moves") or []))
                try:
                    self.post(f"/api/bot/game/{gid}/move/{quote(move, safe='')}")
                except BotError as exc:  # the position moved on (the clock, a resignation)
                    self.log(f"game {gid}: {exc}")
        return False

    def stop(self) -> None:
        self.finished.set()
