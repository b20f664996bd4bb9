// Test databases on the machine's PostgreSQL: created per test app or process, dropped when it closes.
import pg from 'pg';

export async function adminQuery(connectionString: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/**
 * pg-pool's end() resolves before its connections have said goodbye; a forced drop while one is still open kills it
 * and its client raises an unhandled 'error' in the test process. So wait for the service's connections to leave.
 */
export async function dropDatabase(connectionString: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    for (let attempt = 0; attempt < 250; attempt++) {
      const { rows } = await client.query('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
      if (rows[0].n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await client.query(`drop database if exists ${name} with (force)`);
  } finally {
    await client.end();
  }
}
