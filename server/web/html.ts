// The web pages' only templating: a tagged template that escapes every interpolated value unless it is
// already Html, so bot names, shouts and handles can never inject markup. Small enough that a templating
// library would cost more than it saves (docs/architecture.md, "Web").

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

function part(value: unknown): string {
  if (value instanceof Html) return value.value;
  if (value === null || value === undefined || value === false) return "";
  if (Array.isArray(value)) return value.map(part).join("");
  return escapeHtml(String(value));
}

/** `html\`<p>${name}</p>\`` escapes `name`; Html values and arrays of them are inserted as they are. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += part(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/** Markup the server itself built (never user data). */
export function trusted(value: string): Html {
  return new Html(value);
}

/** JSON for a `<script type="application/json">` block: `<` is escaped so the data cannot close the tag. */
export function jsonScript(value: unknown): Html {
  return new Html(JSON.stringify(value).replace(/</g, "\\u003c"));
}
