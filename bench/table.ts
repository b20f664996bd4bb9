// Prints benchmark results as a Markdown table (pasted as is into closing notes and docs).
export function printTable(title: string, rows: Array<Record<string, string | number>>) {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]);
  const cell = (v: string | number) => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : v);
  console.log(`\n### ${title}\n`);
  console.log(`| ${columns.join(' | ')} |`);
  console.log(`|${columns.map(() => '---').join('|')}|`);
  for (const row of rows) console.log(`| ${columns.map((c) => cell(row[c])).join(' | ')} |`);
}
