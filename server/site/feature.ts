// The site's pages as a feature (SPEC 1: the home page, the dashboard, bot, user and match pages, the viewer,
// /play and /account): mounted after every operation, handed the accounts, the ladders, the running matches,
// the reads, the identity provider's address and the config.

import { accountPageRoutes } from "../accounts/account-pages.ts";
import { defineFeature, type Kernel, type Services } from "../kernel/feature.ts";
import { pageRoutes } from "./pages.ts";
import { playPageRoutes } from "./play-page.ts";

type WebServices = Pick<
  Services,
  "accounts" | "identity" | "insight" | "ladders" | "matches" | "pageParts" | "reads"
> &
  Pick<Kernel, "config">;

declare module "../kernel/feature.ts" {
  interface Services {
    web: WebServices;
  }
}

export const webFeature = defineFeature({
  name: "web",
  needs: ["accounts", "identity", "insight", "ladders", "matches", "pageParts", "reads"],
  build: (kernel, deps) => ({ ...deps, config: kernel.config }),
  pages: (http, svc) => {
    pageRoutes(http, svc);
    accountPageRoutes(http, svc);
    playPageRoutes(http, svc);
  },
});
