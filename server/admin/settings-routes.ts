// Live settings (SPEC 4.6 settings, 8): read, replace with an expected revision (a stale one is 409 and
// changes nothing), preview a change across ladders (changes nothing), and save the current overrides as a
// named preset that a later PUT can apply again. Admin only; the settings service does the work.
import { z } from "zod";
import { errors } from "../errors.ts";
import type { Kernel, Services } from "../kernel/feature.ts";
import { operationFor } from "../kernel/operation.ts";
import type { Limits, Overrides } from "../kernel/settings.ts";

/** What these operations are handed (their feature: feature.ts beside this file). */
export type SettingsServices = Pick<Services, "ladders" | "ladderTables" | "store"> &
  Pick<Kernel, "bus" | "settings">;
const defineOperation = operationFor<SettingsServices>();

const Revision = z
  .number({ error: "revision is required (the one GET /api/admin/settings returned)" })
  .int()
  .min(0);
const PutBody = z
  .object({
    revision: Revision,
    overrides: z.unknown().optional(),
    preset: z.string().min(1).max(64).optional(),
    note: z.string().max(1000).optional(),
  })
  .strict()
  .refine((b) => (b.overrides === undefined) !== (b.preset === undefined), {
    message: "send either overrides or the name of a preset",
  });
const PreviewBody = z
  .object({
    revision: Revision.optional(),
    overrides: z.unknown(),
    ladders: z.array(z.string().max(64)).max(100).optional(),
  })
  .strict();
const PresetBody = z
  .object({
    revision: Revision,
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$/, "preset name: 1-64 letters, digits, spaces, ., _ or -"),
  })
  .strict();

const ladderIds = (ctx: SettingsServices) => ctx.ladders.all().map((l) => l.id);

async function view(ctx: SettingsServices) {
  const { settings, ladders, ladderTables } = ctx;
  const s = settings.current;
  const presets = await ladderTables.presets();
  return {
    revision: s.revision,
    updated: s.updated,
    updated_by: s.updated_by,
    defaults: settings.defaults,
    overrides: s.overrides,
    ladder_limits: settings.ladderLimits,
    // What a form needs to offer each limit: its bounds, unit and meaning, and whether a ladder may set it.
    limits: (Object.keys(settings.specs) as (keyof Limits)[]).map((name) => {
      const { min, max, unit, about, ladder } = settings.specs[name];
      return { name, min, max, unit, about, ladder };
    }),
    effective: {
      global: settings.limits(),
      ladders: Object.fromEntries(ladders.all().map((l) => [l.id, settings.limits(l.id)])),
    },
    presets: presets.map((p) => ({ name: p.name, overrides: p.overrides, created: p.created })),
  };
}

export const SETTINGS_OPERATIONS = [
  defineOperation({
    method: "GET",
    path: "/api/admin/settings",
    operationId: "getSettings",
    summary:
      "The live operational policy: defaults from flags, overrides, effective limits per ladder, presets",
    auth: "admin",
    handle: async (_input, ctx) => view(ctx),
  }),
  defineOperation({
    method: "PUT",
    path: "/api/admin/settings",
    operationId: "putSettings",
    summary: "Replace the overrides (or apply a preset) at the expected revision; takes effect at once",
    auth: "admin",
    body: PutBody,
    errors: { 400: "invalid overrides", 404: "unknown ladder or preset", 409: "`stale_revision`" },
    handle: async ({ body, caller }, ctx) => {
      const { settings, store, ladderTables, bus } = ctx;
      let overrides: Overrides;
      if (body.preset !== undefined) {
        const preset = (await ladderTables.presets()).find((p) => p.name === body.preset);
        if (!preset) throw errors.notFound(`preset ${JSON.stringify(body.preset)}`);
        overrides = settings.validate(preset.overrides, ladderIds(ctx));
      } else overrides = settings.validate(body.overrides, ladderIds(ctx));
      await settings.update(
        store,
        ladderTables,
        bus,
        body.revision,
        overrides,
        caller.account.handle ?? caller.account.id,
        {
          ...(body.preset ? { preset: body.preset } : {}),
          ...(body.note ? { note: body.note } : {}),
        },
      );
      return view(ctx);
    },
  }),
  defineOperation({
    method: "POST",
    path: "/api/admin/settings/preview",
    operationId: "previewSettings",
    summary:
      "What would change, server-wide and on the named ladders (default: all), without changing anything",
    auth: "admin",
    body: PreviewBody,
    errors: { 400: "invalid overrides", 404: "unknown ladder" },
    handle: async ({ body }, ctx) => {
      const { settings, ladders } = ctx;
      const overrides = settings.validate(body.overrides, ladderIds(ctx));
      const named = body.ladders ?? ladderIds(ctx);
      for (const id of named) ladders.require(id);
      return {
        revision: settings.current.revision,
        stale: body.revision !== undefined && body.revision !== settings.current.revision,
        changes: settings.preview(overrides, [null, ...named]),
      };
    },
  }),
  defineOperation({
    method: "POST",
    path: "/api/admin/settings/presets",
    operationId: "savePreset",
    summary: "Save the current overrides under a name (at the expected revision) to apply again later",
    auth: "admin",
    body: PresetBody,
    status: 201,
    errors: { 409: "`stale_revision`" },
    handle: async ({ body, caller }, ctx) => {
      const { settings, store, ladderTables } = ctx;
      const by = caller.account.handle ?? caller.account.id;
      const overrides = await settings.savePreset(store, ladderTables, body.revision, body.name, by);
      return { name: body.name, revision: body.revision, overrides };
    },
  }),
];
