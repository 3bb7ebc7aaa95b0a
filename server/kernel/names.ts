// The naming rules every domain applies, each written once (issue 32): a bot's name (SPEC 4.2: 2-24 letters,
// digits, `-` or `_`) and an account's handle. Routes, reads, admin and pages take them from here; the HTML
// pattern of the pages' inputs is made from the same rule.

import { z } from "zod";

/** A bot's name: 2-24 letters, digits, `-` or `_`. */
export const BOT_NAME = /^[A-Za-z0-9_-]{2,24}$/;
/** The rule in words, for error messages and hints. */
export const BOT_NAME_RULE = "2-24 letters, digits, - or _";
/** The same rule as an HTML `pattern` attribute (anchored by the browser; `-` escaped for the `v` flag). */
export const BOT_NAME_HTML_PATTERN = "[A-Za-z0-9_\\-]{2,24}";
/** The `<name>` parameter of a bot's routes. */
export const BotNameParams = z.object({ name: z.string().regex(BOT_NAME, BOT_NAME_RULE) });

/** An account's handle: a letter or digit, then 1-38 letters, digits, `_`, `.` or `-`. */
export const HANDLE = /^[A-Za-z0-9][A-Za-z0-9_.-]{1,38}$/;

/** The ladder that `queue` without `ladder_id` and routes without `?ladder=` select (SPEC 6.1, 4.1). */
export const DEFAULT_LADDER = "public";
