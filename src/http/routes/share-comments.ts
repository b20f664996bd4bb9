// Comments and reviews on the public share page (issue 18): no authentication — the link's 128-bit token is the
// only key, as for the page itself. Bodies are JSON only (SPEC §1), so another site's plain form cannot post here.
import { Type } from 'typebox';
import type { ShareCommentService } from '../../services/share-comment.service.js';
import { errors, POST_ERRORS } from '../schemas/common.js';
import { CommentBody, CommentsResponse, ResolveBody, ReviewBody, ShareToken, Thread } from '../schemas/share-links.js';
import type { App } from '../types.js';

const tags = ['Share links'];
const failures = errors('VALIDATION_FAILED', 'NOT_FOUND', 'RATE_LIMITED');

export function shareCommentsRoutes(app: App, { comments }: { comments: ShareCommentService }) {
  app.get('/share/:token/comments', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Comment threads and reviews of the design a share link shows',
      params: Type.Object({ token: ShareToken }),
      response: { 200: CommentsResponse, ...failures },
    },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return { response: await comments.list(request.params.token) };
    },
  });

  app.post('/share/:token/comments', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Comment on a point of one size, or reply to a thread (plain text, rate limited per link)',
      params: Type.Object({ token: ShareToken }),
      body: CommentBody,
      response: {
        200: Type.Object({ response: Thread }),
        ...errors('VALIDATION_FAILED', 'NOT_FOUND', 'RATE_LIMITED', 'UNKNOWN_SIZE_HASH', ...POST_ERRORS),
      },
    },
    handler: async (request) => ({ response: await comments.comment(request.params.token, request.body) }),
  });

  app.post('/share/:token/comments/:commentId/resolve', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Resolve (or reopen) a thread',
      params: Type.Object({ token: ShareToken, commentId: Type.String({ format: 'uuid' }) }),
      body: ResolveBody,
      response: { 200: Type.Object({ response: Type.Object({ status: Type.Literal('success') }) }), ...failures },
    },
    handler: async (request) => {
      await comments.resolve(request.params.token, request.params.commentId, request.body.resolved);
      return { response: { status: 'success' as const } };
    },
  });

  app.post('/share/:token/review', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Approve the design or ask for changes',
      params: Type.Object({ token: ShareToken }),
      body: ReviewBody,
      response: { 200: Type.Object({ response: Type.Object({}, { additionalProperties: true }) }), ...failures },
    },
    handler: async (request) => ({ response: await comments.review(request.params.token, request.body) }),
  });
}
