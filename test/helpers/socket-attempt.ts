// One WebSocket connect and how it went, for the tests of the socket doors (per-address budgets, the server's
// upgrade budget): the HTTP refusal (status, Retry-After, body), or the server's first message and close code.
import WebSocket from "ws";

export interface SocketOutcome {
  status?: number;
  retryAfter?: string;
  body?: { code?: string };
  first?: { code?: string };
  close?: number;
}

/**
 * Connects to `url` with `token` (none: no Authorization header), from `localAddress` when given. With
 * `hangUpAfterFirst` the client closes after the server's first message instead of waiting for the server to.
 */
export function socketAttempt(
  url: string,
  token: string | null,
  opts: { localAddress?: string; hangUpAfterFirst?: boolean } = {},
): Promise<SocketOutcome> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, {
      ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
      ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
    });
    let first: SocketOutcome["first"];
    ws.on("unexpected-response", (_req, res) => {
      let text = "";
      res.on("data", (c: Buffer) => {
        text += c.toString();
      });
      res.on("end", () => {
        resolve({
          status: res.statusCode!,
          retryAfter: String(res.headers["retry-after"]),
          body: JSON.parse(text),
        });
        ws.terminate();
      });
    });
    ws.on("message", (d) => {
      first ??= JSON.parse(d.toString());
      if (opts.hangUpAfterFirst) ws.close();
    });
    ws.on("close", (code) => resolve({ first, close: code }));
    ws.on("error", () => {});
  });
}
