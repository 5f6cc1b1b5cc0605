/** Our own picture URLs end in `/images/<hash>.webp`; the thumbnail of one is `/images/<hash>.thumb.webp`. */
const OWN_PICTURE_URL = /^(https?:\/\/[^?#\s]+\/images\/[0-9a-f]{32})\.webp$/;

/** The thumbnail of one of our pictures, for list answers; any other URL comes back as it is. */
export function thumbnailUrlOf(url: string): string;
export function thumbnailUrlOf(url: string | null): string | null;
export function thumbnailUrlOf(url: string | null): string | null {
  if (url === null) return null;
  const own = OWN_PICTURE_URL.exec(url);
  return own ? `${own[1]}.thumb.webp` : url;
}

const PICTURE_NAME = /\/images\/([0-9a-f]{32})(?:\.thumb)?\.webp\b/g;

/** The hashes of our pictures a text names (an `imageUrls` entry, or a body's `<img src>`). */
export function pictureHashesIn(text: string): string[] {
  return [...text.matchAll(PICTURE_NAME)].map((match) => match[1]);
}
