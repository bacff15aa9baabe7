import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// V8's own checks for core's memory tests (core cannot use testkit's, which
// depends on core). The flags apply to code compiled after they are set, so
// the probes are compiled here, once, lazily.
let probes:
  | {
      collectGarbage: () => void;
      hasFastProperties: (object: object) => boolean;
      haveSameMap: (a: object, b: object) => boolean;
      neverOptimize: (fn: Function) => void;
      optimizeOnNextCall: (fn: Function) => void;
    }
  | undefined;

function loadProbes(): NonNullable<typeof probes> {
  setFlagsFromString('--expose-gc');
  setFlagsFromString('--allow-natives-syntax');
  return {
    collectGarbage: runInNewContext('gc') as () => void,
    hasFastProperties: new Function('object', 'return %HasFastProperties(object);') as (object: object) => boolean,
    haveSameMap: new Function('a', 'b', 'return %HaveSameMap(a, b);') as (a: object, b: object) => boolean,
    neverOptimize: new Function('fn', '%NeverOptimizeFunction(fn);') as (fn: Function) => void,
    optimizeOnNextCall: new Function('fn', '%PrepareFunctionForOptimization(fn); %OptimizeFunctionOnNextCall(fn);') as (fn: Function) => void,
  };
}

/** A full GC (`gc()` from --expose-gc). */
export function collectGarbage(): void {
  (probes ??= loadProbes()).collectGarbage();
}

/** True when V8 keeps `object` out of dictionary mode (`%HasFastProperties`). */
export function hasFastProperties(object: object): boolean {
  return (probes ??= loadProbes()).hasFastProperties(object);
}

/** True when V8 gives `a` and `b` the same hidden class (`%HaveSameMap`). */
export function haveSameMap(a: object, b: object): boolean {
  return (probes ??= loadProbes()).haveSameMap(a, b);
}

/**
 * Keeps `fn`, or every method of a prototype, out of TurboFan,
 * so a test measures what the code itself allocates: optimised code may
 * remove an allocation by escape analysis in a test's small loop and still
 * make it on the real path, where a callee is not inlined (issue 19: a
 * context per `pull`, allocated when `pull` was inlined into the engine's
 * `next` but not in a loop that inlined everything).
 */
export function keepInterpreted(target: Function | object): void {
  const v8 = (probes ??= loadProbes());
  if (typeof target === 'function') return v8.neverOptimize(target);
  for (const name of Object.getOwnPropertyNames(target)) {
    const value = Object.getOwnPropertyDescriptor(target, name)?.value;
    if (typeof value === 'function' && name !== 'constructor') v8.neverOptimize(value);
  }
}

/**
 * TurboFan compiles `fn` when it is next called (`%OptimizeFunctionOnNextCall`):
 * for a test that must hold in optimised code too (an operation kept only for
 * its effect on V8's heap could be removed there).
 */
export function optimizeOnNextCall(fn: Function): void {
  (probes ??= loadProbes()).optimizeOnNextCall(fn);
}
