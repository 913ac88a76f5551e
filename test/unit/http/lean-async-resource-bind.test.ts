import { AsyncLocalStorage, AsyncResource, executionAsyncId, triggerAsyncId } from 'node:async_hooks';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { installLeanAsyncResourceBind, nativeBindIsHeavy } from '@ledgerline/server/http/lean-async-resource-bind';

// Captured before the lean bind is installed, to compare behaviours.
const nativeBind = AsyncResource.prototype.bind;
const heavyBefore = nativeBindIsHeavy();

/** What a bound function observes when called from an unrelated async context. */
async function observe(bind: typeof nativeBind, thisArg?: unknown) {
  const als = new AsyncLocalStorage<string>();
  const resource = als.run('context at bind time', () => new AsyncResource('test-resource'));
  const fn = function (this: unknown, a: number, b: number) {
    return { self: this, sum: a + b, store: als.getStore(), asyncId: executionAsyncId(), trigger: triggerAsyncId() };
  };
  const bound = Reflect.apply(bind, resource, [fn, thisArg]) as (...args: unknown[]) => ReturnType<typeof fn>;
  const caller = { name: 'caller' };
  const seen = await als.run(
    'another context',
    () => new Promise<ReturnType<typeof fn>>((resolve) => setImmediate(() => resolve(bound.call(caller, 2, 3)))),
  );
  return { seen, caller, resource, bound, length: bound.length };
}

describe('lean AsyncResource#bind', () => {
  it('is installed where the native bind decorates bound functions with the deprecated asyncResource property', () => {
    expect(installLeanAsyncResourceBind()).toBe(heavyBefore);
    if (heavyBefore) {
      expect(AsyncResource.prototype.bind).not.toBe(nativeBind);
      expect(nativeBindIsHeavy()).toBe(false);
    } else {
      expect(AsyncResource.prototype.bind).toBe(nativeBind);
    }
    // Idempotent: a second install changes nothing.
    const current = AsyncResource.prototype.bind;
    installLeanAsyncResourceBind();
    expect(AsyncResource.prototype.bind).toBe(current);
  });

  for (const thisArg of [undefined, { name: 'bound this' }]) {
    it(`runs the function in the resource's scope like the native bind (thisArg ${thisArg ? 'given' : 'absent'})`, async () => {
      installLeanAsyncResourceBind();
      const lean = await observe(AsyncResource.prototype.bind, thisArg);
      const native = await observe(nativeBind, thisArg);
      for (const r of [lean, native]) {
        expect(r.seen.sum).toBe(5);
        expect(r.seen.store).toBe('context at bind time');
        expect(r.seen.asyncId).toBe(r.resource.asyncId());
        expect(r.seen.trigger).toBe(r.resource.triggerAsyncId());
        expect(r.seen.self).toBe(thisArg ?? r.caller);
        expect(r.length).toBe(2);
      }
      expect(Object.getOwnPropertyDescriptor(lean.bound, 'asyncResource')).toBeUndefined();
    });
  }

  it('rejects a non-function as the native bind does', () => {
    installLeanAsyncResourceBind();
    const r = new AsyncResource('test-resource');
    for (const bind of [AsyncResource.prototype.bind, nativeBind]) {
      let err: unknown;
      try {
        Reflect.apply(bind, r, [42]);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(TypeError);
      expect((err as { code?: string }).code).toBe('ERR_INVALID_ARG_TYPE');
    }
  });

  it("keeps the request's async context across Fastify's body parsing", async () => {
    installLeanAsyncResourceBind();
    const als = new AsyncLocalStorage<string>();
    const app = Fastify();
    app.addHook('onRequest', (req, _reply, done) => als.run(`request ${String(req.headers['x-n'])}`, done));
    app.post('/echo', async (req) => ({ store: als.getStore(), body: req.body }));
    try {
      const answers = await Promise.all(
        [1, 2, 3].map((n) =>
          app
            .inject({ method: 'POST', url: '/echo', headers: { 'x-n': String(n) }, payload: { n } })
            .then((r) => r.json()),
        ),
      );
      expect(answers).toEqual([1, 2, 3].map((n) => ({ store: `request ${n}`, body: { n } })));
    } finally {
      await app.close();
    }
  });
});
