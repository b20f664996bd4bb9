// Starts a real `placard serve` (compiled dist/, as users run it) on a free port with a throwaway data dir, for
// benchmarks that measure the service from the outside.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../test/helpers/ports.js';

export interface RunningService {
  url: string;
  dataDir: string;
  credentials: { clientId: string; clientSecret: string };
  token(): Promise<string>;
  stop(): Promise<void>;
}

export async function startService(env: Record<string, string> = {}): Promise<RunningService> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'placard-bench-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['bin/placard.js', 'serve'], {
    env: {
      ...process.env,
      PORT: String(port),
      PLACARD_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      // A benchmark measures the service, not the rate limiter's refusals.
      PLACARD_RATE_LIMIT: 'false',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  for (let i = 0; !(await fetch(`${url}/readyz`).catch(() => null))?.ok; i++) {
    // 60 s: with the demo seeded, a start took over 10 s on a loaded 2-core machine (load average ~20).
    if (exited || i > 1200) throw new Error('the service did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  // The file also holds the demo Owner's studio sign-in (email, password); the token wants the credential alone.
  const { clientId, clientSecret } = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8'));
  const credentials = { clientId, clientSecret };
  return {
    url,
    dataDir,
    credentials,
    async token() {
      const res = await fetch(`${url}/v1/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(credentials),
      });
      return ((await res.json()) as { token: string }).token;
    },
    async stop() {
      const done = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await done;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
