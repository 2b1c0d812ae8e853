// What is wrong with a value meant as a template id, in words: one place for `--template`, a
// record's `template_id` and the project file's ids (a value shaped like an id is told what is wrong
// with it as an id, not only that it is not one).

export const ULID_EXPECTED =
  'must be a ULID: 26 characters of Crockford base-32, like 01JD7X4ZQ8G1N6RVS0Y2MBKT3E';

const ID_SHAPED = /^(?=[^0-9]*[0-9])[0-9A-Za-z]{23,29}$/;
const NOT_CROCKFORD = /[ILOU]/gi;
const COUNTS = ['', 'one character', 'two characters', 'three characters'];

/** What is wrong with a value shaped like a ULID, or undefined when it is not shaped like one. */
export function describeNearUlid(value: string): string | undefined {
  if (!ID_SHAPED.test(value)) return undefined;
  const wrong: string[] = [];
  const off = value.length - 26;
  if (off < 0) wrong.push(`is ${COUNTS[-off]} short`);
  if (off > 0) wrong.push(`is ${COUNTS[off]} too long`);
  const letters = [...value.matchAll(NOT_CROCKFORD)].map(
    (m) => `'${m[0]}' at character ${(m.index ?? 0) + 1}`,
  );
  if (letters.length > 0) {
    wrong.push(
      `has ${letters.slice(0, 3).join(', ')}${letters.length > 3 ? ', …' : ''} (I, L, O and U are not Crockford base-32)`,
    );
  }
  // 26 base-32 characters hold 130 bits; a ULID has 128, so the first character is at most 7.
  if (wrong.length === 0)
    return `${ULID_EXPECTED}, and '${value}' is out of range: the largest ULID is 7ZZZZZZZZZZZZZZZZZZZZZZZZZ`;
  return `${ULID_EXPECTED}; '${value}' ${wrong.join(' and ')}`;
}
