// A coverage-guided driver for libFuzzer-style targets, for machines without clang.
//
// A target defines `int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)` (and
// optionally `LLVMFuzzerInitialize`), exactly as libFuzzer wants it. With clang the
// target links against libFuzzer (`-fsanitize=fuzzer`); with GCC it links against this
// file instead, and the code under test is built with `-fsanitize-coverage=trace-pc`, so
// that every basic block calls `__sanitizer_cov_trace_pc` below. The driver hashes
// (previous block, this block) pairs into a 64 KiB edge map, as AFL does, keeps each
// input that reaches an edge no earlier input reached, and mutates the kept inputs.
//
// It accepts the libFuzzer flags CI and people use: corpus files and folders (new inputs
// go into the first folder), -runs=N, -max_total_time=S, -seed=N, -max_len=N,
// -timeout=S (per input), -artifact_prefix=P. A crash (ASan/UBSan report, signal) or a
// timeout writes the input to P + "crash-<hash>" / "timeout-<hash>" and exits non-zero;
// running the binary with that file replays it.

#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
__attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);
__attribute__((weak)) void __sanitizer_set_death_callback(void (*callback)(void));

// ---- coverage ------------------------------------------------------------------------

enum { kMapSize = 1 << 16 };
static uint8_t g_edges[kMapSize];      // hits of the current input
static uint8_t g_seen[kMapSize];       // edges any kept input reached
static volatile int g_tracing;         // 0 while the driver itself runs
static __thread uintptr_t g_previous;

// Called by every basic block of code built with -fsanitize-coverage=trace-pc. Threads
// of the code under test race on the map; a lost count only costs a little guidance.
__attribute__((visibility("default"), no_sanitize_address)) void __sanitizer_cov_trace_pc(void) {
  if (!g_tracing) return;
  uintptr_t pc = (uintptr_t)__builtin_return_address(0);
  uintptr_t block = (pc ^ (pc >> 16)) * 0x9E3779B1u;
  g_edges[(block ^ g_previous) & (kMapSize - 1)]++;
  g_previous = block >> 1;
}

static size_t new_edges(void) {
  size_t found = 0;
  for (size_t i = 0; i < kMapSize; i++)
    if (g_edges[i] && !g_seen[i]) { g_seen[i] = 1; found++; }
  return found;
}

static size_t edges_seen(void) {
  size_t n = 0;
  for (size_t i = 0; i < kMapSize; i++) n += g_seen[i];
  return n;
}

// ---- randomness ----------------------------------------------------------------------

static uint64_t g_rng;
static uint64_t next_u64(void) {
  uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static size_t below(size_t n) { return n ? (size_t)(next_u64() % n) : 0; }

// ---- the corpus ----------------------------------------------------------------------

typedef struct { uint8_t* data; size_t size; } Unit;
static Unit* g_corpus;
static size_t g_corpus_size, g_corpus_capacity;

static void keep(const uint8_t* data, size_t size) {
  if (g_corpus_size == g_corpus_capacity) {
    g_corpus_capacity = g_corpus_capacity ? 2 * g_corpus_capacity : 256;
    g_corpus = realloc(g_corpus, g_corpus_capacity * sizeof(Unit));
    if (!g_corpus) { perror("realloc"); exit(2); }
  }
  uint8_t* copy = malloc(size ? size : 1);
  if (!copy) { perror("malloc"); exit(2); }
  memcpy(copy, data, size);
  g_corpus[g_corpus_size++] = (Unit){copy, size};
}

static uint64_t fnv1a(const uint8_t* data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 0x100000001b3ull;
  return h;
}

static void write_file(const char* path, const uint8_t* data, size_t size) {
  FILE* f = fopen(path, "wb");
  if (!f) return;
  if (size) fwrite(data, 1, size, f);
  fclose(f);
}

static uint8_t* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  size_t capacity = 4096, n = 0;
  uint8_t* data = malloc(capacity);
  size_t got;
  while (data && (got = fread(data + n, 1, capacity - n, f)) > 0) {
    n += got;
    if (n == capacity) data = realloc(data, capacity *= 2);
  }
  fclose(f);
  *size = n;
  return data;
}

// ---- crashes and timeouts ------------------------------------------------------------

static const uint8_t* g_current;
static size_t g_current_size;
static const char* g_artifact_prefix = "./";

static void save_current(const char* kind) {
  char path[4096];
  snprintf(path, sizeof path, "%s%s-%016llx", g_artifact_prefix, kind,
           (unsigned long long)fnv1a(g_current, g_current_size));
  write_file(path, g_current, g_current_size);
  fprintf(stderr, "==driver== %s: input of %zu bytes written to %s\n", kind,
          g_current_size, path);
}

static void on_death(void) {
  if (g_current) save_current("crash");
}

static void on_signal(int sig) {
  g_tracing = 0;
  if (g_current) save_current(sig == SIGALRM ? "timeout" : "crash");
  signal(sig, SIG_DFL);
  if (sig == SIGALRM) _exit(70);
  raise(sig);
}

// ASan defaults (ASAN_OPTIONS overrides them): an allocation sized by input that cannot
// be made must fail as on a machine out of memory, not end the run.
__attribute__((visibility("default"))) const char* __asan_default_options(void) {
  return "allocator_may_return_null=1:max_allocation_size_mb=1024:detect_leaks=1";
}

// ---- mutation ------------------------------------------------------------------------

static const uint64_t kInteresting[] = {0, 1, 2, 7, 8, 0x7f, 0x80, 0xff, 0x100, 0x7fff,
                                        0x8000, 0xffff, 0x7fffffff, 0x80000000u,
                                        0xffffffffu, 0x7fffffffffffffffull,
                                        0x8000000000000000ull, ~0ull};

static size_t mutate(uint8_t* data, size_t size, size_t max_len) {
  size_t rounds = 1 + below(6);
  for (size_t r = 0; r < rounds; r++) {
    switch (below(9)) {
      case 0:  // flip a bit
        if (size) data[below(size)] ^= (uint8_t)(1u << below(8));
        break;
      case 1:  // a random byte
        if (size) data[below(size)] = (uint8_t)next_u64();
        break;
      case 2: {  // an interesting value, 1 to 8 bytes wide
        size_t width = (size_t)1 << below(4);
        if (size >= width) {
          uint64_t v = kInteresting[below(sizeof kInteresting / sizeof *kInteresting)];
          memcpy(data + below(size - width + 1), &v, width);
        }
        break;
      }
      case 3: {  // insert random bytes
        size_t n = 1 + below(8);
        if (size + n > max_len) break;
        size_t at = below(size + 1);
        memmove(data + at + n, data + at, size - at);
        for (size_t i = 0; i < n; i++) data[at + i] = (uint8_t)next_u64();
        size += n;
        break;
      }
      case 4: {  // delete a range
        if (size < 2) break;
        size_t at = below(size), n = 1 + below(size - at);
        memmove(data + at, data + at + n, size - at - n);
        size -= n;
        break;
      }
      case 5: {  // duplicate a range (repeated fields, nodes)
        if (!size) break;
        size_t at = below(size), n = 1 + below(size - at);
        if (size + n > max_len) break;
        size_t to = below(size + 1);
        uint8_t* copy = malloc(n);
        if (!copy) break;
        memcpy(copy, data + at, n);
        memmove(data + to + n, data + to, size - to);
        memcpy(data + to, copy, n);
        free(copy);
        size += n;
        break;
      }
      case 6: {  // splice in a piece of another kept input
        if (!g_corpus_size) break;
        const Unit* other = &g_corpus[below(g_corpus_size)];
        if (!other->size) break;
        size_t from = below(other->size), n = 1 + below(other->size - from);
        size_t at = below(size + 1);
        if (at + n > max_len) n = max_len - at;
        if (at + n > size) size = at + n;
        memcpy(data + at, other->data + from, n);
        break;
      }
      case 7:  // truncate
        if (size) size = below(size);
        break;
      default: {  // a byte +- a little (lengths, counts, enum values)
        if (size) data[below(size)] += (uint8_t)(below(9) - 4);
        break;
      }
    }
  }
  return size;
}

// ---- running -------------------------------------------------------------------------

static unsigned g_timeout = 20;

static size_t run_one(const uint8_t* data, size_t size) {
  g_current = data;
  g_current_size = size;
  memset(g_edges, 0, sizeof g_edges);
  g_previous = 0;
  alarm(g_timeout);
  g_tracing = 1;
  LLVMFuzzerTestOneInput(data, size);
  g_tracing = 0;
  alarm(0);
  g_current = NULL;
  return new_edges();
}

static double seconds_since(const struct timespec* start) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - start->tv_sec) + 1e-9 * (double)(now.tv_nsec - start->tv_nsec);
}

static void load_path(const char* path, size_t max_len) {
  struct stat st;
  if (stat(path, &st) != 0) { fprintf(stderr, "no such file or folder: %s\n", path); exit(2); }
  if (S_ISDIR(st.st_mode)) {
    DIR* dir = opendir(path);
    struct dirent* entry;
    while (dir && (entry = readdir(dir)) != NULL) {
      if (entry->d_name[0] == '.') continue;
      char child[4096];
      snprintf(child, sizeof child, "%s/%s", path, entry->d_name);
      load_path(child, max_len);
    }
    if (dir) closedir(dir);
    return;
  }
  size_t size = 0;
  uint8_t* data = read_file(path, &size);
  if (!data) return;
  if (size > max_len) size = max_len;
  run_one(data, size);
  keep(data, size);  // a seed is kept even without new edges: mutations start from it
  free(data);
}

static bool flag(const char* arg, const char* name, const char** value) {
  size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  *value = arg + n + 1;
  return true;
}

int main(int argc, char** argv) {
  long long runs = -1;
  double max_total_time = 0;
  size_t max_len = 1 << 16;
  uint64_t seed = (uint64_t)time(NULL);
  const char* out_dir = NULL;
  const char** paths = calloc((size_t)argc, sizeof *paths);
  int num_paths = 0;
  for (int i = 1; i < argc; i++) {
    const char* v;
    if (flag(argv[i], "-runs", &v)) runs = atoll(v);
    else if (flag(argv[i], "-max_total_time", &v)) max_total_time = atof(v);
    else if (flag(argv[i], "-seed", &v)) seed = strtoull(v, NULL, 10);
    else if (flag(argv[i], "-max_len", &v)) max_len = (size_t)atoll(v);
    else if (flag(argv[i], "-timeout", &v)) g_timeout = (unsigned)atoi(v);
    else if (flag(argv[i], "-artifact_prefix", &v)) g_artifact_prefix = v;
    else if (argv[i][0] == '-') fprintf(stderr, "ignoring flag %s\n", argv[i]);
    else paths[num_paths++] = argv[i];
  }
  g_rng = seed;
  signal(SIGALRM, on_signal);
  signal(SIGSEGV, on_signal);
  signal(SIGBUS, on_signal);
  signal(SIGFPE, on_signal);
  signal(SIGILL, on_signal);
  signal(SIGABRT, on_signal);
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(on_death);
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);

  // A lone file and no run count: replay it (a crash report's reproducer).
  struct stat st;
  if (num_paths == 1 && runs < 0 && max_total_time == 0 && stat(paths[0], &st) == 0 &&
      S_ISREG(st.st_mode)) {
    size_t size = 0;
    uint8_t* data = read_file(paths[0], &size);
    run_one(data, size);
    printf("replayed %s (%zu bytes): no crash\n", paths[0], size);
    free(data);
    free(paths);
    return 0;
  }

  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (int i = 0; i < num_paths; i++) {
    if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode) && !out_dir) out_dir = paths[i];
    load_path(paths[i], max_len);
  }
  if (g_corpus_size == 0) { uint8_t empty = 0; run_one(&empty, 0); keep(&empty, 0); }
  size_t seeds = g_corpus_size;
  printf("#0 INITED seed %llu: %zu inputs, %zu edges\n", (unsigned long long)seed,
         seeds, edges_seen());

  uint8_t* buffer = malloc(max_len + 1);
  long long done = 0;
  double last_report = 0;
  for (; runs < 0 || done < runs; done++) {
    double elapsed = seconds_since(&start);
    if (max_total_time > 0 && elapsed >= max_total_time) break;
    if (runs < 0 && max_total_time == 0 && done >= 100000) break;
    const Unit* parent = &g_corpus[below(g_corpus_size)];
    size_t size = parent->size < max_len ? parent->size : max_len;
    memcpy(buffer, parent->data, size);
    size = mutate(buffer, size, max_len);
    if (run_one(buffer, size)) {
      keep(buffer, size);
      if (out_dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%016llx", out_dir,
                 (unsigned long long)fnv1a(buffer, size));
        write_file(path, buffer, size);
      }
    }
    if (elapsed - last_report >= 10) {
      last_report = elapsed;
      printf("#%lld cov: %zu corp: %zu exec/s: %.0f\n", done, edges_seen(), g_corpus_size,
             done / (elapsed > 0 ? elapsed : 1));
      fflush(stdout);
    }
  }
  double elapsed = seconds_since(&start);
  printf("Done %lld runs in %.0f s (%.0f exec/s): %zu edges, corpus %zu (%zu seeds)\n", done,
         elapsed, done / (elapsed > 0 ? elapsed : 1), edges_seen(), g_corpus_size, seeds);
  free(buffer);
  free(paths);
  return 0;
}
