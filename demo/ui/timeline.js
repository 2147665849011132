// The live timeline: a lane per context, bars for held (solid) and waiting (striped) requests,
// marks for steals, aborts, timeouts, closes and crashes, over the last WINDOW_MS (or since this
// tab opened, if less). Rebuilt on every change and on the page's timer (open bars grow).
import { h } from './dom.js';

const WINDOW_MS = 60_000;
const MIN_SPAN_MS = 4_000;
const MARGIN_MS = 500;
const MARK_ROW_PX = 15;
const BAR_ROW_PX = 18;
const MARK_WIDTH_PX = 74; // about one label: marks closer than this go on another row
const MARK_GLYPHS = { steal: '⚡', stolen: '✂', aborted: '⊘', timeout: '◔', closed: '⏏', crashed: '✖', terminated: '✖' };
const MARK_LABELS = { steal: 'steal', stolen: 'stolen', aborted: 'abort', timeout: 'timeout', closed: 'closed', crashed: 'crashed', terminated: 'terminated' };

export function createTimelineView({ timeline, selfName }) {
  const lanesBox = h('div', { class: 'tl-lanes', dataset: { testid: 'timeline-lanes' } });
  const axis = h('div', { class: 'tl-axis' });
  const log = h('ol', { class: 'tl-log small', dataset: { testid: 'timeline-log' }, reversed: true });
  const element = h('section', { class: 'panel', dataset: { testid: 'timeline' } },
    h('h2', {}, 'Timeline: who held what, when'),
    h('p', { class: 'muted small legend' },
      h('span', { class: 'tl-bar held legend-bar' }, 'held'), ' ', h('span', { class: 'tl-bar pending legend-bar' }, 'waiting'), ' ',
      Object.keys(MARK_GLYPHS).filter((k) => k !== 'terminated').map((k) => h('span', { class: `tl-legend-mark ${k}` }, `${MARK_GLYPHS[k]} ${MARK_LABELS[k]} `)),
      ' · one lane per context, names never reused; the demo\'s own bookkeeping locks are not drawn.'),
    lanesBox, axis,
    h('details', {}, h('summary', {}, 'Events, newest first'), log));

  function render(now = Date.now()) {
    // From the first thing drawn (or the last WINDOW_MS), so a short burst fills the width.
    const first = Math.min(now, ...timeline.bars.map((bar) => bar.start), ...timeline.marks.map((mark) => mark.at));
    const span = Math.min(WINDOW_MS, Math.max(MIN_SPAN_MS, now - first + MARGIN_MS));
    const start = now - span;
    const fraction = (t) => Math.max(0, t - start) / span;
    const x = (t) => `${(fraction(t) * 100).toFixed(2)}%`;
    const width = (a, b) => `max(3px, ${(Math.max(0, b - Math.max(a, start)) / span * 100).toFixed(2)}%)`;
    const trackWidth = lanesBox.querySelector('.tl-track')?.clientWidth || 600;

    const lanes = [...timeline.lanes.values()].sort((a, b) => a.firstSeen - b.firstSeen);
    lanesBox.replaceChildren(...(lanes.length ? lanes.map((lane) => {
      const bars = timeline.bars.filter((bar) => bar.lane === lane.name && (bar.end ?? now) >= start);
      const marks = timeline.marks.filter((mark) => mark.lane === lane.name && mark.at >= start);
      const markRows = packMarks(marks, (mark) => fraction(mark.at) * trackWidth);
      const barsTop = Math.max(1, markRows) * MARK_ROW_PX + 2;
      const rows = packRows(bars, now);
      const track = h('div', { class: 'tl-track', style: `height: ${barsTop + Math.max(1, rows) * BAR_ROW_PX}px` },
        ...bars.map((bar) => h('div', {
          class: `tl-bar ${bar.status} ${bar.mode}${bar.end === null ? ' open' : ''}`,
          style: `left: ${x(bar.start)}; width: ${width(bar.start, bar.end ?? now)}; top: ${barsTop + bar.row * BAR_ROW_PX}px`,
          title: `${lane.name} ${bar.status === 'held' ? 'held' : 'waited for'} ${bar.lock} (${bar.mode}) ${fmt(bar.start)} – ${bar.end ? fmt(bar.end) : 'now'}`,
          dataset: { testid: 'timeline-bar', lane: lane.name, lock: bar.lock, status: bar.status, mode: bar.mode, open: String(bar.end === null), start: String(bar.start) },
        }, bar.lock + (bar.mode === 'shared' ? ' (shared)' : ''))),
        ...marks.map((mark) => h('div', {
          // Near the right edge a mark is drawn to the left of its time, so it stays visible.
          class: `tl-mark ${mark.kind}${fraction(mark.at) > 0.85 ? ' to-left' : ''}`,
          style: `left: ${x(mark.at)}; top: ${mark.row * MARK_ROW_PX}px`,
          title: `${fmt(mark.at)} ${lane.name}: ${mark.text || mark.kind}${mark.lock ? ` (${mark.lock})` : ''}`,
          dataset: { testid: 'timeline-mark', lane: lane.name, kind: mark.kind, lock: mark.lock ?? '' },
        }, `${MARK_GLYPHS[mark.kind] ?? '•'} ${MARK_LABELS[mark.kind] ?? mark.kind}`)));
      return h('div', {
        class: `tl-lane${lane.endedAt ? ` ended ${lane.ending}` : ''}${lane.name === selfName ? ' mine' : ''}`,
        dataset: { testid: 'timeline-lane', lane: lane.name, ended: lane.ending ?? '' },
      },
      h('div', { class: 'tl-label' }, h('strong', {}, lane.name), lane.name === selfName ? h('span', { class: 'muted' }, ' (you)') : null,
        lane.parent ? h('span', { class: 'muted' }, ` of ${lane.parent}`) : null,
        lane.endedAt ? h('span', { class: 'tl-ending' }, ` ${lane.ending}`) : null),
      track);
    }) : [h('p', { class: 'muted' }, 'Nothing yet.')]));
    axis.replaceChildren(h('span', {}, `−${Math.round(span / 1000)} s`), h('span', {}, `−${Math.round(span / 2000)} s`), h('span', {}, 'now'));

    const events = [
      ...timeline.bars.map((bar) => ({ at: bar.start, text: `${bar.lane} ${bar.status === 'held' ? 'got' : 'queued for'} ${bar.lock} (${bar.mode})` })),
      ...timeline.marks.map((mark) => ({ at: mark.at, text: `${mark.lane}: ${mark.text || mark.kind}${mark.lock ? ` — ${mark.lock}` : ''}` })),
    ].sort((a, b) => b.at - a.at).slice(0, 40);
    log.replaceChildren(...events.map((event) => h('li', {}, `${fmt(event.at)} ${event.text}`)));
  }

  return { element, render };
}

/** Gives each mark a row so that labels close in time do not cover each other; returns the rows used. */
function packMarks(marks, px) {
  const rowEnds = [];
  for (const mark of [...marks].sort((a, b) => a.at - b.at)) {
    const at = px(mark);
    let row = rowEnds.findIndex((end) => end <= at);
    if (row === -1) { row = rowEnds.length; rowEnds.push(0); }
    rowEnds[row] = at + MARK_WIDTH_PX;
    mark.row = row;
  }
  return rowEnds.length;
}

/** Gives each bar a row in its lane so that bars overlapping in time do not overlap on screen. */
function packRows(bars, now) {
  const rowEnds = [];
  for (const bar of [...bars].sort((a, b) => a.start - b.start)) {
    let row = rowEnds.findIndex((end) => end <= bar.start);
    if (row === -1) { row = rowEnds.length; rowEnds.push(0); }
    rowEnds[row] = bar.end ?? now + 1;
    bar.row = row;
  }
  return rowEnds.length;
}

function fmt(t) {
  const d = new Date(t);
  return `${d.toLocaleTimeString([], { hour12: false })}.${String(d.getMilliseconds()).padStart(3, '0').slice(0, 1)}`;
}
