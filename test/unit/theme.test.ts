// The theme a run draws with (src/io/theme.ts): where the stream shows no colour it is text as it is,
// as chalk at level 0 gives it, without loading chalk; where it shows colour, chalk at that level.
import { Chalk } from 'chalk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decideTerminal } from '../../src/io/terminal.js';
import { themeFor } from '../../src/io/theme.js';

const terminal = (env: Record<string, string>, isTTY: boolean) =>
  decideTerminal({ stdout: { isTTY, columns: 80 }, stderr: { isTTY, columns: 80 } }, env, 'linux');

describe('the theme', () => {
  it('without colour, gives what chalk at level 0 gives, for every style and chain used', async () => {
    const plain = await themeFor(terminal({}, false), 'stdout');
    const chalk = new Chalk({ level: 0 });
    expect(plain.level).toBe(0);
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 3 }), (args) => {
        for (const style of ['bold', 'dim', 'green', 'yellow', 'cyan'] as const) {
          expect(plain[style](...args)).toBe(chalk[style](...args));
        }
        expect(plain.cyan.underline(...args)).toBe(chalk.cyan.underline(...args));
      }),
    );
  });

  it('is a value an async function can return (not a thenable)', async () => {
    const plain = await themeFor(terminal({ NO_COLOR: '1' }, true), 'stderr');
    expect((plain as unknown as { then?: unknown }).then).toBeUndefined();
    expect(`${plain.green('ok')}`).toBe('ok');
  });

  it('with colour, is chalk at the run’s level', async () => {
    const coloured = await themeFor(terminal({ FORCE_COLOR: '1' }, false), 'stdout');
    expect(coloured.level).toBe(1);
    expect(coloured.bold('x')).toBe(new Chalk({ level: 1 }).bold('x'));
    expect(coloured.bold('x')).not.toBe('x');
  });
});
