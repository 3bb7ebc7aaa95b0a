// The test helpers read links out of emails; a misread link looks like an expired one (CI's "otp_expired"
// flake: a token that began with "3D" lost those two characters to a quoted-printable decode of plain text).
import { describe, expect, it } from "vitest";
import { linkIn, mailText } from "../helpers/accounts.ts";

const LINK =
  "http://127.0.0.1:9/auth/v1/verify?token=3DxYz_-9&type=signup&redirect_to=http%3A%2F%2Fx%2Faccount";

describe("reading an email's link", () => {
  it("keeps plain text as written (the outbox), a token beginning with 3D included", () => {
    const raw = [
      "From: a@b",
      "To: c@d",
      "Content-Type: text/plain; charset=utf-8",
      "",
      `Open ${LINK}`,
      "",
    ].join("\r\n");
    expect(linkIn(raw)).toBe(LINK);
  });

  it("decodes quoted-printable mail: soft breaks, escapes and UTF-8", () => {
    const encoded = `Open ${LINK.replace(/=/g, "=3D").replace("type", "ty=\r\npe")} caf=C3=A9`;
    const raw = [
      "To: c@d",
      "Content-Type: text/plain; charset=utf-8",
      "Content-Transfer-Encoding: quoted-printable",
      "",
      encoded,
      "",
    ].join("\r\n");
    expect(linkIn(raw)).toBe(LINK);
    expect(mailText(raw)).toContain("café");
  });
});
