// Type test (test/client/types.test.ts runs `tsc --noEmit -p packages/client/test`): what a user writes compiles, and
// every line under `@ts-expect-error` must fail to compile — a wrong body field, a misspelled endpoint, a wrong
// parameter type. If one of them compiled, tsc would report the unused directive and the test would fail.
import { createClient, type PlacardClient, PlacardError, verifyWebhook } from '../src/index.js';

export async function usage(client: PlacardClient = createClient({ baseUrl: 'http://localhost:8080', token: 't' })) {
  const created = await client.POST('/v1/export-with-changes', {
    body: {
      templateHash: 'abc1234',
      type: 'png',
      elementsChanges: [{ elementName: 'headline', changes: [{ attribute: 'LABEL', value: 'Hello' }] }],
    },
  });
  const exportId: string = created.response.export.id;
  const done = await client.waitForExport(exportId, { timeoutMs: 60_000, onProgress: (s) => s.progress });
  const status: 'pending' | 'inProgress' | 'complete' | 'completeWithError' | 'failed' = done.status;
  for await (const template of client.templates.list({ limit: 100, orderBy: 'NAME' })) {
    const hash: string = template.id;
    void hash;
  }
  const sizes = await client.GET('/v1/templates/{templateHash}/design-sizes', {
    params: { path: { templateHash: 'abc1234' } },
  });
  void sizes.response;
  try {
    await client.DELETE('/v1/templates', { body: { hash: 'abc1234' } });
  } catch (error) {
    if (error instanceof PlacardError) {
      const code: string = error.code;
      const field: string | undefined = error.details[0]?.path;
      void [code, field, error.status, error.requestId];
    }
  }
  const event = await verifyWebhook('whsec_AAAA', new Headers(), '{}');
  void [status, event.action];

  // A misspelled endpoint.
  // @ts-expect-error '/v1/template' is not a path of the API
  await client.GET('/v1/template');

  // A path that exists, with a method it does not have.
  // @ts-expect-error /v1/export-with-changes is a POST: there is no GET
  await client.GET('/v1/export-with-changes');

  await client.POST('/v1/export-with-changes', {
    body: {
      templateHash: 'abc1234',
      type: 'png',
      // @ts-expect-error a wrong body field: the API's field is `elementsChanges`
      elementChanges: [],
    },
  });

  await client.POST('/v1/projects', {
    // @ts-expect-error brandKitId is an integer, not a string
    body: { name: 'Spring', brandKitId: '1' },
  });

  // @ts-expect-error a required body is missing
  await client.POST('/v1/projects');

  await client.GET('/v1/export/{exportId}', {
    // @ts-expect-error the path parameter is exportId
    params: { path: { id: 'x' } },
  });

  // @ts-expect-error a list query parameter that the endpoint does not have
  client.templates.list({ limitt: 10 });

  // @ts-expect-error paginate takes only list endpoints
  client.paginate('/v1/roles');

  // @ts-expect-error the success body has no `nodes` at the top level (it is under `response`)
  void created.nodes;
}
