// Real example requests and answers of the operations, shown by /docs and /v1/openapi.json (issue 15: without them
// Swagger UI made up samples from the schemas — `"type": "GIf"`, every format's settings at once). Kept apart from the
// schemas so that a route file states its rules and this one shows a realistic use: the openapi plugin puts each
// example on its operation's body or 200 answer, and test/http/openapi-examples.test.ts fails when an operation with a
// body has no example here, or when an example does not validate against its own schema.
// Keys are "<METHOD> <OpenAPI path>". Hashes, ids and links are made up but well-formed.
import { DESIGN_DOCUMENT_EXAMPLE } from '../domain/design-document-doc.js';

export interface OperationExample {
  /** The request body. */
  body?: unknown;
  /** The 200 answer. */
  response?: unknown;
}

const HASH = 'k3x9q2m';
const SIZE_HASH = 'p4w8z1c';
const EXPORT_ID = '2f0c1a7e-5b8d-4c3a-9e61-7d2b4f8a9c10';
const CREATIVE_ID = '8a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const CREATED_AT = '2026-03-02T09:15:00.000Z';
const USER = { id: 3, name: 'Ada Lovelace' };

const CHANGES = [
  { elementName: 'headline', changes: [{ attribute: 'LABEL', value: 'Summer sale: 30 % off' }] },
  { elementName: 'photo', changes: [{ attribute: 'SOURCE', value: 'https://cdn.example.com/summer.jpg' }] },
  { elementName: 'cta', changes: [{ attribute: 'BGCOLOR', value: '#10B981' }] },
];

const TEMPLATE_NODE = {
  id: HASH,
  name: 'Spring sale',
  isTemplate: false,
  projectId: 12,
  apiGenerated: false,
  thumbUrl: `https://placard.example.com/files/thumbnails/${HASH.slice(0, 2)}/${HASH}-0b6f3c1e-2d4a-4f8b-9c7e-5a1d3b2c4e6f.png?exp=1772486100&sig=Zk3v9Qm2xW8yTn4pLr6sHj1uBc7dEa5f`,
};

const PENDING_EXPORT = {
  id: EXPORT_ID,
  type: 'PNG',
  status: 'pending',
  stage: 'queued',
  errorLog: null,
  creatives: [{ id: CREATIVE_ID, status: 'pending', stage: 'queued', url: null, progress: 0 }],
  progress: 0,
  templateHash: HASH,
  newDesignHash: 'n7c2v5b',
  createdAt: CREATED_AT,
  completedAt: null,
};

const BRAND_KIT = {
  id: 4,
  name: 'Acme',
  teamId: 1,
  createdBy: 3,
  typography: [{ fontId: null, fontName: 'Inter', fontSize: 32, fontWeight: '700', type: 'heading' }],
  colors: [{ name: 'Brand blue', hex: '#1D4ED8' }],
};

/** A batch of two rows given as CSV text: a headline and a price per row, the price formatted in euros. */
const BATCH_BODY = {
  templateHash: HASH,
  type: 'png',
  csv: 'sku,title,price\nA-1,Linen shirt,39.9\nA-2,Canvas tote,24\n',
  rowKey: 'sku',
  mapping: [
    { elementName: 'headline', attribute: 'LABEL', value: '{title}' },
    { elementName: 'cta', attribute: 'LABEL', value: 'Now {price|currency:EUR:de-DE}' },
  ],
  webhookUrl: 'https://hooks.example.com/placard',
};

export const OPERATION_EXAMPLES: Record<string, OperationExample> = {
  'POST /v1/auth/token': {
    body: { clientId: '6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b', clientSecret: 'pk_live_3q9XbV7mTz2LwR8sYc4N' },
    response: {
      token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIzIn0.c2lnbmF0dXJl',
      response: { token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIzIn0.c2lnbmF0dXJl', tokenType: 'Bearer', expiresIn: 3600 },
    },
  },
  'POST /v1/auth/login': { body: { email: 'ada@example.com', password: 'correct horse battery staple' } },
  'POST /v1/users/invite': { body: { userId: 7 } },
  'POST /v1/auth/invite/accept': {
    body: { token: 'Qm9vbGVhbkZsYWdzLUFyZS1Ob3QtU2VjcmV0cy1PSy0', password: 'correct horse battery staple' },
  },
  'POST /v1/users': { body: { name: 'Grace Hopper', email: 'grace@example.com', role: 'Editor' } },
  'DELETE /v1/users': { body: { email: 'grace@example.com' } },
  'PUT /v1/users/updateTeamUserRole': { body: { userId: 7, roleId: 3 } },
  'POST /v1/apiCredentials': { body: { name: 'CI pipeline', userId: 3 } },
  'DELETE /v1/apiCredentials': { body: { clientId: '6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b' } },
  'POST /v1/projects': {
    body: { name: 'Summer campaign', brandKitId: 4, color: '#F59E0B', description: 'Display ads for June' },
    response: {
      response: {
        project: {
          id: 12,
          teamId: 1,
          name: 'Summer campaign',
          createdBy: 3,
          color: '#F59E0B',
          description: 'Display ads for June',
          brandKit: BRAND_KIT,
        },
      },
    },
  },
  'GET /v1/projects': {
    response: {
      response: {
        totalCount: 1,
        nodes: [
          {
            id: 12,
            name: 'Summer campaign',
            createdBy: 3,
            color: '#F59E0B',
            description: 'Display ads for June',
            brandKit: { id: 4, name: 'Acme' },
          },
        ],
        pageInfo: { hasNextPage: false, endCursor: 'eyJpZCI6MTJ9' },
      },
    },
  },
  'PUT /v1/projects': { body: { projectId: 12, name: 'Summer campaign 2026', color: '#10B981' } },
  'DELETE /v1/projects': { body: { projectId: 12 } },
  'POST /v1/project/users': { body: { userId: 7, projectId: 12 } },
  'DELETE /v1/project/users': { body: { userId: 7, projectId: 12 } },
  'PUT /v1/brandkits': {
    body: {
      brandkitId: 4,
      name: 'Acme',
      typography: [
        { fontId: null, fontName: 'Inter', fontSize: 32, fontWeight: '700', type: 'heading' },
        { fontId: null, fontName: 'Inter', fontSize: 16, fontWeight: '400', type: 'body' },
      ],
    },
  },
  'DELETE /v1/brandkits': { body: { brandkitId: 4 } },
  'POST /v1/brandkits/create': {
    body: { name: 'Acme' },
    response: { response: { brandKit: { ...BRAND_KIT, createdAt: CREATED_AT } } },
  },
  'POST /v1/folders': {
    body: { projectId: 12, name: 'Social', parentId: 5 },
    response: {
      response: {
        folder: {
          id: 6,
          name: 'Social',
          parentId: 5,
          createdByUser: USER,
          isParent: false,
          updatedAt: CREATED_AT,
          createdAt: CREATED_AT,
          updatedByUser: USER,
        },
      },
    },
  },
  'PUT /v1/folders': { body: { folderId: 6, name: 'Social media', parentId: -1 } },
  'DELETE /v1/folders': { body: { folderId: 6 } },
  'POST /v1/moveDesignToFolder': { body: { designHash: HASH, folderId: 6 }, response: { response: true } },
  'GET /v1/templates': {
    response: {
      response: {
        totalCount: 1,
        nodes: [TEMPLATE_NODE],
        pageInfo: { hasNextPage: false, endCursor: 'eyJpZCI6NDJ9' },
      },
    },
  },
  'DELETE /v1/templates': { body: { hash: HASH } },
  'PUT /v1/templates': {
    body: { hash: HASH, name: 'Spring sale – master', isTemplate: true },
    response: { response: { template: { ...TEMPLATE_NODE, name: 'Spring sale – master', isTemplate: true } } },
  },
  'POST /v1/templates/import': {
    body: { projectId: 12, folderId: 6, name: 'Spring sale', document: DESIGN_DOCUMENT_EXAMPLE },
    response: {
      response: {
        // Before its thumbnail is drawn, thumbUrl links the design's thumbnail: 404 with Retry-After until it exists.
        template: {
          ...TEMPLATE_NODE,
          thumbUrl: `https://placard.example.com/thumbnails/${HASH}.png?exp=1772486100&sig=Zk3v9Qm2xW8yTn4pLr6sHj1uBc7dEa5f`,
        },
      },
    },
  },
  'GET /v1/templates/{templateHash}/design-sizes': {
    response: {
      response: [
        {
          hash: SIZE_HASH,
          name: 'Medium Rectangle',
          kind: 'system_design',
          width: 300,
          height: 250,
          measureUnit: 'px',
        },
      ],
    },
  },
  'GET /v1/templates/{hash}/elements': {
    response: {
      response: [
        {
          name: 'headline',
          layerType: 'text',
          value: 'Spring sale',
          visible: true,
          slideNumber: 0,
          gotoUrl: null,
          attributes: ['LABEL', 'TEXTMARKDOWN', 'VISIBILITY', 'FONTVARIANT', 'FONTFAMILY', 'TEXTCOLOR'],
        },
      ],
    },
  },
  'PUT /v1/templates/{hash}/document': { body: { document: DESIGN_DOCUMENT_EXAMPLE } },
  'POST /v1/templates/{templateHash}/preflight': {
    body: { type: 'png', elementsChanges: CHANGES.slice(0, 1), exportSettings: { preflight: 'warn' } },
  },
  'POST /v1/designVersion': { body: { hash: HASH, versionName: 'Approved by client' } },
  'PUT /v1/designVersion': {
    body: { hash: HASH, versionName: 'Approved by client (final)', versionId: '5d3c1b2a-6e7f-4a8b-9c0d-1e2f3a4b5c6d' },
  },
  'POST /v1/designVersion/restore': { body: { hash: HASH, versionId: '5d3c1b2a-6e7f-4a8b-9c0d-1e2f3a4b5c6d' } },
  'POST /v1/export-with-changes': {
    body: {
      templateHash: HASH,
      type: 'png',
      exportSettings: { scale: 2 },
      elementsChanges: CHANGES,
      generalSettings: { newDesignName: 'Summer sale – EN' },
      webhookUrl: 'https://hooks.example.com/placard',
    },
    response: { response: { export: PENDING_EXPORT } },
  },
  'POST /v1/export': {
    body: { creativeHash: HASH, type: 'html5', exportSettings: { networkId: 1, includeFallbackImage: true } },
    response: {
      response: { export: { ...PENDING_EXPORT, type: 'HTML5', newDesignHash: null } },
    },
  },
  'GET /v1/export/{exportId}': {
    response: {
      response: {
        ...PENDING_EXPORT,
        status: 'complete',
        stage: 'done',
        creatives: [
          {
            id: CREATIVE_ID,
            status: 'complete',
            stage: 'done',
            url: `https://placard.example.com/files/exports/2f/${EXPORT_ID}-${CREATIVE_ID}.png?exp=1772489700&sig=b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7&name=Summer%20sale-300x250.png`,
            progress: 1,
          },
        ],
        progress: 1,
        completedAt: '2026-03-02T09:15:02.000Z',
      },
    },
  },
  'GET /v1/shareLink/{templateHash}': {
    response: {
      response: {
        shareLinkUrl: 'https://placard.example.com/share/Vb7Qm2xW8yTn4pLr6sHj1u',
        comments: {
          threads: [
            {
              id: '0e9d8c7b-6a5f-4e3d-8c2b-1a0f9e8d7c6b',
              author: 'Dana (client)',
              text: 'Can the button be larger?',
              createdAt: CREATED_AT,
              resolved: false,
              position: { sizeHash: SIZE_HASH, x: 70, y: 222 },
              replies: [],
            },
          ],
        },
      },
    },
  },
  'POST /v1/shareLink/generate': {
    body: { templateHash: HASH, elementsChanges: CHANGES.slice(0, 1), generalChanges: { backgroundColor: '#7C3AED' } },
    response: {
      response: {
        shareLinkUrl: 'https://placard.example.com/share/preview/1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
        previewUrl: 'https://placard.example.com/share/preview/1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
        previewId: '1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
      },
      previewUrl: 'https://placard.example.com/share/preview/1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
      previewId: '1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
    },
  },
  'POST /share/{token}/comments': {
    body: {
      author: 'Dana (client)',
      text: 'Can the button be larger?',
      position: { sizeHash: SIZE_HASH, x: 70, y: 222 },
    },
  },
  'POST /share/{token}/comments/{commentId}/resolve': { body: { resolved: true } },
  'POST /share/{token}/review': { body: { author: 'Dana (client)', decision: 'approve', text: 'Good to go.' } },
  'POST /v1/studio/canvas': { body: { document: DESIGN_DOCUMENT_EXAMPLE, sizeIndex: 0 } },
  'POST /v1/studio/preflight': { body: { document: DESIGN_DOCUMENT_EXAMPLE, sizeIndex: 0 } },
  'POST /v1/batches': { body: BATCH_BODY },
  'POST /v1/batches/preview': { body: BATCH_BODY },
  'POST /v1/brandkit/uploadAssets': {
    body: { brandkitId: 4, mediaFolderId: 2, sources: ['https://cdn.example.com/logo.svg'] },
  },
  'POST /v1/brandkit/mediaFolders': { body: { brandkitId: 4, name: 'Logos' } },
  'POST /v1/brandkit/uploadFonts': {
    body: { brandkitId: 4, sources: ['https://cdn.example.com/fonts/Acme-Bold.woff2'] },
  },
  'DELETE /v1/brandkit/fonts': { body: { brandkitId: 4, fontId: 9 } },
  'POST /v1/renderUrls': {
    body: {
      templateHash: HASH,
      format: 'png',
      size: '300x250',
      elementsChanges: CHANGES.slice(0, 1),
      expiresAt: '2026-12-31T23:59:59.000Z',
    },
    response: {
      response: {
        url: `https://placard.example.com/r/${HASH}/300x250.png?headline=Summer+sale&exp=1798761599&sig=3f2a1b0c9d8e7f6a`,
        expiresAt: '2026-12-31T23:59:59.000Z',
        cacheControl: 'public, max-age=31536000, immutable',
      },
    },
  },
  'POST /v1/webhooks': {
    body: { name: 'Exports to the DAM', url: 'https://hooks.example.com/placard', actions: [1] },
    response: {
      response: {
        id: 5,
        name: 'Exports to the DAM',
        webhookUrl: 'https://hooks.example.com/placard',
        createdAt: CREATED_AT,
        createdByUser: USER,
        actions: [
          {
            actionId: 1,
            createdAt: CREATED_AT,
            createdByUser: USER,
            action: {
              id: 1,
              name: 'export/complete',
              description:
                'An export finished with every creative complete; data.export is as GET /v1/export/{id} answers it.',
              config: '{}',
              createdAt: '2026-01-01T00:00:00.000Z',
            },
          },
        ],
      },
    },
  },
  'PUT /v1/webhooks': { body: { webhookId: 5, actions: [1, 2, 3] } },
  'DELETE /v1/webhooks': { body: { webhookId: 5 } },
};

/** "<METHOD> <OpenAPI path>" of a route as Fastify declares it (`/v1/x/:id/*` → `/v1/x/{id}/{*}`). */
export function operationKey(method: string, url: string): string {
  return `${method.toUpperCase()} ${url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*/g, '{*}')}`;
}
