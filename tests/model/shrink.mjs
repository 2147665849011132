// Reduces a diverging operation list to a minimal one (delta debugging, then single deletions),
// and prints it as a runnable list of operations.

// reproduces(ops) -> Promise<boolean>: true while the candidate still diverges.
export async function shrink(ops, reproduces, { maxReplays = 20000 } = {}) {
  let replays = 0;
  const tryCandidate = async (candidate) => (++replays <= maxReplays) && reproduces(candidate);
  let current = ops;
  let granularity = 2;
  while (current.length >= 2 && replays < maxReplays) {
    const chunk = Math.ceil(current.length / granularity);
    let reduced = false;
    for (let start = 0; start < current.length; start += chunk) {
      const candidate = [...current.slice(0, start), ...current.slice(start + chunk)];
      if (await tryCandidate(candidate)) {
        current = candidate;
        granularity = Math.max(granularity - 1, 2);
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      if (granularity >= current.length) break;
      granularity = Math.min(current.length, granularity * 2);
    }
  }
  // 1-minimal: no single operation can be removed.
  for (let i = current.length - 1; i >= 0 && replays < maxReplays; i--) {
    const candidate = [...current.slice(0, i), ...current.slice(i + 1)];
    if (await tryCandidate(candidate)) current = candidate;
  }
  return { ops: current, replays };
}

// One operation per line, as JSON: the list can be saved and fed back with --replay <file>.
export function formatOps(ops) {
  return `[\n${ops.map((op) => `  ${JSON.stringify(op)}`).join(',\n')}\n]`;
}
