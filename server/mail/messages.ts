// The words of each kind of email, as parts for templates.ts. Producers (server/mail/producers.ts), the
// announcement service and the admin preview (GET /api/admin/emails/preview) all build mail here, so a sample
// is exactly what a recipient would get.
import type { MailParts } from "./templates.ts";

const who = (handle: string | null) => (handle ? `Hello ${handle},` : "Hello,");

export function welcome(base: string, handle: string | null): MailParts {
  return {
    subject: "Welcome to the ladder",
    greeting: who(handle),
    paragraphs: [
      "Your account is ready. Choose a handle on your account page, then register a bot and let it queue: the matchmaker pairs it with bots of a similar rating.",
      "The bot guide explains the protocol; the starter bots are a working place to begin.",
    ],
    link: { label: "Open your account", url: `${base}/account` },
  };
}

export function achievement(
  base: string,
  handle: string | null,
  a: { event: string; achievement: string; bot?: string | null },
): MailParts {
  return {
    subject: `Achievement earned: ${a.achievement}`,
    greeting: who(handle),
    paragraphs: [
      `${a.bot ? `Your bot ${a.bot}` : "You"} earned the achievement "${a.achievement}" in ${a.event}.`,
      "Open your account page to see the award and its evidence.",
    ],
    link: { label: "See your achievements", url: `${base}/account` },
  };
}

export function adminWarning(base: string, title: string, lines: string[]): MailParts {
  return {
    subject: `Ladder warning: ${title}`,
    paragraphs: lines,
    link: { label: "Open the admin console", url: `${base}/admin` },
  };
}

export function botHealth(
  base: string,
  handle: string | null,
  h: { bot: string; version: string; games: number; problems: string[] },
): MailParts {
  return {
    subject: `${h.bot} (${h.version}) needs a look`,
    greeting: who(handle),
    paragraphs: [
      `In its latest ${h.games} games, version ${h.version} of ${h.bot} had trouble:`,
      "Its bot page shows the health figures and the matches to replay.",
    ],
    list: h.problems,
    link: { label: `Open ${h.bot}`, url: `${base}/bot/${encodeURIComponent(h.bot)}` },
  };
}

export interface DigestBot {
  name: string;
  games: number;
  wins: number;
  rating_change: number | null;
  best_win: { opponent: string; match_id: string } | null;
}

export function weeklyDigest(
  base: string,
  handle: string | null,
  weekOf: string,
  bots: DigestBot[],
): MailParts {
  return {
    subject: `Your bots' week (from ${weekOf})`,
    greeting: who(handle),
    paragraphs: [`Here is how your bots did in the week from ${weekOf}.`],
    list: bots.map((b) => {
      const change =
        b.rating_change === null ? "" : `, rating ${b.rating_change >= 0 ? "+" : ""}${b.rating_change}`;
      const best = b.best_win
        ? `, best win against ${b.best_win.opponent} (${base}/match/${b.best_win.match_id})`
        : "";
      return `${b.name}: ${b.games} games, ${b.wins} wins${change}${best}`;
    }),
    link: { label: "Open the ladder", url: `${base}/ladder` },
  };
}

export function eventReminder(
  base: string,
  handle: string | null,
  e: { event: string; what: "opens" | "closes"; at: string; url?: string },
): MailParts {
  return {
    subject: `${e.event} ${e.what} soon`,
    greeting: who(handle),
    paragraphs: [`${e.event} ${e.what} at ${e.at} (UTC).`],
    link: { label: `Open ${e.event}`, url: e.url ?? `${base}/ladder` },
  };
}

export function announcement(title: string, body: string): MailParts {
  return { subject: title, paragraphs: body.split(/\n{2,}/) };
}
