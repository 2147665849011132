// A dedicated worker of a bench page: installs the same contender, then runs what its page asks.
import { installContender } from './contenders.mjs';
import * as measures from './measures.mjs';

let locks = null;
self.onmessage = async ({ data }) => {
  try {
    if (data.cmd === 'install') {
      locks = await installContender(data.impl);
      self.postMessage({ installed: true });
    } else if (data.cmd === 'handoff') {
      self.postMessage(await measures.handoff(locks, data.count, data.startAt));
    }
  } catch (error) {
    self.postMessage({ error: String(error?.message ?? error) });
  }
};
