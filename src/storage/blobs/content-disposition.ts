import { notWindowsDevice } from '../../domain/export-plan.js';

// The download name of a file, as the local-disk /files route sends it and as S3 presigned links ask S3 to send it.
/** A file name safe on every OS and in a header: no control characters, separators or reserved punctuation. */
export function safeFileName(name: string): string {
  const cleaned = name
    .normalize('NFC')
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, '')
    .replace(/[/\\:*?"<>|]/g, '_')
    .replace(/^[\s.]+|[\s.]+$/g, '')
    .slice(0, 200);
  return notWindowsDevice(cleaned || 'download');
}

/** `attachment; filename="ascii"; filename*=UTF-8''percent-encoded` (RFC 6266, RFC 8187). */
export function contentDisposition(name: string): string {
  const safe = safeFileName(name);
  const ascii = safe.replace(/[^\x20-\x7e]/g, '_').replace(/[%;]/g, '_');
  const encoded = encodeURIComponent(safe).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
