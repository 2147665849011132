// A small seeded PRNG (sfc32) so that every run is reproducible from its seed.
export function createRandom(seed) {
  let a = 0x9e3779b9, b = 0x243f6a88, c = 0xb7e15162, d = seed >>> 0;
  const next = () => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 16; i++) next();
  return {
    float: next,
    int: (n) => Math.floor(next() * n),               // 0 <= x < n
    pick: (list) => list[Math.floor(next() * list.length)],
    chance: (p) => next() < p,
    // weights: { key: weight } -> a key
    weighted(weights) {
      const entries = Object.entries(weights).filter(([, w]) => w > 0);
      let r = next() * entries.reduce((s, [, w]) => s + w, 0);
      for (const [key, w] of entries) { if ((r -= w) < 0) return key; }
      return entries[entries.length - 1][0];
    },
  };
}
