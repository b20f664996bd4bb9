// Webhook calls on a thread of their own (issue 21, stop 24): the HTTP client's work for a call (the signature, the
// request, parsing the answer, the kept-alive socket's bookkeeping) was about a tenth of the main thread's CPU per
// export. The thread runs webhook-call.ts behind a URL guard of its own, built from the same settings; the event loop
// only sends the call and reads back its outcome. Started on the first call, so that a process that never calls a
// webhook has no such thread; kept alive only while a call is under way.
import { MessageChannel, type MessagePort, type Worker } from 'node:worker_threads';
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

/** Calls posted to a thread by another (`expect`), on the port `onLink` gave out; `thread` names the one meant. */
export interface ForwardedCalls {
  thread: number;
  calls: CallRequest[];
}

/** What the thread is started with. */
export interface WebhookThreadData extends WebhookThreadOptions {
  /** Which thread of this process it is: forwarded calls meant for an earlier one (it ended) are not made. */
  thread: number;
}

/** Calls that another thread will post to the webhook thread, and their outcomes. */
export interface ExpectedCalls {
  /** What to have posted on the linked port (`ForwardedCalls`). */
  message: ForwardedCalls;
  /** Each call's outcome, in the order given. */
  results: Array<Promise<AttemptResult>>;
  /** They will not be posted: forgets them. */
  cancel(): void;
}

export interface CallReply {
  id: number;
  result: AttemptResult;
}

export interface WebhookThread {
  call(call: WebhookCall): Promise<AttemptResult>;
  /**
   * Calls that another thread posts to this one, with `message`, on the port that `onLink` gave out (the SQLite
   * thread, once an export's finish committed: issue 21, stop 37). A thread that ends fails them as it fails its own.
   */
  expect(calls: WebhookCall[]): ExpectedCalls;
  /** Ends the thread; calls under way answer as failed attempts (the deliveries wait for theirs before). */
  close(): Promise<void>;
}

/**
 * `onLink`: given, each thread started also listens on a port of its own, whose other end this is called with (the
 * SQLite thread's link), for the calls of `expect`.
 */
export function startWebhookThread(options: WebhookThreadOptions, onLink?: (port: MessagePort) => void): WebhookThread {
  /** The thread now, and the calls it owes an answer: a thread that ends fails its own calls, not its successor's. */
  let current: { worker: Worker; waiting: Map<number, (result: AttemptResult) => void>; thread: number } | null = null;
  let next = 0;
  let threads = 0;

  function thread() {
    if (current) return current;
    const number = ++threads;
    const worker = startModuleThread(import.meta.url, 'webhook-thread.worker', {
      ...options,
      thread: number,
    } satisfies WebhookThreadData);
    if (onLink) {
      const { port1, port2 } = new MessageChannel();
      worker.postMessage({ link: port2 }, [port2]);
      onLink(port1);
    }
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
    current = { worker, waiting, thread: number };
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
    expect(calls) {
      const { worker, waiting, thread: number } = thread();
      const requests: CallRequest[] = [];
      const results = calls.map(
        (call) =>
          new Promise<AttemptResult>((resolve) => {
            const id = ++next;
            if (waiting.size === 0) worker.ref();
            waiting.set(id, resolve);
            requests.push({ id, call });
          }),
      );
      return {
        message: { thread: number, calls: requests },
        results,
        cancel() {
          for (const { id } of requests) waiting.delete(id);
          if (waiting.size === 0) worker.unref();
        },
      };
    },
    async close() {
      const stopping = current;
      current = null;
      if (stopping) await stopping.worker.terminate();
    },
  };
}
