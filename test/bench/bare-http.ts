// The ceiling for the read benchmark (test/bench/reads-bench.ts): a bare Fastify server, in a process of its
// own like the ladder server, that answers each recorded address with the body and content type the ladder
// server gave for it, and nothing else. Same framework, same request logging as the server's default (pino at
// info, to stdout), so the ratio of the two is what the ladder's own read path costs. Started with the path of
// a JSON file [{url, type, body}]; prints {"port": N} once listening.
import { readFileSync } from "node:fs";
import Fastify from "fastify";

const pages = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as {
  url: string;
  type: string;
  body: string;
}[];
const byUrl = new Map(pages.map((p) => [p.url, p]));
const app = Fastify({ logger: { level: "info" } });
app.get("/*", async (req, reply) => {
  const p = byUrl.get(req.url);
  if (!p) return reply.code(404).send({ error: "not recorded" });
  return reply.type(p.type).send(p.body);
});
await app.listen({ port: 0, host: "127.0.0.1" });
process.stderr.write(`${JSON.stringify({ port: (app.server.address() as { port: number }).port })}\n`);
