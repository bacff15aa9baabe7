#!/usr/bin/env node
import { runProbeCli } from './cli/run-probe-cli.js';

// The `turnguard-probe` bin.
void runProbeCli(process.argv.slice(2), {
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
