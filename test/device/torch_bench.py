#!/usr/bin/env python3
"""On a lent GPU machine with PyTorch: the synthetic bench models
(bench/models/gen_bench_models.cpp: cnn, transformer, matmul) written as
PyTorch eager modules of the same shapes and ops, timed on the GPU, for
issue #51's "faster than PyTorch eager" comparison with run_models.py's
Hodu figures of the same models.

    torch_bench.py [RUNS]

Prints one line per model and precision: the median of RUNS calls (device
tensors in and out, each call followed by torch.cuda.synchronize(), as an
application that waits for its result) and the throughput of RUNS calls
back to back (one synchronize at the end), in microseconds. fp32: TF32 off
(the accurate f32 that Hodu's default 3xTF32 matches); tf32: TF32 on.
Weights are random (times do not depend on them). Test infrastructure
only.
"""

import statistics
import sys
import time


def models(torch):
    nn = torch.nn

    class Cnn(nn.Module):
        # 1x3x224x224, 4 x (Conv3x3 pad 1 + ReLU + MaxPool2) 32-64-128-256,
        # GlobalAveragePool, Flatten, Linear 1000.
        def __init__(self):
            super().__init__()
            layers, c = [], 3
            for co in (32, 64, 128, 256):
                layers += [nn.Conv2d(c, co, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
                c = co
            self.features = nn.Sequential(*layers)
            self.fc = nn.Linear(c, 1000)

        def forward(self, x):
            x = self.features(x)
            return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))

    class Block(nn.Module):
        # One post-LayerNorm encoder block: seq 128, d 256, 4 heads, FFN
        # 1024, erf-GELU, written out as the ONNX export computes it.
        def __init__(self, d=256, heads=4, ffn=1024):
            super().__init__()
            self.h, self.dh = heads, d // heads
            self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
            self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.l1, self.l2 = nn.Linear(d, ffn), nn.Linear(ffn, d)

        def forward(self, x):
            b, s, d = x.shape
            q = self.q(x).reshape(b, s, self.h, self.dh).transpose(1, 2)
            k = self.k(x).reshape(b, s, self.h, self.dh).permute(0, 2, 3, 1)
            v = self.v(x).reshape(b, s, self.h, self.dh).transpose(1, 2)
            a = torch.softmax(q @ k / (self.dh ** 0.5), dim=-1) @ v
            x = self.norm1(x + self.o(a.transpose(1, 2).reshape(b, s, d)))
            return self.norm2(x + self.l2(nn.functional.gelu(self.l1(x))))

    class MatMul(nn.Module):
        def forward(self, a, b):
            return a @ b

    return [("bench-cnn", Cnn(), [(1, 3, 224, 224)]),
            ("bench-transformer", Block(), [(1, 128, 256)]),
            ("bench-matmul", MatMul(), [(1024, 1024), (1024, 1024)])]


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    try:
        import torch
    except ImportError:
        print("torch_bench: no PyTorch here")
        return 0
    if not torch.cuda.is_available():
        print("torch_bench: no CUDA device for PyTorch")
        return 0
    dev = torch.device("cuda")
    print("torch %s, %s" % (torch.__version__, torch.cuda.get_device_name(0)))
    for name, module, shapes in models(torch):
        module = module.to(dev).eval()
        inputs = [torch.rand(s, device=dev) * 2 - 1 for s in shapes]
        for tf32 in (False, True):
            torch.backends.cuda.matmul.allow_tf32 = tf32
            torch.backends.cudnn.allow_tf32 = tf32
            with torch.no_grad():
                for _ in range(20):
                    module(*inputs)
                torch.cuda.synchronize()
                each = []
                for _ in range(runs):
                    t = time.perf_counter()
                    module(*inputs)
                    torch.cuda.synchronize()
                    each.append((time.perf_counter() - t) * 1e6)
                t = time.perf_counter()
                for _ in range(runs):
                    module(*inputs)
                torch.cuda.synchronize()
                back = (time.perf_counter() - t) * 1e6 / runs
            print("%-18s torch eager %s: %.1f us per call (synchronized), %.1f us back to back"
                  % (name, "tf32" if tf32 else "fp32", statistics.median(each), back))
    return 0


if __name__ == "__main__":
    sys.exit(main())
