#!/usr/bin/env node
import { runGatewayCli } from './cli/run-gateway-cli.js';

// The `turnguard` bin: `turnguard serve …`, `turnguard stats …`.
void runGatewayCli(process.argv.slice(2), {
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
