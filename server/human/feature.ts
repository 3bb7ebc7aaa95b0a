// Human play as a feature (SPEC 1.7): play tickets and the `/human` socket. A person's game starts at once
// against a house bot of the main ladder (SPEC 1.2 rule 8: its house bots are always queued), on a random map.
import { randomBytes } from "node:crypto";
import { MAP_NAMES } from "../../engine/rules.ts";
import { defineFeature } from "../kernel/feature.ts";
import { HumanPlay } from "./human-play.ts";

export const humanPlayFeature = defineFeature({
  name: "humanPlay",
  needs: ["store", "accountStore", "lobby", "live", "matches", "ladders", "doors"],
  build: (kernel, { store, accountStore, lobby, live, matches, ladders, doors }) => {
    const { config, log, settings } = kernel;
    const humanPlay = new HumanPlay({
      config,
      log,
      store,
      accountStore,
      lobby,
      matches,
      maxConcurrentMatches: () => settings.limits().maxConcurrentMatches,
      start: (human, house) =>
        live.start(
          {
            seats: [human, house],
            seed: randomBytes(4).readUInt32LE(0) >>> 1,
            map: MAP_NAMES[randomBytes(1)[0]! % MAP_NAMES.length]!,
          },
          ladders.main.id,
          "human",
        ),
    });
    doors.open("/human", (req, socket, head) => humanPlay.handleUpgrade(req, socket, head));
    return humanPlay;
  },
  drain: (humanPlay, deadline) => humanPlay.drain(deadline),
  stop: (humanPlay) => humanPlay.closeAll(),
});
