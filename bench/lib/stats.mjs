// Summaries of repeated measurements: the median and the spread (min-max and the interquartile range).

function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
}

/** samples: numbers, one per round -> { median, min, max, q1, q3, rounds, samples } */
export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    median: quantile(sorted, 0.5),
    min: sorted[0],
    max: sorted[sorted.length - 1],
    q1: quantile(sorted, 0.25),
    q3: quantile(sorted, 0.75),
    rounds: sorted.length,
    samples,
  };
}

/** Rounds a number to 3 significant digits for display. */
export function round3(value) {
  if (!Number.isFinite(value)) return value;
  if (value === 0) return 0;
  const digits = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(value))));
  return Number(value.toFixed(Math.min(digits, 6)));
}
