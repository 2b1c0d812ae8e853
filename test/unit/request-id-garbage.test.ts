// What a request id costs in garbage: a batch makes one a request. Built a hex digit at a time (32
// draws of Math.random and a new string a digit), an id left some 1.5 KB of garbage, more than any
// other step of a request, and each young collection of a batch came that much sooner.
import { PerformanceObserver } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { newRequestId } from '../../src/transport/request-id.js';

describe('request ids', () => {
  it('are made with little garbage', async () => {
    let collections = 0;
    const observer = new PerformanceObserver((list) => {
      collections += list.getEntries().length;
    });
    observer.observe({ entryTypes: ['gc'] });
    try {
      for (let i = 0; i < 20_000; i++) newRequestId(); // compiled
      let perId: number | undefined;
      for (let attempt = 0; attempt < 10 && perId === undefined; attempt++) {
        // A turn for the observer to hear of collections so far, then none must come while counting.
        await new Promise((resolve) => setImmediate(resolve));
        collections = 0;
        const ids: string[] = new Array(500);
        const before = process.memoryUsage().heapUsed;
        for (let i = 0; i < ids.length; i++) ids[i] = newRequestId();
        const grown = process.memoryUsage().heapUsed - before;
        await new Promise((resolve) => setImmediate(resolve));
        if (collections === 0) perId = grown / ids.length;
      }
      expect(perId, 'an attempt without a collection').toBeDefined();
      // Some 120 bytes now (the id's string, 56); digit by digit, some 1,560.
      expect(perId).toBeLessThan(400);
    } finally {
      observer.disconnect();
    }
  });
});
