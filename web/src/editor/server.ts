// The editor's reads and writes of the design document with its revision: GET answers an ETag, a save sends If-Match
// and a stale one comes back as 412 with the current ETag. The other calls go through api() like the rest of the app;
// the canvas's drawings come from here too, with the font faces the page already holds left out of each answer.
import { ApiError, api, getCsrfToken } from '../api';
import type { EditorDocument } from './document';

export class StaleSave extends Error {
  constructor(
    message: string,
    readonly currentRevision: number,
  ) {
    super(message);
  }
}

function revisionOf(res: Response): number {
  return Number(JSON.parse(res.headers.get('etag') ?? '"0"'));
}

async function failure(res: Response): Promise<never> {
  const body = (await res.json().catch(() => null)) as { error?: string; code?: string } | null;
  throw new ApiError(body?.error ?? `The server answered ${res.status}`, res.status, body?.code ?? 'HTTP');
}

/** A read of a document started before the editor's code arrived (App.tsx), taken by the first loadDocument. */
const early = new Map<string, Promise<Response>>();

export function prefetchDocument(hash: string): void {
  early.set(
    hash,
    fetch(`/v1/templates/${encodeURIComponent(hash)}/document`, { credentials: 'same-origin' }),
  );
}

export async function loadDocument(hash: string): Promise<{ doc: EditorDocument; revision: number }> {
  const started = early.get(hash);
  early.delete(hash);
  // Started before the session was known: a refusal then (signed out at the time) is asked again now.
  let res = started ? await started.catch(() => null) : null;
  if (!res?.ok) res = await fetch(`/v1/templates/${encodeURIComponent(hash)}/document`, { credentials: 'same-origin' });
  if (!res.ok) return failure(res);
  const body = (await res.json()) as { response: EditorDocument };
  return { doc: body.response, revision: revisionOf(res) };
}

export async function saveDocument(
  hash: string,
  doc: EditorDocument,
  revision: number,
): Promise<{ doc: EditorDocument; revision: number }> {
  let res: Response;
  try {
    res = await fetch(`/v1/templates/${encodeURIComponent(hash)}/document`, {
      method: 'PUT',
      credentials: 'same-origin',
      headers: {
        'content-type': 'application/json',
        'if-match': `"${revision}"`,
        'x-csrf-token': getCsrfToken() ?? '',
      },
      body: JSON.stringify({ document: doc }),
    });
  } catch {
    throw new ApiError('The server could not be reached. Your changes are kept in this browser; try again.', 0, 'NETWORK');
  }
  if (res.status === 412) {
    throw new StaleSave(
      'Someone else saved this design since you opened it. Your changes are still here: load their version, or save yours over it.',
      revisionOf(res),
    );
  }
  if (!res.ok) return failure(res);
  const body = (await res.json()) as { response: { document: EditorDocument } };
  return { doc: body.response.document, revision: revisionOf(res) };
}

/** One size as the HTML5 export draws it (POST /v1/studio/canvas); its fonts are in the page once this resolves. */
export interface CanvasDrawing {
  width: number;
  height: number;
  backgroundColor: string;
  markup: string;
  /** The keyframes of the markup's animations, for the timeline (Timeline.tsx). */
  motionCss: string;
}

/** Font faces of earlier drawings, by their content names: each is sent once and kept in one sheet of the page. */
const faces = new Set<string>();
let faceSheet: CSSStyleSheet | null = null;

async function addFaces(names: string[], css: string): Promise<void> {
  if (names.length === 0) return;
  if (!faceSheet) {
    const style = document.createElement('style');
    style.dataset.canvasFaces = '';
    document.head.append(style);
    faceSheet = style.sheet;
  }
  for (const rule of css.match(/@font-face\{[^}]*\}/g) ?? []) {
    const name = /font-family:([^;]+);/.exec(rule)?.[1];
    if (!name || faces.has(name)) continue;
    faceSheet?.insertRule(rule, faceSheet.cssRules.length);
    faces.add(name);
  }
  // Loaded before the markup that uses them is shown: no frame of text in a fallback font or none.
  await Promise.all(names.map((name) => document.fonts.load(`16px ${name}`).catch(() => [])));
}

export async function drawCanvas(doc: EditorDocument, sizeIndex: number): Promise<CanvasDrawing> {
  // The size alone: the server draws one size, and the document's other sizes are three quarters of the request.
  const body = {
    document: { ...doc, sizes: [doc.sizes[sizeIndex]] },
    sizeIndex: 0,
    knownFaces: [...faces].slice(-1000),
  };
  const { response } = await api<{ response: CanvasDrawing & { fontCss: string; faces: string[] } }>(
    'POST',
    '/v1/studio/canvas',
    body,
  );
  await addFaces(response.faces, response.fontCss);
  return response;
}
