// Timed events as a feature (SPEC 3.1's events, 3.9's opponent requests, 6's achievements): loaded from the
// manifest's events with the stored overrides, earning from committed results, phases on the scheduler. The
// events fill the ladders' two hooks: an event ladder takes queues from enrolled accounts only, and a bot may ask
// to meet a house bot. Reminders of an event's window are announced for the mail to send.
import { defineFeature } from "../kernel/feature.ts";
import { Events, Flags } from "./service.ts";

export const eventsServiceFeature = defineFeature({
  name: "events",
  needs: ["store", "accountStore", "ladderTables", "ladders", "membership", "lobby"],
  build: async (kernel, { store, accountStore, ladderTables, ladders, membership, lobby }) => {
    const { config, bus, scheduler, log } = kernel;
    const events = new Events({
      store,
      accountStore,
      ladderTables,
      ladders,
      membership,
      lobby,
      bus,
      scheduler,
      log,
      flags: Flags.load({ file: config.eventFlagsFile, json: config.eventFlags }),
      houseBots: config.houseBots,
      publicUrl: config.publicUrl,
    });
    await events.load(ladders.manifest);
    ladders.admitWith((bot, ladderId) => events.mayQueue(bot, ladderId));
    ladders.requestOpponentsWith({
      requested: (botId, ladderId) => events.requests.requested(botId, ladderId),
      served: (botId) => events.requests.served(botId),
    });
    return events;
  },
  listeners: (events) => ({
    MatchFinished: (e) => events.awards.onMatch(e),
    LadderWindowMoved: (e) => events.staff.windowMoved(e),
  }),
  jobs: (events) => [events.phaseJob()],
});
