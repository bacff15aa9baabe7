#!/usr/bin/env node
import { runStatsCli } from './cli/run-stats-cli.js';
// Bundled by tsup, so the installed bin prints the version it was built as (R10.4).
import packageJson from '../package.json' with { type: 'json' };

// The `turnguard-stats` bin; `turnguard stats` delegates here.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  process.stdout.write(`${packageJson.version}\n`);
} else {
  void runStatsCli(argv, {
    env: process.env,
    writeOut: (text) => process.stdout.write(text),
    writeErr: (text) => process.stderr.write(text),
  }).then((result) => {
    const server = result.server;
    if (!server) {
      process.exitCode = result.exitCode;
      return;
    }
    const stop = (): void => {
      void server.close().finally(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
