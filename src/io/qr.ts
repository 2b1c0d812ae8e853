// --qr: a link drawn as a QR code in the terminal, for someone signing in the room on a phone.
// Encoding a QR code is a real problem (Reed-Solomon, masks, versions): uqr does it, with no
// dependencies. Drawing the matrix is ten lines, done here so that it follows the run's terminal
// decision (Unicode or ASCII).
import { encode } from 'uqr';

/** The quiet zone around the code, in modules. The standard asks for 4; scanners read 2 well. */
const QUIET_ZONE = 2;

/**
 * The code as lines of text. Light modules (and the quiet zone) are drawn, dark ones left blank:
 * on the dark background most terminals have, that gives dark modules on a light ground, as a
 * scanner expects. Unicode: two rows of modules a line, with half blocks (a square-ish code). ASCII
 * (LANG=C): one row a line, `##` a module.
 */
export function qrLines(text: string, unicode: boolean): string[] {
  const { data } = encode(text, { ecc: 'L', border: QUIET_ZONE });
  return drawModules(data, unicode);
}

/**
 * The code as it can be drawn here: its lines, or why not (the text is more than a code holds, or
 * the drawing is wider than the terminal's `columns` and would wrap, which no phone can scan).
 */
export function qrDrawing(
  text: string,
  unicode: boolean,
  columns: number | undefined,
): { lines: string[] } | { problem: string } {
  let data: boolean[][];
  try {
    ({ data } = encode(text, { ecc: 'L', border: QUIET_ZONE }));
  } catch {
    return {
      problem: `the signing URL is ${text.length} characters long, more than a QR code holds (about ${MAX_QR_CHARACTERS.toLocaleString('en')})`,
    };
  }
  const width = unicode ? data.length : data.length * 2;
  if (columns !== undefined && width > columns) {
    const narrower = unicode ? '' : ` (in a UTF-8 locale it takes ${data.length})`;
    return {
      problem: `the code is ${width} columns wide and the terminal ${columns}: it would wrap and could not be scanned. Widen the terminal to ${width} columns or more${narrower}`,
    };
  }
  return { lines: drawModules(data, unicode) };
}

/** What a code of the lowest error correction holds, in bytes: the most esign can draw. */
const MAX_QR_CHARACTERS = 2953;

function drawModules(data: boolean[][], unicode: boolean): string[] {
  const lit = (row: number, col: number) => row < data.length && !data[row]?.[col];
  const lines: string[] = [];
  if (!unicode) {
    for (let row = 0; row < data.length; row++) {
      lines.push(data.map((_, col) => (lit(row, col) ? '##' : '  ')).join(''));
    }
    return lines;
  }
  for (let row = 0; row < data.length; row += 2) {
    let line = '';
    for (let col = 0; col < data.length; col++) {
      line += HALF_BLOCKS[(lit(row, col) ? 2 : 0) + (lit(row + 1, col) ? 1 : 0)];
    }
    lines.push(line);
  }
  return lines;
}

/** Index: 2 × top lit + bottom lit. */
const HALF_BLOCKS = [' ', '▄', '▀', '█'] as const;
