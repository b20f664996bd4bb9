// Prints benchmark results as a Markdown table (pasted as is into closing notes and docs), with the machine's load
// average beside it: on a shared machine a figure means little without it (issue 21).
import os from 'node:os';

export function printTable(title: string, rows: Array<Record<string, string | number>>) {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  const cell = (v: string | number) => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : v);
  console.log(`\n### ${title}\n`);
  console.log(`| ${columns.join(' | ')} |`);
  console.log(`|${columns.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(`| ${columns.map((c) => cell(row[c])).join(' | ')} |`);
  console.log(
    `\nload average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (1, 5, 15 min; ${os.cpus().length} cores)`,
  );
}
