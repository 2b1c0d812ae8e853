import type { CommandInput } from '../cli.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';

export async function run(_input: CommandInput, _ctx: Context): Promise<number> {
  throw new UsageError('esign sandbox is not built yet.');
}
