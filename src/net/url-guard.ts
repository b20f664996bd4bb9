// The SSRF guard of every outgoing request to a URL a user gave (media sources, brand kit assets, webhooks):
// only http(s); the host is resolved once and every address it resolves to must be public (SPEC §5, §9); the
// connection then goes to exactly the address that was checked (the socket's lookup is pinned to it), so a DNS
// answer that changes between check and connect (rebinding) cannot reach an internal address. Host header, TLS SNI
// and certificate checks still use the host name.
//
// node:http(s) rather than undici: `lookup` is a per-request option there, which pins the checked address for one
// request without building an Agent per hop, and the response is a plain stream with backpressure for the byte cap.
import dns from 'node:dns';
import http, { type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ALLOWED_PRIVATE_HOSTS_SETTING, parseAllowedPrivateHosts } from '../config.js';
import { AppError } from '../errors.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has (the seam tests use to play DNS). */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

/** Why an address may not be reached ("a private address"), or null when it is public. */
export type AddressRule = (address: string) => string | null;

export const systemLookup: HostLookup = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

const RANGE_WORDS: Record<string, string> = {
  private: 'a private address',
  loopback: 'a loopback address',
  linkLocal: 'a link-local address',
  uniqueLocal: 'a unique-local address',
  carrierGradeNat: 'a carrier-grade NAT (CGNAT) address',
  multicast: 'a multicast address',
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  deprecatedSiteLocal: 'a site-local address',
};

/**
 * The default rule: only globally routable unicast addresses are public. IPv4-mapped IPv6 addresses are judged by
 * the IPv4 address they carry; IPv4-compatible (::a.b.c.d), NAT64, 6to4 and Teredo forms, which embed an IPv4
 * address, are refused along with every other special range that ipaddr.js knows.
 */
export const forbiddenAddressReason: AddressRule = (address) => {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) {
      const reason = forbiddenAddressReason(v6.toIPv4Address().toString());
      return reason ? `${reason.replace(/^an? /, 'an IPv4-mapped ')}` : null;
    }
    const parts = v6.parts;
    if (parts.slice(0, 6).every((p) => p === 0) && (parts[6] !== 0 || parts[7] > 1)) {
      return 'an IPv4-compatible IPv6 address';
    }
  }
  const range = parsed.range();
  if (range === 'unicast') return null;
  return RANGE_WORDS[range] ?? `a reserved address (${range})`;
};

/** The URL as it may appear in a message or a log: without user name or password. */
export function displayUrl(url: URL | string): string {
  const copy = new URL(url.toString());
  if (copy.username || copy.password) {
    copy.username = '***';
    copy.password = '';
  }
  return copy.toString();
}

export function rejected(url: URL | string, reason: string): AppError {
  let shown: string;
  try {
    shown = displayUrl(url);
  } catch {
    shown = String(url).slice(0, 200);
  }
  return new AppError('SOURCE_REJECTED', `${shown}: ${reason}`);
}

/** Whether a private address may be reached: its host name is listed, or the address is in a listed range. */
export type PrivateAllowance = (host: string, address: string) => boolean;

export function privateAllowance(entries: readonly string[]): PrivateAllowance {
  const parsed = parseAllowedPrivateHosts(entries);
  const names = new Set(parsed.filter((e) => !e.includes('/') && !ipaddr.isValid(e) && !e.startsWith('*.')));
  const suffixes = parsed.filter((e) => e.startsWith('*.')).map((e) => e.slice(1));
  const ranges = parsed
    .filter((e) => e.includes('/') || ipaddr.isValid(e))
    .map((e): [ipaddr.IPv4 | ipaddr.IPv6, number] => {
      if (e.includes('/')) return ipaddr.parseCIDR(e);
      // One address: an IPv4-mapped IPv6 spelling lists the IPv4 address it carries.
      const ip = ipaddr.process(e);
      return [ip, ip.kind() === 'ipv6' ? 128 : 32];
    });
  return (host, address) => {
    const name = host.toLowerCase().replace(/\.$/, '');
    if (names.has(name) || suffixes.some((suffix) => name.endsWith(suffix))) return true;
    if (!ipaddr.isValid(address)) return false;
    let ip = ipaddr.parse(address);
    // An IPv4-mapped IPv6 address is the IPv4 address it carries (as the address rule judges it).
    if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
    return ranges.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits));
  };
}

export interface UrlGuardOptions {
  /** Let URLs reach private, loopback and link-local addresses (PLACARD_ALLOW_PRIVATE_URLS, tests). */
  allowPrivateUrls: boolean;
  /**
   * Host names, addresses and CIDRs that may be private (PLACARD_ALLOWED_PRIVATE_HOSTS, see parseAllowedPrivateHosts):
   * an intranet asset server. Checked on every redirect hop like every other rule. Default: none.
   */
  allowedPrivateHosts?: readonly string[];
  /** DNS resolution. Default: the system resolver (dns.lookup, all addresses). */
  lookup?: HostLookup;
  /** Which addresses are refused. Default: forbiddenAddressReason. */
  addressRule?: AddressRule;
}

export interface CheckedTarget {
  url: URL;
  /** Every address the host resolved to, all checked; the connection uses these and nothing else. */
  addresses: ResolvedAddress[];
}

export interface GuardedRequestOptions {
  method?: string;
  headers?: OutgoingHttpHeaders;
  body?: string | Buffer;
  signal?: AbortSignal;
  /**
   * Reuse connections (webhook calls, issue 21: a new TCP connection per call). Only through this guard's own agents,
   * whose every socket was opened to an address this guard checked; a caller must read each answer to its end for
   * the socket to be reused. Default false: a fresh connection.
   */
  keepAlive?: boolean;
}

export interface CheckContext {
  /** The URL the user gave, named in refusals. Default: the URL checked. */
  origin?: URL | string;
  /** The URL checked is the target of a redirect (the refusal says so). */
  redirected?: boolean;
  signal?: AbortSignal;
}

export interface UrlGuard {
  /** Parses, resolves and checks a URL; throws SOURCE_REJECTED naming the origin and the rule it breaks. */
  check(url: URL | string, context?: CheckContext): Promise<CheckedTarget>;
  /** One request to a checked target (no redirects followed): resolves with the response head. */
  open(target: CheckedTarget, options?: GuardedRequestOptions): Promise<IncomingMessage>;
}

const MAX_URL_LENGTH = 8192;
/**
 * An idle pooled socket is closed after this long: under Node's 5 s server keep-alive, so that we close it before
 * the server does and a call never goes out on a socket the server is closing.
 */
const FREE_SOCKET_MS = 4_000;

function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
    const usable = addresses.filter((a) => wanted === 0 || a.family === wanted);
    if (usable.length === 0) {
      const error = Object.assign(new Error(`no IPv${wanted} address was checked`), { code: 'ENOTFOUND' });
      callback(error, '', 0);
      return;
    }
    if (options.all) callback(null, usable);
    else callback(null, usable[0].address, usable[0].family);
  };
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

export function createUrlGuard(options: UrlGuardOptions): UrlGuard {
  const lookup = options.lookup ?? systemLookup;
  const rule = options.addressRule ?? forbiddenAddressReason;

  const allowed = privateAllowance(options.allowedPrivateHosts ?? []);

  function refuse(host: string, address: string): string | null {
    if (options.allowPrivateUrls) return null;
    const reason = rule(address);
    if (!reason || allowed(host, address)) return null;
    return `${reason} (an intranet host can be allowed with ${ALLOWED_PRIVATE_HOSTS_SETTING})`;
  }

  async function check(raw: URL | string, context: CheckContext = {}): Promise<CheckedTarget> {
    const { origin = raw, redirected = false, signal } = context;
    const text = raw.toString();
    if (text.length > MAX_URL_LENGTH)
      throw rejected(text.slice(0, 100), `the URL is longer than ${MAX_URL_LENGTH} characters`);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw rejected(text, 'not a valid URL');
    }
    const hop = redirected ? `redirected to ${displayUrl(url)}, which ` : '';
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw rejected(origin, `${hop}uses ${url.protocol.replace(/:$/, '')}; only http and https URLs can be fetched`);
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    let addresses: ResolvedAddress[];
    if (ipaddr.isValid(host)) {
      addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
      const reason = refuse(host, host);
      if (reason) throw rejected(origin, `${hop}points at ${host}, ${reason}`);
      return { url, addresses };
    }
    try {
      addresses = await abortable(lookup(host), signal);
    } catch (error) {
      if (signal?.aborted) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      throw rejected(origin, `${hop}cannot be fetched: the host ${host} was not found${code ? ` (${code})` : ''}`);
    }
    if (addresses.length === 0) throw rejected(origin, `${hop}cannot be fetched: the host ${host} has no address`);
    for (const { address } of addresses) {
      const reason = refuse(host, address);
      if (reason) throw rejected(origin, `${hop}resolves to ${address}, ${reason}`);
    }
    return { url, addresses };
  }

  // Private to this guard: no code that did not check an address can put a socket in them. A socket is pooled per
  // host and port, and was connected to an address checked for that host when it was opened.
  let agents: { http: http.Agent; https: https.Agent } | null = null;
  function agentFor(protocol: string): http.Agent {
    agents ??= {
      http: new http.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16, timeout: FREE_SOCKET_MS }),
      https: new https.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16, timeout: FREE_SOCKET_MS }),
    };
    return protocol === 'https:' ? agents.https : agents.http;
  }

  function open(target: CheckedTarget, request: GuardedRequestOptions = {}): Promise<IncomingMessage> {
    const { url, addresses } = target;
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = client.request(url, {
        method: request.method ?? 'GET',
        headers: request.headers,
        signal: request.signal,
        // A fresh connection per request unless asked: a socket of a shared pool may have been opened by code that did
        // not check; this guard's own agents hold only sockets it opened.
        agent: request.keepAlive ? agentFor(url.protocol) : false,
        lookup: pinnedLookup(addresses),
      });
      req.once('response', resolve);
      req.once('error', reject);
      req.end(request.body);
    });
  }

  return { check, open };
}
