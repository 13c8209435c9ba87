// npy.mjs - the little of NumPy's .npy format the benchmark needs:
// version 1 files holding little-endian float32 in C order.
import fs from 'node:fs';

export function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY' || buf[0] !== 0x93)
    throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const hstart = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', hstart, hstart + hlen);
  if (!header.includes("'<f4'") || header.includes('True'))
    throw new Error(`${file}: expected little-endian float32 in C order`);
  const m = header.match(/'shape':\s*\(([^)]*)\)/);
  const shape = m[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const count = shape.reduce((a, b) => a * b, 1);
  const start = hstart + hlen;
  // Copy: the data offset need not be 4-byte aligned inside the Buffer pool.
  const data = new Float32Array(count);
  new Uint8Array(data.buffer).set(buf.subarray(start, start + count * 4));
  return { shape, data };
}

export function writeNpy(file, shape, data) {
  const dims = shape.map(String).join(', ') + (shape.length === 1 ? ',' : '');
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${dims}), }`;
  const pad = (64 - ((10 + header.length + 1) % 64)) % 64;
  header += ' '.repeat(pad) + '\n';
  const pre = Buffer.alloc(10);
  Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]).copy(pre);
  pre.writeUInt16LE(header.length, 8);
  const f32 = Float32Array.from(data);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'),
    Buffer.from(f32.buffer, f32.byteOffset, f32.byteLength)]));
}
