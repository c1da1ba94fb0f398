/**
 * Preloaded into a benchmarked child (`node --import ./bench/cpu-report.js …`): on exit it writes
 * the process's CPU time (all threads, user + system) to stderr as one line
 * `bench-cpu {"user":…,"system":…}` (microseconds), which bench/load-cli.js reads. The box is
 * shared, so CPU is the steadier figure beside wall time.
 */
import { writeSync } from 'node:fs';

process.on('exit', () => {
  try { writeSync(2, `bench-cpu ${JSON.stringify(process.cpuUsage())}\n`); } catch { /* stderr closed */ }
});
