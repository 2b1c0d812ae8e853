import { describe, expect, it } from 'vitest';
import { classifyNetworkError } from '../../src/api/http.js';
import { InterruptedError, NetworkError } from '../../src/errors.js';

const url = new URL('https://esign.example.com/api/v1/native/envelopes/create');
const failure = (code: string) => Object.assign(new Error(`failed: ${code}`), { code });

describe('classifyNetworkError: may the request have reached the server?', () => {
  it('errors before the request was written say nothing was sent', () => {
    for (const code of [
      'ECONNREFUSED',
      'ENOTFOUND',
      'EHOSTUNREACH',
      'UND_ERR_CONNECT_TIMEOUT',
      'ERR_SSL_WRONG_VERSION_NUMBER',
    ]) {
      const error = classifyNetworkError(failure(code), url) as NetworkError;
      expect(error).toBeInstanceOf(NetworkError);
      expect(error.sent).toBe(false);
      expect(error.code).toBe('network');
      expect(error.message).toContain('Nothing was sent');
    }
  });

  it('any error once the request was being written leaves the outcome unknown, whatever its code', () => {
    for (const code of [
      'EHOSTUNREACH',
      'ENETUNREACH',
      'ECONNRESET',
      'ERR_SSL_DECRYPTION_FAILED',
      'UND_ERR_SOCKET',
    ]) {
      const error = classifyNetworkError(failure(code), url, undefined, true) as NetworkError;
      expect(error.sent).toBe(true);
      expect(error.code).toBe('outcome_unknown');
      expect(error.hint).toContain('may have been created');
    }
  });

  it('a timeout waiting for the answer is unknown; an interrupt is an interrupt', () => {
    const timeout = classifyNetworkError(
      failure('UND_ERR_HEADERS_TIMEOUT'),
      url,
      undefined,
      true,
    ) as NetworkError;
    expect(timeout.message).toContain('did not answer in time');
    const controller = new AbortController();
    controller.abort();
    expect(classifyNetworkError(failure('UND_ERR_ABORTED'), url, controller.signal)).toBeInstanceOf(
      InterruptedError,
    );
  });
});
