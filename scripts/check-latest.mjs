#!/usr/bin/env node
// Whether the test-runner matrix of the package test (tests/package/versions.mjs) is still current:
// asks the npm registry (npm view) for the latest release of each runner and DOM emulation, and
// reports a newer major than the newest tested (exit 1), or a newer release of a tested major
// (information). Not a test: the registry changes under it. Usage: npm run check-latest
import { execFile } from 'node:child_process';
import { VITEST, JEST, JSDOM, HAPPY_DOM, HAPPY_DOM_JEST } from '../tests/package/versions.mjs';

const TESTED = {
  vitest: VITEST.map((tool) => tool.version),
  jest: JEST.map((tool) => tool.version),
  'jest-environment-jsdom': JEST.map((tool) => tool.version),
  jsdom: JSDOM.map((tool) => tool.version),
  'happy-dom': [HAPPY_DOM.version, HAPPY_DOM_JEST.happyDom],
  '@happy-dom/jest-environment': [HAPPY_DOM_JEST.environment],
};

function latest(name) {
  return new Promise((resolve, reject) => {
    execFile('npm', ['view', name, 'dist-tags.latest'], { timeout: 60_000 }, (error, stdout) => {
      if (error) reject(new Error(`npm view ${name}: ${error.message}`));
      else resolve(stdout.trim());
    });
  });
}

const major = (version) => Number(version.split('.')[0]);
const newer = (a, b) => {
  const [x, y] = [a, b].map((version) => version.split('.').map(Number));
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
};

let newMajor = false;
for (const [name, versions] of Object.entries(TESTED)) {
  const newest = versions.reduce((a, b) => (newer(a, b) >= 0 ? a : b));
  const released = await latest(name);
  if (major(released) > major(newest)) {
    newMajor = true;
    console.log(`NEW MAJOR  ${name} ${released} (tested up to ${newest}): add it to tests/package/versions.mjs and docs/ (api.md, browser.md)`);
  } else if (newer(released, newest) > 0) {
    console.log(`newer      ${name} ${released} (tested ${newest}, same major)`);
  } else {
    console.log(`current    ${name} ${newest}`);
  }
}
process.exitCode = newMajor ? 1 : 0;
