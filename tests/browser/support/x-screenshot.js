// A screenshot of one top-level X window (the browser tests run under Xvfb: `xvfb-run -a`), for
// WebKit's tabs once WebKit has ended the WebDriver session (it does so when any page's web
// process crashes, and WebDriver's screenshot endpoint goes with it). The window is found by a
// unique title the tab sets for the moment (xdotool), raised above the others, captured with xwd
// and written as a PNG. Needs the Debian packages xdotool and x11-apps (scripts/setup.sh).
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const run = promisify(execFile);

/** The id of the X window whose title contains `title`, once there is exactly one. */
async function windowTitled(title, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ids = await run('xdotool', ['search', '--name', title]).then(({ stdout }) => stdout.split('\n').filter(Boolean), () => []);
    if (ids.length === 1) return ids[0];
    if (Date.now() > deadline) {
      throw new Error(`no single X window titled "${title}" (found ${ids.length}): the tab is not the shown page of a window of its own`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Captures the window that shows `tab` into `file` (PNG). `tab.evaluate` must work (the page is
 * alive); the title is restored afterwards.
 */
export async function captureWindowOf(tab, file) {
  const token = `x-screenshot-${process.pid}-${Date.now().toString(36)}`;
  const title = await tab.evaluate((t) => { const old = document.title; document.title = t; return old; }, token);
  try {
    const id = await windowTitled(token);
    await run('xdotool', ['windowraise', id]);
    // Two frames drawn after the raise: the window's pixels on screen are the page's again.
    await tab.evaluate(() => new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(() => r(true))); setTimeout(() => r(false), 1000); }));
    const { stdout } = await run('xwd', ['-silent', '-id', id], { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 });
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, xwdToPng(stdout));
  } finally {
    await tab.evaluate((t) => { document.title = t; return true; }, title);
  }
}

/** XWD (X Window Dump, ZPixmap, 24/32 bits per pixel, true colour) -> PNG (8-bit RGB). */
export function xwdToPng(xwd) {
  const field = (i) => xwd.readUInt32BE(i * 4);
  const [headerSize, format, width, height, byteOrder, bitsPerPixel, bytesPerLine] = [field(0), field(2), field(4), field(5), field(7), field(11), field(12)];
  const [redMask, greenMask, blueMask, ncolors] = [field(14), field(15), field(16), field(19)];
  if (format !== 2 || (bitsPerPixel !== 32 && bitsPerPixel !== 24)) throw new Error(`unsupported XWD: format ${format}, ${bitsPerPixel} bits per pixel`);
  const shift = (mask) => 31 - Math.clz32(mask & -mask);
  const [rs, gs, bs] = [redMask, greenMask, blueMask].map(shift);
  const data = headerSize + ncolors * 12;
  const bytes = bitsPerPixel / 8;
  const raw = Buffer.alloc(height * (1 + width * 3));
  for (let y = 0; y < height; y += 1) {
    const row = y * (1 + width * 3); // filter byte 0 (none), then RGB
    for (let x = 0; x < width; x += 1) {
      const at = data + y * bytesPerLine + x * bytes;
      const pixel = bytes === 4
        ? (byteOrder === 0 ? xwd.readUInt32LE(at) : xwd.readUInt32BE(at))
        : (byteOrder === 0 ? xwd.readUIntLE(at, 3) : xwd.readUIntBE(at, 3));
      raw[row + 1 + x * 3] = (pixel & redMask) >>> rs;
      raw[row + 2 + x * 3] = (pixel & greenMask) >>> gs;
      raw[row + 3 + x * 3] = (pixel & blueMask) >>> bs;
    }
  }
  const chunk = (type, body) => {
    const out = Buffer.alloc(12 + body.length);
    out.writeUInt32BE(body.length, 0);
    out.write(type, 4, 'ascii');
    body.copy(out, 8);
    out.writeUInt32BE(zlib.crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, no filter method, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0)),
  ]);
}
