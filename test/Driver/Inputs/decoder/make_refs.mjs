// ONNX Runtime's outputs for the decoder step of make_decoder.py, at
// (past, batch) = (0, 1), (0, 3), (3, 2), (7, 1), (1, 1), (16, 1) and
// (16, 2), written as
// test_data_past<P>_batch<B>/ TensorProto files for hodu-run --test-data.
// For the decoder of make_decoder.py --position-input (a third argument
// "position"): batch 1 at past 0, 1, 5 and 16, written as
// test_data_position_past<P>/, and (past, batch) = (0, 3), (3, 2) and
// (16, 2), written as test_data_position_past<P>_batch<B>/, the position
// input being past.
// For the decoder of make_decoder.py --bias-table (a third argument
// "bias"): (past, batch) = (0, 1), (1, 1), (5, 1), (16, 1) and (3, 2),
// written as test_data_bias_past<P>_batch<B>/.
// Developers only, as test/models/make_refs.mjs:
//   python3 make_decoder.py | protoc --encode=onnx.ModelProto onnx.proto > /tmp/decoder.onnx
//   node make_refs.mjs /tmp/decoder.onnx DIR_WITH_ONNXRUNTIME_NODE
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { tensorProto } from '../../../models/tensors.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [model, ortDir, variant] = process.argv.slice(2);
const positionInput = variant === 'position';
const biasTable = variant === 'bias';
const ort = createRequire(path.join(path.resolve(ortDir), 'x.cjs'))('onnxruntime-node');
const session = await ort.InferenceSession.create(fs.readFileSync(model));
const H = 2, DH = 4;
const runs = positionInput ? [[0, 1], [1, 1], [5, 1], [16, 1], [0, 3], [3, 2],
                              [16, 2]]
           : biasTable ? [[0, 1], [1, 1], [5, 1], [16, 1], [3, 2]]
                           : [[0, 1], [0, 3], [3, 2], [7, 1], [1, 1], [16, 1],
                              [16, 2]];
for (const [past, batch] of runs) {
  const ids = new BigInt64Array(batch);
  for (let b = 0; b < batch; ++b) ids[b] = BigInt((b * 5 + past * 3 + 2) % 11);
  const cache = (seed) => {
    const a = new Float32Array(batch * H * past * DH);
    for (let i = 0; i < a.length; ++i) a[i] = (((i + 1) * (7919 + seed)) % 23 - 11) / 8;
    return a;
  };
  const keys = cache(104729), values = cache(1299709);
  const feeds = {
    input_ids: new ort.Tensor('int64', ids, [batch, 1]),
    past_key: new ort.Tensor('float32', keys, [batch, H, past, DH]),
    past_value: new ort.Tensor('float32', values, [batch, H, past, DH]),
  };
  const positions = new BigInt64Array(batch).fill(BigInt(past));
  if (positionInput)
    feeds.position_ids = new ort.Tensor('int64', positions, [batch, 1]);
  const out = await session.run(feeds);
  const dir = path.join(here, positionInput
                                  ? `test_data_position_past${past}` +
                                        (batch > 1 ? `_batch${batch}` : '')
                                  : `test_data_${biasTable ? 'bias_' : ''}` +
                                        `past${past}_batch${batch}`);
  fs.mkdirSync(dir, { recursive: true });
  const raw = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  fs.writeFileSync(path.join(dir, 'input_0.pb'), tensorProto('input_ids', 7, [batch, 1], raw(ids)));
  const caches = [['past_key', keys], ['past_value', values]];
  const inputs = positionInput ? [['position_ids', 7, [batch, 1], positions]] : [];
  for (const [name, a] of caches) inputs.push([name, 1, [batch, H, past, DH], a]);
  inputs.forEach(([name, type, dims, a], i) => {
    fs.writeFileSync(path.join(dir, `input_${i + 1}.pb`), tensorProto(name, type, dims, raw(a)));
  });
  session.outputNames.forEach((n, i) => {
    fs.writeFileSync(path.join(dir, `output_${i}.pb`),
                     tensorProto(n, 1, out[n].dims, raw(out[n].data)));
  });
  console.log(`past ${past}, batch ${batch}: ${session.outputNames.map((n) => `${n} ${out[n].dims.join('x')}`).join(', ')}`);
}
