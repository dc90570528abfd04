#!/usr/bin/env bash
# Check that a wheel is a complete install: build the wheel, install it with the `web` extra
# in a fresh virtual environment, and from a directory outside the checkout (so the checkout
# is not importable) check the INSTALLED package: the command line, the web server (pages,
# rules pages, a game against the AI) and that nothing was written into the package at run
# time. Prints one PASS/FAIL line per check and exits non-zero if any failed.
#
#   bash .ci/check-wheel.sh          # PYTHON=python3.12 picks another interpreter
set -euo pipefail
export PIP_DISABLE_PIP_VERSION_CHECK=1
unset PYTHONPATH

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PYTHON:-python3}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/nugar-wheel.XXXXXX")"
VENV="$WORK/venv"
VPY="$VENV/bin/python"
RUN="$WORK/run"           # the working directory of every check: not the checkout
SERVER_PID=""
FAILED=0

cleanup() {
    if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; FAILED=1; }

# --- build and install ----------------------------------------------------------------------
# Build from a copy of the working tree, so the build leaves nothing in the checkout and no
# stale build/ or compiled caches of the checkout end up in the wheel.
mkdir -p "$WORK/src" "$WORK/dist" "$RUN"
tar -C "$ROOT" -cf - --exclude=./.git --exclude=./shared --exclude=./build --exclude=./dist \
    --exclude='*.egg-info' --exclude=__pycache__ --exclude='*.pyc' --exclude='*.nbi' \
    --exclude='*.nbc' --exclude=.venv --exclude=.pytest_cache --exclude=.mypy_cache \
    --exclude=.ruff_cache --exclude=.hypothesis . | tar -C "$WORK/src" -xf -
"$PY" -m pip wheel -q --no-deps -w "$WORK/dist" "$WORK/src"
WHEEL="$(ls "$WORK"/dist/nugar-*.whl)"
echo "built $(basename "$WHEEL")"
"$PY" -m venv "$VENV"
"$VPY" -m pip install -q "${WHEEL}[web]"

# The installed package's folder, found without importing it (importing runs nothing yet).
cd "$RUN"
PKG="$("$VPY" -c 'import importlib.util as u; print(u.find_spec("nugar").submodule_search_locations[0])')"
listing() {  # every file of the installed package but Python's *.pyc: path, size, mtime
    "$VPY" - "$PKG" <<'EOF'
import os, sys
root = sys.argv[1]
for folder, _, names in os.walk(root):
    for name in sorted(names):
        if not name.endswith(".pyc"):
            path = os.path.join(folder, name)
            st = os.stat(path)
            print(f"{os.path.relpath(path, root)}\t{st.st_size}\t{st.st_mtime_ns}")
EOF
}
listing | sort > "$WORK/files-before"

if [[ "$PKG" == "$VENV"/* ]]; then
    pass "nugar is imported from the fresh venv ($PKG), not the checkout"
else
    fail "nugar is imported from $PKG, not from the fresh venv"
fi

# The wheel ships every file of the package folder (sources and data: pages, web UI, book)
# and the license.
if "$VPY" - "$WHEEL" "$ROOT/src/nugar" <<'EOF'
import sys, zipfile
from pathlib import Path
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
package = Path(sys.argv[2])
skip = {"__pycache__", ".pyc", ".nbi", ".nbc"}
wanted = {f"nugar/{p.relative_to(package).as_posix()}" for p in package.rglob("*")
          if p.is_file() and not skip & {*p.parts, p.suffix}}
missing = sorted(wanted - names)
licence = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
if missing or not licence:
    print("missing from the wheel:", ", ".join(missing or ["LICENSE"]))
    sys.exit(1)
EOF
then pass "the wheel holds every file of the package (pages, web UI, book) and LICENSE"
else fail "the wheel is incomplete"; fi

# --- the command line -----------------------------------------------------------------------
moves="$("$VENV/bin/nugar" moves kalah 3 2>&1 || true)"
# shellcheck disable=SC2086  # word splitting compares the moves whitespace-insensitively
if [[ "$(echo $moves)" == "1 2 4 5 6" ]]; then
    pass "nugar moves kalah 3 prints 1 2 4 5 6"
else
    fail "nugar moves kalah 3 printed: $moves"
fi

# The message catalogs are compiled into the wheel (setup.py's build step): every .po has
# its .mo, and the installed program speaks French, Arabic and Hausa from them.
if "$VPY" - "$WHEEL" <<'EOF'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
po = sorted(n for n in names if n.startswith("nugar/locale/") and n.endswith(".po"))
missing = [n for n in po if n[:-3] + ".mo" not in names]
if not po or missing:
    print("catalogs without their compiled .mo:", ", ".join(missing or ["no .po at all"]))
    sys.exit(1)
EOF
then pass "the wheel holds every message catalog compiled (.mo beside each .po)"
else fail "the wheel lacks compiled catalogs"; fi
french="$(NO_COLOR=1 COLUMNS=200 "$VENV/bin/nugar" rules dara --lang fr 2>&1 || true)"
arabic="$(env -u LANGUAGE -u LC_ALL -u LC_MESSAGES NO_COLOR=1 COLUMNS=200 LANG=ar_SD.UTF-8 \
    "$VENV/bin/nugar" rules dara 2>&1 || true)"
hausa="$(NO_COLOR=1 COLUMNS=200 "$VENV/bin/nugar" rules dara --lang ha 2>&1 || true)"
if [[ "$french" == *"rangées du plateau"* && "$arabic" == *"صفوف الرقعة"* \
      && "$hausa" == *"layukan kwance na allo"* ]]; then
    pass "nugar rules dara speaks French and Hausa with --lang, Arabic under LANG=ar_SD.UTF-8"
else
    fail "nugar rules dara in French/Arabic/Hausa printed: $french / $arabic / $hausa"
fi

# --- the web server -------------------------------------------------------------------------
PORT="$("$VPY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
"$VENV/bin/nugar" serve --port "$PORT" --host 127.0.0.1 --db "sqlite:///$WORK/games.db" \
    --ai-time 0.2 >"$WORK/server.log" 2>&1 &
SERVER_PID=$!

if ! "$VPY" - "http://127.0.0.1:$PORT" "$ROOT/src/nugar/docs" <<'EOF'
"""The server checks: one PASS/FAIL line each; exit status 1 if any failed."""
import json, re, sys, time, urllib.error, urllib.request
from pathlib import Path

base, docs = sys.argv[1], Path(sys.argv[2])
failed = False


def check(ok, what):
    global failed
    print(("PASS: " if ok else "FAIL: ") + what, flush=True)
    failed |= not ok


def call(path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


end = time.monotonic() + 60
while True:
    try:
        status, home = call("/")
        break
    except OSError:
        if time.monotonic() > end:
            check(False, "the server answered within 60 s (see its log below)")
            sys.exit(1)
        time.sleep(0.3)
check(status == 200 and "<html" in home.lower(), f"GET / answers 200 (got {status})")

status, page = call("/rules/dara")
headings = [l[3:].strip() for l in (docs / "games/dara.md").read_text().splitlines()
            if l.startswith("## ")]
text = re.sub(r"<[^>]+>", "", page)
check(status == 200 and headings and all(h in text for h in headings),
      f"GET /rules/dara answers 200 with the Dara page (got {status})")
dead = [h for h in re.findall(r'href="(/rules[^"#]*)', page) if call(h)[0] != 200]
check(not dead, "every /rules link of the Dara page answers 200" + (f": {dead}" if dead else ""))

status, index = call("/rules")
names = sorted(p.stem for p in (docs / "games").glob("*.md"))
names += ["rules"] if (docs / "rules.md").is_file() else []
missing = [n for n in names if f'href="/rules/{n}"' not in index]
check(status == 200 and not missing,
      f"GET /rules lists all {len(names)} pages" + (f"; missing: {missing}" if missing else ""))

status, made = call("/api/games", {"rules": "kalah", "mode": "ai", "level": 1, "seat": 1})
if status != 201:
    check(False, f"create a game against the AI (got {status}: {made})")
    sys.exit(1)
game = json.loads(made)
gid, key = game["id"], game["keys"]["1"]
status, _ = call(f"/api/games/{gid}/move", {"key": key, "move": "1"})
started, state = time.monotonic(), {}
while status == 200 and time.monotonic() - started < 180:
    state = json.loads(call(f"/api/games/{gid}")[1])
    if any(t["player"] == 2 for t in state["turns"]) or state["over"]:
        break
    time.sleep(0.5)
replied = any(t["player"] == 2 for t in state.get("turns", []))
check(status == 200 and replied,
      f"a game against the AI: the human's move 1 is answered by the AI "
      f"({time.monotonic() - started:.0f} s)")
sys.exit(1 if failed else 0)
EOF
then
    FAILED=1
    echo "--- server log ---"
    tail -n 30 "$WORK/server.log"
fi
kill "$SERVER_PID" 2>/dev/null || true
wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=""

# --- nothing written into the installed package ---------------------------------------------
listing | sort > "$WORK/files-after"
if ! "$VPY" - "$WORK/files-before" "$WORK/files-after" <<'EOF'
import sys
from collections import Counter


def read(path):
    with open(path, encoding="utf-8") as fh:
        return {name: rest for name, _, rest in (line.rstrip("\n").partition("\t") for line in fh)}


before, after = read(sys.argv[1]), read(sys.argv[2])
new = sorted(set(after) - set(before))
changed = sorted(n for n in set(after) & set(before) if after[n] != before[n])
gone = sorted(set(before) - set(after))
if not (new or changed or gone):
    print("PASS: no file inside the installed package was created or modified at run time")
    sys.exit(0)
kinds = Counter(n.rsplit(".", 1)[-1] for n in new)
print(f"FAIL: the installed package was written to at run time: {len(new)} new files "
      f"(by extension: {dict(kinds)}), {len(changed)} changed, {len(gone)} removed")
for label, names in (("new", new), ("changed", changed), ("removed", gone)):
    for name in names[:5]:
        print(f"  {label}: {name}")
sys.exit(1)
EOF
then
    FAILED=1
fi

if [[ "$FAILED" == 0 ]]; then
    echo "check-wheel: all checks passed"
else
    echo "check-wheel: FAILED"
    exit 1
fi
