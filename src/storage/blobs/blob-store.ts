// The BlobStore seam (docs/architecture.md): where export files, thumbnails and brand kit assets live. Local disk
// (embedded default, links signed by the service and served by http/routes/files.ts) or S3-compatible storage
// (presigned links). Keys are service-made paths such as `exports/2f/<export uuid>-<creative uuid>.png`.
import type { Readable } from 'node:stream';

export interface StoredBlob {
  body: Readable;
  /** Bytes. */
  size: number;
  contentType: string;
}

export interface SignedUrlOptions {
  /** Lifetime of the link (SPEC §6: 1 hour for downloads, 12 hours for thumbnails). */
  ttlSeconds: number;
  /** Offered as the download's file name (Content-Disposition); part of what is signed. */
  fileName?: string;
}

export interface BlobStore {
  /** Stores (or replaces) the object whole: readers see the old content or the new, never a part. */
  put(key: string, body: Uint8Array | Readable, contentType: string): Promise<{ size: number }>;
  /** The object, or null when there is none. */
  get(key: string): Promise<StoredBlob | null>;
  exists(key: string): Promise<boolean>;
  /** Removes the object; removing a missing one is not an error. */
  delete(key: string): Promise<void>;
  /** A link that downloads the object without credentials until it expires. */
  signedUrl(key: string, options: SignedUrlOptions): Promise<string>;
  /**
   * The root directory of a store on this machine's disk (local-disk.ts): a thread of this process that holds a file's
   * bytes may store it itself with writeBlobFileSync(localRoot, ...), which writes what `put` writes. Undefined for a
   * remote store (S3), whose objects go through `put`.
   */
  readonly localRoot?: string;
  /** Resolves when the store is reachable and writable; GET /readyz asks. */
  ping(): Promise<void>;
}

/** Path segments of letters, digits, `.`, `_` and `-`, none starting with a dot; at most 512 characters. */
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

export function isValidBlobKey(key: string): boolean {
  return key.length > 0 && key.length <= 512 && key.split('/').every((segment) => SEGMENT.test(segment));
}

/** Throws unless the key is valid: no empty, `.` or `..` segment, no hidden names, no backslashes or NULs. */
export function assertBlobKey(key: string): void {
  if (!isValidBlobKey(key)) {
    throw new RangeError(
      `invalid blob key '${key.slice(0, 100)}': use /-separated segments of letters, digits, '.', '_' and '-', none starting with '.'`,
    );
  }
}
