// A flag's default and choices are declared twice: in the command tree (src/cli.ts), for the help,
// and in the command's zod options schema, which decides. This walks every command of the tree and
// proves that, for every flag, the default and the choices the help shows are exactly what the
// schema holds, so that changing one side alone fails here.
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import type * as z from 'zod/mini';
import { buildProgram, describeTree, loadCommandModule } from '../../src/cli.js';
import { KEYS as SETTING_KEYS } from '../../src/commands/config.js';
import { DEFAULT_CONCURRENCY } from '../../src/commands/envelope/batch.js';
import { DEFAULT_TIMEOUT_SECONDS } from '../../src/config/settings.js';
import { createTestContext } from '../helpers/context.js';

type Schema = z.ZodMiniType<unknown>;
type Def = { type: string; innerType?: Schema; entries?: Record<string, string>; in?: Schema };

const defOf = (schema: Schema) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The values an enum field allows (through optional, default and pipe), or undefined for no enum. */
function choicesOf(schema: Schema): string[] | undefined {
  const def = defOf(schema);
  if (def.type === 'enum') return Object.values(def.entries ?? {});
  const inner = def.innerType ?? def.in;
  return inner ? choicesOf(inner) : undefined;
}

/** What the field makes of a value (or of no value): the typed value, or a mark that it refused it. */
function typed(field: Schema, raw: unknown): unknown {
  const parsed = field.safeParse(raw);
  return parsed.success ? parsed.data : { refused: raw };
}

function commandsOf(command: Command): Command[] {
  return [command, ...command.commands.flatMap(commandsOf)];
}

/** The flags a command accepts: its own and those of every command above it (commander merges them). */
function flagsOf(command: Command): Option[] {
  const all: Option[] = [];
  for (let at: Command | null = command; at; at = at.parent) all.push(...at.options);
  return all.filter((option) => option.long !== '--version');
}

function pathOf(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

const program = buildProgram(createTestContext(), {
  onOptions: (_o) => createTestContext(),
  onResult: () => {},
});
const runnable = commandsOf(program).filter((command) => loadCommandModule(command) !== undefined);

describe('every flag: the help shows what the schema holds', () => {
  it('walks every command that runs a module', () => {
    expect(runnable.map(pathOf)).toEqual(
      expect.arrayContaining([
        'esign envelope batch',
        'esign envelope create',
        'esign sandbox',
        'esign config set',
      ]),
    );
  });

  it.each(runnable.map((command) => [pathOf(command), command] as const))('%s', async (_path, command) => {
    const module = await (loadCommandModule(command) as ReturnType<typeof loadCommandModule> & object);
    const shape = (module.options as unknown as { _zod: { def: { shape: Record<string, Schema> } } })._zod.def
      .shape;
    for (const option of flagsOf(command)) {
      const key = option.attributeName();
      const field = shape[key];
      const name = `${pathOf(command)} ${option.long}`;
      expect(field, `${name} has no field in the schema`).toBeDefined();
      if (!field) continue;
      // The default: what the help shows, typed by the schema, is what the schema gives for no flag.
      const noFlag = typed(field, undefined);
      if (option.defaultValue === undefined) {
        const shown = noFlag === undefined || (Array.isArray(noFlag) && noFlag.length === 0);
        expect(shown, `${name}: the schema's default ${JSON.stringify(noFlag)} is not in the help`).toBe(
          true,
        );
      } else {
        expect(typed(field, option.defaultValue), `${name}: help default ${option.defaultValue}`).toEqual(
          noFlag,
        );
      }
      // The choices: the help lists exactly the schema's.
      expect(option.argChoices, `${name}: the help's choices`).toEqual(choicesOf(field));
    }
    // A positional argument's values, as completion offers them, are the schema's choices too.
    for (const argument of describeTree(command).args) {
      const field = shape[argument.name];
      expect(field, `${pathOf(command)} <${argument.name}> has no field in the schema`).toBeDefined();
      const choices = field && choicesOf(field);
      if (!Array.isArray(argument.complete) || !choices) continue;
      expect([...argument.complete], `${pathOf(command)} <${argument.name}>`).toEqual(choices);
    }
  });

  it('`config get|set|unset <key>` complete exactly the settings config knows (checked in its run)', () => {
    for (const name of ['get', 'set', 'unset']) {
      const command = commandsOf(program).find((c) => pathOf(c) === `esign config ${name}`) as Command;
      const key = describeTree(command).args.find((argument) => argument.name === 'key');
      expect(key?.complete).toEqual(SETTING_KEYS);
    }
  });

  it("the help's own words about defaults the schema leaves to the settings say the settings' values", () => {
    const batch = commandsOf(program).find((command) => pathOf(command) === 'esign envelope batch');
    const describe = (flag: string) => flagsOf(batch as Command).find((o) => o.long === flag)?.description;
    expect(describe('--concurrency')).toContain(`(default: ${DEFAULT_CONCURRENCY})`);
    expect(describe('--timeout')).toContain(`default ${DEFAULT_TIMEOUT_SECONDS})`);
  });
});
