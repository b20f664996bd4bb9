// POST /v1/studio/canvas: the studio editor's canvas for one size of a document being edited (not yet saved), as the
// HTML5 export draws it. Called on open and whenever a change touches what only the server can lay out (text).
import { Type } from 'typebox';
import { DesignDocument } from '../../domain/design.schema.js';
import type { StudioCanvasService } from '../../services/studio-canvas.service.js';
import { AUTHED_ERRORS, BODY_ERRORS, errors, Ok } from '../schemas/common.js';
import type { App } from '../types.js';

const CanvasBody = Type.Object(
  {
    document: DesignDocument,
    sizeIndex: Type.Integer({ minimum: 0, maximum: 999, description: 'Which size of the document to draw' }),
  },
  { additionalProperties: false },
);

const CanvasResponse = Ok(
  Type.Object({
    width: Type.Integer(),
    height: Type.Integer(),
    backgroundColor: Type.String(),
    fontCss: Type.String({ description: '@font-face rules of the subset fonts, files inlined as data: URLs' }),
    motionCss: Type.String({
      description:
        "The package's @keyframes (the elements' animations, the slides' visibility), named z<sizeIndex>-… as the " +
        "markup's animation declarations are, so several sizes' canvases can share a page",
    }),
    markup: Type.String({
      description:
        "The inside of the HTML5 package's #ad box: slides of elements, each a div.e carrying data-element-name",
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
        'by line, so the browser shows exactly what exports. Nothing is stored.',
      body: CanvasBody,
      response: {
        200: CanvasResponse,
        ...errors(...AUTHED_ERRORS, ...BODY_ERRORS, 'SOURCE_REJECTED'),
      },
    },
    handler: async (request) => ({
      response: await canvas.canvas(request.body.document, request.body.sizeIndex),
    }),
  });
}
