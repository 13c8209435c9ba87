// ONNX Runtime's outputs for the encoder of make_encoder.py at batches 1, 2
// and 3 (seq 5), written as test_data_set_<batch>/ TensorProto files for
// hodu-run --test-data. Developers only, as test/models/make_refs.mjs:
//   python3 make_encoder.py | protoc --encode=onnx.ModelProto onnx.proto > /tmp/encoder.onnx
//   node make_refs.mjs /tmp/encoder.onnx DIR_WITH_ONNXRUNTIME_NODE
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { tensorProto } from '../../../models/tensors.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [model, ortDir] = process.argv.slice(2);
const ort = createRequire(path.join(path.resolve(ortDir), 'x.cjs'))('onnxruntime-node');
const session = await ort.InferenceSession.create(fs.readFileSync(model));
const SEQ = 5;
for (const batch of [1, 2, 3]) {
  const ids = new BigInt64Array(batch * SEQ), mask = new BigInt64Array(batch * SEQ);
  for (let b = 0; b < batch; ++b)
    for (let s = 0; s < SEQ; ++s) {
      ids[b * SEQ + s] = BigInt((b * 7 + s * 3 + 1) % 11);
      mask[b * SEQ + s] = s < SEQ - b ? 1n : 0n; // sample b pads its last b tokens
    }
  const feeds = {
    input_ids: new ort.Tensor('int64', ids, [batch, SEQ]),
    attention_mask: new ort.Tensor('int64', mask, [batch, SEQ]),
  };
  const out = await session.run(feeds);
  const dir = path.join(here, `test_data_set_${batch}`);
  fs.mkdirSync(dir, { recursive: true });
  const raw = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  fs.writeFileSync(path.join(dir, 'input_0.pb'), tensorProto('input_ids', 7, [batch, SEQ], raw(ids)));
  fs.writeFileSync(path.join(dir, 'input_1.pb'), tensorProto('attention_mask', 7, [batch, SEQ], raw(mask)));
  session.outputNames.forEach((n, i) => {
    fs.writeFileSync(path.join(dir, `output_${i}.pb`),
                     tensorProto(n, 1, out[n].dims, raw(out[n].data)));
  });
  console.log(`batch ${batch}: ${session.outputNames.map((n) => out[n].dims.join('x')).join(', ')}`);
}
