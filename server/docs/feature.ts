// The published documents as a feature (SPEC 4.1 `GET /docs`, `/docs/<name>`, the schemas, and the agent guide
// tool): its operations, handed the config (the public address the documents are written for).
import { defineFeature } from "../kernel/feature.ts";
import { DOCS_OPERATIONS, type DocsServices } from "./routes.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    docs: DocsServices;
  }
}

export const docsFeature = defineFeature({
  name: "docs",
  needs: [],
  build: (kernel) => ({ config: kernel.config }),
  operations: DOCS_OPERATIONS,
});
