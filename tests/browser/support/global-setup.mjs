// Before the specs: the browser bundles must be current (build/dist is built from js/ in ~100 ms),
// and the published libraries the libs-*.spec.js pages import are bundled into build/libs/.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export default function globalSetup() {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
  // WEBLOCKS_BUILD_CURRENT=1: scripts/test.sh has just built both, and runs two Playwright runs
  // and other steps that read them at once: not rewritten under them.
  if (process.env.WEBLOCKS_BUILD_CURRENT === '1') return;
  execFileSync(process.execPath, [path.join(root, 'scripts/build-js.mjs')], { stdio: 'inherit' });
  execFileSync(process.execPath, [path.join(root, 'scripts/build-test-libs.mjs')], { stdio: 'inherit' });
}
