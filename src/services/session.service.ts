// People in the studio (issue 18): passwords set through one-time invites, sign-in with email and password, and
// browser sessions. A session is a random token in an HttpOnly cookie; the database keeps only its SHA-256, the role
// at sign-in and a CSRF token. A session ends after `idleSeconds` without a request, on sign-out, when the user is
// deleted, or when the user's role changes (the lookup compares roles), so a demoted user keeps no stale power.
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ADMIN, OWNER, roleById } from '../domain/permissions.js';
import { AppError } from '../errors.js';
import type { Actor } from '../http/types.js';
import { now } from '../storage/db/database.js';
import type { Database } from '../storage/db/schema.js';
import { DECOY_HASH, hashSecret, verifySecret } from './secret-hash.js';

export interface SessionServiceDeps {
  db: Kysely<Database>;
  publicUrl: string;
  /** Inactivity after which a session ends. Default 8 hours. */
  idleSeconds?: number;
  /** Lifetime of an invite link. Default 7 days. */
  inviteTtlSeconds?: number;
}

export interface Session {
  token: string;
  csrfToken: string;
  actor: Actor;
}

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const randomToken = () => randomBytes(32).toString('base64url');
// last_seen_at is written at most once a minute: every request of an open app would otherwise write a row.
const TOUCH_EVERY_MS = 60_000;

/** Login budgets, counted in process (documented in docs/decisions.md): per account, and per client address. */
function loginLimiters() {
  return {
    account: new RateLimiterMemory({ points: 10, duration: 15 * 60, keyPrefix: 'login-account' }),
    address: new RateLimiterMemory({ points: 50, duration: 15 * 60, keyPrefix: 'login-address' }),
  };
}

async function spend(limiter: RateLimiterMemory, key: string, what: string) {
  try {
    await limiter.consume(key, 1);
  } catch (rejected) {
    if (!(rejected instanceof RateLimiterRes)) throw rejected;
    const seconds = Math.max(1, Math.ceil(rejected.msBeforeNext / 1000));
    throw new AppError('RATE_LIMITED', `too many sign-in attempts ${what}; retry in ${seconds} s`, {
      headers: { 'Retry-After': String(seconds) },
    });
  }
}

export function createSessionService({
  db,
  publicUrl,
  idleSeconds = 8 * 3600,
  inviteTtlSeconds = 7 * 86400,
}: SessionServiceDeps) {
  const limiters = loginLimiters();

  async function open(user: { id: number; team_id: number; role_id: number; name: string }): Promise<Session> {
    const token = randomToken();
    const csrfToken = randomToken();
    const at = now();
    await db
      .insertInto('sessions')
      .values({
        token_hash: sha256(token),
        user_id: user.id,
        team_id: user.team_id,
        role_id: user.role_id,
        csrf_token: csrfToken,
        created_at: at,
        last_seen_at: at,
      })
      .execute();
    return {
      token,
      csrfToken,
      actor: { userId: user.id, teamId: user.team_id, roleId: user.role_id, name: user.name, credentialId: 0 },
    };
  }

  function checkPassword(password: string) {
    if (password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
      throw new AppError(
        'VALIDATION_FAILED',
        `password: must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters, received ${password.length}`,
        {
          details: [
            { path: '/password', in: 'body', message: `must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters` },
          ],
        },
      );
    }
  }

  async function setPassword(userId: number, password: string) {
    const hash = await hashSecret(password);
    const at = now();
    const updated = await db
      .updateTable('user_passwords')
      .set({ password_hash: hash, updated_at: at })
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) === 0) {
      await db.insertInto('user_passwords').values({ user_id: userId, password_hash: hash, updated_at: at }).execute();
    }
  }

  return {
    idleSeconds,

    /** POST /v1/users/invite: a one-time link for a user of the caller's team to set a password. */
    async invite(actor: Actor, userId: number) {
      if (actor.roleId !== OWNER && actor.roleId !== ADMIN) {
        throw new AppError('FORBIDDEN', 'only an Owner or an Admin can invite users');
      }
      const user = await db
        .selectFrom('users')
        .select(['id', 'role_id'])
        .where('team_id', '=', actor.teamId)
        .where('id', '=', userId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      if (!user) throw new AppError('NOT_FOUND', `userId: no user ${userId} in this team`);
      if (user.role_id === OWNER && actor.roleId !== OWNER) {
        // Setting an Owner's password is taking over the Owner.
        throw new AppError('FORBIDDEN', 'only an Owner can invite an Owner');
      }
      const token = randomToken();
      const createdAt = new Date();
      const expiresAt = new Date(createdAt.getTime() + inviteTtlSeconds * 1000).toISOString();
      await db
        .insertInto('invites')
        .values({
          token_hash: sha256(token),
          team_id: actor.teamId,
          user_id: userId,
          created_by: actor.userId,
          created_at: createdAt.toISOString(),
          expires_at: expiresAt,
          used_at: null,
        })
        .execute();
      return { inviteUrl: `${publicUrl}/invite/${token}`, expiresAt };
    },

    /** What the invite page shows before the password is set; a used or expired invite is refused. */
    async inviteInfo(token: string) {
      const invite = await db
        .selectFrom('invites')
        .innerJoin('users', 'users.id', 'invites.user_id')
        .select(['invites.used_at', 'invites.expires_at', 'users.email', 'users.name', 'users.deleted_at'])
        .where('invites.token_hash', '=', sha256(token))
        .executeTakeFirst();
      if (!invite || invite.deleted_at) throw new AppError('NOT_FOUND', 'this invite link is not valid');
      if (invite.used_at) throw new AppError('NOT_FOUND', 'this invite link was already used; ask for a new one');
      if (invite.expires_at < new Date().toISOString()) {
        throw new AppError('NOT_FOUND', 'this invite link has expired; ask for a new one');
      }
      return { email: invite.email, name: invite.name };
    },

    /** POST /v1/auth/invite/accept: sets the password (the invite is spent) and signs the user in. */
    async acceptInvite(token: string, password: string): Promise<Session> {
      checkPassword(password);
      await this.inviteInfo(token);
      // Spend the invite first, conditionally: of two concurrent acceptances only one updates the row.
      const spent = await db
        .updateTable('invites')
        .set({ used_at: now() })
        .where('token_hash', '=', sha256(token))
        .where('used_at', 'is', null)
        .executeTakeFirst();
      if (Number(spent.numUpdatedRows) !== 1) {
        throw new AppError('NOT_FOUND', 'this invite link was already used; ask for a new one');
      }
      const invite = await db
        .selectFrom('invites')
        .innerJoin('users', 'users.id', 'invites.user_id')
        .select(['users.id', 'users.team_id', 'users.role_id', 'users.name'])
        .where('invites.token_hash', '=', sha256(token))
        .executeTakeFirstOrThrow();
      await setPassword(invite.id, password);
      // A new password ends the sessions opened with the old one.
      await db.deleteFrom('sessions').where('user_id', '=', invite.id).execute();
      return open(invite);
    },

    /** GET /v1/auth/session: who is signed in. */
    async me(actor: Actor) {
      const user = await db
        .selectFrom('users')
        .select(['id', 'name', 'email', 'role_id'])
        .where('id', '=', actor.userId)
        .executeTakeFirstOrThrow();
      const role = roleById(user.role_id)!;
      return {
        id: user.id,
        name: user.name,
        email: user.email,
        teamId: actor.teamId,
        role: { id: role.id, name: role.name },
      };
    },

    /** Sets a user's password directly (the demo Owner on first start). */
    setPassword,

    /** POST /v1/auth/login. The same scrypt work is done whether or not the email exists (no timing oracle). */
    async login(email: string, password: string, address: string): Promise<Session> {
      await spend(limiters.address, address, 'from this address');
      await spend(limiters.account, email.trim().toLowerCase(), 'for this account');
      const candidates = await db
        .selectFrom('users')
        .innerJoin('user_passwords', 'user_passwords.user_id', 'users.id')
        .select(['users.id', 'users.team_id', 'users.role_id', 'users.name', 'user_passwords.password_hash'])
        .where((eb) => eb(eb.fn('lower', ['users.email']), '=', email.trim().toLowerCase()))
        .where('users.deleted_at', 'is', null)
        .orderBy('users.id')
        .limit(5)
        .execute();
      let found: (typeof candidates)[number] | undefined;
      if (candidates.length === 0) await verifySecret(password, DECOY_HASH);
      // An email may belong to users of several teams; the password says which one signs in.
      for (const candidate of candidates) {
        if (!found && (await verifySecret(password, candidate.password_hash))) found = candidate;
      }
      if (!found) throw new AppError('INVALID_CREDENTIALS', 'the email and password do not match');
      await limiters.account.delete(email.trim().toLowerCase());
      return open(found);
    },

    /** The session of a cookie token, or null when it is unknown, idle too long, or its user changed. */
    async authenticate(token: string): Promise<{ actor: Actor; csrfToken: string } | null> {
      if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
      const hash = sha256(token);
      const row = await db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .select([
          'sessions.role_id as session_role',
          'sessions.csrf_token',
          'sessions.last_seen_at',
          'users.id',
          'users.team_id',
          'users.role_id',
          'users.name',
          'users.deleted_at',
        ])
        .where('sessions.token_hash', '=', hash)
        .executeTakeFirst();
      if (!row) return null;
      const idle = Date.now() - Date.parse(row.last_seen_at);
      if (row.deleted_at || row.role_id !== row.session_role || idle > idleSeconds * 1000) {
        await db.deleteFrom('sessions').where('token_hash', '=', hash).execute();
        return null;
      }
      if (idle > TOUCH_EVERY_MS) {
        await db.updateTable('sessions').set({ last_seen_at: now() }).where('token_hash', '=', hash).execute();
      }
      return {
        csrfToken: row.csrf_token,
        actor: { userId: row.id, teamId: row.team_id, roleId: row.role_id, name: row.name, credentialId: 0 },
      };
    },

    async logout(token: string) {
      await db.deleteFrom('sessions').where('token_hash', '=', sha256(token)).execute();
    },

    /** "Sign out everywhere": every session of the user. */
    async logoutEverywhere(userId: number) {
      await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
