// npy.mjs - the little of NumPy's .npy format the benchmark needs:
// little-endian C-order arrays of the dtypes below (version 1 written;
// versions 1 to 3 read). Data is a typed array; the dtype is ONNX Runtime's
// tensor type name, so `new ort.Tensor(dtype, data, shape)` takes it as is.
import fs from 'node:fs';

// ORT type name -> [npy descr, typed array]. bool is one byte (0 or 1) and
// float16 its bits, as ORT holds them.
export const DTYPES = {
  float32: ['<f4', Float32Array],
  float64: ['<f8', Float64Array],
  float16: ['<f2', Uint16Array],
  int64: ['<i8', BigInt64Array],
  int32: ['<i4', Int32Array],
  int16: ['<i2', Int16Array],
  int8: ['|i1', Int8Array],
  uint64: ['<u8', BigUint64Array],
  uint32: ['<u4', Uint32Array],
  uint16: ['<u2', Uint16Array],
  uint8: ['|u1', Uint8Array],
  bool: ['|b1', Uint8Array],
};
const BY_DESCR = Object.fromEntries(Object.entries(DTYPES).map(([name, [descr]]) => [descr, name]));

/// { shape, dtype, data }: dtype one of DTYPES' names, data a fresh typed array.
export function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY' || buf[0] !== 0x93)
    throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const hstart = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', hstart, hstart + hlen);
  const descr = (header.match(/'descr':\s*'([^']*)'/) || [])[1];
  const dtype = BY_DESCR[descr];
  if (!dtype)
    throw new Error(`${file}: dtype '${descr}' is not one of ${Object.keys(BY_DESCR).join(' ')}`);
  if (!/'fortran_order':\s*False/.test(header))
    throw new Error(`${file}: expected C order`);
  const m = header.match(/'shape':\s*\(([^)]*)\)/);
  const shape = m[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const count = shape.reduce((a, b) => a * b, 1);
  const start = hstart + hlen;
  const Typed = DTYPES[dtype][1];
  if (buf.length - start < count * Typed.BYTES_PER_ELEMENT)
    throw new Error(`${file}: holds fewer than ${count} elements`);
  // Copy: the data offset need not be aligned inside the Buffer pool.
  const data = new Typed(count);
  new Uint8Array(data.buffer).set(buf.subarray(start, start + count * Typed.BYTES_PER_ELEMENT));
  return { shape, dtype, data };
}

/// Writes `data` (a typed array or plain numbers) as a .npy of `dtype`.
export function writeNpy(file, shape, data, dtype = 'float32') {
  const entry = DTYPES[dtype];
  if (!entry) throw new Error(`${file}: cannot write dtype '${dtype}' as .npy`);
  const [descr, Typed] = entry;
  const dims = shape.map(String).join(', ') + (shape.length === 1 ? ',' : '');
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  const pad = (64 - ((10 + header.length + 1) % 64)) % 64;
  header += ' '.repeat(pad) + '\n';
  const pre = Buffer.alloc(10);
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]).copy(pre);
  pre.writeUInt16LE(header.length, 8);
  let typed;
  if (data instanceof Typed) typed = data;
  else if (dtype === 'bool') typed = Uint8Array.from(data, (v) => (v ? 1 : 0));
  else if (Typed === BigInt64Array || Typed === BigUint64Array) typed = Typed.from(data, (v) => BigInt(v));
  else typed = Typed.from(data);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'),
    Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength)]));
}

function halfToNumber(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, f = h & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

/// The values of a readNpy result as plain Numbers (int64 through Number(),
/// so beyond 2^53 rounded; bool 0/1; float16 decoded), for comparing.
export function toNumbers({ dtype, data }) {
  if (dtype === 'float16') return Array.from(data, halfToNumber);
  if (data instanceof BigInt64Array || data instanceof BigUint64Array) return Array.from(data, Number);
  return data;
}
