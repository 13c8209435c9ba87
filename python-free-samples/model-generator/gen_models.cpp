//===- gen_models.cpp - the bundled sample models, made without Python ----===//
//
//   hodu-gen-models OUT_DIR
//
// Writes OUT_DIR/mlp.onnx (x[1,16] -> Gemm -> Relu -> Gemm -> Softmax) with
// its weights as initializers, and OUT_DIR/mlp_test_data/{input_0,output_0}.pb
// with a reference output computed here in plain C++ (double accumulation).
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
} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: hodu-gen-models OUT_DIR\n");
    return 2;
  }
  mkdir(argv[1], 0755);
  return writeMlp(argv[1]) ? 0 : 1;
}
