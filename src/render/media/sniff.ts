// Media type by content (SPEC §9, §11): the first bytes decide, never the URL's extension or the Content-Type header,
// which a server may get wrong or lie about. Only the formats of SPEC §9 are recognised; anything else is described
// (an HTML page, a PDF, a HEIC image…) so that the refusal can say what arrived.

export type MediaKind = 'IMAGE' | 'VIDEO' | 'AUDIO';

export type MediaFormat =
  | 'jpg'
  | 'png'
  | 'gif'
  | 'webp'
  | 'svg'
  | 'mp3'
  | 'wav'
  | 'ogg'
  | 'mp4'
  | 'mov'
  | 'webm'
  | 'mkv'
  | 'avi';

export interface Sniffed {
  kind: MediaKind;
  format: MediaFormat;
  mimeType: string;
}

/** How many leading bytes sniff() wants; fewer are fine when the file is shorter. */
export const SNIFF_BYTES = 4096;

const MEDIA: Record<MediaFormat, Sniffed> = {
  jpg: { kind: 'IMAGE', format: 'jpg', mimeType: 'image/jpeg' },
  png: { kind: 'IMAGE', format: 'png', mimeType: 'image/png' },
  gif: { kind: 'IMAGE', format: 'gif', mimeType: 'image/gif' },
  webp: { kind: 'IMAGE', format: 'webp', mimeType: 'image/webp' },
  svg: { kind: 'IMAGE', format: 'svg', mimeType: 'image/svg+xml' },
  mp3: { kind: 'AUDIO', format: 'mp3', mimeType: 'audio/mpeg' },
  wav: { kind: 'AUDIO', format: 'wav', mimeType: 'audio/wav' },
  ogg: { kind: 'AUDIO', format: 'ogg', mimeType: 'audio/ogg' },
  mp4: { kind: 'VIDEO', format: 'mp4', mimeType: 'video/mp4' },
  mov: { kind: 'VIDEO', format: 'mov', mimeType: 'video/quicktime' },
  webm: { kind: 'VIDEO', format: 'webm', mimeType: 'video/webm' },
  mkv: { kind: 'VIDEO', format: 'mkv', mimeType: 'video/x-matroska' },
  avi: { kind: 'VIDEO', format: 'avi', mimeType: 'video/x-msvideo' },
};

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.subarray(start, end)).toString('latin1');
}

function startsWith(bytes: Uint8Array, signature: number[], offset = 0): boolean {
  return bytes.length >= offset + signature.length && signature.every((b, i) => bytes[offset + i] === b);
}

/** An MPEG-1/2/2.5 Layer III frame header (an MP3 without an ID3 tag starts with one). */
function mp3FrameHeader(bytes: Uint8Array): boolean {
  if (bytes.length < 4 || bytes[0] !== 0xff || (bytes[1] & 0xe0) !== 0xe0) return false;
  const version = (bytes[1] >> 3) & 0b11;
  const layer = (bytes[1] >> 1) & 0b11;
  const bitrate = bytes[2] >> 4;
  const sampleRate = (bytes[2] >> 2) & 0b11;
  return version !== 0b01 && layer === 0b01 && bitrate !== 0b1111 && sampleRate !== 0b11;
}

/** ISO base media (ftyp) brands that are pictures or audio, not video. */
const FTYP_NOT_VIDEO: Record<string, string> = {
  heic: 'a HEIC image',
  heix: 'a HEIC image',
  hevc: 'a HEIC image sequence',
  mif1: 'a HEIF image',
  msf1: 'a HEIF image sequence',
  avif: 'an AVIF image',
  avis: 'an AVIF image sequence',
  'M4A ': 'an M4A (AAC) audio file',
  'M4B ': 'an M4B audio book',
  'M4P ': 'an M4P protected audio file',
};

/** The text of an XML document's start, after the BOM, prolog, comments and doctype; null when it is not XML. */
function xmlRoot(bytes: Uint8Array): { root: string; text: string } | null {
  let text = Buffer.from(bytes).toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let rest = text;
  for (;;) {
    rest = rest.replace(/^\s+/, '');
    if (rest.startsWith('<?')) {
      const end = rest.indexOf('?>');
      if (end < 0) return null;
      rest = rest.slice(end + 2);
    } else if (rest.startsWith('<!--')) {
      const end = rest.indexOf('-->');
      if (end < 0) return null;
      rest = rest.slice(end + 3);
    } else if (/^<!doctype/i.test(rest)) {
      const end = rest.indexOf('>');
      if (end < 0) return null;
      rest = rest.slice(end + 1);
    } else break;
  }
  const root = /^<([A-Za-z_][\w.:-]*)/.exec(rest)?.[1];
  return root ? { root, text } : null;
}

/** The media type of the leading bytes of a file, or null when it is none of the formats of SPEC §9. */
export function sniff(bytes: Uint8Array): Sniffed | null {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return MEDIA.jpg;
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return MEDIA.png;
  const head4 = ascii(bytes, 0, 4);
  if (/^GIF8[79]a$/.test(ascii(bytes, 0, 6))) return MEDIA.gif;
  if (head4 === 'RIFF' && bytes.length >= 12) {
    const form = ascii(bytes, 8, 12);
    if (form === 'WEBP') return MEDIA.webp;
    if (form === 'WAVE') return MEDIA.wav;
    if (form === 'AVI ') return MEDIA.avi;
    return null;
  }
  if (head4 === 'OggS') return MEDIA.ogg;
  if (ascii(bytes, 0, 3) === 'ID3' || mp3FrameHeader(bytes)) return MEDIA.mp3;
  if (startsWith(bytes, [0x1a, 0x45, 0xdf, 0xa3])) {
    // The EBML header carries the DocType ("webm" or "matroska") within its first few dozen bytes.
    const header = ascii(bytes, 0, 64);
    if (header.includes('webm')) return MEDIA.webm;
    if (header.includes('matroska')) return MEDIA.mkv;
    return null;
  }
  const box = ascii(bytes, 4, 8);
  if (box === 'ftyp' && bytes.length >= 12) {
    const brand = ascii(bytes, 8, 12);
    if (FTYP_NOT_VIDEO[brand]) return null;
    return brand === 'qt  ' ? MEDIA.mov : MEDIA.mp4;
  }
  // QuickTime files written before ftyp existed start with their movie or media box.
  if (box === 'moov' || box === 'mdat' || box === 'wide') return MEDIA.mov;
  const xml = xmlRoot(bytes);
  if (xml && /^(svg|[\w.-]+:svg)$/i.test(xml.root)) return MEDIA.svg;
  return null;
}

/** Words for content that sniff() does not accept, for the refusal message ("it looks like an HTML page"). */
export function describeUnsupported(bytes: Uint8Array): string {
  if (bytes.length === 0) return 'the response is empty';
  const box = ascii(bytes, 4, 8);
  if (box === 'ftyp') return `it is ${FTYP_NOT_VIDEO[ascii(bytes, 8, 12)] ?? 'an unsupported ISO media file'}`;
  if (ascii(bytes, 0, 5) === '%PDF-') return 'it is a PDF document';
  if (ascii(bytes, 0, 4) === 'PK\x03\x04') return 'it is a ZIP archive';
  if (ascii(bytes, 0, 2) === 'BM') return 'it is a BMP image, which is not supported (use PNG or JPG)';
  if (['II*\0', 'MM\0*'].includes(ascii(bytes, 0, 4))) return 'it is a TIFF image, which is not supported';
  if (startsWith(bytes, [0, 0, 1, 0])) return 'it is an ICO icon, which is not supported';
  if (ascii(bytes, 0, 4) === 'RIFF')
    return `it is a RIFF ${ascii(bytes, 8, 12).trim() || 'file'}, which is not supported`;
  if (startsWith(bytes, [0x1a, 0x45, 0xdf, 0xa3])) return 'it is an EBML file that is neither WebM nor Matroska';
  const text = Buffer.from(bytes.subarray(0, 512))
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (/^<!doctype html|^<html|^<head|^<body/i.test(text)) return 'it looks like an HTML page';
  const xml = xmlRoot(bytes);
  if (xml) return `it is an XML document whose root is <${xml.root}>, not <svg>`;
  if (/^[[{]/.test(text)) return 'it looks like JSON';
  const hex = Buffer.from(bytes.subarray(0, 8)).toString('hex');
  return `its first bytes (0x${hex}) are no image, audio or video format this service reads`;
}

export function mediaOf(format: MediaFormat): Sniffed {
  return MEDIA[format];
}

/**
 * Why an SVG cannot be used, or null. SVGs are drawn by the renderer and embedded in HTML5 packages, so active
 * content is refused outright rather than stripped: scripts, event handler attributes, javascript: URLs,
 * entity declarations (entity expansion bombs) and foreign HTML.
 */
export function unsafeSvgReason(bytes: Uint8Array): string | null {
  const text = Buffer.from(bytes).toString('utf8');
  if (/<script[\s>/]/i.test(text) || /<[\w.-]+:script[\s>/]/i.test(text)) return 'the SVG contains a <script> element';
  const handler = /[\s"'/]on([a-z]+)\s*=/i.exec(text);
  if (handler) return `the SVG contains an event handler attribute (on${handler[1]}=)`;
  if (/<!ENTITY/i.test(text)) return 'the SVG declares XML entities';
  if (/<foreignObject[\s>/]/i.test(text)) return 'the SVG embeds HTML (<foreignObject>)';
  // Entity-encoded letters and spaces inside a URL are how "javascript:" usually hides.
  const decoded = text
    .replace(/&#x([0-9a-f]+);?/gi, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16) % 0x110000))
    .replace(/&#(\d+);?/g, (_, dec: string) => String.fromCodePoint(Number.parseInt(dec, 10) % 0x110000))
    .replace(/[\s\0]+/g, '');
  const scheme = /(javascript|vbscript):/i.exec(decoded);
  if (scheme) return `the SVG contains a ${scheme[1].toLowerCase()}: URL`;
  return null;
}
