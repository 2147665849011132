// The stress case: contexts × random requests, run by the host (each context in its own agent).
import { equal, deepEqual, ok } from '../assert.js';
import { checkStressLogs, STRESS_WORDS } from '../stress.js';
import { uniqueName } from '../handle.js';

export function defineStressCase(runner, host) {
  if (!host.runStress) return;
  const contexts = 4;
  // A host whose every operation is a network round trip runs fewer (host.stressRequests).
  const requests = host.stressRequests ?? 2000;
  runner.test(`${contexts} contexts × ${requests.toLocaleString('en')} random requests on 3 names keep mutual exclusion, and every promise settles`, async () => {
    const names = [uniqueName('stress-a'), uniqueName('stress-b'), uniqueName('stress-guarded')];
    // Agents of other threads must share the clock; one agent alone (a page that is not
    // cross-origin isolated has no SharedArrayBuffer) can use ordinary memory.
    const Buffer = typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer : ArrayBuffer;
    const shared = new Int32Array(new Buffer(STRESS_WORDS * 4));
    const started = Date.now();
    const logs = await host.runStress({ contexts, requests, names, shared, seed: 20261122 });
    const result = checkStressLogs(logs, { names, requests, shared, stealsTakeEffectByGrant: host.remoteLockSpace === true });
    runner.note?.(`${host.name} stress: ${JSON.stringify(result.counts)}, ${result.settled} settled, ` +
      `${result.violations.length} violations, ${Date.now() - started} ms`);
    equal(result.violations.length, 0, `violations (first 5: ${JSON.stringify(result.violations.slice(0, 5))})`);
    equal(result.settled, contexts * requests, 'every promise settled');
    ok(result.counts.ok > 0 && result.counts.null > 0 && result.counts.stolen > 0 && result.counts.aborted > 0,
      `every outcome happened: ${JSON.stringify(result.counts)}`);
    const state = await host.locks.query();
    deepEqual(state.held.concat(state.pending).filter((info) => names.includes(info.name)), [], 'nothing left behind');
  });
}
