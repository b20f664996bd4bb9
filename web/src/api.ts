// The one way the studio talks to the API: the same /v1 routes as API clients, authenticated by the session cookie.
// Writes carry the session's CSRF token; failures become ApiError with the envelope's sentence and code, and a lost
// connection gets a message of its own (what the user typed stays in its form: callers never reset on failure).
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
  ) {
    super(message);
  }
}

let csrfToken: string | null = null;

export function setCsrfToken(token: string | null) {
  csrfToken = token;
}

/** The session's CSRF token, for callers that need the response headers (the editor's ETag saves). */
export function getCsrfToken(): string | null {
  return csrfToken;
}

export async function api<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError('The server could not be reached. Nothing was lost; try again.', 0, 'NETWORK');
  }
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // A proxy's HTML error page: reported below by status.
  }
  if (!res.ok) {
    const envelope = json as { error?: string; code?: string } | null;
    throw new ApiError(envelope?.error ?? `The server answered ${res.status}`, res.status, envelope?.code ?? 'HTTP');
  }
  return json as T;
}

/** Query string from defined values only. */
export function qs(params: Record<string, string | number | boolean | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  }
  const s = search.toString();
  return s ? `?${s}` : '';
}

/**
 * A multipart upload with progress (issue 18, brand kit fonts). fetch() has no upload progress events, so this one
 * call uses XMLHttpRequest; errors come back as the same ApiError as api().
 */
export function upload<T>(url: string, form: FormData, onProgress: (fraction: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.withCredentials = true;
    if (csrfToken) xhr.setRequestHeader('x-csrf-token', csrfToken);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    xhr.onerror = () => reject(new ApiError('The server could not be reached. Nothing was lost; try again.', 0, 'NETWORK'));
    xhr.onload = () => {
      let json: unknown = null;
      try {
        json = xhr.responseText ? JSON.parse(xhr.responseText) : null;
      } catch {
        // A proxy's HTML error page: reported below by status.
      }
      if (xhr.status < 200 || xhr.status >= 300) {
        const envelope = json as { error?: string; code?: string } | null;
        reject(new ApiError(envelope?.error ?? `The server answered ${xhr.status}`, xhr.status, envelope?.code ?? 'HTTP'));
        return;
      }
      onProgress(1);
      resolve(json as T);
    };
    xhr.send(form);
  });
}

/** A design as the designs list answers it (GET /v1/templates): the pages that act on one design take this. */
export interface DesignNode {
  id: string;
  name: string;
  thumbUrl: string | null;
}
