// Schemas of team webhooks (seed "Team webhooks", SPEC §8): webhooks and their actions, the signing secret, and the
// record of deliveries.
import { Type } from 'typebox';
import { Id, Ok, PageOf, PageQueryFields, Timestamp, UserRef } from './common.js';

export const WebhookAction = Type.Object({
  id: Type.Integer(),
  name: Type.String({ description: 'e.g. export/complete' }),
  description: Type.String(),
});

const ActionLinkFields = {
  actionId: Type.Integer(),
  createdAt: Type.With(Timestamp, { description: 'When the action was added to the webhook' }),
  createdByUser: Type.With(UserRef, { description: 'The user who added the action' }),
};

export const ActionLink = Type.Object({
  ...ActionLinkFields,
  action: Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    description: Type.String(),
    config: Type.String(),
    createdAt: Timestamp,
  }),
});

export const Webhook = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  webhookUrl: Type.String(),
  createdAt: Timestamp,
  createdByUser: UserRef,
  actions: Type.Array(ActionLink),
});

/** As listed: the seed's list shows only `name` and `description` inside `action`. */
export const ListedWebhook = Type.Object({
  ...Webhook.properties,
  actions: Type.Array(
    Type.Object({ ...ActionLinkFields, action: Type.Object({ name: Type.String(), description: Type.String() }) }),
  ),
});

export const ListWebhooksResponse = Ok(Type.Array(ListedWebhook));
export const WebhookResponse = Ok(Webhook);

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Url = Type.String({
  format: 'uri',
  // Deliveries are HTTP POSTs: another scheme (ftp:, mailto:, javascript:) could never receive one.
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\\s]+',
  'x-rule': 'must be an http:// or https:// URL with a host',
  maxLength: 2048,
  description: 'Where the deliveries are POSTed (http or https)',
});
const Actions = Type.Array(Id, {
  maxItems: 50,
  description: 'Ids of GET /v1/webhookActions; an unknown id is a 422; a repeated id counts once',
});

export const CreateWebhookBody = Type.Object(
  { name: Name, url: Url, actions: Actions },
  { additionalProperties: false },
);

export const UpdateWebhookBody = Type.Object(
  {
    webhookId: Id,
    name: Type.Optional(Name),
    url: Type.Optional(Url),
    actions: Type.Optional(Type.With(Actions, { description: 'Replaces the actions of the webhook' })),
  },
  { additionalProperties: false },
);

export const DeleteWebhookBody = Type.Object({ webhookId: Id }, { additionalProperties: false });

export const ListWebhookActionsResponse = Ok(Type.Array(WebhookAction));

export const WebhookSecretResponse = Ok(
  Type.Object({
    secret: Type.String({
      description: 'Signing secret (whsec_ and base64) of the Standard Webhooks signature of every delivery',
    }),
    createdAt: Timestamp,
  }),
);

export { DELIVERY_STATUSES, Delivery, DeliveryAttempt } from '../../events/delivery.schema.js';

import { DELIVERY_STATUSES, Delivery } from '../../events/delivery.schema.js';

export const ListDeliveriesQuery = Type.Object({
  webhookId: Type.Optional(Type.With(Id, { description: 'Only deliveries of this webhook' })),
  status: Type.Optional(Type.Enum([...DELIVERY_STATUSES])),
  ...PageQueryFields,
});

export const ListDeliveriesResponse = PageOf(Delivery);

export const DeliveryParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

export const DeliveryResponse = Ok(Type.Object({ delivery: Delivery }));
