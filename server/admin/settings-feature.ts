// Live settings as a feature (SPEC 4.6 and 8: the overrides, their preview, presets and history): its
// operations, handed the ladders (a ladder's overrides name it), the store, the bus and the settings.
import { defineFeature } from "../kernel/feature.ts";
import { SETTINGS_OPERATIONS, type SettingsServices } from "./settings-routes.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    liveSettings: SettingsServices;
  }
}

export const settingsFeature = defineFeature({
  name: "liveSettings",
  needs: ["ladders", "ladderTables", "store"],
  build: (kernel, deps) => ({ ...deps, bus: kernel.bus, settings: kernel.settings }),
  operations: SETTINGS_OPERATIONS,
});
