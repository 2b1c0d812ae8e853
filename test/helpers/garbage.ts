// What one call of a hot function leaves as garbage, as V8's optimised code runs it: the bytes the
// heap grows by over a run of calls, in an attempt no collection ran in (one would hide the growth).
//
// The cost depends on which of V8's tiers runs the code, and the optimising compiler (TurboFan)
// works on a background thread: on a loaded machine its code can be installed many attempts after
// the warm-up, and until then the calls run in a lower tier that allocates two to twelve times more
// (measured on Node 24: a duplicate key 593 bytes a record in Maglev, 264 optimised; a request id
// 1,520 against 120). So the attempts go on until one measures under `bound`, which is the event
// waited for, up to `attempts` of them; the least measured is returned either way.
import { PerformanceObserver } from 'node:perf_hooks';

export async function garbagePerCall(
  call: (i: number) => unknown,
  { calls = 500, bound, attempts = 2_000 }: { calls?: number; bound: number; attempts?: number },
): Promise<number | undefined> {
  let collections = 0;
  const observer = new PerformanceObserver((list) => {
    collections += list.getEntries().length;
  });
  observer.observe({ entryTypes: ['gc'] });
  try {
    const kept = new Array<unknown>(calls);
    for (let round = 0; round < 40; round++) for (let i = 0; i < calls; i++) kept[i] = call(i); // compiled
    let least: number | undefined;
    for (let attempt = 0; attempt < attempts && !(least !== undefined && least < bound); attempt++) {
      // A turn for the observer to hear of collections so far, then none must come while counting.
      await new Promise((resolve) => setImmediate(resolve));
      collections = 0;
      const before = process.memoryUsage().heapUsed;
      for (let i = 0; i < calls; i++) kept[i] = call(i);
      const grown = process.memoryUsage().heapUsed - before;
      await new Promise((resolve) => setImmediate(resolve));
      if (collections === 0) least = Math.min(least ?? Infinity, grown / calls);
    }
    return least;
  } finally {
    observer.disconnect();
  }
}
