"""arena-sim: the arena ladder's match engine, offline.

The wheel carries the simulator as one JavaScript file (arena-sim.mjs) and runs it with Node.js 22 or newer,
found on PATH or named by the ARENA_SIM_NODE environment variable. From a shell::

    arena-sim play --a kiter --b brawler --matches 20

From Python::

    import arena_sim
    summary = arena_sim.play("kiter", "cmd:python3 my_bot.py", matches=20)
    print(summary["bots"][1]["win_rate"])

The full guide is at /docs/simulator on any ladder.
"""

import json
import os
import shutil
import subprocess
import sys
from typing import Any, Dict, List, Optional, Sequence

try:
    from ._version import __version__
except ImportError:  # running from the source tree, not an installed wheel
    __version__ = "dev"

__all__ = [
    "ArenaSimError",
    "NodeNotFoundError",
    "bundle_path",
    "fork",
    "node_path",
    "observe",
    "play",
    "run",
    "__version__",
]


class ArenaSimError(RuntimeError):
    """The simulator failed or was used wrongly; the message carries its error output."""

    def __init__(self, message: str, exit_code: Optional[int] = None) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class NodeNotFoundError(ArenaSimError):
    """No usable node executable: install Node.js 22+ or set ARENA_SIM_NODE."""


def bundle_path() -> str:
    """Path of the bundled simulator script inside this package."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "arena-sim.mjs")


def node_path() -> str:
    """The node executable to run: $ARENA_SIM_NODE if set, else `node` on PATH."""
    configured = os.environ.get("ARENA_SIM_NODE")
    if configured:
        found = shutil.which(configured)
        if found:
            return found
        raise NodeNotFoundError(
            "ARENA_SIM_NODE is set to %r, which is not an executable node" % configured
        )
    found = shutil.which("node")
    if not found:
        raise NodeNotFoundError(
            "arena-sim needs Node.js 22 or newer: install it (https://nodejs.org) so that `node` is on PATH, "
            "or set ARENA_SIM_NODE to the node executable"
        )
    return found


def _command(args: Sequence[Any]) -> List[str]:
    return [node_path(), bundle_path()] + [str(a) for a in args]


def run(args: Sequence[Any]) -> int:
    """Runs `arena-sim <args>` with this process's stdin/stdout/stderr and returns its exit code."""
    try:
        return subprocess.call(_command(args))
    except KeyboardInterrupt:
        return 130


def play(
    a: str,
    b: str,
    matches: int = 10,
    map: str = "all",
    seed: int = 1,
    tick_ms: Optional[int] = None,
    startup_ms: Optional[int] = None,
    replays: Optional[str] = None,
    quiet: bool = False,
) -> Dict[str, Any]:
    """Plays `matches` matches between bots `a` and `b` and returns the summary (`arena-sim play --json`).

    A bot is a house bot name (kiter, brawler, ts-starter, champion), "module:<path>" or "cmd:<command line>".
    Bot stderr is passed through to sys.stderr unless quiet. Raises ArenaSimError on a usage error.
    """
    args: List[Any] = ["play", "--a", a, "--b", b, "--matches", matches, "--map", map, "--seed", seed, "--json"]
    if tick_ms is not None:
        args += ["--tick-ms", tick_ms]
    if startup_ms is not None:
        args += ["--startup-ms", startup_ms]
    if replays is not None:
        args += ["--replays", replays]
    if quiet:
        args.append("--quiet")
    proc = subprocess.run(
        _command(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, encoding="utf-8", errors="replace"
    )
    if proc.returncode != 0:
        raise ArenaSimError(
            "arena-sim exited with code %d: %s" % (proc.returncode, proc.stderr.strip()), proc.returncode
        )
    if proc.stderr and not quiet:
        sys.stderr.write(proc.stderr)
    try:
        return json.loads(proc.stdout)
    except ValueError as err:
        raise ArenaSimError("arena-sim printed no JSON summary: %s" % err) from err


def _json_of(args: List[Any], quiet: bool) -> Any:
    """Runs a command that prints JSON and returns it parsed; a failure raises ArenaSimError."""
    proc = subprocess.run(
        _command(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, encoding="utf-8", errors="replace"
    )
    if proc.returncode != 0:
        raise ArenaSimError(
            "arena-sim exited with code %d: %s" % (proc.returncode, proc.stderr.strip()), proc.returncode
        )
    if proc.stderr and not quiet:
        sys.stderr.write(proc.stderr)
    try:
        return json.loads(proc.stdout)
    except ValueError as err:
        raise ArenaSimError("arena-sim printed no JSON: %s" % err) from err


def fork(replay: str, tick: int, a: str = "replay", b: str = "replay", out: Optional[str] = None,
         quiet: bool = False) -> Dict[str, Any]:
    """Rebuilds `replay` at `tick` and plays on with seats `a` (fighter 0) and `b` (fighter 1).

    A seat is "replay" (the fighter's recorded turns), a house bot name, "module:<path>" or "cmd:<command line>".
    Returns `arena-sim fork --json`: match_id, winner, reason, final_tick, identical (the fork equals the
    recording), diverges_at, replay (the written file). Raises ArenaSimError when the replay cannot be forked.
    """
    args: List[Any] = ["fork", replay, "--tick", tick, "--a", a, "--b", b, "--json"]
    if out is not None:
        args += ["--out", out]
    return _json_of(args, quiet)


def observe(replay: str, tick: int, seat: Any) -> Dict[str, Any]:
    """The observation fighter `seat` (0, 1, "a", "b" or its name) was sent at `tick` of `replay`."""
    return _json_of(["observe", replay, "--tick", tick, "--seat", seat], True)
