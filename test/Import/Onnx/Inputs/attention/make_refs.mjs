// ONNX Runtime's outputs for the opset-23 models of make_attention.py,
// written as test_data_<name>/ TensorProto files for hodu-run --test-data.
// Developers only, as test/models/make_refs.mjs:
//   for m in mha4d gqa3d cache causal softcap rms rms-axis rope rope-pos; do
//     python3 make_attention.py $m | protoc --encode=onnx.ModelProto onnx.proto > /tmp/att_$m.onnx; done
//   node make_refs.mjs /tmp DIR_WITH_ONNXRUNTIME_NODE
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { tensorProto } from '../../../../models/tensors.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [modelDir, ortDir] = process.argv.slice(2);
const ort = createRequire(path.join(path.resolve(ortDir), 'x.cjs'))('onnxruntime-node');
const raw = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

// Deterministic inputs: floats in [-1.5, 1.5] from a per-input seed; masks
// that leave every query at least one key.
function floats(dims, seed) {
  const n = dims.reduce((a, b) => a * b, 1);
  const a = new Float32Array(n);
  for (let i = 0; i < n; ++i) a[i] = (((i + 1) * (7919 + seed)) % 31 - 15) / 10;
  return a;
}
function boolMask(dims) {
  const n = dims.reduce((a, b) => a * b, 1), last = dims[dims.length - 1];
  const a = new Uint8Array(n);
  for (let i = 0; i < n; ++i) a[i] = (i % last) === 0 || ((i * 5) % 7) < 4 ? 1 : 0;
  return a;
}
function floatMask(dims) {
  const n = dims.reduce((a, b) => a * b, 1);
  const a = new Float32Array(n);
  for (let i = 0; i < n; ++i) a[i] = (i * 3) % 4 === 0 ? -2.5 : 0.25;
  return a;
}

for (const name of ['mha4d', 'gqa3d', 'cache', 'causal', 'softcap', 'rms', 'rms-axis',
                    'rope', 'rope-pos']) {
  const session = await ort.InferenceSession.create(
    fs.readFileSync(path.join(modelDir, `att_${name}.onnx`)));
  const dir = path.join(here, `test_data_${name}`);
  fs.mkdirSync(dir, { recursive: true });
  const feeds = {};
  session.inputNames.forEach((input, i) => {
    const meta = session.inputMetadata[i];
    const dims = meta.shape;
    let data, type, onnxType;
    if (meta.type === 'int64') {
      // Positions: every one below the caches' 10 rows.
      const count = dims.reduce((a, b) => a * b, 1);
      data = new BigInt64Array(count);
      for (let j = 0; j < count; ++j) data[j] = BigInt((j * 3 + 1) % 10);
      type = 'int64'; onnxType = 7;
    } else if (meta.type === 'bool') {
      data = boolMask(dims); type = 'bool'; onnxType = 9;
    } else if (input === 'attn_mask') {
      data = floatMask(dims); type = 'float32'; onnxType = 1;
    } else {
      data = floats(dims, 101 * (i + 1)); type = 'float32'; onnxType = 1;
    }
    feeds[input] = new ort.Tensor(type, data, dims);
    fs.writeFileSync(path.join(dir, `input_${i}.pb`), tensorProto(input, onnxType, dims, raw(data)));
  });
  const out = await session.run(feeds);
  session.outputNames.forEach((n, i) => {
    fs.writeFileSync(path.join(dir, `output_${i}.pb`),
                     tensorProto(n, 1, out[n].dims, raw(out[n].data)));
  });
  console.log(`${name}: ${session.outputNames.map((n) => `${n} ${out[n].dims.join('x')}`).join(', ')}`);
}
