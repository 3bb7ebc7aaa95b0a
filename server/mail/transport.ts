// Account emails (confirmation, recovery) and the transport of the email outbox (server/mail/). With SMTP configured they go out through nodemailer; otherwise
// they land in the outbox, `<data dir>/outbox/*.eml`, which the operator can read, and in development the
// console says where the link is. Nothing here logs the link's secret to the structured log.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Transporter } from "nodemailer";

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers (List-Unsubscribe and List-Unsubscribe-Post of the outbox's mails). */
  headers?: Record<string, string>;
}

export interface Mailer {
  readonly mode: "smtp" | "outbox";
  send(mail: Mail): Promise<void>;
}

export function makeMailer(opts: {
  smtpUrl: string | undefined;
  from: string;
  dataDir: string;
  /**
   * How long the SMTP server may take to accept the connection and greet (together), and how long the
   * connection may stay silent at any later step (after DATA included). Without it nodemailer waits up to
   * 2 minutes to connect and 10 minutes on a silent socket, and the one outbox sender waits with it.
   */
  timeoutMs: number;
  /** Called with the outbox file when mail is not sent (development console hint). */
  onOutbox?: (file: string, mail: Mail) => void;
}): Mailer {
  if (opts.smtpUrl) {
    // nodemailer loads when SMTP is configured, not in every server (docs/performance-live-path.md, "Memory at start").
    const smtpUrl = opts.smtpUrl;
    const t = opts.timeoutMs;
    // Settings in the URL's query (e.g. ?socketTimeout=) still win: nodemailer applies these where it sets none.
    const transport: Promise<Transporter> = import("nodemailer").then((m) =>
      m.default.createTransport({
        url: smtpUrl,
        connectionTimeout: t,
        greetingTimeout: t,
        // A quarter longer, so a server that never greets always meets the greeting's timeout first (the two
        // timers otherwise tie, and a silent-socket timeout would put a mail that was never sent in doubt).
        socketTimeout: Math.round(t * 1.25),
      }),
    );
    transport.catch(() => {}); // a failure is thrown by the first send
    return {
      mode: "smtp",
      async send(mail) {
        await (await transport).sendMail({ from: opts.from, ...mail });
      },
    };
  }
  const dir = join(opts.dataDir, "outbox");
  let seq = 0;
  return {
    mode: "outbox",
    async send(mail) {
      await mkdir(dir, { recursive: true });
      const file = join(dir, `${Date.now()}-${String(seq++).padStart(4, "0")}.eml`);
      const eml = [
        `From: ${opts.from}`,
        `To: ${mail.to}`,
        `Subject: ${mail.subject}`,
        `Date: ${new Date().toUTCString()}`,
        ...Object.entries(mail.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
        "Content-Type: text/plain; charset=utf-8",
        "",
        mail.text,
        "",
      ].join("\r\n");
      await writeFile(file, eml, { mode: 0o600 });
      opts.onOutbox?.(file, mail);
    },
  };
}
