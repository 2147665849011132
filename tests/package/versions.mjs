// The test runners and DOM emulations the package test (run.mjs) installs, pinned exactly: for each
// runner the oldest major supported and the latest, with the Node versions their `engines` allow
// (checked against the installed package.json). scripts/check-latest.mjs reports newer majors.

export const VITEST = [
  { version: '3.2.7', node: '^18.0.0 || ^20.0.0 || >=22.0.0' },
  { version: '5.1.1', node: '^22.12.0 || ^24.0.0 || >=26.0.0' },
];

export const JEST = [
  // jest-environment-jsdom of the same version brings its own jsdom (20 for jest 29, 26 for jest 30).
  { version: '29.7.0', node: '^14.15.0 || ^16.10.0 || >=18.0.0' },
  { version: '30.5.2', node: '^18.14.0 || ^20.0.0 || ^22.0.0 || >=24.0.0' },
];

// vitest's jsdom environment uses the app's jsdom: 29, and the newest whose engines allow the Node
// that runs vitest (31 needs ^22.22.2 || ^24.15.0 || >=26).
export const JSDOM = [
  { version: '29.1.1', node: '^20.19.0 || ^22.13.0 || >=24.0.0' },
  { version: '31.0.1', node: '^22.22.2 || ^24.15.0 || >=26.0.0' },
];

export const HAPPY_DOM = { version: '21.0.4', node: '>=20.0.0' };

// jest's happy-dom environment: its latest release depends on happy-dom ^20 (pinned here too).
export const HAPPY_DOM_JEST = { environment: '20.14.5', happyDom: '20.14.6' };

/** Whether `version` (x.y.z) satisfies `range`, written as npm `engines` ranges are here: `^x.y.z` and `>=x.y.z` joined by `||`. */
export function nodeAllows(range, version) {
  const parse = (text) => text.split('.').map(Number);
  const compare = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
  const v = parse(version.replace(/^v/, ''));
  return range.split('||').map((part) => part.trim()).some((part) => {
    const caret = /^\^(\d+\.\d+\.\d+)$/.exec(part);
    if (caret) { const low = parse(caret[1]); return v[0] === low[0] && compare(v, low) >= 0; }
    const atLeast = /^>=(\d+\.\d+\.\d+)$/.exec(part);
    if (atLeast) return compare(v, parse(atLeast[1])) >= 0;
    throw new Error(`nodeAllows: a range it cannot read: ${part}`);
  });
}
