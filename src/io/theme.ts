// Colour only where the stream is a terminal, never with NO_COLOR; FORCE_COLOR forces it.
import { Chalk, type ChalkInstance } from 'chalk';
import type { Env, OutputStream } from '../context.js';

export function colorLevel(stream: OutputStream, env: Env): 0 | 1 | 2 | 3 {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;
  const force = env.FORCE_COLOR;
  if (force !== undefined) {
    if (force === '0' || force === 'false') return 0;
    if (force === '2' || force === '3') return Number(force) as 2 | 3;
    return 1;
  }
  if (!stream.isTTY || env.TERM === 'dumb') return 0;
  if (env.COLORTERM === 'truecolor' || env.COLORTERM === '24bit') return 3;
  return env.TERM?.includes('256') ? 2 : 1;
}

export function themeFor(stream: OutputStream, env: Env): ChalkInstance {
  return new Chalk({ level: colorLevel(stream, env) });
}
