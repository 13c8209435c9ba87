/*===- contracts.c - AICF's contracts A-D on any compiled train step ------===*
 *
 *   hodu-train-contracts MODEL
 *
 * MODEL is a train step (hoduc --train; a .so or a bundle for any device):
 * state tensors, an `lr` meta slot, a `loss` output. The program feeds it
 * fixed pseudo-random data and checks, through libhodurt's sessions:
 *   A  one run updates the weights and counts the step;
 *   B  replay(n) of a capture equals n eager runs, bit for bit (state and
 *      loss);
 *   C  lr written between replays changes what the next replay does: at
 *      lr 0 the weights stay while the optimizer's state moves on;
 *   D  reset frees the recording only: the state stays, a replay is
 *      INVALID_STATE, and restoring the state tensors gives the initial
 *      ones;
 * and that saving, loading into a new session and continuing gives the
 * same bits as not stopping, that sessions are independent, and that
 * hodu_model_run refuses the model. Prints one line per check; exit 0 when
 * all hold (seed 002; docs/training.md).
 *
 *===----------------------------------------------------------------------===*/
#include <hodu/runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;

static void check(int ok, const char *what) {
  printf("%s: %s\n", ok ? "ok" : "FAILED", what);
  failures += !ok;
}

static int ok_status(hodu_status status, const char *call) {
  if (!status)
    return 1;
  printf("FAILED: %s: %s\n", call, hodu_status_message(status));
  hodu_status_free(status);
  ++failures;
  return 0;
}

typedef struct model_io {
  int32_t num_inputs, num_outputs;
  hodu_tensor **inputs, **outputs;
} model_io;

typedef struct snapshot {
  int32_t count;
  unsigned char **data;
  size_t *bytes;
} snapshot;

static const hodu_model *model;

static unsigned long long seed = 7;
static float uniform(void) {
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (float)((double)(seed >> 11) / (double)(1ULL << 53) * 2.0 - 1.0);
}

/* Inputs of pseudo-random data (a target in [0, 1]) and outputs. */
static int make_io(model_io *io) {
  io->num_inputs = hodu_model_num_inputs(model);
  io->num_outputs = hodu_model_num_outputs(model);
  io->inputs = calloc((size_t)io->num_inputs + 1, sizeof *io->inputs);
  io->outputs = calloc((size_t)io->num_outputs + 1, sizeof *io->outputs);
  if (!io->inputs || !io->outputs)
    return 0;
  for (int32_t i = 0; i < io->num_inputs; ++i) {
    if (!ok_status(hodu_model_create_input(model, i, &io->inputs[i]),
                   "create input"))
      return 0;
    if (hodu_tensor_dtype(io->inputs[i]) != HODU_DTYPE_F32)
      continue;
    float *data = hodu_tensor_data(io->inputs[i]);
    int target = strcmp(hodu_model_input_name(model, i), "target") == 0;
    for (int64_t k = 0; k < hodu_tensor_num_elements(io->inputs[i]); ++k)
      data[k] = target ? 0.5f + 0.5f * uniform() : uniform();
  }
  for (int32_t o = 0; o < io->num_outputs; ++o)
    if (!ok_status(hodu_model_create_output(model, o, &io->outputs[o]),
                   "create output"))
      return 0;
  return 1;
}

static hodu_session *open_session(const model_io *io) {
  hodu_session *s = NULL;
  if (!ok_status(hodu_session_create(model, &s), "hodu_session_create"))
    return NULL;
  if (!ok_status(hodu_session_bind(s, (const hodu_tensor *const *)io->inputs,
                                   (size_t)io->num_inputs, io->outputs,
                                   (size_t)io->num_outputs),
                 "hodu_session_bind")) {
    hodu_session_free(s);
    return NULL;
  }
  return s;
}

static void take(const hodu_session *s, snapshot *snap) {
  snap->count = hodu_model_num_state_tensors(model);
  snap->data = calloc((size_t)snap->count, sizeof *snap->data);
  snap->bytes = calloc((size_t)snap->count, sizeof *snap->bytes);
  for (int32_t k = 0; k < snap->count; ++k) {
    snap->bytes[k] = hodu_model_state_tensor_bytes(model, k);
    snap->data[k] = malloc(snap->bytes[k] ? snap->bytes[k] : 1);
    ok_status(
        hodu_session_read_state_tensor(s, k, snap->data[k], snap->bytes[k]),
        "hodu_session_read_state_tensor");
  }
}

static void drop(snapshot *snap) {
  for (int32_t k = 0; k < snap->count; ++k)
    free(snap->data[k]);
  free(snap->data);
  free(snap->bytes);
  memset(snap, 0, sizeof *snap);
}

/* What the optimizer keeps besides the weights: momentum's velocity,
 * Adam's moments and step counter (docs/training.md). */
static int is_optimizer_state(const char *name) {
  size_t n = strlen(name);
  return strcmp(name, "step") == 0 ||
         (n > 2 && (strcmp(name + n - 2, ".m") == 0 ||
                    strcmp(name + n - 2, ".v") == 0)) ||
         (n > 9 && strcmp(name + n - 9, ".velocity") == 0);
}

/* Among the weights (`which` 0), the optimizer's state (1) or all (2):
 * whether every tensor is equal in `a` and `b` (`same` 1), or at least one
 * differs (`same` 0; a weight behind a dead ReLU may keep its value). */
static int compare(const snapshot *a, const snapshot *b, int which, int same) {
  int changed = 0;
  for (int32_t k = 0; k < a->count; ++k) {
    int optimizer = is_optimizer_state(hodu_model_state_tensor_name(model, k));
    if ((which == 0 && optimizer) || (which == 1 && !optimizer))
      continue;
    if (memcmp(a->data[k], b->data[k], a->bytes[k]) == 0)
      continue;
    if (same) {
      printf("  state tensor '%s' differs\n",
             hodu_model_state_tensor_name(model, k));
      return 0;
    }
    changed = 1;
  }
  if (!same && !changed)
    printf("  no %s changed\n", which == 0 ? "weight" : "state tensor");
  return same || changed;
}

static float step_value(const snapshot *snap) {
  int32_t k = -1;
  hodu_status status = hodu_model_state_tensor_index(model, "step", &k);
  if (status) {
    hodu_status_free(status);
    return -1.0f;
  }
  float v = 0.0f;
  memcpy(&v, snap->data[k], sizeof v);
  return v;
}

static int write_lr(hodu_session *s, float lr) {
  return ok_status(hodu_session_write_meta_slot_named(s, "lr", &lr, sizeof lr),
                   "write lr");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s MODEL\n", argv[0]);
    return 2;
  }
  hodu_model *loaded = NULL;
  if (!ok_status(hodu_model_load(argv[1], &loaded), "hodu_model_load"))
    return 1;
  model = loaded;
  printf("model '%s' on %s: %d state tensors\n", hodu_model_name(model),
         hodu_model_target(model), (int)hodu_model_num_state_tensors(model));
  if (hodu_model_num_state_tensors(model) < 1) {
    printf("FAILED: the model has no state tensors (hoduc --train)\n");
    return 1;
  }
  model_io io1 = {0}, io2 = {0}, io3 = {0};
  if (!make_io(&io1))
    return 1;
  seed = 7;
  make_io(&io2);
  seed = 7;
  make_io(&io3);
  hodu_session *eager = open_session(&io1), *replayed = open_session(&io2);
  if (!eager || !replayed)
    return 1;
  snapshot initial = {0}, s1 = {0}, s2 = {0}, s3 = {0};
  take(eager, &initial);

  /* hodu_model_run refuses a model with state. */
  hodu_status status = hodu_model_run(
      model, (const hodu_tensor *const *)io1.inputs, (size_t)io1.num_inputs,
      io1.outputs, (size_t)io1.num_outputs);
  check(status && hodu_status_get_code(status) == HODU_INVALID_STATE,
        "hodu_model_run refuses the model (INVALID_STATE)");
  hodu_status_free(status);

  /* A. */
  ok_status(hodu_session_run(eager), "run");
  take(eager, &s1);
  check(compare(&initial, &s1, 0, 0), "A: one run changes the weights");
  float step1 = step_value(&s1);
  check(step1 == -1.0f || step1 == 1.0f, "A: the step counter is 1");

  /* B. */
  ok_status(hodu_session_run(replayed), "warm-up run");
  ok_status(hodu_session_capture(replayed), "capture");
  ok_status(hodu_session_replay(replayed, 4), "replay(4)");
  for (int n = 0; n < 4; ++n)
    ok_status(hodu_session_run(eager), "run");
  drop(&s1);
  take(eager, &s1);
  take(replayed, &s2);
  check(compare(&s1, &s2, 2, 1) &&
            memcmp(hodu_tensor_data(io1.outputs[0]),
                   hodu_tensor_data(io2.outputs[0]),
                   hodu_tensor_bytes(io1.outputs[0])) == 0,
        "B: replay(4) after a warm-up run equals 5 eager runs, bit for bit");

  /* C. */
  write_lr(replayed, 0.0f);
  ok_status(hodu_session_replay(replayed, 2), "replay(2) at lr 0");
  take(replayed, &s3);
  check(compare(&s2, &s3, 0, 1),
        "C: at lr 0 two replays leave every weight as it was");
  float step3 = step_value(&s3);
  check(step3 == -1.0f || step3 == step_value(&s2) + 2.0f,
        "C: ... and the step counter still counts");
  write_lr(replayed, 0.01f);
  ok_status(hodu_session_replay(replayed, 1), "replay at lr 0.01");
  drop(&s2);
  take(replayed, &s2);
  check(compare(&s3, &s2, 0, 0),
        "C: at lr 0.01 the next replay changes them, no new capture");

  /* D. */
  ok_status(hodu_session_reset(replayed), "reset");
  drop(&s3);
  take(replayed, &s3);
  check(compare(&s2, &s3, 2, 1), "D: reset leaves the state as it was");
  status = hodu_session_replay(replayed, 1);
  check(status && hodu_status_get_code(status) == HODU_INVALID_STATE,
        "D: a replay after reset is INVALID_STATE");
  hodu_status_free(status);
  ok_status(hodu_session_restore_state_tensors(replayed), "restore");
  drop(&s3);
  take(replayed, &s3);
  check(compare(&initial, &s3, 2, 1),
        "D: restoring the state tensors gives the initial ones");

  /* Save, load into a new session, continue. */
  char path[256];
  snprintf(path, sizeof path, "/tmp/hodu-train-contracts.%d.safetensors",
           (int)getpid());
  hodu_session *loaded_session = open_session(&io3);
  ok_status(hodu_session_save_state_tensors(eager, path), "save");
  if (loaded_session) {
    drop(&s3);
    take(loaded_session, &s3);
    check(compare(&initial, &s3, 2, 1),
          "a new session starts from the initial state (sessions are "
          "independent)");
    ok_status(hodu_session_load_state_tensors(loaded_session, path), "load");
    for (int n = 0; n < 3; ++n) {
      ok_status(hodu_session_run(eager), "run");
      ok_status(hodu_session_run(loaded_session), "run");
    }
    drop(&s1);
    drop(&s3);
    take(eager, &s1);
    take(loaded_session, &s3);
    check(compare(&s1, &s3, 2, 1) &&
              memcmp(hodu_tensor_data(io1.outputs[0]),
                     hodu_tensor_data(io3.outputs[0]),
                     hodu_tensor_bytes(io1.outputs[0])) == 0,
          "save, load into a new session and 3 more runs: the same bits as "
          "not stopping");
  }
  unlink(path);
  drop(&initial);
  drop(&s1);
  drop(&s2);
  drop(&s3);
  hodu_session_free(eager);
  hodu_session_free(replayed);
  hodu_session_free(loaded_session);
  hodu_model_free(loaded);
  printf("%s\n", failures ? "contracts FAILED" : "all contracts hold");
  return failures ? 1 : 0;
}
