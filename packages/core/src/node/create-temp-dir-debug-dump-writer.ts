import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DebugDump } from '../retry/debug-dump.js';
import { redactCredentials } from '../retry/redact-credentials.js';

export interface TempDirDebugDumpWriterOptions {
  /** Where dumps go; defaults to `<os.tmpdir()>/turnguard`. */
  directory?: string;
}

/**
 * The Node writer for R1.10 debug dumps: one JSON file per 400 under the OS
 * temp dir's `turnguard/`, readable by the owner only (file 0600, directory
 * 0700), because request messages may be private even with credentials gone.
 * The dump is redacted again here so a hand-built dump cannot leak a key.
 */
export function createTempDirDebugDumpWriter(
  options: TempDirDebugDumpWriterOptions = {},
): (dump: DebugDump) => Promise<string> {
  const directory = options.directory ?? join(tmpdir(), 'turnguard');
  return async (dump) => {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    const stamp = dump.createdAt.replace(/[^0-9A-Za-z]/g, '');
    const path = join(directory, `debug-400-${stamp}-${randomUUID().slice(0, 8)}.json`);
    // 'wx': never overwrite (or follow) an existing file.
    await writeFile(path, `${JSON.stringify(redactCredentials(dump), null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    // The process umask can only remove bits, but an explicit chmod states the intent on every platform.
    await chmod(path, 0o600);
    return path;
  };
}
