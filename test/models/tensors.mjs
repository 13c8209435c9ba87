// tensors.mjs - the real-model inputs and TensorProto files, shared by
// test/models/make_refs.mjs (the references) and bench/real_models.mjs (the
// benchmark): the same generator as run_model_test.py's, so the data is the
// same on every machine.

/** xorshift32 values of uniform [lo, hi), rounded as the dtype stores them. */
export function* uniform(seed, lo, hi) {
  let x = seed >>> 0;
  if (x === 0) throw new Error('seed must be a non-zero 32-bit integer');
  for (;;) {
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    yield lo + (hi - lo) * (x / 4294967296);
  }
}

export const DTYPES = {
  // manifest dtype: [ONNX TensorProto.DataType, typed array, ORT type]
  float32: [1, Float32Array, 'float32'],
  uint8: [2, Uint8Array, 'uint8'],
  int8: [3, Int8Array, 'int8'],
  int32: [6, Int32Array, 'int32'],
  int64: [7, BigInt64Array, 'int64'],
  bool: [9, Uint8Array, 'bool'],
  float64: [11, Float64Array, 'float64'],
};

/** The values of a manifest input (`fill` or `uniform`) as its typed array. */
export function inputData(spec) {
  const entry = DTYPES[spec.dtype];
  if (!entry) throw new Error(`input ${spec.name}: dtype ${spec.dtype} is not supported here`);
  const [, Typed] = entry;
  const count = spec.shape.reduce((a, b) => a * b, 1);
  const data = new Typed(count);
  const convert = Typed === BigInt64Array ? (v) => BigInt(Math.round(v)) : (v) => v;
  if ('fill' in spec) {
    data.fill(convert(spec.fill));
  } else if ('uniform' in spec) {
    if (Typed !== Float32Array && Typed !== Float64Array)
      throw new Error(`input ${spec.name}: uniform needs a float dtype`);
    const gen = uniform(spec.seed, spec.uniform[0], spec.uniform[1]);
    for (let i = 0; i < count; ++i) data[i] = gen.next().value; // Float32Array rounds to nearest
  } else {
    throw new Error(`input ${spec.name}: give fill or uniform`);
  }
  return data;
}

// --- TensorProto: dims = 1, data_type = 2, name = 8, raw_data = 9 ----------

function varint(n) {
  const out = [];
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n;
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return Buffer.from(out);
}

function field(number, wireType, payload) {
  const key = varint((number << 3) | wireType);
  if (wireType === 0) return Buffer.concat([key, varint(payload)]);
  return Buffer.concat([key, varint(payload.length), payload]); // length-delimited
}

/** A TensorProto holding `bytes` as raw_data. */
export function tensorProto(name, onnxType, dims, bytes) {
  return Buffer.concat([
    ...dims.map((d) => field(1, 0, d)),
    field(2, 0, onnxType),
    field(8, 2, Buffer.from(name, 'utf8')),
    field(9, 2, bytes),
  ]);
}
