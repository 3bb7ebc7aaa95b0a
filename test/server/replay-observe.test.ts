// `arena-sim observe` against the live server (issue 35): a real WebSocket bot plays a ranked match against a
// house bot and keeps every observation exactly as it arrived; the served replay, through observe, gives back
// each of them byte for byte, but for budget_ms_left (the replay holds no reply times, so observe counts them
// as 0 ms: the only field it cannot know). Forking the served replay with both seats replayed gives it back.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";
import { runCli } from "../sim/helpers.ts";

let srv: TestServer;
const tmp = mkdtempSync(join(tmpdir(), "replay-observe-"));
beforeAll(async () => {
  srv = await startServer({ tickMs: 200, startupMs: 2000 });
});
afterAll(async () => {
  await srv?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

const BUDGET = /"budget_ms_left":\d+/;

describe("observe on a ladder replay", () => {
  it("prints the observation the live bot received at each tick", async () => {
    const bot = new BotClient(srv.wsUrl, await srv.register("observe-live"));
    await bot.open();
    // The text of each observation exactly as it came off the socket.
    const raw: string[] = [];
    bot.ws.on("message", (data) => {
      const text = data.toString();
      if (text.startsWith('{"type":"observation"')) raw.push(text);
    });
    const hello = await bot.queueForMatch();
    const id = hello.match_id as string;
    const me = hello.bot_id as number;
    const since = bot.received.length;
    // Varied play, so the observations carry events, cooldowns and sightings: move, and shoot when seen.
    const stop = bot.autoplay((o) => {
      const opp = (o.opponents as { visible: boolean; x: number; y: number }[])[0]!;
      const moves = o.moves as { dir: string }[];
      const turn: Record<string, unknown> = { type: "turn", tick: o.tick };
      if (moves.length > 0) turn.move = moves[(o.tick as number) % moves.length]!.dir;
      if (opp.visible) turn.attack = { name: "ranged", target: [opp.x, opp.y] };
      return turn;
    });
    bot.send({ type: "ready" });
    const end = await bot.next("end", undefined, 120_000, since);
    stop();
    bot.close();
    expect(raw.length).toBeGreaterThan(5);

    const res = await fetch(`${srv.url}/replays/${id}.jsonl.gz`);
    expect(res.status).toBe(200);
    const file = join(tmp, `${id}.jsonl.gz`);
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));

    for (const text of raw) {
      const tick = (JSON.parse(text) as { tick: number }).tick;
      const r = await runCli(["observe", file, "--tick", String(tick), "--seat", String(me)]);
      expect(r.code, r.stderr).toBe(0);
      const printed = r.stdout.trimEnd();
      expect(printed).toMatch(/"budget_ms_left":300000/);
      expect(printed.replace(BUDGET, "")).toBe(text.replace(BUDGET, ""));
    }
    expect((JSON.parse(raw.at(-1)!) as { tick: number }).tick).toBeLessThan(end.final_tick as number);

    // And the fork of the served replay with both seats replayed is the served replay.
    const out = join(tmp, "fork.jsonl.gz");
    const f = await runCli(["fork", file, "--tick", "10", "--a", "replay", "--b", "replay", "--out", out]);
    expect(f.code, f.stderr).toBe(0);
    expect(Buffer.compare(readFileSync(out), readFileSync(file))).toBe(0);
  }, 180_000);
});
