// BlobStore on local disk (the embedded default): objects under `<dataDir>/blobs/<key>`, their content type in
// `.meta/<key>.json` beside them unless the key's extension names it (typeOfKey). Writes go to `.tmp/` first and are
// renamed into place, so a reader never sees half a file. Links are `<publicUrl>/files/<key>?exp=&sig=&name=`,
// HMAC-signed with the links key and served by http/routes/files.ts; the signature covers key, expiry and file name,
// so none of them can be changed.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type ServerKeys, signLink } from '../secrets.js';
import { assertBlobKey, type BlobStore, type SignedUrlOptions, type StoredBlob } from './blob-store.js';

export interface LocalDiskBlobStoreOptions {
  /** Root directory, normally `<dataDir>/blobs`. */
  dir: string;
  /** Base of the signed links (PLACARD_PUBLIC_URL). */
  publicUrl: string;
  keys: ServerKeys;
  /** Clock in milliseconds (tests). Default Date.now. */
  now?: () => number;
}

interface Meta {
  contentType: string;
}

export interface FileLink {
  key: string;
  /** Expiry, Unix seconds. */
  exp: number;
  sig: string;
  name?: string;
}

function linkPayload(key: string, exp: number, name: string | undefined): string {
  return `files\n${key}\n${exp}\n${name ?? ''}`;
}

/** Whether a /files link is one this service signed ('valid'), was signed but has expired, or is not ours. */
export function verifyFileLink(keys: ServerKeys, link: FileLink, nowSeconds: number): 'valid' | 'expired' | 'invalid' {
  const expected = Buffer.from(signLink(keys, linkPayload(link.key, link.exp, link.name)));
  const given = Buffer.from(link.sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'invalid';
  return link.exp <= nowSeconds ? 'expired' : 'valid';
}

// The content type each extension of the service's own keys stands for. A blob of that type needs no `.meta` file
// (issue 21: an export's file came with a second file and a second new directory under `.meta/`, half of a render
// thread's inode allocations; creating one cost 35–700 µs of CPU on the bench machine's ext4). Written out here, not
// taken from a MIME library: a library's update must never change the type a stored file without a `.meta` is
// served as.
const TYPE_OF_EXTENSION: Readonly<Record<string, string>> = {
  avif: 'image/avif',
  gif: 'image/gif',
  jpg: 'image/jpeg',
  mp4: 'video/mp4',
  pdf: 'application/pdf',
  png: 'image/png',
  webp: 'image/webp',
  zip: 'application/zip',
};

/** The content type a key's extension names, if it is one of TYPE_OF_EXTENSION's. */
function typeOfKey(key: string): string | undefined {
  const dot = key.lastIndexOf('.');
  return dot > key.lastIndexOf('/') ? TYPE_OF_EXTENSION[key.slice(dot + 1)] : undefined;
}

function missing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** Where a put writes first, and where the content type of a key is kept, under a store's root. */
function layout(root: string) {
  return { tmpDir: path.join(root, '.tmp'), metaDir: path.join(root, '.meta') };
}

/** The file of a key; the key rule already keeps it inside base, and this checks again. */
function fileOf(key: string, base: string, suffix = ''): string {
  assertBlobKey(key);
  const file = path.join(base, `${key}${suffix}`);
  // path.join normalises away every `..`, so a file inside base starts with it (a prefix test rather than
  // path.relative, which split both paths for every stored file: issue 21, stop 29).
  if (!file.startsWith(base.endsWith(path.sep) ? base : `${base}${path.sep}`)) {
    throw new RangeError(`invalid blob key '${key}'`);
  }
  return file;
}

/**
 * Names of this thread's temporary files: a random prefix drawn once and a counter (issue 21, stop 29: drawing 12
 * random bytes from the CSPRNG for every stored file was a tenth of a render thread's store). Written with `wx`, so a
 * name met again (another process's leftover) fails rather than overwrites.
 */
const tmpPrefix = randomBytes(8).toString('hex');
let tmpCount = 0;
function tmpName(): string {
  tmpCount += 1;
  return `${tmpPrefix}-${tmpCount.toString(36)}`;
}

/** Temporary directories this thread has made, by store root (once per thread, again if one disappears). */
const tmpDirsMade = new Set<string>();

function renameIntoSync(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if (!missing(error)) throw error;
    mkdirSync(path.dirname(to), { recursive: true });
    renameSync(from, to);
  }
}

/**
 * The put of a store rooted at `root` (createLocalDiskBlobStore), done synchronously by the thread that holds the
 * bytes: a render thread stores its own output (issue 21: the event loop's file calls were a sixth of an export's
 * CPU) instead of handing the bytes back for the event loop to write. The same files in the same order as `put`:
 * the content type (unless the key names it), then the file, each renamed into place from `.tmp/`. Never call it on
 * the event loop.
 */
export function writeBlobFileSync(root: string, key: string, body: Uint8Array, contentType: string): { size: number } {
  const base = path.resolve(root);
  const { tmpDir, metaDir } = layout(base);
  const file = fileOf(key, base);
  const metaFile = fileOf(key, metaDir, '.json');
  if (!tmpDirsMade.has(tmpDir)) {
    mkdirSync(tmpDir, { recursive: true });
    tmpDirsMade.add(tmpDir);
  }
  const tmp = path.join(tmpDir, tmpName());
  const tmpMeta = `${tmp}.json`;
  const named = typeOfKey(key) === contentType;
  try {
    writeFileSync(tmp, body, { flag: 'wx' });
    // Metadata first: a reader that sees the new file also sees its content type. A type the key names is kept by no
    // file, and one an earlier put of the key left is removed (unlinking a missing name costs no allocation).
    // existsSync first: rmSync of a missing file (every new key) has Node build an ENOENT error with its stack, about
    // a twentieth of a render thread's time per export at c=16 (issue 21, stop 29).
    if (named) {
      if (existsSync(metaFile)) rmSync(metaFile, { force: true });
    } else {
      writeFileSync(tmpMeta, JSON.stringify({ contentType } satisfies Meta), { flag: 'wx' });
      renameIntoSync(tmpMeta, metaFile);
    }
    renameIntoSync(tmp, file);
    return { size: body.byteLength };
  } catch (error) {
    if (missing(error)) tmpDirsMade.delete(tmpDir);
    rmSync(tmp, { force: true });
    rmSync(tmpMeta, { force: true });
    throw error;
  }
}

export function createLocalDiskBlobStore(options: LocalDiskBlobStoreOptions): BlobStore {
  const root = path.resolve(options.dir);
  const { tmpDir, metaDir } = layout(root);
  const now = options.now ?? Date.now;

  async function readMeta(key: string): Promise<Meta> {
    try {
      return JSON.parse(await fs.readFile(fileOf(key, metaDir, '.json'), 'utf8')) as Meta;
    } catch {
      return { contentType: typeOfKey(key) ?? 'application/octet-stream' };
    }
  }

  // Directories are made when a rename finds them missing, not before every file (issue 21: three mkdir calls per
  // stored file); the temporary directory once per process (and again if it disappears).
  let tmpDirMade = false;
  async function renameInto(from: string, to: string): Promise<void> {
    try {
      await fs.rename(from, to);
    } catch (error) {
      if (!missing(error)) throw error;
      // The target's directory is missing (a new export), or the temporary file's (the data dir was cleared).
      tmpDirMade = false;
      await fs.mkdir(path.dirname(to), { recursive: true });
      await fs.rename(from, to);
    }
  }

  return {
    localRoot: root,

    async put(key: string, body: Uint8Array | Readable, contentType: string) {
      const file = fileOf(key, root);
      const metaFile = fileOf(key, metaDir, '.json');
      if (!tmpDirMade) {
        await fs.mkdir(tmpDir, { recursive: true });
        tmpDirMade = true;
      }
      const tmp = path.join(tmpDir, tmpName());
      const tmpMeta = `${tmp}.json`;
      const named = typeOfKey(key) === contentType;
      try {
        if (body instanceof Uint8Array) await fs.writeFile(tmp, body, { flag: 'wx' });
        else await pipeline(body, createWriteStream(tmp, { flags: 'wx' }));
        const size = body instanceof Uint8Array ? body.byteLength : (await fs.stat(tmp)).size;
        // Metadata first: a reader that sees the new file also sees its content type (none for a type the key names;
        // an earlier put's is removed).
        if (named) await fs.rm(metaFile, { force: true });
        else {
          await fs.writeFile(tmpMeta, JSON.stringify({ contentType } satisfies Meta), { flag: 'wx' });
          await renameInto(tmpMeta, metaFile);
        }
        await renameInto(tmp, file);
        return { size };
      } catch (error) {
        if (missing(error)) tmpDirMade = false; // the next put makes it again
        await Promise.all([fs.rm(tmp, { force: true }), fs.rm(tmpMeta, { force: true })]);
        throw error;
      }
    },

    async get(key: string): Promise<StoredBlob | null> {
      const file = fileOf(key, root);
      let handle: fs.FileHandle;
      try {
        handle = await fs.open(file, 'r');
      } catch (error) {
        if (missing(error) || (error as NodeJS.ErrnoException).code === 'EISDIR') return null;
        throw error;
      }
      try {
        // The size of the opened file, which a concurrent replace (a rename) cannot change under the stream.
        const stat = await handle.stat();
        if (!stat.isFile()) {
          await handle.close();
          return null;
        }
        const { contentType } = await readMeta(key);
        return { body: handle.createReadStream(), size: stat.size, contentType };
      } catch (error) {
        await handle.close();
        throw error;
      }
    },

    async exists(key: string) {
      try {
        return (await fs.stat(fileOf(key, root))).isFile();
      } catch (error) {
        if (missing(error)) return false;
        throw error;
      }
    },

    async delete(key: string) {
      await fs.rm(fileOf(key, root), { force: true });
      await fs.rm(fileOf(key, metaDir, '.json'), { force: true });
    },

    async ping() {
      await fs.mkdir(root, { recursive: true });
      await fs.access(root, fs.constants.W_OK);
    },

    async signedUrl(key: string, { ttlSeconds, fileName }: SignedUrlOptions) {
      assertBlobKey(key);
      const exp = Math.floor(now() / 1000) + ttlSeconds;
      const sig = signLink(options.keys, linkPayload(key, exp, fileName));
      const name = fileName === undefined ? '' : `&name=${encodeURIComponent(fileName)}`;
      return `${options.publicUrl}/files/${key}?exp=${exp}&sig=${sig}${name}`;
    },
  };
}
