// The webhook thread (webhook-thread.ts): makes the calls it is sent, each on its own, and answers with the outcome.
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { createUrlGuard } from '../net/url-guard.js';
import { createWebhookCaller } from './webhook-call.js';
import type { CallReply, CallRequest, ForwardedCalls, WebhookThreadData } from './webhook-thread.js';

if (!parentPort) throw new Error('webhook-thread.worker runs on a thread of its own (webhook-thread.ts)');
const port: MessagePort = parentPort;
const options = workerData as WebhookThreadData;
const call = createWebhookCaller(
  createUrlGuard({ allowPrivateUrls: options.allowPrivateUrls, allowedPrivateHosts: options.allowedPrivateHosts }),
  options.timeoutMs,
);

port.on('message', (message: CallRequest | { link: MessagePort }) => {
  if ('link' in message) {
    // Calls another thread posts (webhook-thread.ts, `expect`); those meant for an earlier thread are not made here.
    message.link.on('message', ({ thread, calls }: ForwardedCalls) => {
      if (thread === options.thread) for (const request of calls) make(request);
    });
    return;
  }
  make(message);
});

/** Makes one call and answers the event loop with its outcome. */
function make({ id, call: request }: CallRequest): void {
  call(request).then(
    (result) => port.postMessage({ id, result } satisfies CallReply),
    (error: unknown) =>
      port.postMessage({
        id,
        result: { statusCode: null, error: error instanceof Error ? error.message : String(error), refused: false },
      } satisfies CallReply),
  );
}
