/**
 * Input images: recognise, decode and normalise what a caller sends, before any generator sees it.
 * Bytes are trusted only after sharp has decoded them under a pixel cap (invariant 5, docs/architecture.md) and
 * re-encoded them, so generators only ever read a clean, upright, metadata-free PNG.
 */
import { loadSharp } from './load-sharp.ts';

export type ImageMimeType = 'image/jpeg' | 'image/png';

export type ImageRejectCode =
  /** Looks like Base64 but carries no `data:` prefix (docs/service-spec.md's second named failure cause). */
  | 'image_prefix_missing'
  /** A `data:` URI other than the two accepted prefixes. */
  | 'image_prefix_unsupported'
  | 'image_base64_invalid'
  /** The bytes are not the image type the prefix declares. */
  | 'image_type_mismatch'
  | 'image_invalid'
  | 'image_too_large';

/** Why an input image was refused; `message` is safe to show the caller. */
export class ImageRejected extends Error {
  constructor(
    readonly code: ImageRejectCode,
    message: string,
  ) {
    super(message);
  }
}

export interface DecodedImage {
  mimeType: ImageMimeType;
  bytes: Buffer;
}

export interface NormalizedImage {
  png: Buffer;
  width: number;
  height: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG_SIGNATURE = Buffer.from([0xff, 0xd8, 0xff]);

/** The type the bytes really are, whatever a header or file name claims. */
export function sniffImageType(bytes: Buffer): ImageMimeType | undefined {
  if (bytes.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE)) return 'image/png';
  if (bytes.subarray(0, JPEG_SIGNATURE.length).equals(JPEG_SIGNATURE)) return 'image/jpeg';
  return undefined;
}

const DATA_URI_PREFIXES: Record<string, ImageMimeType> = {
  'data:image/jpeg;base64,': 'image/jpeg',
  'data:image/png;base64,': 'image/png',
};
const ACCEPTED = Object.keys(DATA_URI_PREFIXES).join(' or ');
// Canonical padded Base64 only: whitespace, URL-safe letters or stray '=' mean the client built it wrong.
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const URL_SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const LABELS: Record<ImageMimeType, string> = { 'image/jpeg': 'a JPEG', 'image/png': 'a PNG' };

/**
 * Decodes an image given as a data URI. Returns undefined when the value is a URL of some other scheme
 * (the caller fetches it, and the fetcher judges the scheme); throws ImageRejected naming exactly what
 * is wrong otherwise. A value with no scheme at all is treated as Base64 that lost its prefix, because
 * a URL always has one and Base64 never contains ':'.
 */
export function decodeDataUri(value: string): DecodedImage | undefined {
  if (!/^data:/i.test(value)) {
    if (URL_SCHEME.test(value)) return undefined;
    throw new ImageRejected(
      'image_prefix_missing',
      `The image is neither a URL nor a data URI; Base64 image data must start with ${ACCEPTED}.`,
    );
  }
  const prefix = Object.keys(DATA_URI_PREFIXES).find((p) => value.startsWith(p));
  if (prefix === undefined) {
    throw new ImageRejected('image_prefix_unsupported', `Only data URIs starting with ${ACCEPTED} are accepted.`);
  }
  const mimeType = DATA_URI_PREFIXES[prefix];
  const payload = value.slice(prefix.length);
  if (payload === '' || !STRICT_BASE64.test(payload)) {
    throw new ImageRejected('image_base64_invalid', 'The data URI does not contain valid Base64 data.');
  }
  const bytes = Buffer.from(payload, 'base64');
  const actual = sniffImageType(bytes);
  if (actual !== mimeType) {
    const found = actual === undefined ? 'is not a JPEG or PNG image' : `is ${LABELS[actual]} image`;
    throw new ImageRejected('image_type_mismatch', `The data URI declares ${mimeType} but its content ${found}.`);
  }
  return { mimeType, bytes };
}

const UNDECODABLE = 'The image could not be decoded as a JPEG or PNG file.';

/**
 * Decodes under a pixel cap, turns the image upright per its EXIF orientation, drops all metadata
 * (location, camera, embedded thumbnails) and re-encodes as PNG.
 */
export async function normalizeImage(bytes: Buffer, opts: { maxPixels: number }): Promise<NormalizedImage> {
  // Sniff first: sharp also reads GIF, WebP, SVG, TIFF…, and every extra decoder is attack surface.
  if (sniffImageType(bytes) === undefined) throw new ImageRejected('image_invalid', UNDECODABLE);
  const sharp = await loadSharp();
  let width: number | undefined;
  let height: number | undefined;
  try {
    // Header only, no pixels decoded, so reading it unlimited is safe and lets us name the real size.
    ({ width, height } = await sharp(bytes, { limitInputPixels: false }).metadata());
  } catch {
    throw new ImageRejected('image_invalid', UNDECODABLE);
  }
  if (width === undefined || height === undefined) throw new ImageRejected('image_invalid', UNDECODABLE);
  if (width * height > opts.maxPixels) {
    throw new ImageRejected(
      'image_too_large',
      `The image is ${width}x${height} pixels; at most ${opts.maxPixels} pixels are accepted.`,
    );
  }
  // The decoder enforces the cap again itself; failOn 'error' because browsers show JPEGs with minor
  // warnings (e.g. trailing junk) and users expect those to work.
  const image = sharp(bytes, { limitInputPixels: opts.maxPixels, failOn: 'error' });
  try {
    const { data, info } = await image.rotate().png().toBuffer({ resolveWithObject: true });
    return { png: data, width: info.width, height: info.height };
  } catch {
    throw new ImageRejected('image_invalid', UNDECODABLE);
  }
}
