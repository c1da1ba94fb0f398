#!/usr/bin/env node
// The `ledgraph` command's launcher. CommonJS so it runs before anything touches libuv's thread
// pool (an ES module entry is itself read through it), which sizes the pool once, from the
// environment: file storage fsyncs a commit group's files side by side, and the default 4 threads
// would take them four at a time. UV_THREADPOOL_SIZE set by the user wins.
process.env.UV_THREADPOOL_SIZE ??= '16';
import('./ledgraph.js');
