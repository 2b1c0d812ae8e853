import { describe, expect, it } from 'vitest';
import { newRequestId } from '../../src/transport/request-id.js';

describe('request ids', () => {
  it('are version 4 UUIDs, fresh each time', () => {
    const ids = Array.from({ length: 10_000 }, newRequestId);
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    // Every position that is random takes every hex digit over 10,000 ids.
    const digits = new Set(ids.map((id) => id[0]));
    expect(digits.size).toBe(16);
  });
});
