// Webhook calls on a thread of their own (issue 21, stop 24): the HTTP client's work for a call (the signature, the
// request, parsing the answer, the kept-alive socket's bookkeeping) was about a tenth of the main thread's CPU per
// export. The thread runs webhook-call.ts behind a URL guard of its own, built from the same settings; the event loop
// only sends the call and reads back its outcome. Started on the first call, so that a process that never calls a
// webhook has no such thread; kept alive only while a call is under way.
import type { Worker } from 'node:worker_threads';
import { startModuleThread } from '../module-thread.js';
import type { AttemptResult, WebhookCall } from './webhook-call.js';

export interface WebhookThreadOptions {
  allowPrivateUrls: boolean;
  allowedPrivateHosts: readonly string[];
  /** One attempt, from DNS to the end of the answer's head. */
  timeoutMs: number;
}

export interface CallRequest {
  id: number;
  call: WebhookCall;
}

export interface CallReply {
  id: number;
  result: AttemptResult;
}

export interface WebhookThread {
  call(call: WebhookCall): Promise<AttemptResult>;
  /** Ends the thread; calls under way answer as failed attempts (the deliveries wait for theirs before). */
  close(): Promise<void>;
}

export function startWebhookThread(options: WebhookThreadOptions): WebhookThread {
  /** The thread now, and the calls it owes an answer: a thread that ends fails its own calls, not its successor's. */
  let current: { worker: Worker; waiting: Map<number, (result: AttemptResult) => void> } | null = null;
  let next = 0;

  function thread() {
    if (current) return current;
    const worker = startModuleThread(import.meta.url, 'webhook-thread.worker', options);
    const waiting = new Map<number, (result: AttemptResult) => void>();
    const failAll = (message: string) => {
      for (const resolve of waiting.values()) resolve({ statusCode: null, error: message, refused: false });
      waiting.clear();
    };
    worker.unref();
    worker.on('message', ({ id, result }: CallReply) => {
      const resolve = waiting.get(id);
      waiting.delete(id);
      resolve?.(result);
      if (waiting.size === 0) worker.unref();
    });
    // A thread that died fails its calls under way as attempts (the deliveries retry them); the next call starts
    // another.
    worker.on('error', (error) => failAll(`the webhook thread failed: ${error.message}`));
    worker.on('exit', () => {
      if (current?.worker === worker) current = null;
      failAll('the webhook thread stopped');
    });
    current = { worker, waiting };
    return current;
  }

  return {
    call(call) {
      const { worker, waiting } = thread();
      const id = ++next;
      return new Promise((resolve) => {
        if (waiting.size === 0) worker.ref();
        waiting.set(id, resolve);
        worker.postMessage({ id, call } satisfies CallRequest);
      });
    },
    async close() {
      const stopping = current;
      current = null;
      if (stopping) await stopping.worker.terminate();
    },
  };
}
