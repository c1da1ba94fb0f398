#!/usr/bin/env node
/**
 * One load measurement in its own process (run by bench/run.js; needs --expose-gc):
 *
 *   node --expose-gc bench/load-worker.js --engine oxigraph|n3|ledgraph --data FILE.nt
 *        [--storage DIR] [--expect TRIPLES] [--keep]
 *
 * Wall time runs from opening the file until every triple is queryable (ledgraph: committed and
 * indexed on file storage). Reports triples/s, CPU seconds, RSS after load (after forced GCs),
 * peak RSS (max of 50 ms samples and /proc/self/status VmHWM) and, for ledgraph, the bytes of
 * its storage directory. Prints one JSON line on stdout.
 */
import { rmSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { EngineUnavailable, openEngine } from './engines.js';
import {
  cpuSeconds, dirSize, emitResult, errorMessage, log, parseArgs, procStatus, rssAfterGc, startRssSampler, toMB,
} from './measure.js';

const args = parseArgs(process.argv.slice(2));
const engineName = args.engine;
const data = args.data ? resolve(args.data) : null;
const storageDir = args.storage ? resolve(args.storage) : null;
const expect = args.expect ? Number(args.expect) : null;

async function main() {
  if (!engineName || !data) throw new Error('usage: load-worker.js --engine NAME --data FILE.nt [--storage DIR]');
  const base = { suite: 'load', engine: engineName, data, dataBytes: statSync(data).size, node: process.version, pid: process.pid };
  const sampler = startRssSampler(50);
  const rssStart = process.memoryUsage().rss;
  let engine;
  try {
    engine = await openEngine(engineName, { storageDir });
  } catch (err) {
    sampler.stop();
    if (err instanceof EngineUnavailable) return emitResult({ ...base, status: err.status, error: err.message });
    throw err;
  }
  if (engineName === 'ledgraph') rmSync(storageDir, { recursive: true, force: true });

  let lastLog = 0;
  const onProgress = (p) => {
    const now = performance.now();
    if (now - lastLog > 2000) {
      lastLog = now;
      log(`  [${engineName}] ${p.phase ?? ''} ${p.done ?? ''}${p.total ? ' / ' + p.total : ''}`);
    }
  };
  log(`  [${engineName}] loading ${data}`);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  try {
    await engine.load(data, { onProgress });
  } catch (err) {
    sampler.stop();
    const status = err instanceof EngineUnavailable ? err.status : 'error';
    if (engineName === 'ledgraph') {
      await engine.close().catch(() => {});
      if (!args.keep) rmSync(storageDir, { recursive: true, force: true });
    }
    return emitResult({ ...base, status, error: errorMessage(err) });
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(cpu0);
  const { sampledPeak, samples } = sampler.stop();

  const triples = await engine.size();
  const after = await rssAfterGc();
  const { vmHwm } = procStatus();
  const result = {
    ...base,
    status: 'ok',
    version: engine.version,
    description: engine.description,
    triples,
    seconds: Math.round(seconds * 1000) / 1000,
    cpuSeconds: Math.round(cpu * 1000) / 1000,
    triplesPerSec: triples ? Math.round(triples / seconds) : null,
    rssStartMB: toMB(rssStart),
    rssAfterLoadMB: toMB(after.rss),
    heapUsedAfterLoadMB: toMB(after.heapUsed),
    externalAfterLoadMB: toMB(after.external),
    peakRssMB: toMB(Math.max(sampledPeak, vmHwm ?? 0)),
    sampledPeakRssMB: toMB(sampledPeak),
    rssSamples: samples,
    vmHwmMB: toMB(vmHwm),
  };
  if (expect && triples !== expect) {
    result.warning = `engine holds ${triples} triples, the generator wrote ${expect}`;
    log(`  [${engineName}] WARNING: ${result.warning}`);
  }
  if (engineName === 'ledgraph') {
    result.receipt = plain(engine.receipt);
    await engine.close();
    const du = dirSize(storageDir);
    result.diskBytes = du.bytes;
    result.diskAllocatedBytes = du.allocated;
    result.diskFiles = du.files;
    result.diskMB = toMB(du.bytes);
    if (!args.keep) rmSync(storageDir, { recursive: true, force: true });
  } else {
    await engine.close();
  }
  emitResult(result);
}

/** Primitive fields of a receipt (it may hold CIDs or other objects). */
function plain(obj) {
  if (!obj || typeof obj !== 'object') return obj ?? null;
  const out = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v == null || ['string', 'number', 'boolean'].includes(typeof v)) out[k] = v;
    else if (typeof v.toString === 'function' && v.toString !== Object.prototype.toString) out[k] = v.toString();
  }
  return out;
}

main().then(
  () => process.exit(0),
  (err) => {
    emitResult({ suite: 'load', engine: engineName, status: 'error', error: errorMessage(err) });
    log(err?.stack ?? String(err));
    process.exit(1);
  },
);
