/*===- threads.c - the thread teams of multi-threaded CPU code -------------===*
 *
 * hoduc lowers parallel tile loops to OpenMP, and LLVM's OpenMP translation
 * calls the runtime entry points of LLVM's libomp (__kmpc_fork_call, a
 * static loop schedule, a barrier). In the shared libraries and bundle CPU
 * parts that libhodurt loads, hoduc turns those calls into calls through
 * the library's table `hodu_thread_api` (abi.h), which libhodurt fills
 * with the functions here after loading it: a model needs no libomp on the
 * machine it runs on, resolves no symbol by name, and never meets another
 * OpenMP runtime of the host process (libgomp, Intel's libiomp5).
 *
 * The subset is what that translation emits: fork with any number of
 * shared arguments, the static schedules (unchunked and chunked) of 32- and
 * 64-bit loops, a barrier, the thread number, and omp_set_num_threads, which
 * sets the size of the calling thread's next teams. Each thread that forks
 * (a "root": the application thread that runs a model) owns a persistent
 * team of workers, made on its first fork, grown when it asks for more
 * threads, and joined when that thread exits (or libhodurt is unloaded).
 * Threads wait for the next fork, a barrier or the end of a fork by
 * pausing, then sleeping on a futex.
 * While the root is inside a run (libhodurt calls hodu_threads_run_begin
 * and _end around a model's entry) they pause for up to RUN_WAIT_NS, so a
 * serial stretch of the run (a copy, a small kernel) costs no wake-up at
 * the next fork (on this project's VM, sleeping workers made PP-OCRv4's
 * detector at 128x128 take 1.13-1.33 ms on 2 threads against 0.95 ms with
 * workers that paused). Outside runs they pause WAIT_NS past the end of
 * the last run, then sleep: an idle application keeps no CPU busy. Each
 * model's runs take the team or the calling thread alone, whichever
 * measured faster (choose_team). A team never has more threads than the
 * process has CPUs. A fork from
 * inside a parallel region runs serially on the forking thread, as libomp
 * does with nested parallelism off.
 *
 *===----------------------------------------------------------------------===*/

#include "internal.h"

#include "hodu/abi.h"

#include <dlfcn.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#define CPU_RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define CPU_RELAX() __asm__ __volatile__("yield")
#else
#define CPU_RELAX() ((void)0)
#endif


/* Waiting: pause instructions, then sleeping on a futex: within a run
 * after RUN_WAIT_NS, outside runs WAIT_NS after the later of the wait's
 * start and the last run's end (back-to-back runs then never sleep). The
 * clock is read every PAUSES tries. */
enum { PAUSES = 64, MAX_ARGS = 16, PROFILED_THREADS = 64 };
#define WAIT_NS 200000L
#define RUN_WAIT_NS 50000000L
/* The least stack a worker thread gets (see team_of_size). */
#define WORKER_STACK ((size_t)1 << 20)

typedef void (*microtask)(int32_t *gtid, int32_t *btid, ...);

enum { MODELS = 16, WARM = 2, TRIALS = 4, RECHECK = 256 };
/* The first runs on the team (not counted), then the alternating trials. */
#define EXPLORE (WARM + 2 * TRIALS)

/* What a run of one model costs on the calling thread alone and on its
 * team, in nanoseconds, and which of the two its runs take (choose_team). */
typedef struct {
  const void *key; /* the model's descriptor */
  int32_t size;    /* the team size it was measured at; 0: a free entry */
  uint32_t runs;   /* runs since then */
  uint32_t check;  /* the run where the next trial of the other way starts */
  float trials[2][TRIALS]; /* [0]: alone, [1]: the team */
  int32_t count[2];
  float recent[2]; /* each way's median of trials, then a moving average */
  int32_t team;    /* the choice: 1 the team, 0 the calling thread alone */
} model_choice;

typedef struct team team;
struct team {
  /* The fork in flight, written by the root before the generation bump. */
  microtask fn;
  int32_t argc;
  void *args[MAX_ARGS];
  int32_t active; /* threads of this fork, the root included */
  /* The words threads wait on, each on a cache line of its own: the
   * workers' answers and arrivals do not disturb the line the others read
   * in their pause loop. */
  _Alignas(64) _Atomic uint32_t generation;
  _Atomic int32_t quit;
  /* Whether the root is inside a run, and when its last run ended. */
  _Atomic int32_t in_run;
  _Atomic long run_end_ns;
  _Alignas(64) _Atomic uint32_t pending; /* workers yet to answer this fork */
  /* The barrier: arrivals and its generation. */
  _Alignas(64) _Atomic int32_t arrived;
  _Alignas(64) _Atomic uint32_t barrier_generation;
  /* Threads asleep in futex_wait on one of the words above: a fork, a
   * barrier or a worker's answer wakes the sleepers only when there are
   * any (the futex system call costs about a microsecond, per fork). */
  _Alignas(64) _Atomic int32_t sleepers;
  int32_t workers; /* threads made, the root not counted */
  pthread_t *threads;
  /* The thread profile (hodu_runtime_set_thread_profile): each thread's
   * time in the fork's code, barrier waits excluded, for the first
   * PROFILED_THREADS threads, each on a cache line of its own. */
  struct {
    _Alignas(64) int64_t busy_ns;
  } busy[PROFILED_THREADS];
  team *next; /* every team, for the unload destructor */
};

/* Where the calling thread is: its team (NULL outside parallel regions),
 * its number and the team's size for this fork. */
static __thread team *current;
static __thread int32_t thread_number;
static __thread int32_t team_size = 1;
/* The root's own team and its next teams' size (0: every CPU). */
static __thread team *own_team;
static __thread int32_t requested;
/* Runs the calling thread is inside (hodu_threads_run_begin/_end), and
 * the choice for the outermost: its model's entry, whether it runs on the
 * calling thread alone, and when it began. */
static __thread int32_t run_depth;
static __thread model_choice *run_model;
static __thread int run_alone;
static __thread long run_start;
static __thread model_choice models[MODELS];
/* The thread profile: whether it is on (process-wide), the calling
 * thread's time waiting in barriers, and the iterations of the last
 * parallel loop it scheduled. */
static _Atomic int32_t profiling;
static __thread int64_t barrier_wait_ns;
static __thread uint64_t last_iterations;

/* Whether the calling root's workers should pause rather than sleep: in a
 * run on the team, and in a run alone while the first runs alternate (a
 * team run after a sleep would pay the wake-ups, and the team would be
 * judged by them); a run alone after that lets them sleep. */
static int workers_pause(void) {
  return run_depth > 0 && (!run_alone || run_model->runs < EXPLORE);
}

static pthread_mutex_t teams_lock = PTHREAD_MUTEX_INITIALIZER;
static team *teams;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void futex_wait(_Atomic uint32_t *word, uint32_t value) {
  syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, value, NULL, NULL,
          0);
}

static void futex_wake(_Atomic uint32_t *word) {
  syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL,
          0);
}

static long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}

/* Whether a thread of team t that began waiting at `since` should stop
 * pausing and sleep: within a run after RUN_WAIT_NS, outside runs WAIT_NS
 * after the wait's start or the last run's end, whichever is later. */
static int time_to_sleep(team *t, long since, long now) {
  if (atomic_load_explicit(&t->in_run, memory_order_relaxed))
    return now - since > RUN_WAIT_NS;
  long end = atomic_load_explicit(&t->run_end_ns, memory_order_relaxed);
  return now - (end > since ? end : since) > WAIT_NS;
}

/* Waits until *word differs from value: pausing until time_to_sleep,
 * then sleeping, counted in t->sleepers. The count goes up before the word is read again and the
 * waker changes the word before it reads the count, both sequentially
 * consistent, so a waker that sees no sleeper changed the word before the
 * sleeper's read (which then does not sleep). */
static void wait_change(_Atomic uint32_t *word, uint32_t value, team *t) {
  _Atomic int32_t *sleepers = &t->sleepers;
  long since = 0;
  for (unsigned i = 0;; ++i) {
    if (atomic_load_explicit(word, memory_order_acquire) != value)
      return;
    if (i % PAUSES == 0) {
      long now = now_ns();
      if (!since)
        since = now;
      else if (time_to_sleep(t, since, now))
        break;
    }
    CPU_RELAX();
  }
  atomic_fetch_add_explicit(sleepers, 1, memory_order_seq_cst);
  while (atomic_load_explicit(word, memory_order_seq_cst) == value)
    futex_wait(word, value);
  atomic_fetch_sub_explicit(sleepers, 1, memory_order_relaxed);
}

/* Wakes the threads asleep on *word (just changed) if any thread sleeps. */
static void wake_sleepers(_Atomic uint32_t *word, _Atomic int32_t *sleepers) {
  if (atomic_load_explicit(sleepers, memory_order_seq_cst) > 0)
    futex_wake(word);
}

static void call(microtask fn, int32_t *gtid, int32_t *btid, int32_t argc,
                 void **a) {
  switch (argc) {
#define A1 a[0]
#define A2 A1, a[1]
#define A3 A2, a[2]
#define A4 A3, a[3]
#define A5 A4, a[4]
#define A6 A5, a[5]
#define A7 A6, a[6]
#define A8 A7, a[7]
#define A9 A8, a[8]
#define A10 A9, a[9]
#define A11 A10, a[10]
#define A12 A11, a[11]
#define A13 A12, a[12]
#define A14 A13, a[13]
#define A15 A14, a[14]
#define A16 A15, a[15]
  case 0: fn(gtid, btid); break;
  case 1: fn(gtid, btid, A1); break;
  case 2: fn(gtid, btid, A2); break;
  case 3: fn(gtid, btid, A3); break;
  case 4: fn(gtid, btid, A4); break;
  case 5: fn(gtid, btid, A5); break;
  case 6: fn(gtid, btid, A6); break;
  case 7: fn(gtid, btid, A7); break;
  case 8: fn(gtid, btid, A8); break;
  case 9: fn(gtid, btid, A9); break;
  case 10: fn(gtid, btid, A10); break;
  case 11: fn(gtid, btid, A11); break;
  case 12: fn(gtid, btid, A12); break;
  case 13: fn(gtid, btid, A13); break;
  case 14: fn(gtid, btid, A14); break;
  case 15: fn(gtid, btid, A15); break;
  default: fn(gtid, btid, A16); break;
  }
}

typedef struct {
  team *t;
  int32_t number;
  uint32_t generation; /* the team's generation when it was made */
} worker_start;

static void *worker(void *arg) {
  worker_start start = *(worker_start *)arg;
  free(arg);
  team *t = start.t;
  uint32_t seen = start.generation;
  for (;;) {
    wait_change(&t->generation, seen, t);
    seen = atomic_load_explicit(&t->generation, memory_order_acquire);
    if (atomic_load_explicit(&t->quit, memory_order_acquire))
      return NULL;
    /* Every worker answers every fork, those beyond its size without
     * running it: the root then rewrites the fork's fields only once no
     * worker reads them. */
    if (start.number < t->active) {
      current = t;
      thread_number = start.number;
      team_size = t->active;
      int32_t gtid = start.number, btid = start.number;
      if (atomic_load_explicit(&profiling, memory_order_relaxed) &&
          start.number < PROFILED_THREADS) {
        int64_t waited = barrier_wait_ns;
        long begin = now_ns();
        call(t->fn, &gtid, &btid, t->argc, t->args);
        t->busy[start.number].busy_ns =
            now_ns() - begin - (barrier_wait_ns - waited);
      } else {
        call(t->fn, &gtid, &btid, t->argc, t->args);
      }
      current = NULL;
    }
    if (atomic_fetch_sub_explicit(&t->pending, 1, memory_order_seq_cst) == 1)
      wake_sleepers(&t->pending, &t->sleepers);
  }
}

static void stop_team(team *t) {
  atomic_store_explicit(&t->quit, 1, memory_order_release);
  atomic_fetch_add_explicit(&t->generation, 1, memory_order_acq_rel);
  futex_wake(&t->generation);
  for (int32_t i = 0; i < t->workers; ++i)
    pthread_join(t->threads[i], NULL);
  free(t->threads);
  free(t);
}

static void unlink_team(team *t) {
  pthread_mutex_lock(&teams_lock);
  for (team **p = &teams; *p; p = &(*p)->next)
    if (*p == t) {
      *p = t->next;
      break;
    }
  pthread_mutex_unlock(&teams_lock);
}

/* A root thread exits: its workers go with it. */
static void on_thread_exit(void *arg) {
  team *t = arg;
  unlink_team(t);
  stop_team(t);
}

static void make_exit_key(void) { pthread_key_create(&exit_key, on_thread_exit); }

/* libhodurt unloaded: every team's workers are joined before its code goes. */
__attribute__((destructor)) static void stop_all_teams(void) {
  pthread_mutex_lock(&teams_lock);
  team *t = teams;
  teams = NULL;
  pthread_mutex_unlock(&teams_lock);
  /* No thread-exit destructor may run once this code is gone. */
  pthread_once(&exit_key_once, make_exit_key);
  pthread_key_delete(exit_key);
  while (t) {
    team *next = t->next;
    if (t == own_team)
      own_team = NULL;
    stop_team(t);
    t = next;
  }
}

/* The CPUs this process may run on, read once. */
static int32_t cpu_count(void) {
  static _Atomic int32_t cached;
  int32_t n = atomic_load_explicit(&cached, memory_order_relaxed);
  if (n)
    return n;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) {
    n = CPU_COUNT(&set);
  } else {
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    n = online > 0 ? (int32_t)online : 1;
  }
  atomic_store_explicit(&cached, n, memory_order_relaxed);
  return n;
}

/* The default team size: OMP_NUM_THREADS where set (as libomp reads it),
 * else the CPUs this process may run on; read once, not on every fork. */
static int32_t default_threads(void) {
  static _Atomic int32_t cached;
  int32_t n = atomic_load_explicit(&cached, memory_order_relaxed);
  if (n)
    return n;
  const char *env = getenv("OMP_NUM_THREADS");
  char *end;
  long value = env && *env ? strtol(env, &end, 10) : 0;
  n = value > 0 && value <= 4096 && (*end == 0 || *end == ',') ? (int32_t)value
                                                               : cpu_count();
  atomic_store_explicit(&cached, n, memory_order_relaxed);
  return n;
}

/* The calling root's team with at least `size` threads, or NULL when no
 * worker can be made (the fork then runs serially). */
static team *team_of_size(int32_t size) {
  team *t = own_team;
  if (!t) {
    t = aligned_alloc(64, (sizeof *t + 63) / 64 * 64);
    if (!t)
      return NULL;
    memset(t, 0, sizeof *t);
    atomic_store_explicit(&t->in_run, workers_pause(), memory_order_relaxed);
    pthread_once(&exit_key_once, make_exit_key);
    pthread_setspecific(exit_key, t);
    own_team = t;
    pthread_mutex_lock(&teams_lock);
    t->next = teams;
    teams = t;
    pthread_mutex_unlock(&teams_lock);
  }
  if (t->workers + 1 >= size)
    return t;
  pthread_t *threads = realloc(t->threads, sizeof *threads * (size_t)(size - 1));
  if (!threads)
    return t->workers ? t : NULL;
  t->threads = threads;
  /* Workers get at least WORKER_STACK bytes of stack whatever the C
   * library's default (musl's is 128 KiB): a parallel iteration may keep
   * up to 64 KiB of scratch there (hodu-cpu-hoist-parallel-allocs). */
  pthread_attr_t attr;
  int have_attr = pthread_attr_init(&attr) == 0;
  size_t stack = 0;
  if (have_attr && pthread_attr_getstacksize(&attr, &stack) == 0 &&
      stack < WORKER_STACK)
    pthread_attr_setstacksize(&attr, WORKER_STACK);
  while (t->workers + 1 < size) {
    worker_start *start = malloc(sizeof *start);
    if (!start)
      break;
    start->t = t;
    start->number = t->workers + 1;
    start->generation = atomic_load_explicit(&t->generation, memory_order_acquire);
    if (pthread_create(&t->threads[t->workers], have_attr ? &attr : NULL,
                       worker, start) != 0) {
      free(start);
      break;
    }
    ++t->workers;
  }
  if (have_attr)
    pthread_attr_destroy(&attr);
  return t->workers ? t : NULL;
}

/* The threads a budget of n gives (n <= 0: OMP_NUM_THREADS or the CPUs),
 * never more than the CPUs: more threads than CPUs only take turns on
 * them. */
static int32_t threads_for(int32_t n) {
  int32_t size = n > 0 ? n : default_threads();
  return size > cpu_count() ? cpu_count() : size;
}

/* The threads the calling thread's next fork asks for: omp_set_num_threads'
 * (the run's), else OMP_NUM_THREADS or the CPUs, never more than the CPUs. */
static int32_t team_size_wanted(void) { return threads_for(requested); }

/* Whether runs choose between the team and the calling thread by
 * measurement (HODU_THREAD_ADAPT=0 turns it off), read once. */
static int adaptive(void) {
  static _Atomic int cached = -1;
  int a = atomic_load_explicit(&cached, memory_order_relaxed);
  if (a < 0) {
    const char *env = getenv("HODU_THREAD_ADAPT");
    a = !(env && env[0] == '0' && env[1] == 0);
    atomic_store_explicit(&cached, a, memory_order_relaxed);
  }
  return a;
}

/* The entry of `key` in table[n] for `size` threads, or NULL when the
 * table is full. */
static model_choice *choice_of(model_choice *table, unsigned n,
                               const void *key, int32_t size) {
  uintptr_t h = (uintptr_t)key;
  h ^= h >> 17;
  h *= (uintptr_t)0x9E3779B97F4A7C15u;
  for (unsigned probe = 0; probe < 16 && probe < n; ++probe) {
    model_choice *r = &table[(h + probe) % n];
    if (r->size && r->key != key)
      continue;
    if (r->size != size) { /* new, or the run's thread count changed */
      memset(r, 0, sizeof *r);
      r->key = key;
      r->size = size;
      r->team = 1;
    }
    return r;
  }
  return NULL;
}

/* Whether this run of r's model takes the team (1) or the calling thread
 * alone (0). A model's first WARM runs take the team (they make it and
 * warm its threads' caches and stacks: not counted); the next 2 * TRIALS
 * alternate, the team first, and the choice is the team only if the
 * median of its runs was at least 5% below the median alone: the median
 * is what an application gets, and on a VM the team's runs can be
 * two-faced (the CNN: 4.4 ms at best, 5.8 ms in the median, 5.5 ms
 * alone). Then the other way runs TRIALS times (the first not counted:
 * cold) at runs 16, 32, 64 and 128 and every RECHECK runs after, so that
 * an early wrong choice (16 threads whose first runs were slow) and a
 * change of the machine's state move it back: on this project's 2-vCPU
 * VM the same 2-thread runs were 1.5x faster in some hours than in others;
 * in the slow hours a cache line took 450-610 ns between the vCPUs, data
 * the other core wrote was read at memory speed (28 against 64-105 GB/s)
 * and two threads ran small models slower than one, ONNX Runtime's too. A model whose forks, joins
 * and data transfers cost more than its threads save thus runs on one,
 * and no model is slower with more threads than with one (issue #48). */
static int choose_team(const model_choice *r) {
  if (r->runs < WARM)
    return 1;
  if (r->runs < EXPLORE)
    return (r->runs - WARM) % 2 == 0;
  return r->runs - r->check < TRIALS ? !r->team : r->team;
}

/* The median of way k's trials, which start over. */
static float trials_median(model_choice *r, int k) {
  int n = r->count[k];
  float *v = r->trials[k];
  for (int i = 1; i < n; ++i) /* insertion sort of at most TRIALS */
    for (int j = i; j > 0 && v[j - 1] > v[j]; --j) {
      float t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  r->count[k] = 0;
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void trial(model_choice *r, int k, float v) {
  if (r->count[k] < TRIALS)
    r->trials[k][r->count[k]++] = v;
}

static void decide(model_choice *r) {
  r->team = r->recent[1] < 0.95f * r->recent[0];
}

static void record(model_choice *r, int on_team, long ns) {
  float v = (float)ns;
  uint32_t n = r->runs++;
  if (n < WARM)
    return;
  if (n < EXPLORE) {
    trial(r, on_team, v);
    if (n == EXPLORE - 1) {
      r->recent[0] = trials_median(r, 0);
      r->recent[1] = trials_median(r, 1);
      decide(r);
      r->check = 16;
    }
    return;
  }
  uint32_t phase = n - r->check;
  if (phase >= TRIALS) {
    r->recent[on_team] += (v - r->recent[on_team]) * 0.125f;
    return;
  }
  if (phase > 0) /* the other way, warm */
    trial(r, on_team, v);
  if (phase == TRIALS - 1) {
    r->recent[on_team] = trials_median(r, on_team);
    decide(r);
    r->check = r->check < RECHECK ? 2 * r->check : r->check + RECHECK;
  }
}

/* The thread profile's regions: one per parallel region function, in a
 * table every forking thread adds to under a lock (taken once per fork,
 * only while the profile is on). */
enum { PROFILE_REGIONS = 1024 };
typedef struct {
  const void *fn;
  uint64_t calls, iterations;
  int32_t threads;
  double wall_ns, busy_ns, busiest_ns;
  char name[128]; /* its function's name, found when first asked */
  int named;
} profile_region;
static pthread_mutex_t profile_lock = PTHREAD_MUTEX_INITIALIZER;
static profile_region profile[PROFILE_REGIONS];
static size_t profile_count;
static uint64_t profile_dropped; /* forks of regions past the table */

static void profile_fork(const void *fn, int32_t threads, uint64_t iterations,
                         long wall, const int64_t *busy, int32_t nbusy) {
  double sum = 0, most = 0;
  for (int32_t i = 0; i < nbusy; ++i) {
    double b = busy[i] > 0 ? (double)busy[i] : 0;
    sum += b;
    most = b > most ? b : most;
  }
  pthread_mutex_lock(&profile_lock);
  profile_region *r = NULL;
  for (size_t i = 0; i < profile_count; ++i)
    if (profile[i].fn == fn) {
      r = &profile[i];
      break;
    }
  if (!r && profile_count < PROFILE_REGIONS) {
    r = &profile[profile_count++];
    memset(r, 0, sizeof *r);
    r->fn = fn;
  }
  if (r) {
    ++r->calls;
    r->iterations = iterations;
    r->threads = threads;
    r->wall_ns += (double)wall;
    r->busy_ns += sum;
    r->busiest_ns += most;
  } else {
    ++profile_dropped;
  }
  pthread_mutex_unlock(&profile_lock);
}

/* r's function's name: dladdr's, else the library file's symbol table
 * (the regions are local functions, not exported); NULL without one. */
static const char *region_name(profile_region *r) {
  if (!r->named) {
    r->named = 1;
    Dl_info info;
    if (dladdr(r->fn, &info) && info.dli_sname && info.dli_saddr == r->fn) {
      snprintf(r->name, sizeof r->name, "%s", info.dli_sname);
    } else if (info.dli_fname && info.dli_fbase) {
      hodu_elf_function_name(
          info.dli_fname,
          (uint64_t)((uintptr_t)r->fn - (uintptr_t)info.dli_fbase), r->name,
          sizeof r->name);
    }
  }
  return r->name[0] ? r->name : NULL;
}

hodu_status hodu_runtime_set_thread_profile(int32_t enable) {
  if (enable < 0)
    return hodu_make_status(HODU_INVALID_ARGUMENT,
                            "thread profile: enable must be 0 or 1, got %d",
                            (int)enable);
  pthread_mutex_lock(&profile_lock);
  if (enable) {
    profile_count = 0;
    profile_dropped = 0;
  }
  atomic_store_explicit(&profiling, enable ? 1 : 0, memory_order_relaxed);
  pthread_mutex_unlock(&profile_lock);
  return NULL;
}

size_t hodu_runtime_thread_profile(hodu_thread_region *regions,
                                   size_t capacity) {
  pthread_mutex_lock(&profile_lock);
  size_t n = profile_count;
  for (size_t i = 0; i < n && i < capacity && regions; ++i) {
    profile_region *r = &profile[i];
    hodu_thread_region *out = &regions[i];
    memset(out, 0, sizeof *out);
    out->name = region_name(r);
    out->code = r->fn;
    out->calls = r->calls;
    out->iterations = r->iterations;
    out->threads = r->threads;
    out->wall_ns = r->wall_ns;
    out->busy_ns = r->busy_ns;
    out->busiest_ns = r->busiest_ns;
  }
  pthread_mutex_unlock(&profile_lock);
  return n;
}

static int32_t hodu_kmpc_global_thread_num(void *loc) {
  (void)loc;
  return thread_number;
}

static void hodu_omp_set_num_threads(int32_t n) { requested = n > 0 ? n : 0; }

static void hodu_kmpc_fork_call(void *loc, int32_t argc, microtask fn, ...) {
  (void)loc;
  void *args[MAX_ARGS];
  if (argc < 0)
    argc = 0;
  if (argc > MAX_ARGS)
    argc = MAX_ARGS; /* hoduc refuses to compile such a fork (ThreadAPI.cpp) */
  va_list ap;
  va_start(ap, fn);
  for (int32_t i = 0; i < argc; ++i)
    args[i] = va_arg(ap, void *);
  va_end(ap);

  int32_t size = run_alone ? 1 : team_size_wanted();
  team *t = (current || size <= 1) ? NULL : team_of_size(size);
  if (t && t->workers + 1 < size)
    size = t->workers + 1;
  team *outer = current;
  int32_t outer_number = thread_number, outer_size = team_size;
  int32_t gtid = 0, btid = 0;
  /* The thread profile times forks from an application thread only (a
   * nested fork is part of its region). */
  int profiled =
      !outer && atomic_load_explicit(&profiling, memory_order_relaxed);
  long fork_start = profiled ? now_ns() : 0;
  int64_t waited = barrier_wait_ns;
  last_iterations = 0;
  if (!t) {
    /* Serially: a team of one (nested, one thread, or no threads). */
    current = NULL;
    thread_number = 0;
    team_size = 1;
    call(fn, &gtid, &btid, argc, args);
  } else {
    t->fn = fn;
    t->argc = argc;
    for (int32_t i = 0; i < argc; ++i)
      t->args[i] = args[i];
    t->active = size;
    atomic_store_explicit(&t->pending, (uint32_t)t->workers,
                          memory_order_relaxed);
    atomic_store_explicit(&t->arrived, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&t->generation, 1, memory_order_seq_cst);
    wake_sleepers(&t->generation, &t->sleepers);
    current = t;
    thread_number = 0;
    team_size = size;
    call(fn, &gtid, &btid, argc, args);
    if (profiled)
      t->busy[0].busy_ns = now_ns() - fork_start - (barrier_wait_ns - waited);
    /* Wait for the workers of this fork. */
    uint32_t left;
    while ((left = atomic_load_explicit(&t->pending, memory_order_acquire)))
      wait_change(&t->pending, left, t);
  }
  if (profiled) {
    long wall = now_ns() - fork_start;
    int64_t alone = wall - (barrier_wait_ns - waited);
    int64_t busy[PROFILED_THREADS];
    int32_t n = t ? (size < PROFILED_THREADS ? size : PROFILED_THREADS) : 1;
    busy[0] = t ? t->busy[0].busy_ns : alone;
    for (int32_t i = 1; i < n; ++i)
      busy[i] = t->busy[i].busy_ns;
    profile_fork((const void *)fn, t ? size : 1, last_iterations, wall, busy,
                 n);
  }
  current = outer;
  thread_number = outer_number;
  team_size = outer_size;
}

static void hodu_kmpc_barrier(void *loc, int32_t gtid) {
  (void)loc;
  (void)gtid;
  team *t = current;
  if (!t || team_size <= 1)
    return;
  uint32_t generation =
      atomic_load_explicit(&t->barrier_generation, memory_order_acquire);
  if (atomic_fetch_add_explicit(&t->arrived, 1, memory_order_acq_rel) ==
      team_size - 1) {
    atomic_store_explicit(&t->arrived, 0, memory_order_relaxed);
    atomic_fetch_add_explicit(&t->barrier_generation, 1, memory_order_seq_cst);
    wake_sleepers(&t->barrier_generation, &t->sleepers);
    return;
  }
  if (atomic_load_explicit(&profiling, memory_order_relaxed)) {
    long begin = now_ns();
    wait_change(&t->barrier_generation, generation, t);
    barrier_wait_ns += now_ns() - begin;
    return;
  }
  wait_change(&t->barrier_generation, generation, t);
}

/* libomp's schedule numbers: static chunked and static (balanced). */
enum { SCHEDULE_STATIC_CHUNKED = 33, SCHEDULE_STATIC = 34 };

/* This thread's part of the loop lower..upper (inclusive) by incr: libomp's
 * static schedules, computed on unsigned 64-bit trip counts. */
#define STATIC_INIT(NAME, T, UT, ST)                                           \
  static void NAME(void *loc, int32_t gtid, int32_t schedule, int32_t *last,   \
                   T *lower, T *upper, ST *stride, ST incr, ST chunk) {        \
    (void)loc;                                                                 \
    (void)gtid;                                                                \
    int32_t n = team_size, id = thread_number;                                 \
    if (incr == 0)                                                             \
      incr = 1;                                                                \
    if (incr > 0 ? *upper < *lower : *lower < *upper) {                        \
      *last = 0; /* a loop of no iterations */                                 \
      *stride = incr;                                                          \
      return;                                                                  \
    }                                                                          \
    UT trips = incr > 0 ? (UT)(*upper - *lower) / (UT)incr + 1                 \
                        : (UT)(*lower - *upper) / (UT)(-incr) + 1;             \
    last_iterations = (uint64_t)trips;                                         \
    if (n <= 1) {                                                              \
      *last = 1;                                                               \
      *stride = incr > 0 ? *upper - *lower + 1 : -(*lower - *upper + 1);       \
      return;                                                                  \
    }                                                                          \
    if (schedule == SCHEDULE_STATIC_CHUNKED && chunk > 0) {                    \
      T span = chunk * incr;                                                   \
      *stride = span * n;                                                      \
      *lower += span * id;                                                     \
      *upper = *lower + span - incr;                                           \
      *last = (int32_t)(((trips - 1) / (UT)chunk) % (UT)n == (UT)id);          \
      return;                                                                  \
    }                                                                          \
    if (trips < (UT)n) {                                                       \
      *last = (UT)id == trips - 1;                                             \
      if ((UT)id < trips)                                                      \
        *upper = *lower = *lower + (T)id * incr;                               \
      else                                                                     \
        *lower = *upper + (incr > 0 ? 1 : -1);                                 \
    } else {                                                                   \
      UT small = trips / (UT)n, extra = trips % (UT)n;                         \
      UT before = (UT)id * small + ((UT)id < extra ? (UT)id : extra);          \
      UT mine = small + ((UT)id < extra ? 1 : 0);                              \
      *lower += (T)before * incr;                                              \
      *upper = *lower + (T)(mine - 1) * incr;                                  \
      *last = id == n - 1;                                                     \
    }                                                                          \
    *stride = (T)trips * incr;                                                 \
  }

STATIC_INIT(static_init_4, int32_t, uint32_t, int32_t)
STATIC_INIT(static_init_4u, uint32_t, uint32_t, int32_t)
STATIC_INIT(static_init_8, int64_t, uint64_t, int64_t)
STATIC_INIT(static_init_8u, uint64_t, uint64_t, int64_t)

static void hodu_kmpc_for_static_fini(void *loc, int32_t gtid) {
  (void)loc;
  (void)gtid;
}

void hodu_threads_run_begin(const void *model, int32_t threads) {
  if (run_depth++ != 0)
    return;
  /* The whole run on one thread or on the team, by measurement
   * (choose_team). Per kernel it measured worse: what one kernel's choice
   * costs the next (data the other core wrote, read at memory speed
   * there) shows only in the whole run's time. */
  int32_t size = threads_for(threads);
  run_model = size > 1 && model && adaptive()
                  ? choice_of(models, MODELS, model, size)
                  : NULL;
  run_alone = run_model ? !choose_team(run_model) : 0;
  run_start = run_model ? now_ns() : 0;
  if (own_team && workers_pause())
    atomic_store_explicit(&own_team->in_run, 1, memory_order_relaxed);
}

/* In a child made by fork, only the calling thread exists: its team's
 * workers stayed in the parent. Forget every team (their memory is left
 * behind), so that the child's first run makes a team of its own. */
void hodu_threads_after_fork(void) {
  own_team = NULL;
  current = NULL;
  team_size = 1;
  thread_number = 0;
  run_depth = 0;
  run_model = NULL;
  run_alone = 0;
  pthread_mutex_init(&teams_lock, NULL);
  teams = NULL;
  pthread_once(&exit_key_once, make_exit_key);
  pthread_setspecific(exit_key, NULL);
}

void hodu_threads_run_end(void) {
  if (run_depth != 1) {
    --run_depth;
    return;
  }
  /* Whether the workers waited through this run for the next fork (asked
   * while the run is still counted). */
  int kept = workers_pause();
  run_depth = 0;
  long end = now_ns();
  if (run_model)
    record(run_model, !run_alone, end - run_start);
  run_model = NULL;
  run_alone = 0;
  if (!own_team)
    return;
  /* The workers keep pausing for WAIT_NS after the last run that may
   * fork again soon. A run alone does not count: back-to-back runs that
   * libhodurt chose to run alone would otherwise keep every worker
   * pausing, a whole CPU each, for as long as they come (Silero VAD,
   * 20 us a run alone on two threads: 4.0 s of CPU in 2.1 s). They sleep
   * instead, and the next run on the team wakes them. */
  if (kept)
    atomic_store_explicit(&own_team->run_end_ns, end, memory_order_relaxed);
  /* Written only when it changes: the workers read this line. */
  if (atomic_load_explicit(&own_team->in_run, memory_order_relaxed))
    atomic_store_explicit(&own_team->in_run, 0, memory_order_relaxed);
}

void hodu_fill_thread_api(void *library) {
  void **api = dlsym(library, HODU_THREAD_API_SYMBOL);
  if (!api)
    return; /* single-threaded code, or code linked with libomp */
  api[HODU_THREAD_FORK_CALL] = (void *)hodu_kmpc_fork_call;
  api[HODU_THREAD_STATIC_INIT_4] = (void *)static_init_4;
  api[HODU_THREAD_STATIC_INIT_4U] = (void *)static_init_4u;
  api[HODU_THREAD_STATIC_INIT_8] = (void *)static_init_8;
  api[HODU_THREAD_STATIC_INIT_8U] = (void *)static_init_8u;
  api[HODU_THREAD_STATIC_FINI] = (void *)hodu_kmpc_for_static_fini;
  api[HODU_THREAD_BARRIER] = (void *)hodu_kmpc_barrier;
  api[HODU_THREAD_GLOBAL_THREAD_NUM] = (void *)hodu_kmpc_global_thread_num;
  api[HODU_THREAD_SET_NUM_THREADS] = (void *)hodu_omp_set_num_threads;
}
