// ONNX Runtime's outputs for the decoder step of make_decoder.py, at
// (past, batch) = (0, 1), (0, 3), (3, 2) and (7, 1), written as
// test_data_past<P>_batch<B>/ TensorProto files for hodu-run --test-data.
// Developers only, as test/models/make_refs.mjs:
//   python3 make_decoder.py | protoc --encode=onnx.ModelProto onnx.proto > /tmp/decoder.onnx
//   node make_refs.mjs /tmp/decoder.onnx DIR_WITH_ONNXRUNTIME_NODE
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { tensorProto } from '../../../models/tensors.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [model, ortDir] = process.argv.slice(2);
const ort = createRequire(path.join(path.resolve(ortDir), 'x.cjs'))('onnxruntime-node');
const session = await ort.InferenceSession.create(fs.readFileSync(model));
const H = 2, DH = 4;
for (const [past, batch] of [[0, 1], [0, 3], [3, 2], [7, 1]]) {
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
  const out = await session.run(feeds);
  const dir = path.join(here, `test_data_past${past}_batch${batch}`);
  fs.mkdirSync(dir, { recursive: true });
  const raw = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  fs.writeFileSync(path.join(dir, 'input_0.pb'), tensorProto('input_ids', 7, [batch, 1], raw(ids)));
  fs.writeFileSync(path.join(dir, 'input_1.pb'), tensorProto('past_key', 1, [batch, H, past, DH], raw(keys)));
  fs.writeFileSync(path.join(dir, 'input_2.pb'), tensorProto('past_value', 1, [batch, H, past, DH], raw(values)));
  session.outputNames.forEach((n, i) => {
    fs.writeFileSync(path.join(dir, `output_${i}.pb`),
                     tensorProto(n, 1, out[n].dims, raw(out[n].data)));
  });
  console.log(`past ${past}, batch ${batch}: ${session.outputNames.map((n) => `${n} ${out[n].dims.join('x')}`).join(', ')}`);
}
