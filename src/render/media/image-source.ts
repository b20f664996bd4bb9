// What an element asks the asset stage for. The DrawContext contract keys images by one string, so most sources are
// the element's own `src` (an http(s) URL or inline SVG markup); the two that need work between fetching and decoding
// (an SVG recoloured by SVGCOLORS, the first frame of a video) are written as a tagged string that can be neither a
// URL nor markup. Kinds build these with the functions below and look their image up with the same string.

export type ImageRequest =
  /** A raster or SVG image at a URL, or inline SVG markup. */
  | { kind: 'image'; src: string }
  /** SVG (URL or markup) whose distinct colours, in order of first appearance, become `colors`. */
  | { kind: 'svg'; src: string; colors: string[] }
  /** The frame of the video at `src` shown `at` seconds in. */
  | { kind: 'videoFrame'; src: string; at: number };

const TAG = 'placard-source:';

/** The source of an SVG element: the plain `src` when nothing is recoloured, so it shares the cache with others. */
export function svgSource(src: string, colors: readonly string[] | undefined): string {
  return colors?.length ? TAG + JSON.stringify({ kind: 'svg', src, colors }) : src;
}

export function videoFrameSource(src: string, at: number): string {
  return TAG + JSON.stringify({ kind: 'videoFrame', src, at });
}

/** Whether a source is inline SVG markup rather than a URL. */
export function isInlineMarkup(src: string): boolean {
  return src.trimStart().startsWith('<');
}

export function parseImageSource(source: string): ImageRequest {
  if (!source.startsWith(TAG)) return { kind: 'image', src: source };
  return JSON.parse(source.slice(TAG.length)) as ImageRequest;
}

/** The URL or "inline SVG" a source comes from, for messages. */
export function describeSource(source: string): string {
  const { src } = parseImageSource(source);
  return isInlineMarkup(src) ? 'inline SVG markup' : src;
}
