/** The value at fraction `p` (0–1) of the ascending `sorted`; 0 when it is empty. */
export const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
