// The contenders of the hub-death and loss-board tests: processes that stamp their enter, leave
// and outcome into one file with the machine's clock (fixtures/stamped-contender.mjs), read from
// outside the processes under test.
import fs from 'node:fs';
import { forkJoined } from './support.js';

const contenderScript = new URL('./fixtures/stamped-contender.mjs', import.meta.url);
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function contender(space, stamps, config) {
  const child = forkJoined(contenderScript, [JSON.stringify({ stamps, name: 'x', ...config })], space.env);
  child.on('error', () => {});
  return child;
}

/** The stamps so far: [{ ms, what }] ("enter holder 3" -> what "enter holder", token 3). */
export function readStamps(file) {
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((line) => {
    const [ms, kind, role, more] = line.split(' ');
    return { ms: Number(ms), what: `${kind} ${role}`, more };
  });
}

export async function stamped(file, what, ms = 30_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = readStamps(file).find((entry) => entry.what === what);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for "${what}"; stamps: ${fs.readFileSync(file, 'utf8')}`);
    await sleep(5);
  }
}
