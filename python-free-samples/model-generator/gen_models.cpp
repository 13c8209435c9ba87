//===- gen_models.cpp - the bundled sample models, made without Python ----===//
//
//   hodu-gen-models OUT_DIR
//
// Writes OUT_DIR/mlp.onnx (x[1,16] -> Gemm -> Relu -> Gemm -> Softmax) with
// its weights as initializers, OUT_DIR/cnn_dyn.onnx (a small CNN written the
// way PyTorch exports: symbolic batch dim, weights in Constant nodes, a
// Shape/Gather/Concat/Reshape flatten), and for each a <model>_test_data/
// folder with input_0.pb and a reference output_0.pb computed here in plain
// C++ (double accumulation).
// Deterministic: the same bytes on every run, so the checked-in copies can be
// compared with a fresh generation (test/Samples/models-up-to-date.test).
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
/// A fixed linear congruential generator: values in [-scale, scale).
struct Lcg {
  uint64_t state;
  float next(float scale) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return scale * (static_cast<float>((state >> 40) & 0xffffff) / 8388608.0f - 1.0f);
  }
};

void setTensor(onnx::TensorProto *t, const std::string &name,
               const std::vector<int64_t> &dims, const std::vector<float> &data) {
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims)
    t->add_dims(d);
  t->set_raw_data(std::string(reinterpret_cast<const char *>(data.data()),
                              data.size() * sizeof(float)));
}

void addValueInfo(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> *list,
                  const std::string &name, const std::vector<int64_t> &dims) {
  onnx::ValueInfoProto *v = list->Add();
  v->set_name(name);
  auto *tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims)
    tt->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::NodeProto *addNode(onnx::GraphProto *g, const std::string &op,
                         const std::string &name,
                         const std::vector<std::string> &in,
                         const std::vector<std::string> &out) {
  onnx::NodeProto *n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (auto &s : in)
    n->add_input(s);
  for (auto &s : out)
    n->add_output(s);
  return n;
}

bool writeMessage(const google::protobuf::MessageLite &m, const std::string &path) {
  std::ofstream os(path, std::ios::binary | std::ios::trunc);
  if (!os || !m.SerializeToOstream(&os)) {
    std::fprintf(stderr, "hodu-gen-models: cannot write %s\n", path.c_str());
    return false;
  }
  return true;
}

bool writeMlp(const std::string &dir) {
  const int64_t in = 16, hidden = 32, out = 4;
  Lcg rng{42};
  std::vector<float> w1(in * hidden), b1(hidden), w2(hidden * out), b2(out), x(in);
  for (auto *v : {&w1, &b1, &w2, &b2})
    for (float &f : *v)
      f = rng.next(0.5f);
  for (float &f : x)
    f = rng.next(2.0f);

  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("hodu-gen-models");
  model.add_opset_import()->set_version(13);
  onnx::GraphProto *g = model.mutable_graph();
  g->set_name("mlp");
  setTensor(g->add_initializer(), "w1", {in, hidden}, w1);
  setTensor(g->add_initializer(), "b1", {hidden}, b1);
  setTensor(g->add_initializer(), "w2", {hidden, out}, w2);
  setTensor(g->add_initializer(), "b2", {out}, b2);
  addNode(g, "Gemm", "fc1", {"x", "w1", "b1"}, {"h"});
  addNode(g, "Relu", "relu1", {"h"}, {"hr"});
  addNode(g, "Gemm", "fc2", {"hr", "w2", "b2"}, {"logits"});
  auto *sm = addNode(g, "Softmax", "softmax", {"logits"}, {"probs"});
  auto *axis = sm->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(-1);
  addValueInfo(g->mutable_input(), "x", {1, in});
  addValueInfo(g->mutable_output(), "probs", {1, out});

  // Reference: the same computation in double precision.
  std::vector<double> h(hidden), logits(out);
  for (int64_t j = 0; j < hidden; ++j) {
    double acc = b1[j];
    for (int64_t i = 0; i < in; ++i)
      acc += double(x[i]) * w1[i * hidden + j];
    h[j] = acc > 0 ? acc : 0;
  }
  double mx = -1e300;
  for (int64_t k = 0; k < out; ++k) {
    double acc = b2[k];
    for (int64_t j = 0; j < hidden; ++j)
      acc += h[j] * w2[j * out + k];
    logits[k] = acc;
    mx = std::max(mx, acc);
  }
  double sum = 0;
  for (double &l : logits)
    sum += (l = std::exp(l - mx));
  std::vector<float> probs;
  for (double l : logits)
    probs.push_back(static_cast<float>(l / sum));

  std::string data = dir + "/mlp_test_data";
  mkdir(data.c_str(), 0755);
  onnx::TensorProto xin, yout;
  setTensor(&xin, "x", {1, in}, x);
  setTensor(&yout, "probs", {1, out}, probs);
  return writeMessage(model, dir + "/mlp.onnx") &&
         writeMessage(xin, data + "/input_0.pb") &&
         writeMessage(yout, data + "/output_0.pb");
}
onnx::NodeProto *addConstant(onnx::GraphProto *g, const std::string &name,
                             const std::vector<int64_t> &dims,
                             const std::vector<float> &data) {
  onnx::NodeProto *n = addNode(g, "Constant", name + "_const", {}, {name});
  auto *a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  setTensor(a->mutable_t(), name, dims, data);
  return n;
}

void addIntsAttr(onnx::NodeProto *n, const std::string &name,
                 const std::vector<int64_t> &values) {
  auto *a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values)
    a->add_ints(v);
}

/// A small CNN the way PyTorch's exporter writes one: a symbolic batch dim,
/// weights in Constant nodes (not initializers), and the flatten done through
/// Shape -> Gather -> Unsqueeze -> Concat -> Reshape.
///   x[batch,1,6,6] -> Conv 3x3 pad 1 (2 ch) -> Relu -> MaxPool 2x2 -> reshape
///   [batch, 18] -> MatMul [18,3] -> Add
bool writeCnnDyn(const std::string &dir) {
  const int64_t batch = 2, c = 2, h = 6, w = 6, ph = 3, pw = 3, feat = c * ph * pw,
                classes = 3;
  Lcg rng{7};
  std::vector<float> wconv(c * 9), bconv(c), wfc(feat * classes), bfc(classes),
      x(batch * h * w);
  for (auto *v : {&wconv, &bconv, &wfc, &bfc})
    for (float &f : *v)
      f = rng.next(0.5f);
  for (float &f : x)
    f = rng.next(1.0f);

  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("hodu-gen-models");
  model.add_opset_import()->set_version(13);
  onnx::GraphProto *g = model.mutable_graph();
  g->set_name("cnn_dyn");
  addConstant(g, "conv.weight", {c, 1, 3, 3}, wconv);
  addConstant(g, "conv.bias", {c}, bconv);
  addConstant(g, "fc.weight", {feat, classes}, wfc);
  addConstant(g, "fc.bias", {classes}, bfc);
  auto *conv = addNode(g, "Conv", "/conv/Conv", {"input", "conv.weight", "conv.bias"},
                       {"conv_out"});
  addIntsAttr(conv, "pads", {1, 1, 1, 1});
  addIntsAttr(conv, "kernel_shape", {3, 3});
  addNode(g, "Relu", "/relu/Relu", {"conv_out"}, {"relu_out"});
  auto *pool = addNode(g, "MaxPool", "/pool/MaxPool", {"relu_out"}, {"pool_out"});
  addIntsAttr(pool, "kernel_shape", {2, 2});
  addIntsAttr(pool, "strides", {2, 2});
  // Flatten the way exporters do: [Shape(x)[0], -1].
  addNode(g, "Shape", "/Shape", {"pool_out"}, {"shape"});
  onnx::NodeProto *zero = addNode(g, "Constant", "/Constant_0", {}, {"zero"});
  {
    auto *a = zero->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(onnx::TensorProto::INT64);
    a->mutable_t()->add_int64_data(0);
  }
  auto *gather = addNode(g, "Gather", "/Gather", {"shape", "zero"}, {"dim0"});
  (void)gather;
  onnx::NodeProto *axes = addNode(g, "Constant", "/Constant_1", {}, {"axes0"});
  {
    auto *a = axes->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(onnx::TensorProto::INT64);
    a->mutable_t()->add_dims(1);
    a->mutable_t()->add_int64_data(0);
  }
  addNode(g, "Unsqueeze", "/Unsqueeze", {"dim0", "axes0"}, {"dim0_1d"});
  onnx::NodeProto *minus1 = addNode(g, "Constant", "/Constant_2", {}, {"minus1"});
  {
    auto *a = minus1->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(onnx::TensorProto::INT64);
    a->mutable_t()->add_dims(1);
    a->mutable_t()->add_int64_data(-1);
  }
  auto *concat = addNode(g, "Concat", "/Concat", {"dim0_1d", "minus1"}, {"new_shape"});
  {
    auto *a = concat->add_attribute();
    a->set_name("axis");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(0);
  }
  addNode(g, "Reshape", "/Reshape", {"pool_out", "new_shape"}, {"flat"});
  addNode(g, "MatMul", "/fc/MatMul", {"flat", "fc.weight"}, {"fc_mm"});
  addNode(g, "Add", "/fc/Add", {"fc_mm", "fc.bias"}, {"logits"});

  auto dynInput = [&](const std::string &name) {
    onnx::ValueInfoProto *v = g->add_input();
    v->set_name(name);
    auto *tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_param("batch");
    for (int64_t d : {int64_t(1), h, w})
      tt->mutable_shape()->add_dim()->set_dim_value(d);
  };
  dynInput("input");
  {
    onnx::ValueInfoProto *v = g->add_output();
    v->set_name("logits");
    auto *tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    tt->mutable_shape()->add_dim()->set_dim_param("batch");
    tt->mutable_shape()->add_dim()->set_dim_value(classes);
  }

  // Reference in double precision.
  std::vector<float> logits;
  for (int64_t n = 0; n < batch; ++n) {
    std::vector<double> pooled;
    for (int64_t k = 0; k < c; ++k)
      for (int64_t i = 0; i < ph; ++i)
        for (int64_t j = 0; j < pw; ++j) {
          double best = -1e300;
          for (int64_t di = 0; di < 2; ++di)
            for (int64_t dj = 0; dj < 2; ++dj) {
              int64_t oy = 2 * i + di, ox = 2 * j + dj;
              double acc = bconv[k];
              for (int64_t ky = 0; ky < 3; ++ky)
                for (int64_t kx = 0; kx < 3; ++kx) {
                  int64_t iy = oy + ky - 1, ix = ox + kx - 1;
                  if (iy >= 0 && iy < h && ix >= 0 && ix < w)
                    acc += double(x[n * h * w + iy * w + ix]) * wconv[k * 9 + ky * 3 + kx];
                }
              best = std::max(best, std::max(acc, 0.0));
            }
          pooled.push_back(best);
        }
    for (int64_t o = 0; o < classes; ++o) {
      double acc = bfc[o];
      for (int64_t f = 0; f < feat; ++f)
        acc += pooled[f] * wfc[f * classes + o];
      logits.push_back(static_cast<float>(acc));
    }
  }
  std::string data = dir + "/cnn_dyn_test_data";
  mkdir(data.c_str(), 0755);
  onnx::TensorProto xin, yout;
  setTensor(&xin, "input", {batch, 1, h, w}, x);
  setTensor(&yout, "logits", {batch, classes}, logits);
  return writeMessage(model, dir + "/cnn_dyn.onnx") &&
         writeMessage(xin, data + "/input_0.pb") &&
         writeMessage(yout, data + "/output_0.pb");
}
} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: hodu-gen-models OUT_DIR\n");
    return 2;
  }
  mkdir(argv[1], 0755);
  return writeMlp(argv[1]) && writeCnnDyn(argv[1]) ? 0 : 1;
}
