// What each exit code means, in the words of the contract: the `esign help exit-codes` topic, and
// the exit codes of each command's help, reference page and man page.
export const EXIT_CODE_MEANINGS: Readonly<Record<number, string>> = {
  0: 'Success.',
  1: 'Unexpected internal error (a bug: run with --verbose and report it); a config file esign cannot read or change (invalid, or its lock still held by another esign after 10 s); a setting asked for with `esign config get` is not set; or the entry `esign mcp install` would write for this esign does not start (nothing was written).',
  2: 'Usage or input error found locally; nothing was sent.',
  3: 'Not authenticated: no token, or the API answered 401.',
  4: 'Forbidden: the API answered 403.',
  5: 'The API rejected the request (another 4xx, including 429 after retries).',
  6: 'Network failure: DNS, refused connection, TLS, proxy, timeout, or a connection broken after sending (the outcome is unknown: see the message).',
  7: 'Server failure: 5xx, or an answer that does not match the API spec.',
  8: 'Batch finished, but some records failed (or it stopped sending after the first 20 answered all failed with the same error; --keep-going sends every record).',
  9: "The output could not be written (closed pipe, full disk), or its lock was taken over while esign stood still (a batch's --output, a sandbox's --state): what was created is reported on stderr.",
  130: 'Interrupted (Ctrl-C).',
};
