// Per-process caches of rows that nearly never change but are read on every export (issue 21: the credential of
// every request, a team's signing secret, webhook subscribers and brand fonts), and their invalidation. A write that
// can change a cached answer clears its topic in this process once it has committed (`invalidate`), before the
// request that made it is answered, so the next request here reads the database again. Other processes learn it
// from PostgreSQL: triggers (migration 0020) `pg_notify` the topic at commit, whoever wrote, and every process
// listens (`listenForInvalidations`). While that listening connection is down, every cache is bypassed and emptied:
// no answer is served that a missed notification could have made stale. SQLite is one process's file.
import pg from 'pg';

export type CacheTopic = 'auth' | 'webhooks' | 'fonts';

/** The PostgreSQL channel migration 0020's triggers notify, the payload being the topic. */
export const INVALIDATION_CHANNEL = 'placard_invalidate';

const caches = new Set<TopicCache<unknown, unknown>>();
/** Listeners of this process whose connection is down: while any is, caches are bypassed. */
let deaf = 0;

/** Clears every cache of `topic` in this process (call after the write committed). */
export function invalidate(topic: CacheTopic): void {
  for (const cache of caches) if (cache.topic === topic) cache.clear();
}

function clearAll(): void {
  for (const cache of caches) cache.clear();
}

/**
 * A map of answers kept until their topic is invalidated or `ttlMs` passes (a backstop only). A load that was under
 * way when the topic was invalidated is answered but not kept: it may have read the row before the write. An
 * `undefined` answer (no row) is never kept.
 */
export class TopicCache<K, V> {
  readonly topic: CacheTopic;
  private readonly entries = new Map<K, { value: V; until: number }>();
  private generation = 0;

  constructor(
    topic: CacheTopic,
    private readonly options: { max: number; ttlMs: number },
  ) {
    this.topic = topic;
    caches.add(this as TopicCache<unknown, unknown>);
  }

  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }

  /** The kept answer, if there is one and the caches are not bypassed: no promise (a hot path's synchronous try). */
  peek(key: K): V | undefined {
    if (deaf > 0) return undefined;
    const hit = this.entries.get(key);
    return hit && hit.until > Date.now() ? hit.value : undefined;
  }

  async get(key: K, load: () => Promise<V>): Promise<V> {
    if (deaf > 0) return load();
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.value;
    const generation = this.generation;
    const value = await load();
    // An absent row is not kept: what is created later must be found.
    if (value !== undefined && generation === this.generation && deaf === 0) {
      if (this.entries.size >= this.options.max) this.entries.delete(this.entries.keys().next().value as K);
      this.entries.set(key, { value, until: now + this.options.ttlMs });
    }
    return value;
  }

  /** Stops keeping answers (a service that closes). */
  dispose(): void {
    this.clear();
    caches.delete(this as TopicCache<unknown, unknown>);
  }
}

/**
 * Listens to the invalidations other processes' writes notify (PostgreSQL). Until the first LISTEN is confirmed, and
 * whenever the connection is lost until it is back, the caches of this process are bypassed.
 */
export function listenForInvalidations(
  connectionString: string,
  log?: { error(details: object, message: string): void },
): { close(): Promise<void> } {
  let client: pg.Client | null = null;
  let closed = false;
  let listening = false;
  let retry: NodeJS.Timeout | undefined;
  deaf += 1;
  clearAll();

  function lost(error?: unknown) {
    if (listening) {
      listening = false;
      deaf += 1;
      clearAll();
    }
    if (error) log?.error({ err: error }, 'cache invalidations: the listening connection failed');
    const old = client;
    client = null;
    old?.end().catch(() => {});
    if (!closed) retry = setTimeout(connect, 1000).unref();
  }

  async function connect() {
    if (closed) return;
    const next = new pg.Client({ connectionString });
    client = next;
    next.on('error', (error) => {
      if (client === next) lost(error);
    });
    next.on('end', () => {
      if (client === next) lost();
    });
    next.on('notification', (message) => {
      if (message.channel === INVALIDATION_CHANNEL) invalidate(message.payload as CacheTopic);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${INVALIDATION_CHANNEL}`);
    } catch (error) {
      if (client === next) lost(error);
      return;
    }
    if (client !== next || closed) return;
    // What changed while nobody listened is unknown: start empty.
    clearAll();
    listening = true;
    deaf -= 1;
  }

  void connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      if (!listening) deaf -= 1;
      listening = false;
      const old = client;
      client = null;
      await old?.end().catch(() => {});
    },
  };
}
