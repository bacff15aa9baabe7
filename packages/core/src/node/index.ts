export { createTempDirDebugDumpWriter, type TempDirDebugDumpWriterOptions } from './create-temp-dir-debug-dump-writer.js';
