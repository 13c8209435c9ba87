// thread_split.mjs - what each model's work split allows at 2 to 64 threads
// (see bench/README.md). Hodu alone; not run by run.mjs.
//
//   node bench/thread_split.mjs [--hodu-build DIR] [--models a,b]
//        [--models-cache DIR] [--threads N] [--runs N]
//
// For every bench model (bench/results/models, as bench/run.sh generates
// them) and every real model of test/models/manifest.json that is
// installed (and not marked slow or xfail, unless named): compile it with
// hoduc (a real model with its manifest's flags), run it `--runs` times
// at `--threads` threads with `hodu-run --thread-report`, and print one
// Markdown row: the parallel regions, the share of the run outside them
// (serial code, copies, the run's own cost) and the speed-up the splits
// allow at 2, 4, 8, 16 and 64 threads. That last figure is hodu-run's
// model: the serial part as measured, each region's measured work spread
// over the threads by its units under the static schedule, and no other
// cost (docs/runtime.md, --thread-report). It says where the split
// itself stops scaling on a larger machine than this one; memory
// bandwidth and the cost of forks are not in it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadRealModels, ensureModel, prepareInputs } from './real_models.mjs';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const repoDir = path.dirname(benchDir);
const modelsDir = path.join(benchDir, 'results', 'models');

function parseArgs(argv) {
  const o = { hoduBuild: path.join(repoDir, 'build'), models: null, threads: 2, runs: 20,
    modelsCache: path.join(repoDir, 'build', 'test', 'models-cache') };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (v === undefined) throw new Error(`${k} needs a value`);
    if (k === '--hodu-build') o.hoduBuild = path.resolve(v);
    else if (k === '--models') o.models = v.split(',');
    else if (k === '--models-cache') o.modelsCache = path.resolve(v);
    else if (k === '--threads') o.threads = Number(v);
    else if (k === '--runs') o.runs = Number(v);
    else throw new Error(`unknown option ${k}`);
  }
  if (!(o.threads >= 2) || !(o.runs >= 1)) throw new Error('--threads must be 2 or more and --runs 1 or more');
  return o;
}

/// The report's figures: regions, seconds in and out of them per run, and
/// the speed-up allowed at each thread count.
function parseReport(text) {
  const head = text.match(/thread report: (\d+) parallel region\(s\); per run ([\d.]+) us in them, ([\d.]+) us outside/);
  const allow = text.match(/what the splits allow[^:]*: (.*)/);
  if (!head || !allow) return null;
  const speedups = {};
  for (const m of allow[1].matchAll(/(\d+) threads ([\d.]+)x/g)) speedups[m[1]] = Number(m[2]);
  return { regions: Number(head[1]), inUs: Number(head[2]), outUs: Number(head[3]), speedups };
}

function main() {
  const o = parseArgs(process.argv.slice(2));
  const hoduc = path.join(o.hoduBuild, 'bin', 'hoduc');
  const hoduRun = path.join(o.hoduBuild, 'bin', 'hodu-run');
  const synthetic = fs.existsSync(path.join(modelsDir, 'manifest.json'))
    ? JSON.parse(fs.readFileSync(path.join(modelsDir, 'manifest.json'), 'utf8')).map((m) => ({
      name: m.name, model: path.join(modelsDir, m.model), flags: [],
      inputs: m.inputs.map((i) => `${i.name}=${path.join(modelsDir, i.file)}`) }))
    : [];
  if (!synthetic.length) console.error('no bench models in bench/results/models (bench/run.sh makes them)');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'hodu-split-'));
  const real = loadRealModels(repoDir)
    .filter((m) => o.models ? o.models.includes(m.name) : !m.skip)
    .flatMap((m) => {
      const missing = ensureModel(repoDir, o.modelsCache, m);
      if (missing) { console.error(`${m.name}: not installed: ${missing}`); return []; }
      const flags = prepareInputs(m, work);
      return [{ name: m.name, model: m.model, flags,
        inputs: m.inputs.flatMap((i, k) => m.spec.inputs[k].freeze ? [] : [`${m.spec.inputs[k].name}=${i.file}`]) }];
    });
  const models = [...synthetic.filter((m) => !o.models || o.models.includes(m.name)), ...real];
  const counts = ['2', '4', '8', '16', '64'];
  console.log(`| model | regions | outside regions at ${o.threads} threads | ${counts.map((c) => `${c} threads`).join(' | ')} |`);
  console.log(`|---|---|---|${counts.map(() => '---').join('|')}|`);
  for (const m of models) {
    const lib = path.join(work, `${m.name}.so`);
    try {
      execFileSync(hoduc, [m.model, '-o', lib, ...m.flags], { stdio: ['ignore', 'ignore', 'pipe'] });
      const out = execFileSync(hoduRun, [lib, ...m.inputs.flatMap((i) => ['-i', i]), '-q',
        '--threads', String(o.threads), '--benchmark', String(o.runs), '--thread-report'],
      { env: { ...process.env, HODU_THREAD_ADAPT: '0' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      const r = parseReport(out);
      if (!r) { console.log(`| ${m.name} | no parallel region | | ${counts.map(() => '1.00x').join(' | ')} |`); continue; }
      const share = r.outUs / (r.inUs + r.outUs);
      console.log(`| ${m.name} | ${r.regions} | ${(share * 100).toFixed(1)}% | ${counts.map((c) => `${(r.speedups[c] ?? NaN).toFixed(2)}x`).join(' | ')} |`);
    } catch (e) {
      console.log(`| ${m.name} | failed: ${String(e.stderr || e.message).split('\n')[0].slice(0, 100)} | | ${counts.map(() => '').join(' | ')} |`);
    }
  }
  fs.rmSync(work, { recursive: true, force: true });
}

main();
