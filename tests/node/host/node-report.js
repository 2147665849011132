// Runs this Node on `args` in a process of its own (from the repository's root, so that
// 'weblocks-wasm/...' resolves to this checkout) and resolves to the JSON report on the last line
// of its output; rejects with its stderr if it fails or outlives `timeout`.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

export function nodeReport(args, { timeout = 60_000 } = {}) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd: root, timeout }, (error, stdout, stderr) => {
      if (error) reject(Object.assign(error, { message: `${error.message}\n${stderr}` }));
      else resolve(JSON.parse(stdout.trim().split('\n').pop()));
    });
  });
}
