// The server secret: configured (PLACARD_JWT_SECRET) or generated once and kept in the data dir (SPEC §2).
// Purpose-specific keys are derived from it so that a token key never signs a download URL.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
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

/** The AES-256-GCM key that seals secrets kept in the database (render URL secrets), derived from the links key. */
function sealingKey(keys: ServerKeys): Buffer {
  return createHmac('sha256', keys.links).update('placard/sealed-secrets').digest();
}

/**
 * Seals a secret the service must be able to read back (an HMAC key it verifies with): `v1.<iv>.<tag>.<ciphertext>`,
 * base64url. `context` (e.g. the team id) is authenticated too, so a sealed value copied to another row does not open.
 */
export function sealSecret(keys: ServerKeys, plaintext: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(keys), iv);
  cipher.setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), body]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

/** Opens what sealSecret made; throws when it was made with another server secret, another context or was altered. */
export function openSecret(keys: ServerKeys, sealed: string, context: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('not a sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(keys), Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}
