// What counts as a JSON object when a value read from JSON is taken apart: an object, not null and
// not an array.

/** Whether `value` is a JSON object (not null, not an array). */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
