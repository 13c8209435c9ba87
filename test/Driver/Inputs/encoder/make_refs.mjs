// ONNX Runtime's outputs for the encoder of make_encoder.py at batches 1, 2
// and 3 (seq 5), written as test_data_set_<batch>/, and at batch 1 with seq
// 1, 3, 9 and 16, written as test_data_seq_<seq>/ (the last token masked
// out from seq 3 on), and at batches 2 and 3 with seq 9, 16 and 1, written
// as test_data_batch<batch>_seq<seq>/ (sample b's last b tokens masked out):
// TensorProto files for hodu-run --test-data. Developers only, as test/models/make_refs.mjs:
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
const sets = [[1, 5, 'test_data_set_1'], [2, 5, 'test_data_set_2'],
              [3, 5, 'test_data_set_3'], [1, 1, 'test_data_seq_1'],
              [1, 3, 'test_data_seq_3'], [1, 9, 'test_data_seq_9'],
              [1, 16, 'test_data_seq_16'], [2, 9, 'test_data_batch2_seq9'],
              [3, 16, 'test_data_batch3_seq16'], [3, 1, 'test_data_batch3_seq1']];
for (const [batch, SEQ, name] of sets) {
  const ids = new BigInt64Array(batch * SEQ), mask = new BigInt64Array(batch * SEQ);
  // Sample b pads its last b tokens; the batch-1 sets of other lengths
  // their last one.
  // The batch-2 and -3 sets of other lengths pad b tokens of sample b
  // (none at seq 1).
  const padded = (b) => (SEQ === 5 ? b : batch > 1 ? Math.min(b, SEQ - 1)
                                       : SEQ >= 3 ? 1 : 0);
  for (let b = 0; b < batch; ++b)
    for (let s = 0; s < SEQ; ++s) {
      ids[b * SEQ + s] = BigInt((b * 7 + s * 3 + 1) % 11);
      mask[b * SEQ + s] = s < SEQ - padded(b) ? 1n : 0n;
    }
  const feeds = {
    input_ids: new ort.Tensor('int64', ids, [batch, SEQ]),
    attention_mask: new ort.Tensor('int64', mask, [batch, SEQ]),
  };
  const out = await session.run(feeds);
  const dir = path.join(here, name);
  fs.mkdirSync(dir, { recursive: true });
  const raw = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  fs.writeFileSync(path.join(dir, 'input_0.pb'), tensorProto('input_ids', 7, [batch, SEQ], raw(ids)));
  fs.writeFileSync(path.join(dir, 'input_1.pb'), tensorProto('attention_mask', 7, [batch, SEQ], raw(mask)));
  session.outputNames.forEach((n, i) => {
    fs.writeFileSync(path.join(dir, `output_${i}.pb`),
                     tensorProto(n, 1, out[n].dims, raw(out[n].data)));
  });
  console.log(`${name}: ${session.outputNames.map((n) => out[n].dims.join('x')).join(', ')}`);
}
