import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// For core's tests of what a stream no longer holds (core cannot use
// testkit's helper, which depends on core): Node's `--expose-gc`, set at
// run time so a test needs no command-line flag.
let gc: (() => void) | undefined;

/** A full garbage collection. */
export function collectGarbage(): void {
  gc ??= (() => {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  })();
  gc();
}
