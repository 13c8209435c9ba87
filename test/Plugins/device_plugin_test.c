/*===- device_plugin_test.c - bundles run on a device plugin ---------------===*
 *
 * Bundles whose DEVICES name the `nulldev` device plugin (nulldev_device.c)
 * run through libhodurt's public API exactly as on a builtin device: plain
 * runs with host tensors, device tensors on the plugin's device, sessions
 * with capture and replay (nulldev has no capture calls: the host's
 * fallback), a TRANSFER between the builtin CPU and the plugin device, and
 * each failure with its message.
 *
 * usage: hodu-test-device-plugin CASE NULLDEV_DIR HOST_KERNELS_SO WORKDIR
 *   CASE: run | oom (HODU_PLUGIN_NULLDEV_MEMORY_BYTES is set by the test)
 *
 *===----------------------------------------------------------------------===*/
#include "bundles/bundle_writer.h"
#include "checks.h"
#include "hodu/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 64

static const char *kernels_path, *work_dir;

static uint8_t *read_all(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *data = malloc(n > 0 ? (size_t)n : 1);
  if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return data;
}

/* Writes a bundle to WORKDIR/name and returns its path (static). */
static const char *write_bundle(tb_bundle *b, const char *name) {
  static char path[1100];
  size_t size;
  uint8_t *data = tb_finish(b, &size);
  tb_free(b);
  snprintf(path, sizeof path, "%s/%s", work_dir, name);
  CHECK(data && tb_write_file(path, data, size) == 0);
  free(data);
  return path;
}

/* x (input) -> `kernel` -> y (output), all on the plugin device `device`. */
static const char *plugin_bundle(const char *device, const char *kernel,
                                 const char *name) {
  size_t elf_size;
  uint8_t *elf = read_all(kernels_path, &elf_size);
  CHECK(elf != NULL);
  tb_bundle *b = tb_new("onplugin");
  uint32_t dev = tb_plugin_device(b, device, 256);
  int64_t shape[] = {N};
  tb_input(b, "x", HODU_DTYPE_F32, 1, shape, dev);
  tb_output(b, "y", HODU_DTYPE_F32, 1, shape, dev);
  tb_code(b, dev, HODU_CODE_ELF, "", elf, elf_size);
  uint32_t k = tb_kernel(b, kernel, dev, 1, 1, 1, 2, 0);
  uint32_t a = tb_num_args(b);
  tb_arg(b, HODU_SPACE_INPUT, 0, 0, N * 4);
  tb_arg(b, HODU_SPACE_ARENA, dev, 0, N * 4);
  tb_step(b, HODU_STEP_HOST_CALL, dev, k, 1, 1, 1, a, 2);
  a = tb_num_args(b);
  tb_arg(b, HODU_SPACE_ARENA, dev, 0, N * 4);
  tb_arg(b, HODU_SPACE_OUTPUT, 0, 0, N * 4);
  tb_step(b, HODU_STEP_COPY, dev, 0, 1, 1, 1, a, 2);
  free(elf);
  return write_bundle(b, name);
}

/* x on the builtin CPU -> twice -> TRANSFER -> twice on nulldev -> y. */
static const char *mixed_bundle(void) {
  size_t elf_size;
  uint8_t *elf = read_all(kernels_path, &elf_size);
  tb_bundle *b = tb_new("mixed");
  uint32_t cpu = tb_device(b, HODU_DEVICE_CPU, 256);
  uint32_t dev = tb_plugin_device(b, "nulldev", 256);
  int64_t shape[] = {N};
  tb_input(b, "x", HODU_DTYPE_F32, 1, shape, cpu);
  tb_output(b, "y", HODU_DTYPE_F32, 1, shape, dev);
  tb_code(b, cpu, HODU_CODE_ELF, "", elf, elf_size);
  tb_code(b, dev, HODU_CODE_ELF, "", elf, elf_size);
  uint32_t k_cpu = tb_kernel(b, "twice", cpu, 1, 1, 1, 2, 0);
  uint32_t k_dev = tb_kernel(b, "twice", dev, 1, 1, 1, 2, 0);
  uint32_t a = tb_num_args(b);
  tb_arg(b, HODU_SPACE_INPUT, 0, 0, N * 4);
  tb_arg(b, HODU_SPACE_ARENA, cpu, 0, N * 4);
  tb_step(b, HODU_STEP_HOST_CALL, cpu, k_cpu, 1, 1, 1, a, 2);
  a = tb_num_args(b);
  tb_arg(b, HODU_SPACE_ARENA, cpu, 0, N * 4);
  tb_arg(b, HODU_SPACE_ARENA, dev, 0, N * 4);
  tb_step(b, HODU_STEP_TRANSFER, dev, 0, 1, 1, 1, a, 2);
  a = tb_num_args(b);
  tb_arg(b, HODU_SPACE_ARENA, dev, 0, N * 4);
  tb_arg(b, HODU_SPACE_OUTPUT, 0, 0, N * 4);
  tb_step(b, HODU_STEP_HOST_CALL, dev, k_dev, 1, 1, 1, a, 2);
  free(elf);
  return write_bundle(b, "mixed.hodu");
}

static void fill(float *x, float base) {
  for (int i = 0; i < N; ++i)
    x[i] = base + 0.5f * (float)i;
}

static void run_case(void) {
  int64_t shape[] = {N};
  float x[N], y[N];
  hodu_tensor *in = NULL, *out = NULL;
  CHECK_OK(hodu_tensor_wrap(HODU_DTYPE_F32, 1, shape, x, sizeof x, &in));
  CHECK_OK(hodu_tensor_create(HODU_DTYPE_F32, 1, shape, &out));

  /* A plain run with host tensors (copied through the device's buffers). */
  hodu_model *model = NULL;
  CHECK_OK(
      hodu_model_load(plugin_bundle("nulldev", "twice", "on.hodu"), &model));
  if (!model)
    return;
  CHECK(hodu_model_device_kind(model) == HODU_DEVICE_PLUGIN);
  CHECK(strcmp(hodu_model_device_name(model), "nulldev 0 (host memory)") == 0);
  CHECK(strcmp(hodu_device_kind_name(HODU_DEVICE_PLUGIN), "plugin") == 0);
  int32_t count = 0;
  CHECK_OK(hodu_device_count_named("nulldev", &count));
  CHECK(count == 1);
  CHECK_ERROR(hodu_device_count_named("nosuchdev", &count), HODU_NO_DEVICE,
              "no device 'nosuchdev': no device plugin provides it");
  fill(x, 1.0f);
  CHECK_OK(hodu_model_run(model, (const hodu_tensor *const *)&in, 1, &out, 1));
  CHECK_OK(hodu_tensor_read(out, y, sizeof y));
  for (int i = 0; i < N; ++i)
    CHECK(y[i] == 2.0f * x[i]);

  /* A device tensor on the plugin's device. */
  hodu_tensor *dev_out = NULL;
  CHECK_OK(hodu_model_create_device_output(model, 0, &dev_out));
  CHECK(dev_out && hodu_tensor_device_kind(dev_out) == HODU_DEVICE_PLUGIN);
  fill(x, -3.0f);
  CHECK_OK(
      hodu_model_run(model, (const hodu_tensor *const *)&in, 1, &dev_out, 1));
  memset(y, 0, sizeof y);
  CHECK_OK(hodu_tensor_read(dev_out, y, sizeof y));
  for (int i = 0; i < N; ++i)
    CHECK(y[i] == 2.0f * x[i]);

  /* A session: run, capture, replay (the host's fallback: nulldev has no
   * capture calls), with the input changed between replays. */
  hodu_session *session = NULL;
  CHECK_OK(hodu_session_create(model, &session));
  CHECK_OK(
      hodu_session_bind(session, (const hodu_tensor *const *)&in, 1, &out, 1));
  CHECK_OK(hodu_session_run(session));
  CHECK_OK(hodu_session_capture(session));
  fill(x, 7.0f);
  CHECK_OK(hodu_session_replay(session, 3));
  CHECK_OK(hodu_tensor_read(out, y, sizeof y));
  for (int i = 0; i < N; ++i)
    CHECK(y[i] == 2.0f * x[i]);
  hodu_session_stats stats;
  stats.struct_size = sizeof stats;
  CHECK_OK(hodu_session_get_stats(session, &stats));
  CHECK(stats.replays == 3);
  hodu_session_free(session);
  hodu_tensor_free(dev_out);
  hodu_model_free(model);

  /* The builtin CPU and the plugin device in one plan, with a TRANSFER. */
  model = NULL;
  CHECK_OK(hodu_model_load(mixed_bundle(), &model));
  if (model) {
    fill(x, 0.25f);
    CHECK_OK(
        hodu_model_run(model, (const hodu_tensor *const *)&in, 1, &out, 1));
    CHECK_OK(hodu_tensor_read(out, y, sizeof y));
    for (int i = 0; i < N; ++i)
      CHECK(y[i] == 4.0f * x[i]);
    hodu_model_free(model);
  }

  /* Failures, each with its message. */
  CHECK_ERROR(
      hodu_model_load(plugin_bundle("nosuchdev", "twice", "no.hodu"), &model),
      HODU_NO_DEVICE, "no device 'nosuchdev': no device plugin provides it");
  CHECK_ERROR(
      hodu_model_load(plugin_bundle("nulldev", "missing_symbol", "sym.hodu"),
                      &model),
      HODU_INVALID_ARTIFACT,
      "kernel 'missing_symbol' is not in nulldev's code object");
  model = NULL;
  CHECK_OK(hodu_model_load(plugin_bundle("nulldev", "refuse", "refuse.hodu"),
                           &model));
  if (model) {
    CHECK_ERROR(
        hodu_model_run(model, (const hodu_tensor *const *)&in, 1, &out, 1),
        HODU_RUN_FAILED, "nulldev: kernel 'refuse' returned 7");
    hodu_model_free(model);
  }
  hodu_tensor_free(in);
  hodu_tensor_free(out);
}

/* The device's memory (HODU_PLUGIN_NULLDEV_MEMORY_BYTES=300) holds the
 * 256-byte arena but not the input's and output's buffers as well. */
static void oom_case(void) {
  int64_t shape[] = {N};
  float x[N] = {0};
  hodu_tensor *in = NULL, *out = NULL;
  CHECK_OK(hodu_tensor_wrap(HODU_DTYPE_F32, 1, shape, x, sizeof x, &in));
  CHECK_OK(hodu_tensor_create(HODU_DTYPE_F32, 1, shape, &out));
  hodu_model *model = NULL;
  hodu_status status =
      hodu_model_load(plugin_bundle("nulldev", "twice", "oom.hodu"), &model);
  if (!status)
    status = hodu_model_run(model, (const hodu_tensor *const *)&in, 1, &out, 1);
  CHECK_ERROR(status, HODU_OUT_OF_MEMORY, "would pass its 300 bytes");
  hodu_model_free(model);
  hodu_tensor_free(in);
  hodu_tensor_free(out);
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s run|oom NULLDEV_DIR HOST_KERNELS_SO WORKDIR\n",
            argv[0]);
    return 2;
  }
  kernels_path = argv[3];
  work_dir = argv[4];
  CHECK_OK(hodu_plugin_add_path(argv[2]));
  if (strcmp(argv[1], "run") == 0)
    run_case();
  else if (strcmp(argv[1], "oom") == 0)
    oom_case();
  else
    return 2;
  if (failures)
    fprintf(stderr, "%d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
