// Access tokens (SPEC §2): client id + secret → HS256 JWT; bearer tokens → the acting user, checked against the
// credential and its user on every request so that a deleted credential or user is refused at once and role changes
// apply at once. The credential is kept per process until a write that can change it invalidates it
// (storage/db/invalidation.ts): a statement per request saved (issue 21), revocation still at once.
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { LRUCache } from 'lru-cache';
import type { Actor } from '../domain/actor.js';
import { AppError } from '../errors.js';
import { TTL_WITHOUT_TIMER } from '../lru-ttl.js';
import { TopicCache } from '../storage/db/invalidation.js';
import type { CredentialRepository, CredentialWithUser } from '../storage/db/repositories/credentials.repository.js';
import { DECOY_HASH, verifySecret } from './secret-hash.js';

export interface AuthServiceDeps {
  credentials: Pick<CredentialRepository, 'findSecretByClientId' | 'findActive' | 'touch'>;
  jwtKey: Uint8Array;
  tokenTtlSeconds: number;
}

const ISSUER = 'placard';

export function createAuthService({ credentials, jwtKey, tokenTtlSeconds }: AuthServiceDeps) {
  // jose imports a raw key through WebCrypto on every call; importing it once saves that on every request.
  // A token's signature is checked once and the result kept for the token's life (issue 21: an HMAC and a JSON parse
  // on every request); the credential is still read on every request, so a revoked credential or a changed role
  // applies at once. Keyed by the whole token string: only the exact bytes that verified are trusted.
  const verified = new LRUCache<string, { sub?: string; team?: unknown; cred?: unknown; exp?: number }>({
    max: 10_000,
    ttlAutopurge: false,
    ...TTL_WITHOUT_TIMER,
  });
  // Only credentials found are kept (TopicCache keeps no undefined): a miss costs a statement, as it did.
  const active = new TopicCache<number, CredentialWithUser | undefined>('auth', { max: 10_000, ttlMs: 10 * 60_000 });
  const findActive = (id: number) => active.get(id, () => credentials.findActive(id));
  const key = crypto.subtle.importKey('raw', jwtKey, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
  return {
    async issueToken(clientId: string, clientSecret: string): Promise<{ token: string; expiresIn: number }> {
      const found = await credentials.findSecretByClientId(clientId);
      const ok = await verifySecret(clientSecret, found?.secret_hash ?? DECOY_HASH);
      if (!found || !ok)
        throw new AppError('INVALID_CREDENTIALS', 'clientId and clientSecret do not match any API credential');
      const token = await new SignJWT({ team: found.team_id, cred: found.id })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(String(found.user_id))
        .setIssuer(ISSUER)
        .setIssuedAt()
        .setExpirationTime(`${tokenTtlSeconds}s`)
        .sign(await key);
      await credentials.touch(found.id);
      return { token, expiresIn: tokenTtlSeconds };
    },

    /**
     * The actor of a token that verified before and has not expired, whose credential is kept: answered without a
     * promise, so that the request hook needs none (issue 21). Anything else (a new token, a credential to read, a
     * refusal) is undefined, and authenticate() decides.
     */
    known(authorization: string | undefined): Actor | undefined {
      const token = authorization?.startsWith('Bearer ') ? authorization.slice(7) : undefined;
      const payload = token === undefined ? undefined : verified.get(token);
      if (!payload || (payload.exp ?? 0) * 1000 <= Date.now() || typeof payload.cred !== 'number') return undefined;
      const found = active.peek(payload.cred);
      if (!found || String(found.user_id) !== payload.sub || found.team_id !== payload.team) return undefined;
      return actorOf(found);
    },

    async authenticate(authorization: string | undefined): Promise<Actor> {
      if (!authorization) {
        throw new AppError('UNAUTHENTICATED', 'Authorization header is missing; send Authorization: Bearer <token>');
      }
      const match = /^Bearer ([A-Za-z0-9_.-]+)$/i.exec(authorization.trim());
      if (!match) throw new AppError('UNAUTHENTICATED', 'Authorization header must be "Bearer <token>"');
      let payload: { sub?: string; team?: unknown; cred?: unknown; exp?: number };
      const token = match[1];
      const known = verified.get(token);
      try {
        if (known && (known.exp ?? 0) * 1000 > Date.now()) {
          payload = known;
        } else {
          ({ payload } = await jwtVerify(token, await key, {
            algorithms: ['HS256'],
            issuer: ISSUER,
            requiredClaims: ['exp'],
          }));
          if (typeof payload.exp === 'number') {
            verified.set(token, payload, { ttl: Math.max(1, payload.exp * 1000 - Date.now()) });
          }
        }
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) {
          throw new AppError('TOKEN_EXPIRED', 'the access token has expired; request a new one at POST /v1/auth/token');
        }
        throw new AppError('UNAUTHENTICATED', 'the access token is not valid');
      }
      const credentialId = payload.cred;
      if (typeof credentialId !== 'number') throw new AppError('UNAUTHENTICATED', 'the access token is not valid');
      const found = await findActive(credentialId);
      if (!found || String(found.user_id) !== payload.sub || found.team_id !== payload.team) {
        throw new AppError('UNAUTHENTICATED', 'the access token has been revoked');
      }
      return actorOf(found);
    },
  };
}

function actorOf(found: CredentialWithUser): Actor {
  return {
    userId: found.user_id,
    teamId: found.team_id,
    roleId: found.role_id,
    name: found.user_name,
    credentialId: found.id,
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
