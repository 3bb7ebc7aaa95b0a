#!/usr/bin/env python3
"""Python starter bot for the arena ladder.

Everything a bot needs to play on the ladder: the connection (queue, ready, one turn per observation,
reconnecting with backoff) and a simple strategy. Change `Strategy.decide` first; the connection code below
it can usually stay as it is.

Run it against the ladder:
    ARENA_TOKEN=<bot token> ARENA_URL=<bot endpoint> python3 starter_bot.py
or under the offline simulator, which talks JSON lines over stdin/stdout instead of a socket:
    python3 starter_bot.py --stdio

Environment:
    ARENA_TOKEN   the bot token you got at registration (required unless --stdio)
    ARENA_URL     the ladder's bot endpoint, e.g. ws://localhost:8080/bot
    BOT_VERSION   version label shown on the ladder (1-32 characters; a new label registers a new version)
    ARENA_LADDER  ladder to queue on; leave unset for `public`

Needs Python 3.8+ and the `websockets` package (any version from 10 on; not needed for --stdio).
The protocol in one breath (SPEC section 6): after connecting, send `queue`; the server answers `queued`,
later `hello` (a match was found) which you accept with `ready`; then every tick brings an `observation`
that you answer with a `turn` for the same tick, until `end`. Then queue again.
"""

import asyncio
import json
import os
import sys
import traceback
from collections import deque

TOKEN = os.environ.get("ARENA_TOKEN", "")
URL = os.environ.get("ARENA_URL", "ws://localhost:8080/bot")
VERSION = os.environ.get("BOT_VERSION") or "1.0.0"
LADDER = os.environ.get("ARENA_LADDER") or None
STDIO = "--stdio" in sys.argv[1:]

# Recommended client timings (SPEC section 8, "Other constants").
HANDSHAKE_TIMEOUT_S = 10
PING_INTERVAL_S = 20
PONG_DEADLINE_S = 20
BACKOFF_FIRST_S = 1
BACKOFF_CAP_S = 30

# Errors after which reconnecting cannot help: the token is wrong, or the bot or account may not play, or
# another connection with the same token took over (SPEC 7.2). Reconnecting on `replaced` would make two
# copies of the bot kick each other off forever. Ladder admission and availability errors (unknown, closed or
# disabled ladder, enrollment required) also stop a starter: queueing again would only be refused again.
# The server's catalog (server/errors.ts, BOT_STOP_CODES) is the source; a test keeps this list equal to it.
STOP_CODES = {
    "missing_authorization",
    "invalid_token",
    "suspended",
    "banned",
    "retired",
    "account_banned",
    "account_required",
    "replaced",
    "enrollment_required",
    "unknown_ladder",
    "ladder_closed",
    "ladder_disabled",
}


# Errors after which our `queue` was not taken but may be later (the server's database is unreachable for a
# moment, or something failed on its side): queue again with the same backoff as reconnecting.
RETRY_QUEUE_CODES = {"unavailable", "internal"}


def log(*args):
    # In --stdio mode stdout carries the protocol, so logs must go to stderr.
    print(*args, file=sys.stderr if STDIO else sys.stdout, flush=True)


# ---------------------------------------------------------------------------------------------------------
# Strategy: one instance per match. Keep distance 4-6 from the opponent, shoot when ready, frostburst a
# slowed, stunned or standing target, repulse when adjacent, and never stand on a tile that is about to hurt.
# ---------------------------------------------------------------------------------------------------------


def log_rejections(obs):
    """Prints each part of our last turn the server refused (the observation's `rejected` events, which only we
    are sent): a mistake shows here on the tick it happens. The match page's diagnostics list them too."""
    for e in obs.get("events") or []:
        if isinstance(e, dict) and e.get("type") == "rejected":
            detail = e.get("detail")
            log("rejected tick %s: %s %s%s" % (
                (obs.get("tick") or 1) - 1, e.get("part"), e.get("reason"), " (%s)" % detail if detail else ""))


def cheb(a, b):
    """Chebyshev distance: the number of moves between two tiles when diagonal steps are allowed."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


class Strategy:
    def __init__(self, hello):
        attacks = hello["rules"]["attacks"]
        self.ranged_range = attacks.get("ranged", {}).get("range", 12)
        self.frost_range = attacks.get("frostburst", {}).get("range", 7)
        self.has = set(attacks)  # only send attacks the rules name, or the part is refused
        m = hello["map"]
        self.width, self.height = m["width"], m["height"]
        self.walls = {(x, y) for y, row in enumerate(m["rows"]) for x, c in enumerate(row) if c == "#"}
        self.prev_opp = None  # opponent's tile last tick, to spot one that stands still
        self.paths = {}  # goal tile -> walking distance of every tile to it
        self.last_dir = None  # direction of our last step

    def free(self, x, y):
        return 0 <= x < self.width and 0 <= y < self.height and (x, y) not in self.walls

    def sees(self, a, b):
        """Line of sight as the rules define it: a Bresenham line between tile centres, in either direction,
        that crosses no wall. Attacks at tiles out of sight are refused (`not_visible`)."""
        return self.line_clear(a, b) or self.line_clear(b, a)

    def line_clear(self, a, b):
        (x, y), (x1, y1) = a, b
        dx, dy = abs(x1 - x), -abs(y1 - y)
        sx, sy = (1 if x < x1 else -1), (1 if y < y1 else -1)
        err = dx + dy
        while (x, y) != (x1, y1):
            if (x, y) in self.walls and (x, y) != a:
                return False
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x += sx
            if e2 <= dx:
                err += dx
                y += sy
        return True

    def walk(self, goal):
        """Walking distances to `goal` (breadth-first over the map; diagonals may not cut wall corners).
        Straight-line distance would leave us stuck behind walls."""
        if goal not in self.paths:
            dist = {goal: 0}
            todo = deque([goal])
            while todo:
                x, y = todo.popleft()
                for dx in (-1, 0, 1):
                    for dy in (-1, 0, 1):
                        nx, ny = x + dx, y + dy
                        if (nx, ny) in dist or not self.free(nx, ny):
                            continue
                        if dx and dy and not (self.free(x + dx, y) and self.free(x, y + dy)):
                            continue
                        dist[(nx, ny)] = dist[(x, y)] + 1
                        todo.append((nx, ny))
            self.paths = {goal: dist}  # one goal at a time is enough
        return self.paths[goal]

    def decide(self, obs):
        turn = {"type": "turn", "tick": obs["tick"]}
        me = obs["self"]
        if not me["alive"] or me["stunned"] > 0:
            return turn  # moves and attacks would be refused anyway
        here = (me["x"], me["y"])
        opp = next((o for o in obs["opponents"] if o["alive"]), None)
        seen = opp is not None and opp["visible"] and opp["x"] is not None
        opp_tile = (opp["x"], opp["y"]) if seen else None
        # Where to go: the opponent if we see it, else where we last saw it, else the middle (the zone
        # shrinks towards it).
        goal = opp_tile
        if goal is None and opp is not None and opp["last_seen"]:
            goal = tuple(opp["last_seen"]["tile"])
            if goal == here:
                goal = None  # we got there and it is gone
        if goal is None:
            goal = tuple(obs["zone"]["center"])
        walk = self.walk(goal)

        # Tiles that will hurt soon, with how soon (0 = this tick).
        danger = {}
        for d in obs["danger"]:
            t = tuple(d["tile"])
            danger[t] = min(d["in"], danger.get(t, 99))

        # Candidate steps: stay, every legal move, every legal dash (the server lists only legal ones).
        options = [(None, None, here)]
        options += [("move", m["dir"], tuple(m["tile"])) for m in obs["moves"]]
        if me["slowed"] == 0:
            options += [("dash", d["dir"], tuple(d["tile"])) for d in obs["dashes"]]

        def score(option):
            kind, _, tile = option
            s = 0.0
            if tile in danger:
                s -= 100 - 10 * danger[tile]  # sooner is worse
            zone = obs["zone"]
            out = cheb(tile, tuple(zone["center"])) - zone["radius"]
            if out > 0:
                s -= 30 + 5 * out
            steps = walk.get(tile, 99)
            if seen:
                # Close enough to shoot and frost, far enough that the repulsor cannot reach us, in sight.
                s -= 4 * max(0, 4 - cheb(tile, goal)) + 2 * max(0, steps - 6)
                if self.sees(tile, goal):
                    s += 2
            else:
                s -= steps
            for p in obs["pickups"]:
                if cheb(here, tuple(p["tile"])) <= 4:
                    want = 3 if p["kind"] == "heal" and me["hp"] < 60 else 1
                    s -= want * cheb(tile, tuple(p["tile"])) * 0.5
            if kind == "dash":
                s -= 3  # dashes have a long cooldown: keep them for escapes
            return s

        def score_with_motion(option):
            s = score(option)
            if seen and option[0] is None:
                s -= 1.5  # a fighter standing still is the easiest target
            if seen and option[1] is not None and option[1] == self.last_dir:
                s -= 0.5  # and so is one walking in a straight line
            return s

        # max() keeps the first of equal scores, so staying put wins ties.
        best = max(options, key=score_with_motion)
        if best[0]:
            turn[best[0]] = best[1]
        self.last_dir = best[1]
        end_tile = best[2]

        # Attacks are judged from the tile the movement ends on.
        cd = me["cooldowns"]
        if seen:
            d = cheb(end_tile, opp_tile)
            # Both fighters move before shots fly, so aim where the opponent is heading: one more step the
            # way it last moved (if that is floor). A stunned opponent cannot move.
            step = (0, 0)
            if self.prev_opp and not opp["stunned"]:
                step = (opp_tile[0] - self.prev_opp[0], opp_tile[1] - self.prev_opp[1])
                if max(abs(step[0]), abs(step[1])) > 1:
                    step = (0, 0)  # a dash or a push, not a walk
            ahead = (opp_tile[0] + step[0], opp_tile[1] + step[1])
            lead = self.free(*ahead) and ahead != end_tile and self.sees(end_tile, ahead)
            aim = ahead if lead else opp_tile
            in_sight = self.sees(end_tile, aim)
            standing = step == (0, 0)
            if d <= 1 and cd["repulsor"] == 0 and "repulsor" in self.has:
                turn["attack"] = {"name": "repulsor"}  # hits all eight neighbours; no target needed
            elif 0 < d <= self.ranged_range and in_sight and cd["ranged"] == 0 and "ranged" in self.has:
                turn["attack"] = {"name": "ranged", "target": list(aim)}
            elif (
                0 < d <= self.frost_range
                and self.sees(end_tile, opp_tile)
                and cd["frostburst"] == 0
                and "frostburst" in self.has
                and (standing or opp["slowed"] or opp["stunned"])
            ):
                # The burst explodes a couple of ticks later: worth it against a target that is not moving.
                turn["attack"] = {"name": "frostburst", "target": list(opp_tile)}
        self.prev_opp = opp_tile
        return turn


# ---------------------------------------------------------------------------------------------------------
# Protocol, independent of the transport (socket or stdio)
# ---------------------------------------------------------------------------------------------------------


class Session:
    """One per connection. `handle` reads one server message and returns (replies, stop_code)."""

    def __init__(self, queue_after_end):
        self.queue_after_end = queue_after_end
        self.strategy = None
        self.healthy = False  # True once the server answered: the reconnect backoff may start over
        self.requeue_delay = BACKOFF_FIRST_S
        self.requeue_after = None  # seconds until the transport should send `queue` again, when asked

    @staticmethod
    def queue_message():
        msg = {"type": "queue", "version": VERSION}
        if LADDER:
            msg["ladder_id"] = LADDER  # left out means the public ladder
        return msg

    def handle(self, text):
        try:
            msg = json.loads(text)
        except ValueError:
            log("ignoring a message that is not JSON")
            return [], None
        if not isinstance(msg, dict):
            return [], None
        self.healthy = True
        kind = msg.get("type")
        if kind == "queued":
            self.requeue_delay = BACKOFF_FIRST_S
            log("queued as version %s (estimated wait %ss)"
                % (msg.get("version"), msg.get("estimated_wait_s")))
        elif kind == "hello":
            # A new match (or the one we are resuming after a reconnect): fresh strategy state, then accept.
            # `ready` must arrive within the startup window (hello.deadlines.startup_ms).
            log("match %s: we are fighter %s" % (msg.get("match_id"), msg.get("bot_id")))
            try:
                self.strategy = Strategy(msg)
            except Exception:
                log("strategy setup failed; this match will be played idle:\n" + traceback.format_exc())
                self.strategy = None
            return [{"type": "ready"}], None
        elif kind == "observation":
            log_rejections(msg)
            return [self.turn_for(msg)], None
        elif kind == "end":
            change = msg.get("rating_change")
            rating = "unrated" if change is None else "rating %+d" % change
            log("match %s over: %s (%s, %s) %s"
                % (msg.get("match_id"), msg.get("result"), msg.get("reason"), rating, msg.get("watch_url")))
            self.strategy = None
            # The server does not queue us again by itself: ask for the next match.
            return ([self.queue_message()] if self.queue_after_end else []), None
        elif kind == "error":
            # Queue and match errors such as quota_exceeded or already_queued are informational: we stay
            # connected (and queued). Only connection errors are fatal.
            code = str(msg.get("code"))
            log("server error %s: %s" % (code, msg.get("message")))
            if code in STOP_CODES:
                return [], code
            if code in RETRY_QUEUE_CODES and self.queue_after_end and self.strategy is None:
                # Our `queue` was not taken: ask again later, backing off like a reconnect.
                self.requeue_after = self.requeue_delay
                self.requeue_delay = min(self.requeue_delay * 2, BACKOFF_CAP_S)
                log("queueing again in %ss" % self.requeue_after)
            return [], None
        elif kind == "replaced":
            log("another connection with this token took over")
            return [], "replaced"
        elif kind == "server_draining":
            # The server shuts down after running matches finish; no reply needed. It closes the socket with
            # code 1012 later and we come back with the usual backoff.
            log("server draining (matches may run until %s)" % msg.get("drain_deadline"))
        # Anything else: newer servers may add message types; ignoring them keeps old bots working.
        return [], None

    def turn_for(self, obs):
        """Always answers: a strategy error becomes an idle turn rather than a missed deadline."""
        tick = obs.get("tick")
        if self.strategy is None:
            return {"type": "turn", "tick": tick}
        try:
            turn = self.strategy.decide(obs)
        except Exception:
            log("decide failed on tick %s; sending an idle turn:\n%s" % (tick, traceback.format_exc()))
            return {"type": "turn", "tick": tick}
        # The tick must be the observation's, or the server refuses the whole turn.
        turn["type"] = "turn"
        turn["tick"] = tick
        return turn


# ---------------------------------------------------------------------------------------------------------
# WebSocket transport
# ---------------------------------------------------------------------------------------------------------


def open_socket(websockets):
    """websockets 14 renamed `extra_headers` to `additional_headers` (new asyncio client); support both."""
    headers = {"Authorization": "Bearer " + TOKEN}
    major = int(websockets.__version__.split(".")[0])
    # The library sends the Pings and closes the socket when a Pong misses its deadline.
    options = dict(
        open_timeout=HANDSHAKE_TIMEOUT_S, ping_interval=PING_INTERVAL_S, ping_timeout=PONG_DEADLINE_S
    )
    if major >= 14:
        return websockets.connect(URL, additional_headers=headers, **options)
    return websockets.connect(URL, extra_headers=headers, **options)


def refused_upgrade(exc):
    """(status, code) of an HTTP refusal of the upgrade, or None. Older websockets do not keep the body."""
    response = getattr(exc, "response", None)  # websockets >= 14: InvalidStatus.response
    status = getattr(exc, "status_code", None) or getattr(response, "status_code", None)
    if status is None:
        return None
    code = None
    try:
        code = json.loads(getattr(response, "body", b"") or b"{}").get("code")
    except (ValueError, AttributeError):
        pass
    return status, code


async def queue_later(send, ws, delay):
    await asyncio.sleep(delay)
    await send(ws, Session.queue_message())


async def connect_once(websockets):
    """Opens one socket and plays on it until it closes. Returns (stop_code, healthy, why)."""
    session = Session(queue_after_end=True)

    async def send(ws, msg):
        try:
            await ws.send(json.dumps(msg))
        except websockets.exceptions.ConnectionClosed:
            # Keep reading instead: the server's last words (`replaced`, a fatal `error`) may still be waiting
            # in the receive buffer, and they decide whether we may reconnect.
            pass

    requeue = None  # the pending delayed `queue`, cancelled when the socket goes
    try:
        async with open_socket(websockets) as ws:
            log("connected to " + URL)
            await send(ws, Session.queue_message())
            try:
                async for text in ws:
                    if isinstance(text, bytes):
                        continue
                    replies, stop = session.handle(text)
                    for reply in replies:
                        await send(ws, reply)
                    if session.requeue_after is not None:
                        if requeue is None or requeue.done():
                            requeue = asyncio.ensure_future(queue_later(send, ws, session.requeue_after))
                        session.requeue_after = None
                    if stop:
                        await ws.close()
                        return stop, session.healthy, "server said " + stop
            except websockets.exceptions.ConnectionClosed:
                pass  # the close code below says why
            code = getattr(ws, "close_code", None)
            # 1012 is the server restarting (after server_draining): a planned restart, retried like any drop.
            why = "server restarting (1012)" if code == 1012 else "closed (%s)" % code
            return None, session.healthy, why
    except websockets.exceptions.InvalidHandshake as exc:
        refused = refused_upgrade(exc)
        if refused is None:
            return None, False, "handshake failed: %s" % exc
        status, code = refused
        why = "upgrade refused with HTTP %s%s" % (status, " (%s)" % code if code else "")
        # 401/403 carry {error, code}: a refused credential will not become valid by retrying. Anything else
        # (502/503 during a restart, for example) is retried with backoff.
        if code in STOP_CODES or status in (401, 403):
            return code or "http_%s" % status, False, why
        return None, False, why
    except (OSError, asyncio.TimeoutError) as exc:
        return None, False, "cannot connect: %s" % (exc or type(exc).__name__)
    finally:
        if requeue is not None:
            requeue.cancel()


async def run_socket():
    if not TOKEN:
        log("ARENA_TOKEN is not set: put your bot token in the environment")
        return 2
    try:
        import websockets  # imported here so that --stdio works without the package
    except ImportError:
        log(
            "the websockets package is missing: python3 -m venv .venv && .venv/bin/python -m pip install websockets,"
            " then run with .venv/bin/python (or apt install python3-websockets)"
        )
        return 2
    delay = BACKOFF_FIRST_S
    while True:
        stop, healthy, why = await connect_once(websockets)
        if stop:
            log("stopping for good: " + why)
            return 1
        # A connection the server answered counts as a success: the next outage starts again from 1 s.
        if healthy:
            delay = BACKOFF_FIRST_S
        log("%s; reconnecting in %ss" % (why, delay))
        await asyncio.sleep(delay)
        delay = min(delay * 2, BACKOFF_CAP_S)


def run_stdio():
    """The same messages as JSON lines on stdin/stdout, for the simulator's `cmd:` bots. The simulator
    starts matches itself, so no queue is sent. Ends when stdin closes."""
    session = Session(queue_after_end=False)
    for line in sys.stdin:
        if not line.strip():
            continue
        replies, stop = session.handle(line)
        for reply in replies:
            sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        if stop:
            log("stopping: " + stop)
            break
    return 0


def main():
    if STDIO:
        return run_stdio()
    try:
        return asyncio.run(run_socket())
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
