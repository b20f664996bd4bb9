// POST /v1/studio/canvas: the studio editor's canvas for one size of a document being edited (not yet saved), as the
// HTML5 export draws it. Called on open and whenever a change touches what only the server can lay out (text); the
// Server-Timing header says where the time went (validation, packaging the elements not cached, assembly).
import { Type } from 'typebox';
import { DesignDocument } from '../../domain/design.schema.js';
import type { StudioCanvasService } from '../../services/studio-canvas.service.js';
import { AUTHED_ERRORS, BODY_ERRORS, errors, Ok } from '../schemas/common.js';
import type { App } from '../types.js';

const CanvasBody = Type.Object(
  {
    document: DesignDocument,
    sizeIndex: Type.Integer({ minimum: 0, maximum: 999, description: 'Which size of the document to draw' }),
    knownFaces: Type.Optional(
      Type.Array(Type.String({ pattern: '^pf[0-9a-f]{16}$' }), {
        maxItems: 1000,
        description: 'Font faces (names from earlier answers) the caller has already: their rules are left out',
      }),
    ),
  },
  { additionalProperties: false },
);

const CanvasResponse = Ok(
  Type.Object({
    width: Type.Integer(),
    height: Type.Integer(),
    backgroundColor: Type.String(),
    fontCss: Type.String({
      description:
        '@font-face rules of the subset fonts the markup uses, files inlined as data: URLs, less the knownFaces',
    }),
    faces: Type.Array(Type.String(), { description: 'The font-family names of the rules in fontCss' }),
    motionCss: Type.String({
      description:
        "The @keyframes of the elements' animations and the slides' visibility, each named by a hash of its rule as " +
        "the markup's animation declarations are, so drawings of several sizes can share a page",
    }),
    markup: Type.String({
      description:
        "The HTML5 package's slides of elements, each a div.e carrying data-element-name; hidden elements carry " +
        'display:none',
    }),
  }),
);

export function studioCanvasRoutes(app: App, { canvas }: { canvas: StudioCanvasService }) {
  app.post('/v1/studio/canvas', {
    config: { permission: 'read' },
    schema: {
      tags: ['Studio'],
      summary: 'Draw one size of a document as the HTML5 export does (the design editor canvas)',
      description:
        'Extension. The same packager as HTML5 exports, on the render threads; text is laid out by the server, line ' +
        'by line, so the browser shows exactly what exports. Each element is packaged once for what it is drawn from ' +
        'and kept in a cache of the process; nothing is stored.',
      body: CanvasBody,
      response: {
        200: CanvasResponse,
        ...errors(...AUTHED_ERRORS, ...BODY_ERRORS, 'SOURCE_REJECTED'),
      },
    },
    handler: async (request, reply) => {
      const { document, sizeIndex, knownFaces } = request.body;
      const { canvas: drawn, timings: t } = await canvas.canvas(document, sizeIndex, { knownFaces });
      reply.header(
        'server-timing',
        [
          `validate;dur=${t.validateMs.toFixed(1)}`,
          `render;dur=${t.renderMs.toFixed(1)};desc="${t.packaged} of ${t.elements} elements packaged"`,
          `split;dur=${t.splitMs.toFixed(1)}`,
          `assemble;dur=${t.assembleMs.toFixed(1)}`,
        ].join(', '),
      );
      return { response: drawn };
    },
  });
}
