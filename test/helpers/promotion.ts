// How much `work` makes V8's old generation grow, measured where no full collection ran (one frees
// what was promoted and hides the growth): everything long-lived is moved to the old generation
// first, then the work runs, up to five times until an attempt sees no full collection.
// Undefined when every attempt met one.
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The bytes used in the spaces V8 promotes into (with `large`: large objects too). */
export function promotedBytes(large = false): number {
  return getHeapSpaceStatistics()
    .filter(
      (space) => space.space_name === 'old_space' || (large && space.space_name === 'large_object_space'),
    )
    .reduce((sum, space) => sum + space.space_used_size, 0);
}

export async function promotionBy(
  work: () => Promise<void>,
  measure = () => promotedBytes(),
): Promise<number | undefined> {
  let majors = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      // A gc entry's detail says which collection it was (the typings of Node 20 leave it out).
      const { detail } = entry as { detail?: { kind?: number } };
      if (detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      gc();
      gc();
      // The observer hears of those two on a later turn: let it, before counting afresh.
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      const before = measure();
      majors = 0;
      await work();
      if (majors === 0) return measure() - before;
    }
    return undefined;
  } finally {
    observer.disconnect();
  }
}
