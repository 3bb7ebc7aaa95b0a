// Sharing replays as a feature (issue 35): the embeddable viewer (`/embed/<id>`, the one page other sites may
// frame) and an owner's replays in one archive (`GET /api/account/bots/<name>/replays`).
import { z } from "zod";
import { defineFeature } from "../kernel/feature.ts";
import { operationFor } from "../kernel/operation.ts";
import { ArchiveQuery, type ArchiveServices, sendArchive } from "./archive.ts";
import { ownerReplaysBotPart } from "./bot-page.ts";
import { type EmbedServices, embedPages } from "./embed.ts";

type ReplayShareServices = ArchiveServices & EmbedServices;

declare module "../kernel/feature.ts" {
  interface Services {
    replayShare: ReplayShareServices;
  }
}

const defineOperation = operationFor<ReplayShareServices>();

export const REPLAY_SHARE_OPERATIONS = [
  defineOperation({
    method: "GET",
    path: "/api/account/bots/:name/replays",
    operationId: "downloadBotReplays",
    summary:
      "The bot's stored replays as one zip (each <match_id>.jsonl.gz), optionally of one version and one opponent",
    auth: "session",
    params: z.object({ name: z.string() }),
    query: ArchiveQuery,
    errors: { 404: "`no_such_bot`: no bot of this name in the account" },
    handle: async ({ caller, params, query, reply }, ctx) =>
      sendArchive(ctx, caller, params.name, query, reply),
  }),
];

export const replayShareFeature = defineFeature({
  name: "replayShare",
  needs: ["store", "botStore", "replays", "reads", "matches", "pageParts"],
  build: (kernel, deps) => ({ ...deps, db: kernel.db }),
  operations: REPLAY_SHARE_OPERATIONS,
  pages: embedPages,
  // The owner's replay download on the site's bot page.
  start: (_s, _kernel, { pageParts }) => pageParts.addToBotPage(ownerReplaysBotPart()),
});
