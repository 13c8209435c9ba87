"""Writes an ONNX OptionalProto (onnx-data.proto) for the optionals tests,
encoded here from the protobuf wire format, independently of hodu-run's
decoder:
  optional_proto.py OUT empty
  optional_proto.py OUT tensor DIMS VALUES            (f32; DIMS "2x3", VALUES "1,2,...")
  optional_proto.py OUT sequence DIMS VALUES [DIMS VALUES ...]
  optional_proto.py OUT bare-sequence DIMS VALUES [...]  (a SequenceProto)
"""
import struct
import sys


def varint(v):
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def field(num, wire, payload):
    key = varint((num << 3) | wire)
    if wire == 0:
        return key + varint(payload)
    return key + varint(len(payload)) + payload


def tensor(dims, values):
    dims = [int(d) for d in dims.split("x")] if dims else []
    data = b"".join(struct.pack("<f", float(v)) for v in values.split(",") if v)
    return (b"".join(field(1, 0, d) for d in dims) + field(2, 0, 1) +
            field(9, 2, data))  # dims, data_type FLOAT, raw_data


def main():
    out, kind, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    msg = field(1, 2, b"opt")  # name
    if kind == "empty":
        msg += field(2, 0, 0)  # elem_type UNDEFINED
    elif kind == "tensor":
        msg += field(2, 0, 1) + field(3, 2, tensor(rest[0], rest[1]))
    else:
        seq = field(2, 0, 1)  # SequenceProto elem_type TENSOR
        for i in range(0, len(rest), 2):
            seq += field(3, 2, tensor(rest[i], rest[i + 1]))
        msg = seq if kind == "bare-sequence" else msg + field(2, 0, 3) + field(5, 2, seq)
    with open(out, "wb") as f:
        f.write(msg)


main()
