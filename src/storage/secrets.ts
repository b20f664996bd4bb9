// The server secret: configured (PLACARD_JWT_SECRET) or generated once and kept in the data dir (SPEC §2).
// Purpose-specific keys are derived from it so that a token key never signs a download URL.
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface ServerKeys {
  /** HS256 key of access tokens. */
  jwt: Uint8Array;
  /** HMAC key of signed links (files, avatars). */
  links: Buffer;
}

export function loadServerKeys(configured: string | null, dataDir: string): ServerKeys {
  const master = configured ?? readOrCreate(path.join(dataDir, 'server-secret'));
  const derive = (purpose: string) => createHmac('sha256', master).update(purpose).digest();
  return { jwt: new Uint8Array(derive('placard/jwt')), links: derive('placard/links') };
}

function readOrCreate(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  try {
    // wx: two processes starting together must not overwrite each other's secret.
    fs.writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return fs.readFileSync(file, 'utf8').trim();
    throw error;
  }
}

/** HMAC signature of a link payload, base64url. */
export function signLink(keys: ServerKeys, payload: string): string {
  return createHmac('sha256', keys.links).update(payload).digest('base64url');
}
