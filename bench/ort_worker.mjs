// ort_worker.mjs - ONNX Runtime side of the benchmark (see bench/README.md).
//
//   node ort_worker.mjs MODEL.onnx THREADS NAME=FILE.npy...
//
// Every graph input needs a NAME=FILE.npy (inputs that hoduc compiles in
// with --freeze-input too: ORT sees the whole graph); the .npy dtype
// (float32, float64, int64, int32, int8, uint8, bool, ...; see npy.mjs) is
// the tensor's.
// Creates one onnxruntime-node InferenceSession (CPU execution provider,
// graphOptimizationLevel "all", intraOpNumThreads THREADS, interOpNumThreads
// 1, sequential execution) and then answers the same line protocol on stdin
// as bench/harness/hodu_bench.c --serve, so run.mjs can interleave the two:
//   warmup K | run K | save DIR | rss | cpu | quit
// "run K" times each `await session.run(feeds)` with process.hrtime, so the
// numbers include the N-API binding and the JS promise round trip.
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import ort from 'onnxruntime-node';

import { readNpy, writeNpy } from './npy.mjs';

const [modelPath, threadsArg, ...inputArgs] = process.argv.slice(2);
const threads = Number(threadsArg);
const baseRssKb = process.resourceUsage().maxRSS;

const feeds = {};
for (const arg of inputArgs) {
  const eq = arg.indexOf('=');
  const { shape, dtype, data } = readNpy(arg.slice(eq + 1));
  feeds[arg.slice(0, eq)] = new ort.Tensor(dtype, data, shape);
}

const session = await ort.InferenceSession.create(modelPath, {
  executionProviders: ['cpu'],
  graphOptimizationLevel: 'all',
  executionMode: 'sequential',
  intraOpNumThreads: threads,
  interOpNumThreads: 1,
});
let lastOutputs = null;

const rl = readline.createInterface({ input: process.stdin });
console.log('ready');
for await (const line of rl) {
  const [cmd, arg] = line.trim().split(/\s+/, 2);
  try {
    if (cmd === 'warmup') {
      for (let i = 0; i < Number(arg); ++i) lastOutputs = await session.run(feeds);
      console.log('ok');
    } else if (cmd === 'run') {
      const times = [];
      for (let i = 0; i < Number(arg); ++i) {
        const t0 = process.hrtime.bigint();
        lastOutputs = await session.run(feeds);
        times.push(Number(process.hrtime.bigint() - t0));
      }
      console.log('times ' + times.join(' '));
    } else if (cmd === 'save') {
      if (!lastOutputs) lastOutputs = await session.run(feeds);
      // DIR/<i>.npy in the session's output order, each with its own
      // dtype, and DIR/names.txt: the output names, one a line.
      session.outputNames.forEach((name, i) => {
        const t = lastOutputs[name];
        writeNpy(path.join(arg, `${i}.npy`), t.dims, t.data, t.type);
      });
      fs.writeFileSync(path.join(arg, 'names.txt'), session.outputNames.map((n) => n + '\n').join(''));
      console.log('ok');
    } else if (cmd === 'rss') {
      console.log(`rss ${process.resourceUsage().maxRSS} ${baseRssKb}`);
    } else if (cmd === 'cpu') {
      const u = process.cpuUsage();
      console.log(`cpu ${u.user + u.system}`);
    } else if (cmd === 'quit') {
      break;
    } else {
      console.log(`error unknown command '${line}'`);
    }
  } catch (e) {
    console.log(`error ${String(e.message || e).replace(/\n/g, ' ')}`);
  }
}
rl.close();
await session.release();
fs.closeSync(0);
process.exit(0);
