// What a request id costs in garbage: a batch makes one a request. Built a hex digit at a time (32
// draws of Math.random and a new string a digit), an id left some 1.5 KB of garbage, more than any
// other step of a request, and each young collection of a batch came that much sooner.
import { describe, expect, it } from 'vitest';
import { newRequestId } from '../../src/transport/request-id.js';
import { garbagePerCall } from '../helpers/garbage.js';

describe('request ids', () => {
  it('are made with little garbage', async () => {
    // Some 120 bytes optimised (the id's string, 56); digit by digit, some 1,560.
    const perId = await garbagePerCall(() => newRequestId(), { bound: 400 });
    expect(perId, 'an attempt without a collection').toBeDefined();
    expect(perId).toBeLessThan(400);
  });
});
