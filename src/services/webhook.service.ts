// Team webhooks (seed "Team webhooks", SPEC §8 and §11): a name, a target URL and the catalogue actions it
// subscribes to, plus the team's Standard Webhooks signing secret. A URL that can never receive a delivery (another
// scheme, a literal private address) is refused here; events/deliveries.ts checks resolved addresses at each attempt.

import type { Actor } from '../domain/actor.js';
import { AppError, type ErrorDetail } from '../errors.js';
import { actionById, WEBHOOK_ACTIONS, type WebhookActionDef } from '../events/catalogue.js';
import { newSigningSecret, webhookUrlProblem } from '../events/deliveries.js';
import type {
  SigningSecretRow,
  WebhookActionRow,
  WebhookRepository,
  WebhookRow,
} from '../storage/db/repositories/webhooks.repository.js';

export interface WebhookServiceDeps {
  webhooks: Pick<
    WebhookRepository,
    'list' | 'findById' | 'actionsOf' | 'insert' | 'update' | 'delete' | 'findSecret' | 'ensureSecret' | 'replaceSecret'
  >;
  /** Accept URLs of private, loopback and link-local addresses (PLACARD_ALLOW_PRIVATE_URLS, tests). Default false. */
  allowPrivateUrls?: boolean;
  /** PLACARD_ALLOWED_PRIVATE_HOSTS. Default: none. */
  allowedPrivateHosts?: readonly string[];
}

/**
 * The distinct catalogue actions of `ids`, in the order first given (a repeated id is the same subscription).
 * An id outside the catalogue is a 422 naming each offending position.
 */
function resolveActions(ids: number[]): number[] {
  const details: ErrorDetail[] = [];
  ids.forEach((id, i) => {
    if (!actionById(id)) {
      details.push({ path: `/actions/${i}`, in: 'body', message: `${id} is not a webhook action id` });
    }
  });
  if (details.length > 0) {
    const unknown = [...new Set(ids.filter((id) => !actionById(id)))];
    const known = `known ids are ${WEBHOOK_ACTIONS[0].id} to ${WEBHOOK_ACTIONS.at(-1)!.id} (GET /v1/webhookActions)`;
    throw new AppError(
      'UNPROCESSABLE',
      `actions: ${unknown.join(', ')} ${unknown.length === 1 ? 'is not a webhook action id' : 'are not webhook action ids'}; ${known}`,
      { details },
    );
  }
  return [...new Set(ids)];
}

function trimmedName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) {
    throw new AppError('VALIDATION_FAILED', 'name: must not be empty or only spaces', {
      details: [{ path: '/name', in: 'body', message: 'must not be empty or only spaces' }],
    });
  }
  return trimmed;
}

/** A URL the deliveries could never reach is a 422 now rather than a failed delivery later. */
function checkedUrl(url: string, allowPrivateUrls: boolean, allowedPrivateHosts: readonly string[]): string {
  const problem = webhookUrlProblem(url, allowPrivateUrls, allowedPrivateHosts);
  if (problem) {
    throw new AppError('UNPROCESSABLE', `url: ${problem}`, {
      details: [{ path: '/url', in: 'body', message: problem }],
    });
  }
  return url;
}

function link(row: WebhookActionRow, def: WebhookActionDef) {
  return {
    actionId: row.action_id,
    createdAt: row.created_at,
    createdByUser: { id: row.created_by, name: row.created_by_name },
    action: def,
  };
}

function webhookNode(row: WebhookRow, links: WebhookActionRow[]) {
  return {
    id: row.id,
    name: row.name,
    webhookUrl: row.url,
    createdAt: row.created_at,
    createdByUser: { id: row.created_by, name: row.created_by_name },
    // A link to an action the catalogue no longer has is not shown (ids are never reused, see catalogue.ts).
    actions: links.flatMap((l) => {
      const def = actionById(l.action_id);
      return def ? [link(l, def)] : [];
    }),
  };
}

function secretNode(row: SigningSecretRow) {
  return { secret: row.secret, createdAt: row.created_at };
}

export function createWebhookService({
  webhooks,
  allowPrivateUrls = false,
  allowedPrivateHosts = [],
}: WebhookServiceDeps) {
  async function load(teamId: number, id: number) {
    const row = await webhooks.findById(teamId, id);
    if (!row) throw new AppError('NOT_FOUND', `webhookId: no webhook ${id} in this team`);
    return webhookNode(row, await webhooks.actionsOf([id]));
  }

  return {
    actions() {
      return WEBHOOK_ACTIONS.map(({ id, name, description }) => ({ id, name, description }));
    },

    /** As the seed lists them: only `name` and `description` inside each link's `action`. */
    async list(actor: Actor) {
      const rows = await webhooks.list(actor.teamId);
      const links = await webhooks.actionsOf(rows.map((r) => r.id));
      return rows.map((row) => {
        const node = webhookNode(
          row,
          links.filter((l) => l.webhook_id === row.id),
        );
        return {
          ...node,
          actions: node.actions.map((a) => ({
            ...a,
            action: { name: a.action.name, description: a.action.description },
          })),
        };
      });
    },

    async create(actor: Actor, input: { name: string; url: string; actions: number[] }) {
      const name = trimmedName(input.name);
      const url = checkedUrl(input.url, allowPrivateUrls, allowedPrivateHosts);
      const actionIds = resolveActions(input.actions);
      const id = await webhooks.insert({
        teamId: actor.teamId,
        name,
        url,
        createdBy: actor.userId,
        actionIds,
      });
      return load(actor.teamId, id);
    },

    /** Changes only what is given; `actions` replaces the subscriptions, keeping the links that stay. */
    async update(actor: Actor, input: { webhookId: number; name?: string; url?: string; actions?: number[] }) {
      const name = input.name === undefined ? undefined : trimmedName(input.name);
      const url = input.url === undefined ? undefined : checkedUrl(input.url, allowPrivateUrls, allowedPrivateHosts);
      const actionIds = input.actions === undefined ? undefined : resolveActions(input.actions);
      const found = await webhooks.update(actor.teamId, input.webhookId, {
        name,
        url,
        actionIds,
        by: actor.userId,
      });
      if (!found) throw new AppError('NOT_FOUND', `webhookId: no webhook ${input.webhookId} in this team`);
      return load(actor.teamId, input.webhookId);
    },

    async delete(actor: Actor, webhookId: number) {
      if (!(await webhooks.delete(actor.teamId, webhookId))) {
        throw new AppError('NOT_FOUND', `webhookId: no webhook ${webhookId} in this team`);
      }
    },

    /** The team's signing secret, made on first use. */
    async secret(actor: Actor) {
      const row =
        (await webhooks.findSecret(actor.teamId)) ?? (await webhooks.ensureSecret(actor.teamId, newSigningSecret()));
      return secretNode(row);
    },

    /** A new secret replaces the old one at once; deliveries signed afterwards use only the new one. */
    async rotateSecret(actor: Actor) {
      return secretNode(await webhooks.replaceSecret(actor.teamId, newSigningSecret()));
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
