#!/usr/bin/env node
import { runGatewayCli } from './cli/run-gateway-cli.js';
// Bundled by tsup, so the installed bin prints the version it was built as (R10.4).
import packageJson from '../package.json' with { type: 'json' };

// The `turnguard` bin: `turnguard serve …`, `turnguard stats …`.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  process.stdout.write(`${packageJson.version}\n`);
} else {
  void runGatewayCli(argv, {
    env: process.env,
    writeOut: (text) => process.stdout.write(text),
    writeErr: (text) => process.stderr.write(text),
  }).then((result) => {
    const running = result.gateway ?? result.dashboard;
    if (running === undefined) {
      process.exitCode = result.exitCode;
      return;
    }
    const stop = (): void => {
      void running.close().finally(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
