// Schemas every resource uses: the `response` wrapper of the seed, the error envelope of SPEC §3, paging.
import { type TSchema, Type } from 'typebox';
import { ERROR_CATALOGUE, type ErrorCode } from '../../errors.js';

/** The seed wraps every successful body in a top-level `response` object. */
export const Ok = <T extends TSchema>(schema: T) => Type.Object({ response: schema }, { additionalProperties: false });

export const StatusSuccess = Ok(Type.Object({ status: Type.Literal('success') }));

export { Id, Nullable, Timestamp } from '../../domain/schema-primitives.js';

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'What went wrong, naming the field and the rule' }),
    code: Type.String({ description: `Stable identifier to branch on: ${Object.keys(ERROR_CATALOGUE).join(', ')}` }),
    details: Type.Optional(
      Type.Array(
        Type.Object({
          path: Type.String({ description: 'JSON pointer of the field' }),
          in: Type.Optional(Type.String()),
          message: Type.String(),
        }),
      ),
    ),
    requestId: Type.String(),
  },
  { $id: 'ErrorBody', description: 'Every failure answers with this envelope (see docs/errors.md)' },
);

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request',
  401: 'Not authenticated',
  403: 'Role lacks the permission',
  404: 'Not found or not visible',
  409: 'Conflict',
  413: 'Body too large',
  415: 'Body is not JSON',
  422: 'Well-formed but impossible',
  429: 'Rate limited',
  501: 'Not implemented yet',
  503: 'Unavailable',
};

/** Response schemas for the error statuses a route can answer, each listing the codes it may carry. */
export function errors(...codes: ErrorCode[]): Record<number, TSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<number, TSchema> = {};
  for (const [status, list] of byStatus) {
    out[status] = Type.Object(ErrorBody.properties, {
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${list.join(', ')}`,
      // What /docs shows for this answer (issue 15): the envelope of its first code, described as the catalogue does.
      examples: [
        {
          error: ERROR_CATALOGUE[list[0]].description,
          code: list[0],
          requestId: '3c9f2b1a-7d4e-4f6a-8b5c-0e1d2f3a4b5c',
        },
      ],
    });
  }
  return out;
}

/** The errors every authenticated route can answer. */
export const AUTHED_ERRORS: ErrorCode[] = ['VALIDATION_FAILED', 'UNAUTHENTICATED', 'TOKEN_EXPIRED', 'RATE_LIMITED'];

/** What any request with a JSON body can fail with before validation. */
export const BODY_ERRORS: ErrorCode[] = ['INVALID_JSON', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE'];

/** What any POST can fail with: body errors and Idempotency-Key conflicts (SPEC §6). */
export const POST_ERRORS: ErrorCode[] = [...BODY_ERRORS, 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_USE'];

export const UserRef = Type.Object({ id: Type.Integer(), name: Type.String() });

export const OrderByEnum = Type.Enum(['ID', 'NAME', 'CREATED_AT', 'UPDATED_AT']);
export const OrderDirectionEnum = Type.Enum(['ASC', 'DESC']);

/** The cursor-pagination parameters of the seed's convention 5 (SPEC §4 rules). */
export const PageQueryFields = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Page size, default 20, at most 100' })),
  cursor: Type.Optional(Type.String({ maxLength: 1000, description: 'The endCursor of the previous page' })),
  orderBy: Type.Optional(OrderByEnum),
  orderDirection: Type.Optional(OrderDirectionEnum),
};

export const PageInfo = Type.Object({
  hasNextPage: Type.Boolean(),
  endCursor: Type.String({
    description:
      'Pass as `cursor` for the next page. Always a string, as the seed types it: "" on an empty page (an empty cursor starts from the beginning)',
  }),
});

/** `{ response: { totalCount, nodes, pageInfo } }` */
export const PageOf = <T extends TSchema>(node: T) =>
  Ok(Type.Object({ totalCount: Type.Integer(), nodes: Type.Array(node), pageInfo: PageInfo }));
