// real_models.mjs - the real ONNX models of test/models/manifest.json as
// benchmark models (see bench/README.md).
//
// The model files come from the tests' cache (test/models/fetch.py writes
// CACHE/<name>.onnx; a missing one is fetched with it, and a model that
// cannot be fetched is "not installed"). The inputs are made as
// test/models/make_refs.mjs makes them (xorshift32 with the manifest's seed
// for `uniform`, one value for `fill`, in the manifest's dtype and pinned
// shape) and written as .npy for both engines; a `freeze: true` input is
// also written as a TensorProto .pb for `hoduc --freeze-input` (hoduc reads
// no .npy there) and is then fed to ORT only.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import { writeNpy } from './npy.mjs';
import { DTYPES, inputData, tensorProto } from '../test/models/tensors.mjs';

export function loadRealModels(repoDir) {
  const file = path.join(repoDir, 'test', 'models', 'manifest.json');
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
  const defaults = manifest.defaults || {};
  return manifest.models.map((m) => ({
    name: m.name,
    suite: 'real',
    what: m.kind,
    source: `${m.package}@${m.version}`,
    flops: null,
    spec: m,
    rtol: m.rtol ?? defaults.rtol ?? 1e-3,
    atol: m.atol ?? defaults.atol ?? 1e-4,
    // Left out unless named with --models.
    skip: m.slow ? `slow: ${m.slow}` : m.xfail ? `xfail: ${m.xfail}` : null,
    inputs: m.inputs.map((s) => ({ name: s.name, dtype: s.dtype, shape: s.shape, freeze: !!s.freeze })),
  }));
}

const sha256 = (file) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/// Puts CACHE/<name>.onnx in place (running fetch.py when it is missing or
/// its sha256 is not the manifest's). Returns null, or why it is not there.
export function ensureModel(repoDir, cache, model) {
  const file = path.join(cache, `${model.name}.onnx`);
  model.model = file;
  let why = 'missing';
  if (fs.existsSync(file)) {
    if (sha256(file) === model.spec.sha256) return null;
    why = 'wrong sha256';
  }
  console.log(`${model.name}: ${file} ${why}: test/models/fetch.py --cache ${cache} ${model.name}`);
  const r = spawnSync('python3', [path.join(repoDir, 'test', 'models', 'fetch.py'), '--cache', cache, model.name],
    { encoding: 'utf8', timeout: 600e3 });
  if (r.status === 0 && fs.existsSync(file)) return null;
  const out = `${r.stdout || ''}\n${r.stderr || ''}`.split('\n').map((l) => l.trim()).filter(Boolean);
  const last = out.filter((l) => !/^(cached|download|fetched) /.test(l)).pop() || out.pop()
    || (r.error ? r.error.message : `fetch.py exited ${r.status ?? r.signal}`);
  return `${why} in ${cache}; fetch.py: ${last.replace(/^skipped: model not installed \((.*)\)$/, '$1')}`.slice(0, 200);
}

/// Writes the model's inputs into dir (DIR/<model>.<i>-<input>.npy, and
/// .pb for frozen ones), sets input.file (and input.pb), and returns the
/// hoduc flags: --input-shape for every input with a shape that is not
/// frozen (as run_model_test.py), --freeze-input for the frozen ones.
export function prepareInputs(model, dir) {
  fs.mkdirSync(dir, { recursive: true });
  const flags = [];
  model.spec.inputs.forEach((spec, i) => {
    const input = model.inputs[i];
    const data = inputData(spec);
    const stem = path.join(dir, `${model.name}.${i}-${spec.name.replace(/[^A-Za-z0-9._-]/g, '_')}`);
    input.file = `${stem}.npy`;
    writeNpy(input.file, spec.shape, data, spec.dtype);
    if (spec.freeze) {
      input.pb = `${stem}.pb`;
      fs.writeFileSync(input.pb, tensorProto(spec.name, DTYPES[spec.dtype][0], spec.shape,
        Buffer.from(data.buffer, data.byteOffset, data.byteLength)));
      flags.push(`--freeze-input=${spec.name}=${input.pb}`);
    } else if (spec.shape.length) {
      flags.push(`--input-shape=${spec.name}:${spec.shape.join('x')}`);
    }
  });
  return flags;
}
