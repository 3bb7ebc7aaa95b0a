// Parts a feature adds to a page another feature serves (issue 32: a new feature is a new folder, not an edit of
// the site's pages). The site's bot page asks every registered part for its section: the insight feature adds the
// regression notice and the rank and rivals, the scrimmages feature the owner's scrimmage controls, the replay
// sharing feature the owner's replay download. Each part names its slot on the page and its order within it, and
// may add page scripts; the page places what they render and knows none of them.
import type { BotT } from "../api/responses.ts";
import { ApiError } from "../errors.ts";
import { defineFeature } from "../kernel/feature.ts";
import { type Html, trusted } from "./html.ts";

/** Where on the bot page a part goes: `top` below the header, before the rating history; `bottom` at the end. */
export type BotPageSlot = "top" | "bottom";

export interface BotPagePart {
  /** The contributing feature, for the reader of the code. */
  from: string;
  slot: BotPageSlot;
  /** Smaller first within the slot. */
  order: number;
  /** The section, or "" for none; an ApiError (a read the bot's ladder cannot answer) leaves it out. */
  render(bot: BotT, ladder: string | null): Html | "" | Promise<Html | "">;
  /** Page scripts the section needs. */
  scripts?(bot: BotT): readonly string[];
}

/** The bot page's parts, rendered and joined per slot, and their scripts in part order. */
export interface BotPageParts {
  top: Html;
  bottom: Html;
  scripts: string[];
}

export class PageParts {
  private readonly botParts: BotPagePart[] = [];

  addToBotPage(part: BotPagePart): void {
    this.botParts.push(part);
    this.botParts.sort((a, b) => a.order - b.order);
  }

  async botPage(bot: BotT, ladder: string | null): Promise<BotPageParts> {
    const rendered = await Promise.all(
      this.botParts.map(async (p) => {
        try {
          return await p.render(bot, ladder);
        } catch (err) {
          if (err instanceof ApiError) return "";
          throw err;
        }
      }),
    );
    // One line between the parts of a slot, as the page's own sections are written.
    const slot = (s: BotPageSlot) =>
      trusted(
        this.botParts
          .map((p, i) => [p, rendered[i]!] as const)
          .filter(([p]) => p.slot === s)
          .map(([, h]) => (h === "" ? "" : h.value))
          .join("\n"),
      );
    return {
      top: slot("top"),
      bottom: slot("bottom"),
      scripts: this.botParts.flatMap((p) => p.scripts?.(bot) ?? []),
    };
  }
}

declare module "../kernel/feature.ts" {
  interface Services {
    /** The parts features add to other features' pages. */
    pageParts: PageParts;
  }
}

export const pagePartsFeature = defineFeature({
  name: "pageParts",
  needs: [],
  build: () => new PageParts(),
});
