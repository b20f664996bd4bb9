// Preflight fixtures: for every finding code, a 300x250 design that triggers it and a near-identical one (one field
// changed) that does not. `{{media}}` is the origin of the media server below, `{{closed}}` a port nothing listens on.
// The tests assert both sides; scripts/preflight-pictures.ts renders the trigger side for docs/preflight.md.
import { once } from 'node:events';
import net from 'node:net';
import { PNG } from 'pngjs';
import { type DesignDocument, readDocument } from '../../../src/domain/design.schema.js';
import type { FindingCode } from '../../../src/formats/preflight/finding.js';
import { createAssetFetcher } from '../../../src/render/media/assets.js';
import { type MediaServer, png, startMediaServer } from '../../render/media-fixtures.js';

export interface FixturePair {
  /** The element the finding names (null: the whole size). */
  element: string | null;
  /** What the one changed field is, for people reading the test or the docs. */
  change: string;
  trigger: unknown;
  pass: unknown;
}

const PALE: [number, number, number] = [241, 245, 249];

/** A photo-like PNG that does not compress: deterministic noise (a 32-bit xorshift), opaque. */
function noise(width: number, height: number): Buffer {
  const png = new PNG({ width, height });
  let state = 0x9e3779b9;
  for (let i = 0; i < png.data.length; i += 4) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    png.data[i] = state & 0xff;
    png.data[i + 1] = (state >>> 8) & 0xff;
    png.data[i + 2] = (state >>> 16) & 0xff;
    png.data[i + 3] = 255;
  }
  return PNG.sync.write(png);
}

/** The media the fixtures use. */
export const FIXTURE_MEDIA: Record<string, [string, Buffer]> = {
  '/small.png': ['image/png', png(100, 80, [37, 99, 235])],
  '/large.png': ['image/png', png(600, 500, [37, 99, 235])],
  '/pale.png': ['image/png', png(300, 250, PALE)],
  '/noise.png': ['image/png', noise(400, 300)],
  '/notes.txt': ['text/plain', Buffer.from('these are notes, not a picture\n'.repeat(40))],
};

function design(elements: unknown[], backgroundColor = '#0F172A'): unknown {
  return {
    name: 'Preflight fixture',
    sizes: [
      { hash: 'fixture', name: 'Medium Rectangle', width: 300, height: 250, backgroundColor, slides: [{ elements }] },
    ],
  };
}

const text = (fields: Record<string, unknown>) => ({
  name: 'headline',
  type: 'text',
  x: 20,
  y: 20,
  width: 260,
  height: 40,
  fontFamily: 'Inter',
  fontVariant: '700',
  fontSize: 28,
  color: '#FFFFFF',
  ...fields,
});

const LONG = 'Spring sale on every running shoe in the store, this weekend only';

const photo = (src: string, fields: Record<string, unknown> = {}) => ({
  name: 'photo',
  type: 'image',
  x: 0,
  y: 0,
  width: 300,
  height: 240,
  src,
  fit: 'cover',
  ...fields,
});

export const FIXTURES: Record<Exclude<FindingCode, 'HTML5_WEIGHT'>, FixturePair> = {
  TEXT_OVERFLOW: {
    element: 'headline',
    change: 'box height 40 px → 160 px',
    trigger: design([text({ text: LONG })]),
    pass: design([text({ text: LONG, height: 160 })]),
  },
  TEXT_SHRUNK: {
    element: 'headline',
    change: 'box height 16 px → 100 px',
    trigger: design([text({ text: LONG, height: 16, autoFit: 'shrink', minFontSize: 4 })]),
    pass: design([text({ text: LONG, height: 100, autoFit: 'shrink', minFontSize: 4 })]),
  },
  TEXT_TRUNCATED: {
    element: 'headline',
    change: 'text shortened to two words',
    trigger: design([text({ text: LONG, overflow: 'ellipsis' })]),
    pass: design([text({ text: 'Spring sale', overflow: 'ellipsis' })]),
  },
  MISSING_GLYPHS: {
    element: 'headline',
    change: 'the hieroglyph 𓀀 (U+13000) replaced by é',
    trigger: design([text({ text: 'Sale 𓀀 today' })]),
    pass: design([text({ text: 'Sale é today' })]),
  },
  FONT_FALLBACK: {
    element: 'headline',
    change: 'the Thai word ลดราคา replaced by "deals"',
    trigger: design([text({ text: 'Sale ลดราคา' })]),
    pass: design([text({ text: 'Sale deals' })]),
  },
  LOW_RESOLUTION_IMAGE: {
    element: 'photo',
    change: 'a 100x80 source replaced by a 600x500 one',
    trigger: design([photo('{{media}}/small.png')]),
    pass: design([photo('{{media}}/large.png')]),
  },
  SOURCE_UNREACHABLE: {
    element: 'photo',
    change: 'a host that refuses connections replaced by the media server',
    trigger: design([photo('http://127.0.0.1:{{closed}}/photo.png')]),
    pass: design([photo('{{media}}/large.png')]),
  },
  SOURCE_REJECTED: {
    element: 'photo',
    change: 'a text file replaced by a PNG',
    trigger: design([photo('{{media}}/notes.txt')]),
    pass: design([photo('{{media}}/large.png')]),
  },
  OUTSIDE_CANVAS: {
    element: 'badge',
    change: 'x 220 → 80',
    trigger: design([{ name: 'badge', type: 'shape', x: 220, y: 100, width: 200, height: 60, fill: '#F59E0B' }]),
    pass: design([{ name: 'badge', type: 'shape', x: 80, y: 100, width: 200, height: 60, fill: '#F59E0B' }]),
  },
  LOW_CONTRAST: {
    element: 'headline',
    change: 'text colour #FFFFFF → #0F172A',
    trigger: design([photo('{{media}}/pale.png', { height: 250 }), text({ text: 'Spring sale', y: 100 })]),
    pass: design([
      photo('{{media}}/pale.png', { height: 250 }),
      text({ text: 'Spring sale', y: 100, color: '#0F172A' }),
    ]),
  },
};

/** HTML5_WEIGHT needs the request's type and settings: checked through preflightVariant with type html. */
export const HTML5_WEIGHT_FIXTURE: FixturePair = {
  element: null,
  change: 'a 400x300 photo of noise replaced by a flat 600x500 picture',
  trigger: design([photo('{{media}}/noise.png', { height: 250 })]),
  pass: design([photo('{{media}}/large.png', { height: 250 })]),
};

export interface FixtureMedia {
  server: MediaServer;
  closedPort: number;
  fetcher: ReturnType<typeof createAssetFetcher>;
  document(raw: unknown): DesignDocument;
  close(): Promise<void>;
}

/** A port that was free a moment ago and that nothing listens on: connections to it are refused. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

export async function startFixtureMedia(): Promise<FixtureMedia> {
  const server = await startMediaServer();
  for (const [route, [type, body]] of Object.entries(FIXTURE_MEDIA)) {
    server.route(route, (_req, res) => {
      res.writeHead(200, { 'content-type': type, 'content-length': body.length }).end(body);
    });
  }
  const port = await closedPort();
  const fetcher = createAssetFetcher({ allowPrivateUrls: true, probe: null, timeoutMs: 5000 });
  return {
    server,
    closedPort: port,
    fetcher,
    document(raw) {
      const json = JSON.stringify(raw).replaceAll('{{media}}', server.origin).replaceAll('{{closed}}', String(port));
      return readDocument(JSON.parse(json));
    },
    close: () => server.close(),
  };
}
