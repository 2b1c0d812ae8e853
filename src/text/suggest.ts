// "Did you mean …?": the closest of a few known names to what was typed, when it is close enough.

/** Edit distance (insertions, deletions, substitutions, adjacent swaps) between two short strings. */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        (d[i - 1]?.[j] ?? 0) + 1,
        (d[i]?.[j - 1] ?? 0) + 1,
        (d[i - 1]?.[j - 1] ?? 0) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (d[i - 2]?.[j - 2] ?? 0) + 1);
      }
      (d[i] as number[])[j] = best;
    }
  }
  return d[a.length]?.[b.length] ?? 0;
}

/**
 * A known name that `typed` extends or shortens by whole words (`--rate-limit` and `--rate`,
 * `--expires` and `--expires-in-days`): too far apart for the edit distance, but the same word.
 */
function sameFirstWords(typed: string, name: string): boolean {
  const [a, b] = [typed.toLowerCase().replace(/^-+/, ''), name.toLowerCase().replace(/^-+/, '')];
  if (a.length < 3 || b.length < 3 || a === b) return false;
  return a.startsWith(`${b}-`) || b.startsWith(`${a}-`);
}

/**
 * The known name closest to `typed`: one edit away; else one that `typed` extends or shortens by
 * whole words; else at most a third of its length away; else undefined.
 */
export function closest(typed: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const name of known) {
    const distance = editDistance(typed.toLowerCase(), name.toLowerCase());
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  if (best !== undefined && bestDistance === 1) return best;
  const sameWords = known.find((name) => sameFirstWords(typed, name));
  if (sameWords !== undefined) return sameWords;
  const allowed = Math.max(1, Math.floor(Math.max(typed.length, 3) / 3));
  return best !== undefined && bestDistance > 0 && bestDistance <= allowed ? best : undefined;
}

/** " Did you mean 'x'?" or "" */
export function didYouMean(typed: string, known: readonly string[]): string {
  const match = closest(typed, known);
  return match === undefined ? '' : ` Did you mean '${match}'?`;
}

/**
 * What to say about an option a command does not have, after "Unknown option …": the commands that
 * do have it, and the closest option of this command. " '--rate-limit' is an option of 'esign
 * sandbox'; did you mean '--rate'?", or "" when there is nothing to say.
 */
export function unknownOptionAdvice(
  typed: string,
  own: readonly string[],
  elsewhere: readonly string[],
): string {
  const match = closest(typed, own);
  if (elsewhere.length === 0) return match === undefined ? '' : ` Did you mean '${match}'?`;
  const shown = elsewhere.slice(0, 3).map((path) => `'${path}'`);
  const more = elsewhere.length > 3 ? ` (and ${elsewhere.length - 3} more)` : '';
  const where = `'${typed}' is an option of ${shown.join(', ')}${more}`;
  return match === undefined ? ` ${where}, not of this command.` : ` ${where}; did you mean '${match}'?`;
}
