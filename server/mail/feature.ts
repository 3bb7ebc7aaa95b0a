// Email's API as a feature (SPEC 6.3: preferences' unsubscribe, the admin outbox and incidents): its
// operations, handed the mail service, the config and the live settings.
import { defineFeature } from "../kernel/feature.ts";
import { MAIL_OPERATIONS, type MailRouteServices } from "./routes.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    mailApi: MailRouteServices;
  }
}

export const mailFeature = defineFeature({
  name: "mailApi",
  needs: ["mail"],
  build: (kernel, deps) => ({ ...deps, config: kernel.config, settings: kernel.settings }),
  operations: MAIL_OPERATIONS,
});
