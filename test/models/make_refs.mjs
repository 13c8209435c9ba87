// Regenerates the reference data of the real-model tests: for every model
// of manifest.json (or those named), makes its inputs as the manifest says
// and runs it with ONNX Runtime (onnxruntime-node, CPU execution provider,
// default session options), writing
//   test/models/<name>/test_data_set_0/input_N.pb, output_N.pb
// as ONNX TensorProto files (the layout `hodu-run --test-data` reads).
//
// Run by developers when a model or its inputs change, never by ctest:
//   python3 test/models/fetch.py --cache build/test/models-cache
//   (cd /some/dir && npm install --ignore-scripts onnxruntime-node@1.30.0)
//   node test/models/make_refs.mjs --cache build/test/models-cache \
//        --ort /some/dir [name ...]
//
// The inputs come from xorshift32 with the manifest's seed, the same
// generator as run_model_test.py's, so the data is the same on every
// machine; only ONNX Runtime's own arithmetic varies.

import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { DTYPES, inputData, tensorProto } from './tensors.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

function usage(message) {
  if (message) console.error(`make_refs.mjs: ${message}`);
  console.error('usage: node make_refs.mjs --cache DIR [--ort DIR] [--manifest FILE] [name ...]\n' +
                '  --cache DIR  the models, as test/models/fetch.py --cache DIR wrote them\n' +
                '  --ort DIR    a directory whose node_modules has onnxruntime-node (default: .)');
  process.exit(2);
}

const args = { cache: null, ort: process.cwd(), manifest: path.join(here, 'manifest.json'), names: [] };
for (let i = 2; i < process.argv.length; ++i) {
  const a = process.argv[i];
  if (a === '--cache' || a === '--ort' || a === '--manifest') {
    if (i + 1 >= process.argv.length) usage(`${a} needs a value`);
    args[a.slice(2)] = process.argv[++i];
  } else if (a === '-h' || a === '--help') {
    usage();
  } else if (a.startsWith('-')) {
    usage(`unknown option ${a}`);
  } else {
    args.names.push(a);
  }
}
if (!args.cache) usage('--cache is required');

const require = createRequire(path.join(path.resolve(args.ort), 'make_refs.cjs'));
let ort;
try {
  ort = require('onnxruntime-node');
} catch (e) {
  usage(`cannot load onnxruntime-node from ${args.ort}: ${e.message.split('\n')[0]}\n` +
        '  (npm install --ignore-scripts onnxruntime-node@1.30.0 there)');
}
const ortVersion = JSON.parse(fs.readFileSync(
    require.resolve('onnxruntime-node/package.json'), 'utf8')).version;

// --- Inputs: the same generator as run_model_test.py (tensors.mjs) ---------

const ORT_TO_ONNX = { float32: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7,
                      bool: 9, float16: 10, float64: 11, uint32: 12, uint64: 13 };

function makeInput(spec) {
  return new ort.Tensor(DTYPES[spec.dtype][2], inputData(spec), spec.shape);
}

function rawBytes(tensor) {
  const d = tensor.data;
  if (tensor.type === 'bool') return Buffer.from(Uint8Array.from(d, (v) => (v ? 1 : 0)));
  return Buffer.from(d.buffer, d.byteOffset, d.byteLength); // little-endian here
}

/// The means of `SUMMARY_CHUNKS` runs of `data` (as run_model_test.py's
/// chunk_means: run k is elements [floor(k n / K), floor((k + 1) n / K))),
/// rounded to 9 significant digits.
const SUMMARY_CHUNKS = 256;
function chunkMeans(data) {
  const n = data.length, k = Math.min(SUMMARY_CHUNKS, n), means = [];
  for (let c = 0; c < k; ++c) {
    const lo = Math.floor((c * n) / k), hi = Math.floor(((c + 1) * n) / k);
    let s = 0;
    for (let i = lo; i < hi; ++i) s += Number(data[i]);
    means.push(Number((s / (hi - lo)).toPrecision(9)));
  }
  return means;
}

// --- Main -------------------------------------------------------------------

const manifest = JSON.parse(fs.readFileSync(args.manifest, 'utf8'));
let models = manifest.models;
if (args.names.length) {
  const known = new Set(models.map((m) => m.name));
  for (const n of args.names) if (!known.has(n)) usage(`no model named ${n} in the manifest`);
  models = models.filter((m) => args.names.includes(m.name));
}

let failures = 0;
for (const m of models) {
  if (m.reference === false) {
    console.log(`${m.name}: no reference data (${m.reference_note || 'reference: false'})`);
    continue;
  }
  const file = path.join(args.cache, `${m.name}.onnx`);
  if (!fs.existsSync(file)) {
    console.error(`${m.name}: ${file} is missing: run fetch.py --cache ${args.cache} first`);
    ++failures;
    continue;
  }
  const bytes = fs.readFileSync(file);
  const digest = createHash('sha256').update(bytes).digest('hex');
  if (digest !== m.sha256) {
    console.error(`${m.name}: sha256 ${digest} is not the manifest's ${m.sha256}`);
    ++failures;
    continue;
  }
  const session = await ort.InferenceSession.create(bytes, { logSeverityLevel: 3 });
  const feeds = {};
  const inputs = m.inputs.map(makeInput);
  m.inputs.forEach((spec, i) => { feeds[spec.name] = inputs[i]; });
  for (const n of session.inputNames)
    if (!(n in feeds)) throw new Error(`${m.name}: the manifest gives no input '${n}'`);
  const results = await session.run(feeds);

  if (m.reference === 'summary') {
    // Outputs too large to commit: the means of SUMMARY_CHUNKS equal runs
    // of each output's elements (in order), which run_model_test.py
    // computes the same way from Hodu's outputs.
    const summary = { onnxruntime: ortVersion, chunks: SUMMARY_CHUNKS, outputs: [] };
    for (const n of session.outputNames) {
      const t = results[n];
      summary.outputs.push({ name: n, dims: t.dims.map(Number), means: chunkMeans(t.data) });
    }
    fs.rmSync(path.join(here, m.name), { recursive: true, force: true });
    fs.mkdirSync(path.join(here, m.name), { recursive: true });
    // One line per output: a reviewable diff when the references change.
    const text = `{"onnxruntime": ${JSON.stringify(ortVersion)}, "chunks": ${SUMMARY_CHUNKS}, "outputs": [\n` +
                 summary.outputs.map((o) => ' ' + JSON.stringify(o)).join(',\n') + '\n]}\n';
    fs.writeFileSync(path.join(here, m.name, 'summary.json'), text);
    console.log(`${m.name}: onnxruntime-node ${ortVersion}: ${session.outputNames.length} output(s), ` +
                `summarized as the means of ${SUMMARY_CHUNKS} runs each`);
    await session.release();
    continue;
  }
  const dir = path.join(here, m.name, 'test_data_set_0');
  fs.rmSync(path.join(here, m.name), { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  // In the model's input order: hodu-run takes input_N.pb as input N.
  session.inputNames.forEach((n, i) => {
    const spec = m.inputs.find((s) => s.name === n);
    const t = feeds[n];
    fs.writeFileSync(path.join(dir, `input_${i}.pb`),
                     tensorProto(n, DTYPES[spec.dtype][0], spec.shape, rawBytes(t)));
  });
  let total = 0;
  const shapes = [];
  session.outputNames.forEach((n, i) => {
    const t = results[n];
    const onnxType = ORT_TO_ONNX[t.type];
    if (!onnxType) throw new Error(`${m.name}: output ${n} has type ${t.type}`);
    const pb = tensorProto(n, onnxType, t.dims, rawBytes(t));
    total += pb.length;
    fs.writeFileSync(path.join(dir, `output_${i}.pb`), pb);
    shapes.push(`${t.type}[${t.dims.join('x')}]`);
  });
  console.log(`${m.name}: onnxruntime-node ${ortVersion}: ${session.outputNames.length} output(s) ` +
              `${shapes.join(', ')}, ${total} bytes of reference outputs`);
  // Variants at other shapes, the inputs made as the manifest says with
  // dims `dims` (input -> dim) at `size`, written to <name>/<sub>/
  // test_data_set_<k>: "symbolic" (the model compiled once with a symbolic
  // batch runs these batches too), "symbolic_length" (with a symbolic,
  // padded length: these lengths) and "symbolic_shape".
  const variants = [];
  if (m.symbolic)
    variants.push(['symbolic', 'batch', m.symbolic.batch_dims, m.symbolic.batches]);
  if (m.symbolic_length)
    variants.push(['symbolic_length', 'length', m.symbolic_length.dims,
                   m.symbolic_length.lengths]);
  // "symbolic_shape": several dims of an input (an image's height and
  // width, input -> [dims]) at each of `shapes` (a size per dim).
  if (m.symbolic_shape)
    variants.push(['symbolic_shape', 'shape', m.symbolic_shape.dims,
                   m.symbolic_shape.shapes]);
  for (const [sub, what, dims, sizes] of variants)
    for (const [k, size] of sizes.entries()) {
      const sdir = path.join(here, m.name, sub, `test_data_set_${k}`);
      fs.mkdirSync(sdir, { recursive: true });
      const sfeeds = {}, specs = {};
      for (const spec of m.inputs) {
        const dim = dims[spec.name];
        const shape = spec.shape.slice();
        if (Array.isArray(dim)) dim.forEach((d, j) => { shape[d] = size[j]; });
        else if (dim !== undefined) shape[dim] = size;
        specs[spec.name] = { ...spec, shape };
        sfeeds[spec.name] = makeInput(specs[spec.name]);
      }
      const out = await session.run(sfeeds);
      session.inputNames.forEach((n, i) => {
        const spec = specs[n];
        fs.writeFileSync(path.join(sdir, `input_${i}.pb`),
                         tensorProto(n, DTYPES[spec.dtype][0], spec.shape, rawBytes(sfeeds[n])));
      });
      session.outputNames.forEach((n, i) => {
        const t = out[n];
        fs.writeFileSync(path.join(sdir, `output_${i}.pb`),
                         tensorProto(n, ORT_TO_ONNX[t.type], t.dims, rawBytes(t)));
      });
      console.log(`${m.name}: ${what} ${[].concat(size).join('x')}: ${session.outputNames.map((n) => out[n].dims.join('x')).join(', ')}`);
    }
  await session.release();
}
process.exit(failures ? 1 : 0);
