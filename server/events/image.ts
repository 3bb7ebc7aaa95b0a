// Event images (PUT /api/admin/events/<event>/image): raw PNG, JPEG or WebP bytes whose Content-Type matches
// what the bytes are, within a size and a pixel limit, stored as normalised WebP (sharp: libvips, well kept,
// decodes in a bounded way and refuses pixel bombs before allocating them). Anything else is a clear 4xx.
import type { FastifyInstance } from "fastify";
import type { Metadata } from "sharp";
import { errors } from "../errors.ts";

// Loaded on the first upload, not at start: libvips adds about 20 MiB to the process, and a ladder without
// events never needs it (docs/performance-live-path.md, "Memory at start").
let sharpModule: Promise<typeof import("sharp")> | null = null;
async function loadSharp() {
  sharpModule ??= import("sharp");
  return (await sharpModule).default;
}

/** Largest upload accepted (bytes). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Largest decoded image accepted (pixels): a small file that expands beyond this is refused unread. */
export const MAX_IMAGE_PIXELS = 24_000_000;
/** Longest side of the stored image; larger images are scaled down. */
export const STORED_MAX_SIDE = 1600;
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/webp"] as const;
export const ALT_HEADER = "x-arena-image-alt";

/** What the first bytes say the file is. */
export function sniff(b: Buffer): (typeof IMAGE_TYPES)[number] | null {
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return "image/png";
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 12 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP")
    return "image/webp";
  return null;
}

/** Takes image bodies as bytes (other routes refuse them through their JSON schemas). */
export function imageBodies(app: FastifyInstance): void {
  app.addContentTypeParser(
    /^image\//,
    { parseAs: "buffer", bodyLimit: MAX_IMAGE_BYTES },
    (_req, body, done) => done(null, body),
  );
}

/** Checks and normalises an upload; throws the SPEC's 4xx for anything unusable. */
export async function normaliseImage(
  contentType: string | undefined,
  body: unknown,
): Promise<{ webp: Buffer; width: number; height: number }> {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (!(IMAGE_TYPES as readonly string[]).includes(type))
    throw errors.unsupportedImage(`send the image as raw bytes with Content-Type ${IMAGE_TYPES.join(", ")}`);
  if (!Buffer.isBuffer(body) || body.length === 0)
    throw errors.invalidImage("the request has no image bytes");
  if (body.length > MAX_IMAGE_BYTES)
    throw errors.imageTooLarge(`images are at most ${MAX_IMAGE_BYTES} bytes`);
  const actual = sniff(body);
  if (actual === null) throw errors.invalidImage("the bytes are not a PNG, JPEG or WebP image");
  if (actual !== type)
    throw errors.unsupportedImage(`the Content-Type says ${type} but the bytes are ${actual}`);
  const sharp = await loadSharp();
  let meta: Metadata;
  try {
    // The header only: no pixel is decoded here, so a bomb's claimed size is read without allocating it.
    meta = await sharp(body, { limitInputPixels: false }).metadata();
  } catch {
    throw errors.invalidImage("the image cannot be read");
  }
  if (!meta.width || !meta.height) throw errors.invalidImage("the image has no size");
  if (meta.width * meta.height > MAX_IMAGE_PIXELS || (meta.pages ?? 1) > 1)
    throw errors.imageTooLarge(
      `images are at most ${MAX_IMAGE_PIXELS} pixels and one frame (this one is ${meta.width}x${meta.height}${(meta.pages ?? 1) > 1 ? `, ${meta.pages} frames` : ""})`,
    );
  try {
    const { data, info } = await sharp(body, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: "error" })
      .rotate()
      .resize({ width: STORED_MAX_SIDE, height: STORED_MAX_SIDE, fit: "inside", withoutEnlargement: true })
      .webp({ quality: 82 })
      .toBuffer({ resolveWithObject: true });
    return { webp: data, width: info.width, height: info.height };
  } catch {
    throw errors.invalidImage("the image cannot be decoded (truncated or corrupt)");
  }
}

/** Decodes the alternative text header (URL-encoded); null when absent. */
export function altText(header: string | string[] | undefined): string | null {
  if (typeof header !== "string" || header === "") return null;
  let text: string;
  try {
    text = decodeURIComponent(header);
  } catch {
    throw errors.badRequest(`${ALT_HEADER} must be URL-encoded text`);
  }
  text = text.trim();
  if (text.length === 0) return null;
  if (text.length > 300) throw errors.badRequest(`${ALT_HEADER}: at most 300 characters`);
  if (text.includes("\u0000")) throw errors.badRequest(`${ALT_HEADER} must not contain U+0000`);
  return text;
}
