// Waits for an event a test is not told of directly (a file appearing, a line in a log, a count at
// a server): checks `condition` every few milliseconds until it holds, and fails naming `what` if it
// does not within `timeoutMs`. What a test uses instead of sleeping a fixed time and hoping the
// other side has done its part by then (under load it has not).
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what} in vain`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
