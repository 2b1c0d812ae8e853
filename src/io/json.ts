// JSON parsing with a position a person can use. V8's messages differ between Node versions and
// some carry no position at all ("Unexpected token '}', ... is not valid JSON"), so when JSON.parse
// fails, a small scanner walks the text once more to find where and why.

export interface JsonSyntaxProblem {
  line: number;
  column: number;
  reason: string;
}

export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

class ScanError extends Error {
  constructor(
    readonly offset: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** Finds the first syntax error in `text`, or returns undefined when it is valid JSON. */
export function findJsonSyntaxProblem(text: string): JsonSyntaxProblem | undefined {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const fail = (reason: string): never => {
    throw new ScanError(i, reason);
  };
  const describe = () => (i >= text.length ? 'the end of the input' : `'${text[i]}'`);
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, i)) i += word.length;
    else fail(`unexpected ${describe()}`);
  };
  const string = () => {
    i++; // opening quote
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        i++;
        return;
      }
      if (c < 0x20) fail('unescaped control character (a line break?) inside a string');
      if (c === 92) {
        i++;
        const e = text[i];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail('bad \\u escape in a string');
          i += 5;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) fail('bad escape in a string');
      }
      i++;
    }
    fail('unterminated string');
  };
  const number = () => {
    const match = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (!match || match[0] === '' || match[0] === '-') fail(`unexpected ${describe()}`);
    i += (match as RegExpExecArray)[0].length;
  };
  const value = (depth: number): void => {
    if (depth > 500) fail('nested too deeply');
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail(`expected a property name in double quotes, found ${describe()}`);
        string();
        ws();
        if (text[i] !== ':') fail(`expected ':' after a property name, found ${describe()}`);
        i++;
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          ws();
          if (text[i] === '}') fail("trailing comma before '}'");
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        fail(`expected ',' or '}' after a property value, found ${describe()}`);
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          ws();
          if (text[i] === ']') fail("trailing comma before ']'");
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        fail(`expected ',' or ']' after an array element, found ${describe()}`);
      }
    }
    if (c === '"') string();
    else if (c === 't') literal('true');
    else if (c === 'f') literal('false');
    else if (c === 'n') literal('null');
    else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) number();
    else
      fail(
        i >= text.length
          ? 'unexpected end of input (the input is empty or cut short)'
          : `unexpected ${describe()}`,
      );
  };
  try {
    value(0);
    ws();
    if (i < text.length) fail(`unexpected ${describe()} after the end of the JSON value`);
    return undefined;
  } catch (error) {
    if (!(error instanceof ScanError)) throw error;
    return { ...lineAndColumn(text, error.offset), reason: error.reason };
  }
}

/** "line 3, column 5: expected ..." for a JSON.parse failure on `text`. */
export function describeJsonSyntaxError(error: unknown, text: string): string {
  const problem = findJsonSyntaxProblem(text);
  if (problem) return `line ${problem.line}, column ${problem.column}: ${problem.reason}`;
  return error instanceof Error ? error.message : String(error);
}

/** JSON.parse that strips a UTF-8 byte-order mark and reports failures as `line L, column C: reason`. */
export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch (error) {
    return { ok: false, problem: describeJsonSyntaxError(error, text) };
  }
}
