// The editor's reads and writes of the design document with its revision: GET answers an ETag, a save sends If-Match
// and a stale one comes back as 412 with the current ETag. The other calls go through api() like the rest of the app.
import { ApiError, getCsrfToken } from '../api';
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

export async function loadDocument(hash: string): Promise<{ doc: EditorDocument; revision: number }> {
  const res = await fetch(`/v1/templates/${encodeURIComponent(hash)}/document`, { credentials: 'same-origin' });
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
