#!/usr/bin/env node
import { runProbeCli } from './cli/run-probe-cli.js';
// Bundled by tsup, so the installed bin prints the version it was built as (R10.4).
import packageJson from '../package.json' with { type: 'json' };

// The `turnguard-probe` bin.
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  process.stdout.write(`${packageJson.version}\n`);
} else {
  void runProbeCli(argv, {
    env: process.env,
    cwd: process.cwd(),
    stdout: {
      write: (text) => process.stdout.write(text),
      isTTY: process.stdout.isTTY === true,
      get columns() {
        return process.stdout.columns;
      },
    },
    writeErr: (text) => process.stderr.write(text),
  }).then((exitCode) => {
    process.exitCode = exitCode;
  });
}
