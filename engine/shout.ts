// Cleans the optional `shout` a bot sends with its turn. The text is untrusted: it is shown to the other
// bot and written into public replays, so it is normalised, stripped of invisible characters, folded
// from lookalike letters to plain Latin, and has profanity masked. Lookalike folding and profanity
// matching use well-kept libraries (`confusables`, `obscenity`) rather than hand-made lists, because
// those lists are large, need curating against false positives, and are easy to get subtly wrong.
import { confusablesMap, clean as stripCombiningMarks } from "confusables";
import {
  type CensorContext,
  englishDataset,
  englishRecommendedTransformers,
  RegExpMatcher,
  TextCensor,
} from "obscenity";
import { RULES } from "./rules.ts";

export const SHOUT_MAX_LENGTH = RULES.shout.max_length;

export type ShoutResult = { ok: true; text: string } | { ok: false; reason: "bad_text"; detail: string };

// Built once: compiling the dataset into regular expressions is the costly part of obscenity, and the
// matcher is stateless between calls. A failure here is a broken install, not bad input, so it is left
// to surface at start-up instead of being swallowed.
const profanityMatcher = new RegExpMatcher({
  ...englishDataset.build(),
  ...englishRecommendedTransformers,
});

// One asterisk per masked code point of the text actually covered. obscenity's asteriskCensorStrategy
// repeats `matchLength`, which counts code points after its transformers ran, so "fuuuuck" (7 letters)
// would become "****" and change the shout's length. Slicing by the reported indices avoids that, and
// it also handles the start index obscenity moves forward for overlapping matches.
const profanityCensor = new TextCensor().setStrategy((ctx: CensorContext) =>
  "*".repeat(countCodePoints(ctx.input.slice(ctx.startIndex, ctx.endIndex + 1))),
);

// Tabs and line breaks separate words, so they become spaces rather than vanish. U+0085 (NEL) is the C1
// line break.
const LINE_AND_TAB_CONTROLS = /[\t\n\v\f\r\u0085]/g;

// Characters that render as nothing (or steer rendering) and so can hide or disguise text:
//  - the explicit list from the shout spec: zero-width spaces/joiners and marks, word joiner and
//    invisible operators, BOM, soft hyphen, bidi embeddings/overrides/isolates;
//  - \p{Cc}: every remaining C0/C1 control;
//  - \p{Cf}: other format characters (e.g. interlinear annotation marks, the tags block);
//  - \p{Default_Ignorable_Code_Point}: variation selectors (including the supplement), Hangul fillers,
//    combining grapheme joiner and similar "render as nothing" characters;
//  - \p{Cs}: lone surrogates, which are not text and would be mangled when the replay is encoded.
const INVISIBLE =
  /[\u200B-\u200F\u2060-\u206F\uFEFF\u00AD\u202A-\u202E\u2066-\u2069\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cs}]/gu;

// Any run of Unicode whitespace becomes one ASCII space. U+2800 (braille blank) is not whitespace to
// Unicode but is the usual trick for sending a "blank" message, so it is treated as a space too.
const WHITESPACE_RUN = /[\s\u2800]+/gu;

function countCodePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

// Folds lookalikes (Cyrillic 'а', fullwidth 'ａ', mathematical bold '𝐚', ...) to their Latin/ASCII
// skeleton using the confusables table. This is the package's `remove()` written out: its ESM build
// memoises every input string in a never-emptied Map, which untrusted shouts would grow without bound,
// and calling the table directly behaves the same whichever build a bundler picks.
function foldConfusables(text: string): string {
  let folded = "";
  for (const char of stripCombiningMarks(text)) folded += confusablesMap.get(char) ?? char;
  return folded;
}

// Only words that mix Latin with another script are folded: that mix is the lookalike disguise
// ("раypal" with Cyrillic р and а). A word written wholly in Cyrillic, Greek, Arabic or Devanagari is a
// real word, and folding it would turn "Привет" into Latin gibberish.
const LATIN_LETTER = /\p{Script=Latin}/u;
const OTHER_LETTER = /(?!\p{Script=Latin})\p{L}/u;
function foldDisguisedWords(text: string): string {
  return text.replace(/\S+/gu, (word) =>
    LATIN_LETTER.test(word) && OTHER_LETTER.test(word) ? foldConfusables(word) : word,
  );
}

function refuse(detail: string): ShoutResult {
  return { ok: false, reason: "bad_text", detail };
}

export function cleanShout(raw: unknown): ShoutResult {
  if (typeof raw !== "string") return refuse("shout must be a string");

  // The limit is on the raw input's code points. A code point is one or two UTF-16 units, so the unit
  // length settles most cases without walking (or copying) a possibly huge string.
  const tooLong = `shout must be at most ${SHOUT_MAX_LENGTH} characters`;
  if (raw.length > SHOUT_MAX_LENGTH * 2) return refuse(tooLong);
  if (raw.length > SHOUT_MAX_LENGTH && countCodePoints(raw) > SHOUT_MAX_LENGTH) return refuse(tooLong);

  // NFKC first so compatibility forms (ligatures, fullwidth, circled letters) become ordinary characters
  // before the invisible-character and lookalike passes look at them.
  let text = raw.normalize("NFKC");
  text = text.replace(LINE_AND_TAB_CONTROLS, " ").replace(INVISIBLE, "");

  // The table lookup should not throw, but if it ever does, showing the un-folded (already stripped)
  // text is better than failing a bot's turn.
  try {
    text = foldDisguisedWords(text);
  } catch {
    // keep the un-folded text
  }

  text = text.replace(WHITESPACE_RUN, " ").trim();
  if (text.length === 0) return refuse("shout is empty after cleaning");

  // NFKC and folding can lengthen text (U+FDFA becomes 18 characters, '⑩' becomes "10"). The result is
  // refused rather than truncated: a cut shout could end mid-word or read as something not sent.
  if (countCodePoints(text) > SHOUT_MAX_LENGTH) {
    return refuse(`shout is too long after normalisation (over ${SHOUT_MAX_LENGTH} characters)`);
  }

  // If the profanity check itself fails, the shout is refused rather than passed on unchecked: it goes
  // into public replays, so failing closed is the safer direction.
  try {
    text = profanityCensor.applyTo(text, profanityMatcher.getAllMatches(text));
  } catch {
    return refuse("shout could not be checked");
  }

  return { ok: true, text };
}
