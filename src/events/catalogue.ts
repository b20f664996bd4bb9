// The webhook actions of SPEC §8: a fixed catalogue shipped with the service (ids never change meaning; a new action
// takes the next id). GET /v1/webhookActions lists it and team webhooks subscribe to its ids.

export interface WebhookActionDef {
  id: number;
  /** `resource/event`, also the `action` of every payload. */
  name: string;
  description: string;
  /** The seed's action `config` string; no action has options yet, so it is an empty JSON object. */
  config: string;
  /** When the action became available: the release that introduced the catalogue. */
  createdAt: string;
}

/** Release date of the first catalogue; every current action dates from it. */
export const CATALOGUE_RELEASED_AT = '2026-01-01T00:00:00.000Z';

const action = <const N extends string>(id: number, name: N, description: string) =>
  ({ id, name, description, config: '{}', createdAt: CATALOGUE_RELEASED_AT }) as const;

export const WEBHOOK_ACTIONS = [
  action(
    1,
    'export/complete',
    'An export finished with every creative complete; data.export is as GET /v1/export/{id} answers it.',
  ),
  action(
    2,
    'export/failed',
    'An export finished with some or all creatives failed; data.export is as GET /v1/export/{id} answers it.',
  ),
  action(3, 'design/create', 'A design was created: imported, or made by an export with changes.'),
  action(4, 'design/update', 'A design was renamed, marked as a template, or had its document replaced or restored.'),
  action(5, 'design/delete', 'A design was deleted.'),
  action(6, 'project/create', 'A project was created.'),
  action(7, 'project/delete', 'A project was deleted with its folders and designs.'),
  action(8, 'brandkit/assetsUploaded', 'Assets were uploaded to a brand kit.'),
  action(9, 'user/create', 'A user was added to the team; data.user is the team user as GET /v1/users lists it.'),
  action(10, 'user/delete', 'A user was removed from the team; data.user is the team user as it was before.'),
  action(11, 'shareLink/create', 'A share link or a preview share link was created.'),
  action(12, 'designVersion/create', 'A version of a design was saved.'),
  action(
    13,
    'brandkit/fontAdded',
    'A font face was uploaded to a brand kit; data.font is the face as GET /v1/brandkit/{id}/fonts lists it.',
  ),
  action(
    14,
    'brandkit/fontRemoved',
    'A font face was deleted from a brand kit; data.font is the face as it was. Designs using it fall back.',
  ),
  action(15, 'shareLink/comment', 'A reviewer commented on a share page (a new thread or a reply); data.comment.'),
  action(16, 'shareLink/review', 'A reviewer approved a design or asked for changes on its share page; data.review.'),
  action(
    17,
    'batch/completed',
    'A batch finished: every row succeeded, failed, was skipped or cancelled; data.batch is as GET /v1/batches/{id} answers it.',
  ),
  action(
    18,
    'batch/row.failed',
    "A row of a batch failed; sent only to the batch's webhookUrl, when the batch asked (notifyRowFailures); data.row.",
  ),
] as const satisfies readonly WebhookActionDef[];

export type ActionName = (typeof WEBHOOK_ACTIONS)[number]['name'];

const BY_ID = new Map<number, WebhookActionDef>(WEBHOOK_ACTIONS.map((a) => [a.id, a]));
const BY_NAME = new Map<string, WebhookActionDef>(WEBHOOK_ACTIONS.map((a) => [a.name, a]));

export function actionById(id: number): WebhookActionDef | undefined {
  return BY_ID.get(id);
}

export function actionByName(name: ActionName): WebhookActionDef {
  return BY_NAME.get(name)!;
}
