// The webhook thread (webhook-thread.ts): makes the calls it is sent, each on its own, and answers with the outcome.
import { parentPort, workerData } from 'node:worker_threads';
import { createUrlGuard } from '../net/url-guard.js';
import { createWebhookCaller } from './webhook-call.js';
import type { CallReply, CallRequest, WebhookThreadOptions } from './webhook-thread.js';

const port = parentPort;
if (!port) throw new Error('webhook-thread.worker runs on a thread of its own (webhook-thread.ts)');
const options = workerData as WebhookThreadOptions;
const call = createWebhookCaller(
  createUrlGuard({ allowPrivateUrls: options.allowPrivateUrls, allowedPrivateHosts: options.allowedPrivateHosts }),
  options.timeoutMs,
);

port.on('message', ({ id, call: request }: CallRequest) => {
  call(request).then(
    (result) => port.postMessage({ id, result } satisfies CallReply),
    (error: unknown) =>
      port.postMessage({
        id,
        result: { statusCode: null, error: error instanceof Error ? error.message : String(error), refused: false },
      } satisfies CallReply),
  );
});
