import { AsyncResource } from 'node:async_hooks';

const installed = Symbol.for('ledgerline.leanAsyncResourceBind');

/** Whether this Node's `AsyncResource#bind` still decorates every bound function with the deprecated accessor. */
export function nativeBindIsHeavy(): boolean {
  const probe = new AsyncResource('ledgerline-probe');
  const bound = probe.bind(() => undefined);
  probe.emitDestroy();
  return Object.getOwnPropertyDescriptor(bound, 'asyncResource') !== undefined;
}

/**
 * Replaces `AsyncResource.prototype.bind` with one that has the documented behaviour (the function runs in the
 * resource's async scope, with `thisArg` or else the caller's `this`, and keeps its `length`) without the
 * `asyncResource` property on the bound function.
 *
 * Why: Fastify binds a callback to a fresh AsyncResource for every request body it parses. On Node 20 `bind` also defines
 * the `asyncResource` getter and setter through `util.deprecate` (DEP0172), and each `deprecate` call re-parents a new
 * function's prototype (`Object.setPrototypeOf`). Measured on the 2-core target machine, removing that cut the server's
 * CPU per POST /v2/updates/transaction-by-id from 166–214 µs to 131–134 µs (three interleaved runs each). Only that
 * deprecated property is lost; nothing in this service or its dependencies reads it.
 *
 * Installed once, and only where the native `bind` has the property (a Node that dropped it keeps its own `bind`).
 * Returns whether the lean version is in place.
 */
export function installLeanAsyncResourceBind(): boolean {
  const proto = AsyncResource.prototype as AsyncResource & { [installed]?: true };
  if (proto[installed]) return true;
  if (!nativeBindIsHeavy()) return false;
  Object.defineProperty(proto, 'bind', {
    configurable: true,
    writable: true,
    enumerable: false,
    value: function bind(this: AsyncResource, fn: unknown, thisArg?: unknown) {
      return leanBind(this, fn, thisArg);
    },
  });
  Object.defineProperty(proto, installed, { value: true });
  return true;
}

/** The documented `bind`: `fn` in `resource`'s async scope, with `thisArg` or else the caller's `this`, same `length`. */
function leanBind(resource: AsyncResource, fn: unknown, thisArg: unknown): (...args: unknown[]) => unknown {
  if (typeof fn !== 'function') {
    throw Object.assign(
      new TypeError(`The "fn" argument must be of type function. Received ${fn === null ? 'null' : typeof fn}`),
      {
        code: 'ERR_INVALID_ARG_TYPE',
      },
    );
  }
  const f = fn as (...args: unknown[]) => unknown;
  const bound =
    thisArg === undefined
      ? function (this: unknown, ...args: unknown[]) {
          return resource.runInAsyncScope(f, this, ...args);
        }
      : function (...args: unknown[]) {
          return resource.runInAsyncScope(f, thisArg, ...args);
        };
  Object.defineProperty(bound, 'length', { configurable: true, enumerable: false, writable: false, value: f.length });
  return bound;
}
