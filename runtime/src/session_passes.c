/*===- session_passes.c - the copies around each pass of a bundle's plan --===*
 *
 * A bundle with a chunked symbol was compiled for `chunk` units of it; a
 * run at value n is ceil(n / chunk) passes of the plan, pass k on units
 * [k * chunk, k * chunk + rows) of every tensor with the symbol, staged
 * through the session's mirrors (one pass's size): in each of the
 * tensor's `outer` blocks, `rows` units in, the last one repeated up to
 * the chunk (doubling copies on the device: a partial pass costs a few
 * copies, not one per unit), and `rows` units out.
 *
 * A padded symbol's plan was compiled at its bound and masks what lies
 * past the real extent of each of its dims: the value goes to a meta slot
 * the kernels read, and each tensor with its dim is staged as a box, the
 * real extent followed by zeros up to the bound (box_copy). With both, a
 * run is the chunked symbol's passes, each on boxes of `rows` units.
 *
 * A bundle with variants (format 1.6) has the plan at smaller sizes of the
 * padded symbols too; a run on one of them stages each box in that plan's
 * layout: the variant's extent along each padded dim (variant_shape).
 *
 *===----------------------------------------------------------------------===*/
#include "session_internal.h"

int64_t hodu_session_num_passes(const hodu_session *s) {
  int64_t chunk = s->plan->chunk;
  return chunk ? (s->symbol_values[s->plan->chunk_symbol] + chunk - 1) / chunk
               : 1;
}

/* The units pass k (starting at unit `off`) covers: the chunk, or what is
 * left of the value; 0 without a symbol. */
int64_t hodu_session_pass_rows(const hodu_session *s, int64_t off) {
  int64_t chunk = s->plan->chunk;
  if (!chunk)
    return 0;
  int64_t left = s->symbol_values[s->plan->chunk_symbol] - off;
  return left < chunk ? left : chunk;
}

static hodu_binding binding_of(hodu_buffer *buffer, uint64_t offset,
                               uint64_t size) {
  hodu_binding b = {buffer, NULL, offset, size};
  return b;
}

/* Units [rows, chunk) of the block at `base` in `mirror` become copies of
 * unit rows - 1. */
static hodu_status pad_block(hodu_device *device, hodu_buffer *mirror,
                             uint64_t base, uint64_t unit, int64_t rows,
                             int64_t chunk) {
  int64_t filled = rows;
  while (filled < chunk) {
    int64_t have = filled - (rows - 1);
    int64_t count = have < chunk - filled ? have : chunk - filled;
    hodu_binding from =
        binding_of(mirror, base + (uint64_t)(rows - 1) * unit, count * unit);
    hodu_binding to =
        binding_of(mirror, base + (uint64_t)filled * unit, count * unit);
    hodu_status status =
        device->ops->copy(device->instance, &from, &to, (uint64_t)count * unit);
    if (status)
      return status;
    filled += count;
  }
  return NULL;
}

/* The real extent of padded dim `pad` at value n. */
static int64_t padded_extent(const hodu_plan_pad *pad, int64_t n) {
  return pad->scale * n / pad->divisor + pad->offset;
}

/* The shape tensor t's mirror has in the session's variant: the plan's
 * (DIMS) along every dim but the padded ones, there the extent at the
 * variant's size (at the bound for the bounds' plan). */
static void variant_shape(const hodu_session *s, const hodu_plan_tensor *t,
                          int64_t *shape) {
  for (int32_t d = 0; d < t->desc.rank; ++d)
    shape[d] = t->bound_shape[d];
  if (!s->plan->num_variants)
    return;
  const int64_t *sizes = s->plan->variants[s->variant].sizes;
  for (uint32_t j = 0; j < t->num_pad; ++j)
    shape[t->pad[j].dim] = padded_extent(&t->pad[j], sizes[t->pad[j].symbol]);
}

void hodu_session_stale_mirrors(hodu_session *s) {
  const hodu_plan *plan = s->plan;
  for (uint32_t i = 0; i < plan->num_inputs; ++i) {
    const hodu_plan_tensor *t = &plan->tensors[i];
    int64_t *stale = s->padded_rows + (size_t)i * HODU_SESSION_STALE;
    int64_t shape[HODU_BUNDLE_MAX_RANK];
    variant_shape(s, t, shape);
    for (uint32_t j = 0; j < t->num_pad; ++j)
      stale[j] = shape[t->pad[j].dim];
    stale[HODU_PLAN_MAX_PADDED] = t->chunk_dim >= 0 ? shape[t->chunk_dim] : 0;
  }
}

/* Writes zeros to `bytes` bytes of `buffer` from `at`. */
static hodu_status write_zeros(hodu_device *device, hodu_buffer *buffer,
                               uint64_t at, uint64_t bytes) {
  static const uint8_t zeros[1 << 16];
  while (bytes) {
    uint64_t count = bytes < sizeof zeros ? bytes : sizeof zeros;
    hodu_status status =
        device->ops->write(device->instance, buffer, at, zeros, count);
    if (status)
      return status;
    at += count;
    bytes -= count;
  }
  return NULL;
}

/* Moves `bytes` between tensor `tensor` (at byte `at`: host memory or a
 * device buffer) and `mirror` (at `in_mirror`): into the mirror (`out` 0)
 * or out of it (`out` 1). */
static hodu_status move_part(hodu_device *device, const hodu_tensor *tensor,
                             uint64_t at, hodu_buffer *mirror,
                             uint64_t in_mirror, uint64_t bytes, int out) {
  if (!bytes)
    return NULL;
  uint8_t *host = hodu_tensor_device(tensor) ? NULL : hodu_tensor_data(tensor);
  hodu_binding tensor_part = binding_of(hodu_tensor_buffer(tensor), at, bytes);
  hodu_binding mirror_part = binding_of(mirror, in_mirror, bytes);
  if (out)
    return host ? device->ops->read(device->instance, mirror, in_mirror,
                                    host + at, bytes)
                : device->ops->copy(device->instance, &mirror_part,
                                    &tensor_part, bytes);
  return host ? device->ops->write(device->instance, mirror, in_mirror,
                                   host + at, bytes)
              : device->ops->copy(device->instance, &tensor_part, &mirror_part,
                                  bytes);
}

/* Input or output `i` (`out`) of a pass: its plan tensor, the device it
 * lives on, the session's mirror of it and the caller's tensor. */
typedef struct pass_io {
  const hodu_plan_tensor *t;
  hodu_device *device;
  hodu_buffer *mirror;
  const hodu_tensor *tensor;
  uint32_t i;
  int out;
} pass_io;

static pass_io pass_io_of(const hodu_session *s, uint32_t i, int out) {
  uint32_t index = (out ? s->plan->num_inputs : 0) + i;
  pass_io io = {&s->plan->tensors[index],
                tensor_device(s, index),
                out ? s->output_mirrors[i] : s->input_mirrors[i],
                out ? s->outputs[i] : s->inputs[i],
                i,
                out};
  return io;
}

/* The box pass [off, off + rows) copies of tensor t: along the chunked
 * dim the pass's units, along each padded dim its real extent, every other
 * dim whole; the caller's extents, the mirror's (its variant's shape) and
 * both layouts' byte strides. */
typedef struct box_geometry {
  int64_t box[HODU_BUNDLE_MAX_RANK], caller[HODU_BUNDLE_MAX_RANK];
  int64_t shape[HODU_BUNDLE_MAX_RANK];
  uint64_t in_mirror[HODU_BUNDLE_MAX_RANK], in_tensor[HODU_BUNDLE_MAX_RANK];
  uint64_t start; /* the pass's first unit along the chunked dim */
  uint64_t size;  /* the mirror's bytes */
  int32_t inner;  /* the innermost symbolic dim */
} box_geometry;

static void box_geometry_of(const hodu_session *s, const hodu_plan_tensor *t,
                            int64_t off, int64_t rows, box_geometry *g) {
  int32_t rank = t->desc.rank, cd = t->chunk_dim;
  variant_shape(s, t, g->shape);
  const int64_t *S = g->shape;
  for (int32_t d = 0; d < rank; ++d)
    g->box[d] = g->caller[d] = S[d];
  g->inner = cd;
  for (uint32_t j = 0; j < t->num_pad; ++j) {
    const hodu_plan_pad *pad = &t->pad[j];
    g->box[pad->dim] = g->caller[pad->dim] =
        padded_extent(pad, s->symbol_values[pad->symbol]);
    if (pad->dim > g->inner)
      g->inner = pad->dim;
  }
  g->start = 0;
  if (cd >= 0) {
    g->box[cd] = rows * t->chunk_scale;
    g->caller[cd] = s->symbol_values[s->plan->chunk_symbol] * t->chunk_scale;
    g->start = (uint64_t)(off * t->chunk_scale);
  }
  uint64_t size = hodu_dtype_size((hodu_dtype)t->desc.dtype);
  for (int32_t d = rank - 1; d >= 0; --d) {
    g->in_mirror[d] = size;
    g->in_tensor[d] =
        d + 1 < rank ? g->in_tensor[d + 1] * (uint64_t)g->caller[d + 1] : size;
    size = g->in_mirror[d] * (uint64_t)S[d];
  }
  g->size = size;
}

/* Where row `idx` (an index of the box's dims before its innermost
 * symbolic one) starts in the tensor and in the mirror. */
static void box_row(const box_geometry *g, int32_t cd, const int64_t *idx,
                    uint64_t *at, uint64_t *base) {
  int32_t k = g->inner;
  *at = k == cd ? g->start * g->in_tensor[k] : 0;
  *base = 0;
  for (int32_t d = 0; d < k; ++d) {
    *at += ((uint64_t)idx[d] + (d == cd ? g->start : 0)) * g->in_tensor[d];
    *base += (uint64_t)idx[d] * g->in_mirror[d];
  }
}

/* The next row index of the box (odometer order). */
static void box_next(const box_geometry *g, int64_t *idx) {
  for (int32_t d = g->inner - 1; d >= 0; --d) {
    if (++idx[d] < g->box[d])
      break;
    idx[d] = 0;
  }
}

/* Input or output `i` (`out`) of pass [off, off + rows) of the chunked
 * symbol, for a tensor with a padded dim: the box of its real extents --
 * the padded dim's scale * n / divisor + offset, the chunked dim's rows,
 * every other dim whole -- between the tensor and its mirror at the
 * bound, one copy per row of the innermost symbolic dim. An input's mirror
 * holds zeros past the box: past the real extent up to where the last
 * pass wrote (`padded_rows`, which it then sets), and past a partial
 * chunk. */
static hodu_status box_copy(hodu_session *s, const pass_io *io, int64_t off,
                            int64_t rows) {
  const hodu_plan_tensor *t = io->t;
  hodu_device *device = io->device;
  hodu_buffer *mirror = io->mirror;
  const hodu_tensor *tensor = io->tensor;
  uint32_t i = io->i;
  int out = io->out;
  int32_t pd = t->pad[0].dim, cd = t->chunk_dim;
  box_geometry g;
  box_geometry_of(s, t, off, rows, &g);
  const int64_t *S = g.shape;
  const int64_t *box = g.box;
  const uint64_t *in_mirror = g.in_mirror;
  int64_t ext = box[pd];
  int32_t k = g.inner;                /* the innermost symbolic dim */
  int32_t j = cd >= 0 && cd < pd ? cd /* the outer one, if two */
              : cd > pd          ? pd
                                 : -1;
  int64_t *written =
      out ? NULL : s->padded_rows + (size_t)i * HODU_SESSION_STALE;
  uint64_t stale = out ? 0 : (uint64_t)written[0];
  int partial = cd >= 0 && box[cd] < S[cd];
  /* The rows: every index of the box's dims before k. */
  int64_t idx[HODU_BUNDLE_MAX_RANK] = {0}, count = 1;
  for (int32_t d = 0; d < k; ++d)
    count *= box[d];
  hodu_status status = NULL;
  for (int64_t r = 0; r < count && !status; ++r) {
    uint64_t at, base;
    box_row(&g, cd, idx, &at, &base);
    uint64_t real = (uint64_t)box[k] * in_mirror[k];
    status = move_part(device, tensor, at, mirror, base, real, out);
    /* What an input's mirror holds past the box along k. */
    uint64_t upto = 0;
    if (!out && k == pd && stale > (uint64_t)ext)
      upto = (stale < (uint64_t)S[k] ? stale : (uint64_t)S[k]) * in_mirror[k];
    if (!out && k == cd && partial)
      upto = (uint64_t)S[k] * in_mirror[k];
    if (!status && upto > real)
      status = write_zeros(device, mirror, base + real, upto - real);
    box_next(&g, idx);
  }
  /* Past the box along the outer symbolic dim: whole slabs, per index of
   * the (static) dims before it. */
  uint64_t from = 0, upto = 0;
  if (!out && j == pd && stale > (uint64_t)ext) {
    from = (uint64_t)ext;
    upto = stale < (uint64_t)S[j] ? stale : (uint64_t)S[j];
  }
  if (!out && j >= 0 && j == cd && partial) {
    from = (uint64_t)box[j];
    upto = (uint64_t)S[j];
  }
  if (upto > from) {
    int64_t slabs = 1;
    for (int32_t d = 0; d < j; ++d)
      slabs *= S[d];
    uint64_t block = j > 0 ? in_mirror[j - 1] : g.size;
    for (int64_t b = 0; b < slabs && !status; ++b)
      status =
          write_zeros(device, mirror, (uint64_t)b * block + from * in_mirror[j],
                      (upto - from) * in_mirror[j]);
  }
  if (!status && !out)
    written[0] = ext;
  return status;
}

/* box_copy for a tensor with several padded dims (an image's height and
 * width): the box of every symbolic dim's real extent, one copy per row of
 * the innermost symbolic dim. An input's mirror must hold zeros past the
 * box along each symbolic dim: when the last run's box along any of them
 * reached past this one's (`padded_rows`), the whole mirror is zeroed
 * first; when every extent grows or stays, what lies past the box was
 * never written. */
static hodu_status box_copy_multi(hodu_session *s, const pass_io *io,
                                  int64_t off, int64_t rows) {
  const hodu_plan_tensor *t = io->t;
  int32_t cd = t->chunk_dim;
  box_geometry g;
  box_geometry_of(s, t, off, rows, &g);
  const int64_t *box = g.box;
  hodu_status status = NULL;
  int64_t *written =
      io->out ? NULL : s->padded_rows + (size_t)io->i * HODU_SESSION_STALE;
  if (written) {
    int shrinks = cd >= 0 && written[HODU_PLAN_MAX_PADDED] > box[cd];
    for (uint32_t j = 0; j < t->num_pad; ++j)
      shrinks |= written[j] > box[t->pad[j].dim];
    if (shrinks)
      status = write_zeros(io->device, io->mirror, 0, g.size);
  }
  int64_t idx[HODU_BUNDLE_MAX_RANK] = {0}, count = 1;
  for (int32_t d = 0; d < g.inner; ++d)
    count *= box[d];
  for (int64_t r = 0; r < count && !status; ++r) {
    uint64_t at, base;
    box_row(&g, cd, idx, &at, &base);
    status = move_part(io->device, io->tensor, at, io->mirror, base,
                       (uint64_t)box[g.inner] * g.in_mirror[g.inner], io->out);
    box_next(&g, idx);
  }
  if (!status && written) {
    for (uint32_t j = 0; j < t->num_pad; ++j)
      written[j] = box[t->pad[j].dim];
    if (cd >= 0)
      written[HODU_PLAN_MAX_PADDED] = box[cd];
  }
  return status;
}

/* One pass's units [off, off + rows) of a chunked tensor without a padded
 * dim between it and its mirror: an input's into its mirror (`out` 0; a
 * partial chunk's rows past the real ones repeat the last, pad_block), or
 * an output's real units from its mirror into it (`out` 1). */
static hodu_status chunk_copy(hodu_session *s, const pass_io *io, int64_t off,
                              int64_t rows) {
  const hodu_plan *plan = s->plan;
  const hodu_plan_tensor *t = io->t;
  int64_t n = s->symbol_values[plan->chunk_symbol], chunk = plan->chunk;
  for (uint64_t b = 0; b < t->outer; ++b) {
    uint64_t at = ((uint64_t)n * b + (uint64_t)off) * t->unit;
    uint64_t in_mirror = b * (uint64_t)chunk * t->unit;
    uint64_t bytes = (uint64_t)rows * t->unit;
    hodu_status status = move_part(io->device, io->tensor, at, io->mirror,
                                   in_mirror, bytes, io->out);
    if (!status && !io->out && rows < chunk)
      status =
          pad_block(io->device, io->mirror, in_mirror, t->unit, rows, chunk);
    if (status)
      return status;
  }
  return NULL;
}

/* One pass's copies between the tensors with symbols and their mirrors
 * (inputs in, `out` 0; outputs out, `out` 1), the chunked symbol's units
 * [off, off + rows); before it, a padded symbol's value goes to its meta
 * slot. */
hodu_status hodu_session_pass_copy(hodu_session *s, int64_t off, int64_t rows,
                                   int out) {
  const hodu_plan *plan = s->plan;
  if (!plan->num_symbols)
    return NULL;
  hodu_status status = NULL;
  for (uint32_t j = 0; !out && j < plan->num_padded && !status; ++j) {
    int64_t n = s->symbol_values[plan->pad_symbols[j]];
    uint32_t meta = plan->value_slots[j];
    hodu_device *device =
        tensor_device(s, plan->num_inputs + plan->num_outputs + meta);
    status =
        device->ops->write(device->instance, s->owned[meta], 0, &n, sizeof n);
  }
  uint32_t count = out ? plan->num_outputs : plan->num_inputs;
  for (uint32_t i = 0; i < count && !status; ++i) {
    pass_io io = pass_io_of(s, i, out);
    if (!io.t->unit)
      continue;
    status = io.t->num_pad > 1    ? box_copy_multi(s, &io, off, rows)
             : io.t->num_pad == 1 ? box_copy(s, &io, off, rows)
                                  : chunk_copy(s, &io, off, rows);
  }
  return status;
}
