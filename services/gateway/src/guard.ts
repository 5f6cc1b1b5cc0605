/**
 * Every listener the gateway adds to an emitter (a socket, a request, a response, a server) is wrapped by
 * `guarded`: an exception inside a listener is thrown into the emitter that called it, where nobody catches it,
 * and the process's fatal handler would end the gateway for one request (issue 34 item 1: a header removed after
 * the headers were sent, under 300 concurrent POSTs). Wrapped, the throw goes to `onError` instead, which answers
 * or cuts the one request concerned. A lint rule (eslint.config.mjs, "services/gateway/src") refuses a listener
 * that is not wrapped.
 */
export function guarded<A extends unknown[]>(onError: (err: unknown, ...args: unknown[]) => void, listener: (...args: A) => void): (...args: A) => void {
  return (...args: A) => {
    try {
      listener(...args);
    } catch (err) {
      try {
        onError(err, ...args);
      } catch {
        // Nothing is left to do for that request; the gateway goes on with the others.
      }
    }
  };
}
