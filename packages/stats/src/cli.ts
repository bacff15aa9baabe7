#!/usr/bin/env node
import { runStatsCli } from './cli/run-stats-cli.js';

// The `turnguard-stats` bin; `turnguard stats` delegates here.
void runStatsCli(process.argv.slice(2), {
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
