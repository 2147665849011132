// Type-checked by `npx tsc -p tsconfig.json` through the package's own exports (self-reference):
// what users write must compile, and misuse must not (each @ts-expect-error must find an error).
import { locks, Lock, LockManager, type LockManagerSnapshot } from 'weblocks-wasm';
import { install } from 'weblocks-wasm/polyfill';
import 'weblocks-wasm/register';
import 'weblocks-wasm/register-machine';
import { locks as machineLocks, createMachineLockManager } from 'weblocks-wasm/machine';

async function usage(): Promise<void> {
  const n: number = await locks.request('resource', async (lock) => lock?.name.length ?? 0);
  const s: string | undefined = await locks.request('resource', { ifAvailable: true }, (lock) => lock?.mode);
  const controller = new AbortController();
  await locks.request('resource', { mode: 'shared', signal: controller.signal }, (lock: Lock | null) => lock?.mode);
  await locks.request('resource', { steal: true }, () => undefined);
  const state: LockManagerSnapshot = await locks.query();
  const names: string[] = (state.held ?? []).map((info) => `${info.name} ${info.mode} ${info.clientId}`);
  const installed: LockManager | null = install({ force: true });
  const acrossProcesses: LockManager = createMachineLockManager({ space: 'my-app', folder: '/run/user/1000/weblocks-wasm' });
  await machineLocks.request('resource', async () => acrossProcesses.query());
  const fence: number | undefined = await createMachineLockManager().request('resource', (lock) => lock?.fencingToken);
  // @ts-expect-error the lock space is named by a string
  createMachineLockManager({ space: 1 });
  // @ts-expect-error the mode is an enum
  await locks.request('resource', { mode: 'read' }, () => 0);
  // @ts-expect-error a callback is required
  await locks.request('resource', {});
  // @ts-expect-error the callback gets Lock | null (lib.dom's signature)
  await locks.request('resource', (lock) => lock.name);
  // @ts-expect-error LockManager cannot be constructed
  new LockManager();
  void [n, s, names, installed];
}
void usage;

async function withComputedOptions(ifAvailable: boolean): Promise<boolean> {
  return locks.request('resource', { ifAvailable }, (lock) => lock === null);
}
void withComputedOptions;

// weblocks-wasm/test-setup: resetLockSpace() and install() (Node test runners).
import { resetLockSpace, install as installForTests } from 'weblocks-wasm/test-setup';
const resetResult: void = resetLockSpace();
const installedForTests: LockManager | null = installForTests({ force: true });
void resetResult; void installedForTests;

// observeLocks (docs/api.md, "Observing locks")
import { observeLocks, createLocalLockManager, type LockSpaceChange } from 'weblocks-wasm';
import { observeLocks as observeMachineLocks } from 'weblocks-wasm/machine';

function observing(): void {
  const controller = new AbortController();
  const stop: () => void = observeLocks((snapshot, changes: LockSpaceChange[]) => {
    const names: string[] = snapshot.held.map((info) => info.name);
    for (const change of changes) {
      if (change.type === 'deadlock') {
        const certain: boolean = change.certain;
        const holders: string[] = (change.cycle ?? []).map((member) => `${member.clientId} ${member.holds} ${member.waitsFor}`);
        void certain; void holders;
      } else {
        const mode: 'exclusive' | 'shared' = change.mode;
        void mode;
      }
    }
    void names;
  }, { names: ['a', 'b'], signal: controller.signal });
  stop();
  observeLocks(() => {}, { names: (name) => name.startsWith('queue/'), deadlockDelay: 2000, possibleDeadlocks: true })();
  createLocalLockManager({ deadlock: 'reject' }).observeLocks(() => {})();
  createMachineLockManager({ deadlock: 'reject' }).observeLocks(() => {})();
  observeMachineLocks(() => {})();
  // @ts-expect-error names is an array of names or a function
  observeLocks(() => {}, { names: 'a' });
  // @ts-expect-error deadlock is 'reject' or 'report'
  createLocalLockManager({ deadlock: 'abort' });
}
void observing;
