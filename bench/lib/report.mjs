// Markdown tables for the results: one table per comparison, contenders side by side, with the
// median, the spread (min-max, IQR) and the ratio of ours to each other contender.
import { round3 } from './stats.mjs';

const fmt = (v) => (typeof v === 'number' ? round3(v).toLocaleString('en-US', { maximumFractionDigits: 6 }) : String(v));

function isOurs(id) { return id === 'ours' || id.startsWith('ours-'); }

/** How much better ours is than `other` (>1: ours better), from medians and the direction. */
export function advantage(oursMedian, otherMedian, better) {
  return better === 'lower' ? otherMedian / oursMedian : oursMedian / otherMedian;
}

function verdict(factor) {
  if (!Number.isFinite(factor)) return '';
  return factor >= 1 ? `ours ${fmt(factor)}× better` : `ours ${fmt(1 / factor)}× worse`;
}

export function comparisonTable(entry) {
  const ours = entry.contenders.find((c) => isOurs(c.id) && c.status === 'ok');
  const withCpu = entry.contenders.some((c) => c.cpu);
  const lines = [
    `### ${entry.title}`,
    '',
    `${entry.unit ?? ''}, ${entry.better} is better; median of ${entry.contenders.find((c) => c.summary)?.summary.rounds ?? '?'} rounds` +
      (withCpu ? '. CPU µs/op: CPU time of the whole process (all threads) per operation, median; lower is better and barely affected by machine load' : ''),
    '',
    `| contender | median | min - max | IQR | ours / this |${withCpu ? ' CPU µs/op | CPU ours / this |' : ''} |`,
    `|---|---:|---:|---:|---:|${withCpu ? '---:|---:|' : ''}---|`,
  ];
  for (const c of entry.contenders) {
    if (c.status !== 'ok') {
      lines.push(`| ${c.label} | **${c.status}** | ${String(c.detail ?? '').replace(/\|/g, '/').slice(0, 140)} | | |${withCpu ? ' | |' : ''} |`);
      continue;
    }
    const s = c.summary;
    let ratio = '';
    let note = '';
    if (ours && !isOurs(c.id)) {
      ratio = fmt(ours.summary.median / s.median);
      note = verdict(advantage(ours.summary.median, s.median, entry.better));
    }
    const extra = [];
    if (c.extra?.holderChangedFraction !== undefined) extra.push(`holder changed on ${fmt(c.extra.holderChangedFraction * 100)}% of acquisitions`);
    if (c.extra?.overlaps) extra.push(`**${c.extra.overlaps} overlapping exclusive holds**`);
    if (c.extra?.bytesPerEntry !== undefined) extra.push(`${fmt(c.extra.bytesPerEntry)} B/entry`);
    let cpuCells = '';
    if (withCpu) {
      const cpuRatio = ours?.cpu && c.cpu && !isOurs(c.id) ? fmt(ours.cpu.median / c.cpu.median) : '';
      cpuCells = ` ${c.cpu ? fmt(c.cpu.median) : ''} | ${cpuRatio} |`;
    }
    lines.push(`| ${c.label} | ${fmt(s.median)} | ${fmt(s.min)} - ${fmt(s.max)} | ${fmt(s.q1)} - ${fmt(s.q3)} | ${ratio} |${cpuCells} ${[note, ...extra].filter(Boolean).join('; ')} |`);
  }
  lines.push('');
  return lines.join('\n');
}

export function growthTable(entries) {
  const lines = [
    '### Growth: engine cost per entry (js/engine, one fresh engine per round)',
    '',
    '| workload | entries | µs/entry to add (median) | µs/entry to drain or release (median) | total µs/entry (median, min - max) | engine bytes/entry |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const e of entries) {
    if (e.status !== 'ok') { lines.push(`| ${e.label} | ${fmt(e.count)} | **${e.status}** | ${e.detail ?? ''} | | |`); continue; }
    const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const bytes = e.extra.bytesPerEntry === 0 ? '< 1 chunk' : fmt(e.extra.bytesPerEntry);
    lines.push(`| ${e.label} | ${fmt(e.count)} | ${fmt(med(e.extra.addUs))} | ${fmt(med(e.extra.removeUs))} | ${fmt(e.summary.median)} (${fmt(e.summary.min)} - ${fmt(e.summary.max)}) | ${bytes} |`);
  }
  lines.push('');
  return lines.join('\n');
}

export function sizeTable(rows) {
  const lines = ['### Size', '', '| file | raw bytes | gzip -9 | brotli |', '|---|---:|---:|---:|'];
  for (const r of rows) {
    lines.push(r.error ? `| ${r.file} | ${r.error} | | |` : `| ${r.file} | ${fmt(r.raw)} | ${fmt(r.gzip)} | ${fmt(r.brotli)} |`);
  }
  lines.push('');
  return lines.join('\n');
}

/**
 * The headline: the targets (issues 6 and 50) and where we stand. A target is a ratio (ours at least
 * `goal` times as good as theirs: 0.5 = at most twice theirs) or, with `overMs`, a difference (ours
 * at most `overMs` above theirs).
 */
export function headlineTable(results) {
  const find = (id) => results.comparisons.find((e) => e.id === id);
  const targets = [
    { id: 'browser-uncontended', ours: 'ours', theirs: 'native', goal: 1, label: 'hub uncontended request() vs native Chromium' },
    { id: 'browser-handoff-2', ours: 'ours', theirs: 'native', goal: 1, label: 'hub two-tab handoffs vs native Chromium' },
    { id: 'browser-query-1k', ours: 'ours', theirs: 'native', goal: 1, label: 'hub query() with 1,000 held vs native Chromium' },
    { id: 'browser-query-10k', ours: 'ours', theirs: 'native', goal: 1, label: 'hub query() with 10,000 held vs native Chromium' },
    { id: 'node-uncontended', ours: 'ours-node24', theirs: 'native', goal: 4, label: 'Node host uncontended request() vs Node 24 built-in' },
    { id: 'node-handoff-2', ours: 'ours-node24', theirs: 'native', goal: 3, label: 'Node host two-thread handoff vs Node 24 built-in' },
    { id: 'node-worker-first-grant', ours: 'ours-node24', theirs: 'bare-worker', overMs: 10, label: 'a worker\'s start to its first grant vs a bare worker\'s start' },
    { id: 'machine-uncontended', ours: 'ours-machine-node24', theirs: 'socket-echo', goal: 0.5, label: 'machine space uncontended request() vs one bare round trip on a Unix socket (at most 2×)' },
    { id: 'machine-handoff-2', ours: 'ours-machine-node24', theirs: 'threads-node24', goal: 0.5, label: 'machine space 2-process handoffs vs 2 threads of one process' },
  ];
  const lines = ['| target | goal | measured (median, ours vs theirs) | met? |', '|---|---:|---:|---|'];
  for (const { id, ours: oursId, theirs: theirsId, goal, overMs, label } of targets) {
    const entry = find(id);
    if (entry === undefined) continue;
    const ours = entry.contenders.find((c) => c.id === oursId);
    const theirs = entry.contenders.find((c) => c.id === theirsId);
    const wanted = overMs === undefined ? `≥ ${goal}×` : `≤ +${overMs} ms`;
    if (!ours || !theirs || ours.status !== 'ok' || theirs.status !== 'ok') {
      lines.push(`| ${label} | ${wanted} | not measured (ours: ${ours?.status ?? 'absent'}, theirs: ${theirs?.status ?? 'absent'}) | |`);
      continue;
    }
    const measured = `${fmt(ours.summary.median)} vs ${fmt(theirs.summary.median)} ${entry.unit}`;
    if (overMs !== undefined) {
      const over = ours.summary.median - theirs.summary.median;
      lines.push(`| ${label} | ${wanted} | ${measured}: +${fmt(over)} ms | ${over <= overMs ? 'yes' : 'no'} |`);
      continue;
    }
    const factor = advantage(ours.summary.median, theirs.summary.median, entry.better);
    lines.push(`| ${label} | ${wanted} | ${measured}: ${fmt(factor)}× | ${factor >= goal ? 'yes' : 'no'} |`);
  }
  lines.push('');
  return lines.join('\n');
}

export function markdownReport(results) {
  const m = results.machine;
  const parts = [
    `## Benchmark results`,
    '',
    `${results.date} on ${m.cpu} (${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}); ${m.node.join(', ')}; ${m.chromium}; commit ${m.commit}. ` +
      `Command: \`${results.command}\`. Every contender runs in its own fresh process (Node) or browser context (Chromium); the contenders of a comparison are prepared (calibrated, warmed up) and then take turns round by round, so machine load hits them alike. Median and spread over the rounds. Load average during the run: ${m.loadAverageAtStart[0]} at the start, ${m.loadAverageAtEnd?.[0]} at the end (1 min; 2 cores).`,
    '',
  ];
  // The headline targets: those of the comparisons that ran.
  if (results.comparisons.length > 0) parts.push(headlineTable(results));
  const headings = { browser: '### Browser (Chromium headless)', node: '### Node', machine: '### Across processes (Node)' };
  for (const group of ['browser', 'node', 'machine']) {
    const entries = results.comparisons.filter((e) => e.group === group);
    if (entries.length === 0) continue;
    parts.push(headings[group], '');
    for (const entry of entries) parts.push(comparisonTable(entry));
  }
  if (results.growth?.length) parts.push(growthTable(results.growth));
  if (results.sizes?.length) parts.push(sizeTable(results.sizes));
  return parts.join('\n');
}
