// The markdown file of a bench/remote run (--out): what ran, on what, under what load (the machine
// is shared, so the load average says how far to trust the absolute figures), then the tables.
import { writeFileSync } from 'node:fs';
import os from 'node:os';

export function writeResultFile(path, { title, script, startedAt, loadAtStart, markdown }) {
  const command = `node ${script} ${process.argv.slice(2).join(' ')}`.trim();
  const load = (l) => l.map((x) => x.toFixed(2)).join(', ');
  writeFileSync(path, `# ${title}\n\n${startedAt.toISOString()}, ${os.cpus()[0]?.model ?? '?'} (${os.cpus().length} cores), Node ${process.version}. ` +
    `Command: \`${command}\`. Load average (1, 5, 15 min) at the start: ${load(loadAtStart)}; at the end: ${load(os.loadavg())}.\n\n${markdown}\n`);
}
