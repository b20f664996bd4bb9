// Reviews on share pages (issue 18): anyone with a link gives a name and comments on a point of one size, replies,
// resolves threads, approves or asks for changes. Comments are plain text (the page renders them with textContent;
// the length is capped), writes are rate limited per link, and each new comment and review is an event of the team
// (shareLink/comment, shareLink/review). GET /v1/shareLink/{hash} returns the threads of the design.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { DesignDocument } from '../domain/design.schema.js';
import { AppError } from '../errors.js';
import { recordEvent } from '../events/outbox.js';
import { now } from '../storage/db/database.js';
import type { Database } from '../storage/db/schema.js';

export const COMMENT_MAX = 2000;
export const AUTHOR_MAX = 80;

export interface CommentInput {
  author: string;
  text: string;
  parentId?: string;
  position?: { sizeHash: string; x: number; y: number };
}

export interface Thread {
  id: string;
  author: string;
  text: string;
  createdAt: string;
  resolved: boolean;
  position: { sizeHash: string; x: number; y: number } | null;
  replies: { id: string; author: string; text: string; createdAt: string }[];
}

export interface ShareCommentDeps {
  db: Kysely<Database>;
  /** The link's team, design and document (throws NOT_FOUND for an unknown token). */
  linkOf(token: string): Promise<{ teamId: number; designHash: string; document: DesignDocument }>;
  /** Writes per link per minute. Default 20. */
  perMinute?: number;
}

/** Control characters other than line breaks and tabs are dropped; the text is otherwise kept as typed. */
function clean(value: string, field: string, max: number): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  const text = value.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '').trim();
  if (!text) throw new AppError('VALIDATION_FAILED', `${field}: must not be empty`);
  if (text.length > max) {
    throw new AppError('VALIDATION_FAILED', `${field}: must be at most ${max} characters, received ${text.length}`);
  }
  return text;
}

export function createShareCommentService({ db, linkOf, perMinute = 20 }: ShareCommentDeps) {
  const limiter = new RateLimiterMemory({ points: perMinute, duration: 60, keyPrefix: 'share-comments' });
  async function spend(token: string) {
    try {
      await limiter.consume(token, 1);
    } catch (rejected) {
      if (!(rejected instanceof RateLimiterRes)) throw rejected;
      const seconds = Math.max(1, Math.ceil(rejected.msBeforeNext / 1000));
      throw new AppError('RATE_LIMITED', `too many comments on this link; retry in ${seconds} s`, {
        headers: { 'Retry-After': String(seconds) },
      });
    }
  }

  async function threads(designHash: string): Promise<Thread[]> {
    const rows = await db
      .selectFrom('share_comments')
      .selectAll()
      .where('design_hash', '=', designHash)
      .where('kind', '=', 'comment')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const byId = new Map<string, Thread>();
    for (const row of rows) {
      if (row.parent_id) continue;
      byId.set(row.id, {
        id: row.id,
        author: row.author,
        text: row.text,
        createdAt: row.created_at,
        resolved: row.resolved === 1,
        position: row.size_hash !== null ? { sizeHash: row.size_hash, x: row.x ?? 0, y: row.y ?? 0 } : null,
        replies: [],
      });
    }
    for (const row of rows) {
      if (row.parent_id) {
        byId
          .get(row.parent_id)
          ?.replies.push({ id: row.id, author: row.author, text: row.text, createdAt: row.created_at });
      }
    }
    return [...byId.values()];
  }

  async function reviews(designHash: string) {
    const rows = await db
      .selectFrom('share_comments')
      .select(['id', 'kind', 'author', 'text', 'created_at'])
      .where('design_hash', '=', designHash)
      .where('kind', 'in', ['approve', 'changes'])
      .orderBy('created_at')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      decision: r.kind === 'approve' ? ('approved' as const) : ('changesRequested' as const),
      author: r.author,
      text: r.text,
      createdAt: r.created_at,
    }));
  }

  return {
    threads,

    async list(token: string) {
      const link = await linkOf(token);
      return { threads: await threads(link.designHash), reviews: await reviews(link.designHash) };
    },

    async comment(token: string, input: CommentInput) {
      const link = await linkOf(token);
      const author = clean(input.author, 'author', AUTHOR_MAX);
      const text = clean(input.text, 'text', COMMENT_MAX);
      let position = input.position ?? null;
      if (input.parentId) {
        const parent = await db
          .selectFrom('share_comments')
          .select(['id', 'parent_id'])
          .where('id', '=', input.parentId)
          .where('design_hash', '=', link.designHash)
          .where('kind', '=', 'comment')
          .executeTakeFirst();
        if (!parent || parent.parent_id)
          throw new AppError('NOT_FOUND', `parentId: no thread ${input.parentId} on this design`);
        position = null;
      } else if (position) {
        const size = link.document.sizes.find((s) => s.hash === position?.sizeHash);
        if (!size) {
          throw new AppError(
            'UNKNOWN_SIZE_HASH',
            `position.sizeHash: ${position.sizeHash} is not a size of this design`,
          );
        }
        if (position.x > size.width || position.y > size.height) {
          throw new AppError(
            'VALIDATION_FAILED',
            `position: (${position.x}, ${position.y}) is outside the ${size.width}x${size.height} size`,
          );
        }
      }
      await spend(token);
      const id = randomUUID();
      const createdAt = now();
      await db.transaction().execute(async (tx) => {
        await tx
          .insertInto('share_comments')
          .values({
            id,
            share_token: token,
            team_id: link.teamId,
            design_hash: link.designHash,
            parent_id: input.parentId ?? null,
            kind: 'comment',
            author,
            text,
            size_hash: position?.sizeHash ?? null,
            x: position?.x ?? null,
            y: position?.y ?? null,
            resolved: 0,
            created_at: createdAt,
          })
          .execute();
        await recordEvent(tx, {
          teamId: link.teamId,
          action: 'shareLink/comment',
          data: {
            comment: {
              id,
              templateHash: link.designHash,
              parentId: input.parentId ?? null,
              author,
              text,
              position,
              createdAt,
            },
          },
        });
      });
      return { id, author, text, createdAt, resolved: false, position, replies: [] };
    },

    async resolve(token: string, id: string, resolved: boolean) {
      const link = await linkOf(token);
      await spend(token);
      const res = await db
        .updateTable('share_comments')
        .set({ resolved: resolved ? 1 : 0 })
        .where('id', '=', id)
        .where('design_hash', '=', link.designHash)
        .where('parent_id', 'is', null)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) throw new AppError('NOT_FOUND', `no thread ${id} on this design`);
    },

    async review(token: string, input: { author: string; decision: 'approve' | 'changes'; text?: string }) {
      const link = await linkOf(token);
      const author = clean(input.author, 'author', AUTHOR_MAX);
      const text = input.text?.trim() ? clean(input.text, 'text', COMMENT_MAX) : '';
      await spend(token);
      const id = randomUUID();
      const createdAt = now();
      const decision = input.decision === 'approve' ? 'approved' : 'changesRequested';
      await db.transaction().execute(async (tx) => {
        await tx
          .insertInto('share_comments')
          .values({
            id,
            share_token: token,
            team_id: link.teamId,
            design_hash: link.designHash,
            parent_id: null,
            kind: input.decision,
            author,
            text,
            size_hash: null,
            x: null,
            y: null,
            resolved: 0,
            created_at: createdAt,
          })
          .execute();
        await recordEvent(tx, {
          teamId: link.teamId,
          action: 'shareLink/review',
          data: { review: { id, templateHash: link.designHash, decision, author, text, createdAt } },
        });
      });
      return { id, decision, author, text, createdAt };
    },
  };
}

export type ShareCommentService = ReturnType<typeof createShareCommentService>;
