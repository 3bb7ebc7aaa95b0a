// Writes the generated docs (see engine/docs-gen.ts). Run after changing the rules table or the protocol.
import { readFileSync, writeFileSync } from "node:fs";
import { jsonSchemas, rulesDocument, withRulesTable } from "../engine/docs-gen.ts";

const root = new URL("../docs/", import.meta.url);
for (const [name, schema] of Object.entries(jsonSchemas())) {
  writeFileSync(new URL(`schema/${name}.json`, root), `${JSON.stringify(schema, null, 2)}\n`);
}
writeFileSync(new URL("rules.json", root), `${JSON.stringify(rulesDocument(), null, 2)}\n`);
const rulesMd = new URL("rules.md", root);
writeFileSync(rulesMd, withRulesTable(readFileSync(rulesMd, "utf8")));
console.log("docs/schema/*.json, docs/rules.json and the table in docs/rules.md are up to date");
