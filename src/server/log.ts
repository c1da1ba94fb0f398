/** Structured logging: one JSON object per line, filtered by level. */
import type { LogLevel } from './config.js';

export type LogFields = Record<string, unknown>;

/** A leveled structured logger. */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** True when lines at `level` are written. */
  enabled(level: LogLevel): boolean;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** A logger writing JSON lines (`time`, `level`, `msg`, then the fields) to `write` (default stdout). */
export function createLogger(level: LogLevel, write: (line: string) => void = (l) => { process.stdout.write(l); }): Logger {
  const min = RANK[level];
  const emit = (lvl: LogLevel, msg: string, fields?: LogFields) => {
    if (RANK[lvl] < min) return;
    const rec: LogFields = { time: new Date().toISOString(), level: lvl, msg, ...fields };
    let line: string;
    try {
      // Without a replacer first (a replacer is called for every key); only a bigint needs one.
      line = JSON.stringify(rec);
    } catch {
      try {
        line = JSON.stringify(rec, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
      } catch {
        line = JSON.stringify({ time: rec.time, level: lvl, msg });
      }
    }
    write(line + '\n');
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    enabled: (l) => RANK[l] >= min,
  };
}

/** A logger that drops everything (tests). */
export const silentLogger: Logger = {
  debug() {}, info() {}, warn() {}, error() {}, enabled: () => false,
};
