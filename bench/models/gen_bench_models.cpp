//===- gen_bench_models.cpp - the benchmark models, made without Python ---===//
//
//   hodu-gen-bench-models OUT_DIR
//
// Writes the fp32 models of the Hodu-vs-ONNX-Runtime benchmark (bench/) to
// OUT_DIR, each with deterministic weights, plus one input file per model
// input (OUT_DIR/<model>.<input>.npy, fixed-seed data that both engines read)
// and OUT_DIR/manifest.json describing the models (inputs, shapes, FLOPs):
//
//   add          x[16] + y[16]: one tiny op, to measure per-call overhead
//   matmul       A[1024,1024] x B[1024,1024], both graph inputs (plain GEMM)
//   mlp          x[64,1024] -> Gemm 4096 -> Relu -> Gemm 1024
//   qmlp         the mlp as onnxruntime's quantize_dynamic writes it: each
//                Gemm a DynamicQuantizeLinear of its input, a MatMulInteger
//                by int8 weights (zero point 0), a Cast, a Mul by the two
//                scales and the bias Add
//   cnn          x[1,3,224,224] -> 4 x (Conv3x3 -> Relu -> MaxPool2)
//                -> GlobalAveragePool -> Flatten -> Gemm 1000
//   llm          an opset-23 decoder block (RMSNorm, rotary, grouped-query
//                causal Attention, SwiGLU), seq 256, d_model 256
//   transformer  one encoder block, seq 128, d_model 256, 4 heads, FFN 1024,
//                post-LayerNorm, written the way exporters write it at opset
//                17 (MatMul/Add/Reshape/Transpose/Div/Softmax, Gelu as Erf)
//
// The FLOP counts in the manifest count a multiply-add as 2 FLOPs and only
// the convolutions and matrix products (the rest is small next to them).
//
//===----------------------------------------------------------------------===//

#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {
/// --symbolic-batch: dim 0 of each model's first input, and of every output
/// of that extent, is written as the symbol "N" (bench/symbolic_batch.py).
bool symbolicBatch = false;

/// A fixed linear congruential generator: values in [-scale, scale).
struct Lcg {
  uint64_t state;
  float next(float scale) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return scale *
           (static_cast<float>((state >> 40) & 0xffffff) / 8388608.0f - 1.0f);
  }
};

std::vector<float> randomVector(Lcg &rng, size_t n, float scale) {
  std::vector<float> v(n);
  for (float &f : v)
    f = rng.next(scale);
  return v;
}

size_t product(const std::vector<int64_t> &dims) {
  size_t n = 1;
  for (int64_t d : dims)
    n *= static_cast<size_t>(d);
  return n;
}

class ModelBuilder {
public:
  ModelBuilder(const std::string &name, int64_t opset, uint64_t seed)
      : name(name), rng{seed} {
    // Opset 23 (the llm block's Attention) needs IR version 10.
    model.set_ir_version(opset >= 21 ? 10 : 8);
    model.set_producer_name("hodu-gen-bench-models");
    model.add_opset_import()->set_version(opset);
    graph()->set_name(name);
  }

  onnx::GraphProto *graph() { return model.mutable_graph(); }

  /// A float initializer with uniform random values in [-scale, scale).
  const std::string &weight(const std::string &n,
                            const std::vector<int64_t> &dims, float scale) {
    setFloat(graph()->add_initializer(), n, dims,
             randomVector(rng, product(dims), scale));
    return n;
  }

  const std::string &constFloat(const std::string &n,
                                const std::vector<int64_t> &dims,
                                const std::vector<float> &values) {
    setFloat(graph()->add_initializer(), n, dims, values);
    return n;
  }

  /// An int8 initializer with uniform random values in [-127, 127].
  const std::string &weightInt8(const std::string &n,
                                const std::vector<int64_t> &dims) {
    onnx::TensorProto *t = graph()->add_initializer();
    t->set_name(n);
    t->set_data_type(onnx::TensorProto::INT8);
    for (int64_t d : dims)
      t->add_dims(d);
    std::string raw(product(dims), '\0');
    for (char &c : raw)
      c = static_cast<char>(static_cast<int8_t>(std::lround(rng.next(127.0f))));
    t->set_raw_data(raw);
    return n;
  }

  /// A scalar int8 initializer.
  const std::string &scalarInt8(const std::string &n, int8_t v) {
    onnx::TensorProto *t = graph()->add_initializer();
    t->set_name(n);
    t->set_data_type(onnx::TensorProto::INT8);
    t->set_raw_data(std::string(1, static_cast<char>(v)));
    return n;
  }

  const std::string &constInt64(const std::string &n,
                                const std::vector<int64_t> &values) {
    onnx::TensorProto *t = graph()->add_initializer();
    t->set_name(n);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(values.size()));
    t->set_raw_data(std::string(reinterpret_cast<const char *>(values.data()),
                                values.size() * sizeof(int64_t)));
    return n;
  }

  onnx::NodeProto *node(const std::string &op, const std::string &nodeName,
                        const std::vector<std::string> &in,
                        const std::vector<std::string> &out) {
    onnx::NodeProto *n = graph()->add_node();
    n->set_op_type(op);
    n->set_name(nodeName);
    for (const std::string &s : in)
      n->add_input(s);
    for (const std::string &s : out)
      n->add_output(s);
    return n;
  }

  /// Adds node `op` named `nodeName` whose single output is `nodeName`'s
  /// result name and returns that name.
  std::string op(const std::string &opType, const std::string &nodeName,
                 const std::vector<std::string> &in) {
    node(opType, nodeName, in, {nodeName + "_out"});
    return nodeName + "_out";
  }

  /// Inputs get fixed-seed data that is written next to the model.
  void input(const std::string &n, const std::vector<int64_t> &dims,
             float scale) {
    addValueInfo(graph()->mutable_input(), n, dims);
    inputs.push_back({n, dims, randomVector(rng, product(dims), scale)});
  }

  void output(const std::string &n, const std::vector<int64_t> &dims) {
    addValueInfo(graph()->mutable_output(), n, dims);
    outputs.push_back({n, dims, {}});
  }

  bool write(const std::string &dir, double flops, const char *what,
             std::string &manifest) const {
    std::string path = dir + "/" + name + ".onnx";
    std::ofstream os(path, std::ios::binary | std::ios::trunc);
    onnx::ModelProto written = model;
    if (symbolicBatch && !inputs.empty() && !inputs[0].dims.empty()) {
      int64_t extent = inputs[0].dims[0];
      auto symbolic = [&](onnx::ValueInfoProto &v) {
        auto *shape = v.mutable_type()->mutable_tensor_type()->mutable_shape();
        if (shape->dim_size() && shape->dim(0).dim_value() == extent)
          shape->mutable_dim(0)->set_dim_param("N");
      };
      symbolic(*written.mutable_graph()->mutable_input(0));
      for (onnx::ValueInfoProto &v : *written.mutable_graph()->mutable_output())
        symbolic(v);
    }
    if (!os || !written.SerializeToOstream(&os)) {
      std::fprintf(stderr, "hodu-gen-bench-models: cannot write %s\n",
                   path.c_str());
      return false;
    }
    for (const Tensor &t : inputs)
      if (!writeNpy(dir + "/" + name + "." + t.name + ".npy", t))
        return false;

    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", flops);
    manifest += (manifest.empty() ? "  " : ",\n  ");
    manifest += "{\"name\": \"" + name + "\", \"model\": \"" + name +
                ".onnx\", \"flops\": " + buf + ", \"what\": \"" + what +
                "\",\n   \"inputs\": [" + describe(inputs, name) +
                "],\n   \"outputs\": [" + describe(outputs, "") + "]}";
    return true;
  }

  void setAttrInt(onnx::NodeProto *n, const std::string &attr, int64_t v) {
    auto *a = n->add_attribute();
    a->set_name(attr);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  void setAttrFloat(onnx::NodeProto *n, const std::string &attr, float v) {
    auto *a = n->add_attribute();
    a->set_name(attr);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  void setAttrInts(onnx::NodeProto *n, const std::string &attr,
                   const std::vector<int64_t> &v) {
    auto *a = n->add_attribute();
    a->set_name(attr);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v)
      a->add_ints(x);
  }

private:
  struct Tensor {
    std::string name;
    std::vector<int64_t> dims;
    std::vector<float> data;
  };

  static void setFloat(onnx::TensorProto *t, const std::string &n,
                       const std::vector<int64_t> &dims,
                       const std::vector<float> &data) {
    t->set_name(n);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims)
      t->add_dims(d);
    t->set_raw_data(std::string(reinterpret_cast<const char *>(data.data()),
                                data.size() * sizeof(float)));
  }

  static void
  addValueInfo(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> *list,
               const std::string &n, const std::vector<int64_t> &dims) {
    onnx::ValueInfoProto *v = list->Add();
    v->set_name(n);
    auto *tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims)
      tt->mutable_shape()->add_dim()->set_dim_value(d);
  }

  static std::string describe(const std::vector<Tensor> &list,
                              const std::string &model) {
    std::string s;
    for (const Tensor &t : list) {
      if (!s.empty())
        s += ", ";
      s += "{\"name\": \"" + t.name + "\", \"shape\": [";
      for (size_t i = 0; i < t.dims.size(); ++i)
        s += (i ? ", " : "") + std::to_string(t.dims[i]);
      s += "]";
      if (!model.empty())
        s += ", \"file\": \"" + model + "." + t.name + ".npy\"";
      s += "}";
    }
    return s;
  }

  /// NumPy .npy version 1.0, little-endian f32, C order. The header is padded
  /// so the data starts 64-byte aligned, as numpy itself does.
  static bool writeNpy(const std::string &path, const Tensor &t) {
    std::string shape = "(";
    for (size_t i = 0; i < t.dims.size(); ++i)
      shape += (i ? ", " : "") + std::to_string(t.dims[i]);
    if (t.dims.size() == 1)
      shape += ",";
    shape += ")";
    std::string header =
        "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
    size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    std::string out("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(header.size() & 0xff);
    out += static_cast<char>(header.size() >> 8);
    out += header;
    out.append(reinterpret_cast<const char *>(t.data.data()),
               t.data.size() * sizeof(float));
    std::ofstream os(path, std::ios::binary | std::ios::trunc);
    if (!os || !os.write(out.data(), static_cast<std::streamsize>(out.size()))) {
      std::fprintf(stderr, "hodu-gen-bench-models: cannot write %s\n",
                   path.c_str());
      return false;
    }
    return true;
  }

  std::string name;
  Lcg rng;
  onnx::ModelProto model;
  std::vector<Tensor> inputs, outputs;
};

bool writeAdd(const std::string &dir, std::string &manifest) {
  ModelBuilder m("add", 17, 1);
  m.input("x", {16}, 1.0f);
  m.input("y", {16}, 1.0f);
  m.node("Add", "add", {"x", "y"}, {"z"});
  m.output("z", {16});
  return m.write(dir, 16, "x[16] + y[16] (per-call overhead)", manifest);
}

bool writeMatMul(const std::string &dir, std::string &manifest) {
  const int64_t n = 1024;
  ModelBuilder m("matmul", 17, 2);
  m.input("A", {n, n}, 1.0f);
  m.input("B", {n, n}, 1.0f);
  m.node("MatMul", "matmul", {"A", "B"}, {"C"});
  m.output("C", {n, n});
  return m.write(dir, 2.0 * n * n * n, "A[1024,1024] x B[1024,1024]",
                 manifest);
}

bool writeMlp(const std::string &dir, std::string &manifest) {
  const int64_t batch = 64, in = 1024, hidden = 4096, out = 1024;
  ModelBuilder m("mlp", 17, 3);
  m.input("x", {batch, in}, 1.0f);
  // Weights scaled ~1/sqrt(fan_in) so activations stay O(1).
  m.weight("fc1.weight", {in, hidden}, 1.0f / 32);
  m.weight("fc1.bias", {hidden}, 0.1f);
  m.weight("fc2.weight", {hidden, out}, 1.0f / 64);
  m.weight("fc2.bias", {out}, 0.1f);
  m.node("Gemm", "fc1", {"x", "fc1.weight", "fc1.bias"}, {"h"});
  m.node("Relu", "relu", {"h"}, {"hr"});
  m.node("Gemm", "fc2", {"hr", "fc2.weight", "fc2.bias"}, {"y"});
  m.output("y", {batch, out});
  double flops = 2.0 * batch * (in * hidden + hidden * out);
  return m.write(dir, flops, "x[64,1024] Gemm 4096, Relu, Gemm 1024",
                 manifest);
}

bool writeQuantizedMlp(const std::string &dir, std::string &manifest) {
  const int64_t batch = 64, in = 1024, hidden = 4096, out = 1024;
  ModelBuilder m("qmlp", 17, 5);
  m.input("x", {batch, in}, 1.0f);
  // One dynamically quantized Gemm: DynamicQuantizeLinear(x), x_q times the
  // int8 weights, the int32 sums scaled by x_scale * w_scale, plus bias.
  auto layer = [&](const std::string &p, const std::string &x, int64_t k,
                   int64_t n, float wScale) {
    m.node("DynamicQuantizeLinear", p + "/quant", {x},
           {p + "/x_q", p + "/x_scale", p + "/x_zp"});
    m.weightInt8(p + ".weight_q", {k, n});
    m.scalarInt8(p + ".weight_zp", 0);
    m.constFloat(p + ".weight_scale", {}, {wScale});
    m.weight(p + ".bias", {n}, 0.1f);
    std::string mm = m.op("MatMulInteger", p + "/matmul",
                          {p + "/x_q", p + ".weight_q", p + "/x_zp",
                           p + ".weight_zp"});
    onnx::NodeProto *cast = m.node("Cast", p + "/cast", {mm}, {p + "/cast_out"});
    m.setAttrInt(cast, "to", onnx::TensorProto::FLOAT);
    std::string scale =
        m.op("Mul", p + "/scale", {p + "/x_scale", p + ".weight_scale"});
    std::string y = m.op("Mul", p + "/rescale", {p + "/cast_out", scale});
    return m.op("Add", p + "/bias", {y, p + ".bias"});
  };
  // Weight scales ~1/(127 sqrt(fan_in)) so activations stay O(1).
  std::string h = layer("fc1", "x", in, hidden, 1.0f / (127 * 32));
  std::string hr = m.op("Relu", "relu", {h});
  std::string y = layer("fc2", hr, hidden, out, 1.0f / (127 * 64));
  m.node("Identity", "output", {y}, {"y"});
  m.output("y", {batch, out});
  double flops = 2.0 * batch * (in * hidden + hidden * out);
  return m.write(dir, flops,
                 "x[64,1024] quantized (int8 weights, dynamic uint8 "
                 "activations) Gemm 4096, Relu, Gemm 1024",
                 manifest);
}

bool writeCnn(const std::string &dir, std::string &manifest) {
  ModelBuilder m("cnn", 17, 4);
  m.input("input", {1, 3, 224, 224}, 1.0f);
  std::string x = "input";
  int64_t c = 3, hw = 224;
  double flops = 0;
  const int64_t widths[] = {32, 64, 128, 256};
  for (int i = 0; i < 4; ++i) {
    int64_t co = widths[i];
    std::string p = "block" + std::to_string(i + 1);
    std::string w = m.weight(p + ".conv.weight", {co, c, 3, 3},
                             1.0f / std::sqrt(static_cast<float>(c * 9)));
    std::string b = m.weight(p + ".conv.bias", {co}, 0.1f);
    onnx::NodeProto *conv = m.node("Conv", "/" + p + "/conv", {x, w, b},
                                   {"/" + p + "/conv_out"});
    m.setAttrInts(conv, "kernel_shape", {3, 3});
    m.setAttrInts(conv, "pads", {1, 1, 1, 1});
    m.setAttrInts(conv, "strides", {1, 1});
    m.setAttrInts(conv, "dilations", {1, 1});
    m.setAttrInt(conv, "group", 1);
    flops += 2.0 * hw * hw * co * c * 9;
    std::string r = m.op("Relu", "/" + p + "/relu", {"/" + p + "/conv_out"});
    onnx::NodeProto *pool =
        m.node("MaxPool", "/" + p + "/pool", {r}, {"/" + p + "/pool_out"});
    m.setAttrInts(pool, "kernel_shape", {2, 2});
    m.setAttrInts(pool, "strides", {2, 2});
    x = "/" + p + "/pool_out";
    c = co;
    hw /= 2;
  }
  std::string gap = m.op("GlobalAveragePool", "/gap", {x});
  onnx::NodeProto *flat = m.node("Flatten", "/flatten", {gap}, {"/flat_out"});
  m.setAttrInt(flat, "axis", 1);
  const int64_t classes = 1000;
  m.weight("fc.weight", {classes, c}, 1.0f / 16);
  m.weight("fc.bias", {classes}, 0.1f);
  onnx::NodeProto *fc = m.node("Gemm", "/fc", {"/flat_out", "fc.weight", "fc.bias"},
                               {"logits"});
  m.setAttrInt(fc, "transB", 1); // as torch.nn.Linear exports
  flops += 2.0 * c * classes;
  m.output("logits", {1, classes});
  return m.write(dir, flops,
                 "1x3x224x224, 4x(Conv3x3+Relu+MaxPool2) 32-64-128-256, GAP, "
                 "Gemm 1000",
                 manifest);
}

bool writeTransformer(const std::string &dir, std::string &manifest) {
  const int64_t seq = 128, d = 256, heads = 4, dh = d / heads, ffn = 1024;
  ModelBuilder m("transformer", 17, 5);
  m.input("x", {1, seq, d}, 1.0f);
  const float ws = 1.0f / 16; // ~1/sqrt(d)

  auto linear = [&](const std::string &p, const std::string &in, int64_t k,
                    int64_t n, float scale) {
    std::string w = m.weight(p + ".weight", {k, n}, scale);
    std::string b = m.weight(p + ".bias", {n}, 0.05f);
    std::string mm = m.op("MatMul", "/" + p + "/MatMul", {in, w});
    return m.op("Add", "/" + p + "/Add", {b, mm}); // bias first, as torch does
  };
  auto transpose = [&](const std::string &n, const std::string &in,
                       const std::vector<int64_t> &perm) {
    onnx::NodeProto *t = m.node("Transpose", n, {in}, {n + "_out"});
    m.setAttrInts(t, "perm", perm);
    return n + "_out";
  };
  auto layerNorm = [&](const std::string &p, const std::string &in) {
    std::vector<float> ones(d, 1.0f);
    std::string g = m.constFloat(p + ".weight", {d}, ones);
    std::string b = m.weight(p + ".bias", {d}, 0.05f);
    onnx::NodeProto *ln =
        m.node("LayerNormalization", "/" + p + "/LayerNormalization",
               {in, g, b}, {"/" + p + "/out"});
    m.setAttrInt(ln, "axis", -1);
    m.setAttrFloat(ln, "epsilon", 1e-5f);
    return "/" + p + "/out";
  };

  std::string heads4 = m.constInt64("/attn/split_shape", {1, seq, heads, dh});
  std::string merged = m.constInt64("/attn/merge_shape", {1, seq, d});
  auto splitHeads = [&](const std::string &p, const std::string &in,
                        const std::vector<int64_t> &perm) {
    std::string r = m.op("Reshape", "/attn/" + p + "/Reshape", {in, heads4});
    return transpose("/attn/" + p + "/Transpose", r, perm);
  };

  std::string q = splitHeads("q", linear("attn.q_proj", "x", d, d, ws),
                             {0, 2, 1, 3});
  std::string k = splitHeads("k", linear("attn.k_proj", "x", d, d, ws),
                             {0, 2, 3, 1});
  std::string v = splitHeads("v", linear("attn.v_proj", "x", d, d, ws),
                             {0, 2, 1, 3});
  std::string scores = m.op("MatMul", "/attn/MatMul", {q, k});
  std::string scale = m.constFloat("/attn/scale", {}, {std::sqrt(float(dh))});
  std::string scaled = m.op("Div", "/attn/Div", {scores, scale});
  onnx::NodeProto *sm =
      m.node("Softmax", "/attn/Softmax", {scaled}, {"/attn/Softmax_out"});
  m.setAttrInt(sm, "axis", -1);
  std::string ctx = m.op("MatMul", "/attn/MatMul_1", {"/attn/Softmax_out", v});
  std::string ctxT = transpose("/attn/Transpose_3", ctx, {0, 2, 1, 3});
  std::string ctxM = m.op("Reshape", "/attn/Reshape_3", {ctxT, merged});
  std::string attn = linear("attn.out_proj", ctxM, d, d, ws);
  std::string res1 = m.op("Add", "/Add", {"x", attn});
  std::string ln1 = layerNorm("norm1", res1);

  // Gelu at opset 17 exports as 0.5 * x * (1 + erf(x / sqrt(2))).
  std::string h = linear("ffn.linear1", ln1, d, ffn, ws);
  std::string sqrt2 = m.constFloat("/ffn/sqrt2", {}, {std::sqrt(2.0f)});
  std::string one = m.constFloat("/ffn/one", {}, {1.0f});
  std::string half = m.constFloat("/ffn/half", {}, {0.5f});
  std::string erf =
      m.op("Erf", "/ffn/act/Erf", {m.op("Div", "/ffn/act/Div", {h, sqrt2})});
  std::string plus1 = m.op("Add", "/ffn/act/Add", {erf, one});
  std::string gx = m.op("Mul", "/ffn/act/Mul", {h, plus1});
  std::string gelu = m.op("Mul", "/ffn/act/Mul_1", {gx, half});
  std::string f = linear("ffn.linear2", gelu, ffn, d, 1.0f / 32);
  std::string res2 = m.op("Add", "/Add_1", {ln1, f});
  std::string out = layerNorm("norm2", res2);
  m.node("Identity", "/output", {out}, {"y"});
  m.output("y", {1, seq, d});

  double flops = 2.0 * seq * d * d * 4          // q, k, v, out projections
                 + 2.0 * 2 * heads * seq * seq * dh // scores and context
                 + 2.0 * 2 * seq * d * ffn;     // FFN
  return m.write(dir, flops,
                 "encoder block: seq 128, d_model 256, 4 heads, FFN 1024, "
                 "LayerNorm, erf-Gelu",
                 manifest);
}
/// A decoder block of a small Llama-style model as the opset-23 exporters
/// write it: RMSNormalization, rotary embeddings, grouped-query Attention
/// (causal) and a SwiGLU feed-forward, over a 256-token prompt (prefill).
bool writeLlm(const std::string &dir, std::string &manifest) {
  const int64_t seq = 256, d = 256, heads = 8, kvHeads = 2, dh = d / heads,
                ffn = 704;
  ModelBuilder m("llm", 23, 7);
  m.input("x", {1, seq, d}, 1.0f);
  const float ws = 1.0f / 16;
  auto rmsNorm = [&](const std::string &p, const std::string &in) {
    std::vector<float> ones(d, 1.0f);
    std::string g = m.constFloat(p + ".weight", {d}, ones);
    onnx::NodeProto *n = m.node("RMSNormalization", "/" + p + "/RMSNorm",
                                {in, g}, {"/" + p + "/out"});
    m.setAttrFloat(n, "epsilon", 1e-6f);
    return "/" + p + "/out";
  };
  auto proj = [&](const std::string &p, const std::string &in, int64_t k,
                  int64_t n) {
    std::string w = m.weight(p + ".weight", {k, n}, ws);
    return m.op("MatMul", "/" + p + "/MatMul", {in, w});
  };
  // The rotary caches of positions 0..seq-1 (base 10000), [seq, dh / 2].
  std::vector<float> cosv, sinv;
  for (int64_t t = 0; t < seq; ++t)
    for (int64_t i = 0; i < dh / 2; ++i) {
      double f = double(t) / std::pow(10000.0, 2.0 * double(i) / double(dh));
      cosv.push_back(float(std::cos(f)));
      sinv.push_back(float(std::sin(f)));
    }
  std::string cosC = m.constFloat("/rope/cos", {1, seq, dh / 2}, cosv);
  std::string sinC = m.constFloat("/rope/sin", {1, seq, dh / 2}, sinv);
  auto rope = [&](const std::string &p, const std::string &in, int64_t h) {
    onnx::NodeProto *n = m.node("RotaryEmbedding", "/attn/" + p + "/Rotary",
                                {in, cosC, sinC}, {"/attn/" + p + "/rot"});
    m.setAttrInt(n, "num_heads", h);
    return "/attn/" + p + "/rot";
  };
  std::string h1 = rmsNorm("input_layernorm", "x");
  std::string q = rope("q", proj("attn.q_proj", h1, d, d), heads);
  std::string k = rope("k", proj("attn.k_proj", h1, d, kvHeads * dh), kvHeads);
  std::string v = proj("attn.v_proj", h1, d, kvHeads * dh);
  onnx::NodeProto *att =
      m.node("Attention", "/attn/Attention", {q, k, v}, {"/attn/out"});
  m.setAttrInt(att, "q_num_heads", heads);
  m.setAttrInt(att, "kv_num_heads", kvHeads);
  m.setAttrInt(att, "is_causal", 1);
  std::string o = proj("attn.o_proj", "/attn/out", d, d);
  std::string res1 = m.op("Add", "/Add", {"x", o});
  std::string h2 = rmsNorm("post_attention_layernorm", res1);
  std::string gate = proj("mlp.gate_proj", h2, d, ffn);
  std::string up = proj("mlp.up_proj", h2, d, ffn);
  std::string silu = m.op("Mul", "/mlp/act/Mul",
                          {gate, m.op("Sigmoid", "/mlp/act/Sigmoid", {gate})});
  std::string down = proj("mlp.down_proj", m.op("Mul", "/mlp/Mul", {silu, up}),
                          ffn, d);
  std::string out = m.op("Add", "/Add_1", {res1, down});
  m.node("Identity", "/output", {out}, {"y"});
  m.output("y", {1, seq, d});

  double flops = 2.0 * seq * d * (d + 2 * kvHeads * dh + d) // projections
                 + 2.0 * 2 * heads * seq * seq * dh / 2     // causal half
                 + 2.0 * 3 * seq * d * ffn;                 // SwiGLU
  return m.write(dir, flops,
                 "decoder block, opset 23: seq 256, d_model 256, 8 query / 2 "
                 "key-value heads, RMSNorm, rotary, causal Attention, SwiGLU "
                 "704",
                 manifest);
}
} // namespace

int main(int argc, char **argv) {
  // An option is not a directory name: "--help" used to create "--help/".
  if (argc == 3 && std::string(argv[1]) == "--symbolic-batch") {
    symbolicBatch = true;
    --argc;
    ++argv;
  }
  if (argc != 2 || argv[1][0] == '-') {
    std::fprintf(stderr,
                 "usage: hodu-gen-bench-models [--symbolic-batch] OUT_DIR\n"
                 "Writes the benchmark models and manifest.json into "
                 "OUT_DIR; with --symbolic-batch, dim 0 of each model's "
                 "first input (and of its outputs of that extent) is the "
                 "symbol N.\n");
    return argc == 2 && (std::string(argv[1]) == "--help" ||
                         std::string(argv[1]) == "-h")
               ? 0
               : 2;
  }
  std::string dir = argv[1];
  mkdir(dir.c_str(), 0755);
  std::string manifest;
  if (!writeAdd(dir, manifest) || !writeMatMul(dir, manifest) ||
      !writeMlp(dir, manifest) || !writeQuantizedMlp(dir, manifest) ||
      !writeCnn(dir, manifest) ||
      !writeTransformer(dir, manifest) || !writeLlm(dir, manifest))
    return 1;
  std::ofstream os(dir + "/manifest.json", std::ios::trunc);
  os << "[\n" << manifest << "\n]\n";
  if (!os) {
    std::fprintf(stderr, "hodu-gen-bench-models: cannot write %s/manifest.json\n",
                 dir.c_str());
    return 1;
  }
  return 0;
}
