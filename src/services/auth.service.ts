// Access tokens (SPEC §2): client id + secret → HS256 JWT; bearer tokens → the acting user, checked against the
// database on every request so that a deleted credential or user is refused at once and role changes apply at once.
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { Actor } from '../domain/actor.js';
import { AppError } from '../errors.js';
import type { CredentialRepository } from '../storage/db/repositories/credentials.repository.js';
import { DECOY_HASH, verifySecret } from './secret-hash.js';

export interface AuthServiceDeps {
  credentials: Pick<CredentialRepository, 'findSecretByClientId' | 'findActive' | 'touch'>;
  jwtKey: Uint8Array;
  tokenTtlSeconds: number;
}

const ISSUER = 'placard';

export function createAuthService({ credentials, jwtKey, tokenTtlSeconds }: AuthServiceDeps) {
  // jose imports a raw key through WebCrypto on every call; importing it once saves that on every request.
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

    async authenticate(authorization: string | undefined): Promise<Actor> {
      if (!authorization) {
        throw new AppError('UNAUTHENTICATED', 'Authorization header is missing; send Authorization: Bearer <token>');
      }
      const match = /^Bearer ([A-Za-z0-9_.-]+)$/i.exec(authorization.trim());
      if (!match) throw new AppError('UNAUTHENTICATED', 'Authorization header must be "Bearer <token>"');
      let payload: { sub?: string; team?: unknown; cred?: unknown };
      try {
        ({ payload } = await jwtVerify(match[1], await key, {
          algorithms: ['HS256'],
          issuer: ISSUER,
          requiredClaims: ['exp'],
        }));
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) {
          throw new AppError('TOKEN_EXPIRED', 'the access token has expired; request a new one at POST /v1/auth/token');
        }
        throw new AppError('UNAUTHENTICATED', 'the access token is not valid');
      }
      const credentialId = payload.cred;
      if (typeof credentialId !== 'number') throw new AppError('UNAUTHENTICATED', 'the access token is not valid');
      const found = await credentials.findActive(credentialId);
      if (!found || String(found.user_id) !== payload.sub || found.team_id !== payload.team) {
        throw new AppError('UNAUTHENTICATED', 'the access token has been revoked');
      }
      return {
        userId: found.user_id,
        teamId: found.team_id,
        roleId: found.role_id,
        name: found.user_name,
        credentialId: found.id,
      };
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
