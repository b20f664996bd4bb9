// The Fastify instance type used by every route module, and what the request carries after authentication.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Actor } from '../domain/actor.js';
import type { Permission } from '../domain/permissions.js';
import type { AppError } from '../errors.js';

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export type { Actor } from '../domain/actor.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The permission the route needs (domain/permissions.ts). Every /v1 route has one unless it is public. */
    permission?: Permission;
    /** Answers without a bearer token. */
    public?: boolean;
    /** Which rate-limit budget the route draws from (SPEC §9). Default: other. */
    rateGroup?: 'exports' | 'other';
  }
  interface FastifyRequest {
    actor: Actor | null;
    authError: AppError | null;
    /** The team key whose export budget this request spent; an invalid export gives it back (plugins/auth.ts). */
    exportBudgetKey: string | null;
  }
}
