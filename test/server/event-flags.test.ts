// The operator's event flags checked against the manifest at start: an entry naming no event, or no
// achievement of its event (a misspelt id), is said in one warning that names the ids and never a value;
// flags that all match say nothing.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { Flags } from "../../server/events/flags.ts";
import { startServer } from "../helpers/server.ts";

const events = [{ id: "practice", achievements: [{ id: "first-contact" }, { id: "kiter-down" }] }];

describe("event flags that name nothing", () => {
  it("lists the misspelt events and achievements, each once", () => {
    const flags = Flags.load({
      json: JSON.stringify({
        practice: { "first-contact": "F1", "kiter-dwn": "F2" },
        practise: { "first-contact": "F3", "kiter-down": "F4" },
      }),
    });
    expect(flags.unmatched(events)).toEqual(["practice/kiter-dwn", "practise"]);
    expect(
      Flags.load({ json: JSON.stringify({ practice: { "kiter-down": "F" } }) }).unmatched(events),
    ).toEqual([]);
  });

  async function startLog(eventFlags: string): Promise<string> {
    let text = "";
    const logStream = new PassThrough();
    logStream.on("data", (c: Buffer) => {
      text += c.toString();
    });
    const srv = await startServer({ eventFlags, logLevel: "warn" }, { logStream });
    await srv.stop();
    return text;
  }

  it("warns at start with the ids and no value; says nothing when every flag matches", async () => {
    const typo = await startLog(
      JSON.stringify({ practice: { "first-contact": "SECRET-ONE", "bank-shoot": "SECRET-TWO" } }),
    );
    const warnings = typo
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: number; msg: string; unmatched?: string[] })
      .filter((l) => l.unmatched);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 40, unmatched: ["practice/bank-shoot"] });
    expect(warnings[0]!.msg).toContain("practice/bank-shoot");
    expect(typo).not.toContain("SECRET-");
    const clean = await startLog(JSON.stringify({ practice: { "first-contact": "SECRET-ONE" } }));
    expect(clean).not.toContain("unmatched");
  });
});
