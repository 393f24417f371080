/* fuzz_capi: a seeded mutation fuzzer for the runtime's C ABI.
 *
 * It builds valid inputs (GraphDefs the runtime exports and the frozen fixtures,
 * AttrValue / TensorShapeProto / TensorProto bytes of every kind, op spec strings,
 * tensor dims), mutates them (bit flips, truncation, insertion, length-field
 * corruption, splicing, duplication), and passes each result to the C functions that
 * take caller bytes. Every call must either succeed or set a non-OK TF_Status with a
 * message; a crash, a sanitizer report, a leak or an empty error message is a finding.
 * Successful imports must also survive a round trip (export, import again).
 *
 *   fuzz_capi [--seed N] [--iterations N] [--start N] [--timeout S] [--no-run] [--verbose]
 *             [FIXTURE.pb ...]
 *
 * --no-run leaves out what runs kernels (TF_SessionRun on imported graphs, TFE_Execute),
 * to keep a long run on the parsers and graph building.
 * Iteration i draws all its randomness from (seed, i), so `--start i --iterations 1`
 * replays one input. Build and run instructions: tools/fuzz/README.md. */
#define _DEFAULT_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/eager/c_api.h"
#include "tensorflow/c/ops.h"

/* Under AddressSanitizer, a huge allocation fails (NULL / std::bad_alloc) instead of
 * ending the run: the runtime must report it, as it would on a machine out of memory.
 * ASAN_OPTIONS in the environment still overrides these. */
const char* __asan_default_options(void);
const char* __asan_default_options(void) {
  return "allocator_may_return_null=1:max_allocation_size_mb=1024:detect_leaks=1";
}

/* A runtime built for the coverage-guided targets (-DOPGEN_FUZZ_COVERAGE=ON) calls this in
 * every basic block; this fuzzer is not guided by it (driver.c is). */
__attribute__((weak)) void __sanitizer_cov_trace_pc(void) {}

/* ---- Randomness: one stream per iteration, from (seed, iteration) ------------------- */

static uint64_t rng;

static uint64_t splitmix(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static uint64_t next_u64(void) { return splitmix(&rng); }
static uint32_t below(uint32_t n) { return n == 0 ? 0 : (uint32_t)(next_u64() % n); }
static bool one_in(uint32_t n) { return below(n) == 0; }

/* ---- Failure reporting ---------------------------------------------------------------- */

static uint64_t g_seed, g_iteration;
static const char* g_target = "setup";

static void die(const char* what, const char* detail) {
  fprintf(stderr, "fuzz_capi: FAILURE in %s at seed %llu iteration %llu: %s%s%s\n", g_target,
          (unsigned long long)g_seed, (unsigned long long)g_iteration, what,
          detail ? ": " : "", detail ? detail : "");
  fprintf(stderr, "replay: fuzz_capi --seed %llu --start %llu --iterations 1\n",
          (unsigned long long)g_seed, (unsigned long long)g_iteration);
  abort();
}

static void on_timeout(int sig) {
  (void)sig;
  static const char msg[] = "fuzz_capi: FAILURE: one input ran past the time limit\n";
  if (write(2, msg, sizeof msg - 1) < 0) { /* nothing more to do */ }
  die("timeout", NULL);
}

/* A failed call must say why. Returns whether the call succeeded. */
static bool status_ok(TF_Status* s, const char* call) {
  if (TF_GetCode(s) == TF_OK) return true;
  const char* m = TF_Message(s);
  if (m == NULL || m[0] == '\0') die(call, "error status with an empty message");
  return false;
}

/* ---- Byte strings and the protobuf wire format ------------------------------------------ */

typedef struct {
  uint8_t* data;
  size_t len, cap;
} Bytes;

static void put(Bytes* b, const void* p, size_t n) {
  if (b->len + n > b->cap) {
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + n) cap *= 2;
    b->data = realloc(b->data, cap);
    if (b->data == NULL) die("out of memory", NULL);
    b->cap = cap;
  }
  if (n) memcpy(b->data + b->len, p, n);
  b->len += n;
}
static void put_byte(Bytes* b, uint8_t c) { put(b, &c, 1); }
static void put_varint(Bytes* b, uint64_t v) {
  while (v >= 0x80) {
    put_byte(b, (uint8_t)(v | 0x80));
    v >>= 7;
  }
  put_byte(b, (uint8_t)v);
}
static void put_tag(Bytes* b, int field, int wire) { put_varint(b, ((uint64_t)field << 3) | (uint64_t)wire); }
static void field_varint(Bytes* b, int field, uint64_t v) { put_tag(b, field, 0); put_varint(b, v); }
static void field_bytes(Bytes* b, int field, const void* p, size_t n) {
  put_tag(b, field, 2);
  put_varint(b, n);
  put(b, p, n);
}
static void field_str(Bytes* b, int field, const char* s) { field_bytes(b, field, s, strlen(s)); }
/* Appends `msg` as a length-delimited field and frees it. */
static void field_msg(Bytes* b, int field, Bytes* msg) {
  field_bytes(b, field, msg->data, msg->len);
  free(msg->data);
  *msg = (Bytes){0};
}
static void field_fixed32(Bytes* b, int field, float f) {
  uint32_t bits;
  memcpy(&bits, &f, 4);
  put_tag(b, field, 5);
  for (int i = 0; i < 4; ++i) put_byte(b, (uint8_t)(bits >> (8 * i)));
}
static Bytes copy_bytes(const Bytes* b) {
  Bytes c = {0};
  put(&c, b->data, b->len);
  return c;
}

/* TensorShapeProto: dims (field 2, each a Dim with size = field 1), unknown_rank = 3. */
static Bytes shape_proto(const int64_t* dims, int n, bool unknown_rank) {
  Bytes s = {0};
  for (int i = 0; i < n; ++i) {
    Bytes dim = {0};
    field_varint(&dim, 1, (uint64_t)dims[i]);
    if (i == 0 && n > 2) field_str(&dim, 2, "batch"); /* a dim name, which readers skip */
    field_msg(&s, 2, &dim);
  }
  if (unknown_rank) field_varint(&s, 3, 1);
  return s;
}

/* TensorProto: dtype = 1, tensor_shape = 2, tensor_content = 4; typed values appended
 * by the caller. */
static Bytes tensor_proto_head(int dtype, const int64_t* dims, int n) {
  Bytes t = {0};
  field_varint(&t, 1, (uint64_t)dtype);
  Bytes shape = shape_proto(dims, n, false);
  field_msg(&t, 2, &shape);
  return t;
}
static Bytes tensor_proto_content(int dtype, const int64_t* dims, int n, const void* data, size_t len) {
  Bytes t = tensor_proto_head(dtype, dims, n);
  field_bytes(&t, 4, data, len);
  return t;
}

/* AttrValue: list = 1, s = 2, i = 3, f = 4, b = 5, type = 6, shape = 7, tensor = 8,
 * placeholder = 9, func = 10. */
static Bytes attr_wrap(int field, Bytes* inner) {
  Bytes a = {0};
  field_msg(&a, field, inner);
  return a;
}

/* NodeDef: name = 1, op = 2, input = 3, device = 4, attr = 5 (map entries key 1, value 2). */
static void node_attr(Bytes* node, const char* key, Bytes* value) {
  Bytes entry = {0};
  field_str(&entry, 1, key);
  field_msg(&entry, 2, value);
  field_msg(node, 5, &entry);
}
static Bytes attr_type(int t) { Bytes a = {0}; field_varint(&a, 6, (uint64_t)t); return a; }
static Bytes attr_int(int64_t v) { Bytes a = {0}; field_varint(&a, 3, (uint64_t)v); return a; }

/* ---- The seed corpus ---------------------------------------------------------------------- */

enum Kind { K_GRAPH_DEF, K_ATTR_VALUE, K_SHAPE, K_TENSOR, K_OP_SPEC, K_DIMS, K_COUNT };
static const char* const kKindNames[K_COUNT] = {"GraphDef", "AttrValue", "TensorShapeProto",
                                                "TensorProto", "op spec", "tensor dims"};

#define MAX_SEEDS 256
typedef struct {
  enum Kind kind;
  Bytes bytes;
} Seed;
static Seed seeds[MAX_SEEDS];
static int num_seeds;

static void add_seed(enum Kind kind, Bytes* b) {
  if (num_seeds == MAX_SEEDS) die("too many seeds", NULL);
  seeds[num_seeds].kind = kind;
  seeds[num_seeds].bytes = *b;
  ++num_seeds;
  *b = (Bytes){0};
}
static void add_seed_str(enum Kind kind, const char* s) {
  Bytes b = {0};
  put(&b, s, strlen(s));
  add_seed(kind, &b);
}

static void add_value_seeds(void) {
  static const int64_t d23[] = {2, 3}, d4[] = {4}, dunk[] = {-1, 3}, dbig[] = {1ll << 40, 1ll << 40};
  static const float f6[] = {1, 2, 3, 4, 5, 6};
  Bytes b;
  /* Shapes. */
  b = shape_proto(d23, 2, false); add_seed(K_SHAPE, &b);
  b = shape_proto(dunk, 2, false); add_seed(K_SHAPE, &b);
  b = shape_proto(NULL, 0, true); add_seed(K_SHAPE, &b);
  b = shape_proto(dbig, 2, false); add_seed(K_SHAPE, &b);
  /* Shapes every reader must refuse: a dim below -1, dims under an unknown rank, rank
   * 255 (and 254, the largest that is valid). */
  {
    static const int64_t below_unknown[] = {2, -2}, most_negative[] = {INT64_MIN};
    static int64_t ones[255];
    for (int i = 0; i < 255; ++i) ones[i] = 1;
    b = shape_proto(below_unknown, 2, false); add_seed(K_SHAPE, &b);
    b = shape_proto(most_negative, 1, false); add_seed(K_SHAPE, &b);
    b = shape_proto(d23, 2, true); add_seed(K_SHAPE, &b);
    b = shape_proto(ones, 255, false); add_seed(K_SHAPE, &b);
    b = shape_proto(ones, 254, false); add_seed(K_SHAPE, &b);
    /* Tensors with an unknown or negative dim: never a tensor's shape. */
    b = tensor_proto_head(1, dunk, 2); field_fixed32(&b, 5, 1.0f); add_seed(K_TENSOR, &b);
    b = tensor_proto_head(1, below_unknown, 2); field_fixed32(&b, 5, 1.0f); add_seed(K_TENSOR, &b);
  }
  /* Tensors: content, and each typed-value field (float 5, double 6, int 7, int64 10,
   * bool 11, half 13), packed and not. */
  b = tensor_proto_content(1, d23, 2, f6, sizeof f6); add_seed(K_TENSOR, &b);
  b = tensor_proto_head(1, d23, 2);
  { Bytes p = {0}; for (int i = 0; i < 3; ++i) { float f = (float)i; put(&p, &f, 4); } field_msg(&b, 5, &p); }
  add_seed(K_TENSOR, &b);
  b = tensor_proto_head(2, d4, 1);
  { double d = 2.5; put_tag(&b, 6, 1); put(&b, &d, 8); }
  add_seed(K_TENSOR, &b);
  b = tensor_proto_head(3, d23, 2);
  { Bytes p = {0}; put_varint(&p, 7); put_varint(&p, (uint64_t)-1); field_msg(&b, 7, &p); }
  add_seed(K_TENSOR, &b);
  b = tensor_proto_head(9, d4, 1); field_varint(&b, 10, 1ull << 40); field_varint(&b, 10, 5); add_seed(K_TENSOR, &b);
  b = tensor_proto_head(10, d4, 1); field_varint(&b, 11, 1); add_seed(K_TENSOR, &b);
  b = tensor_proto_head(19, d23, 2); field_varint(&b, 13, 0x3c00); add_seed(K_TENSOR, &b);
  b = tensor_proto_head(7, d4, 1); field_str(&b, 8, "a string"); add_seed(K_TENSOR, &b);
  b = tensor_proto_head(3, NULL, 0); field_varint(&b, 7, 42); add_seed(K_TENSOR, &b);
  b = tensor_proto_head(1, dbig, 2); field_fixed32(&b, 5, 1.0f); add_seed(K_TENSOR, &b);
  /* AttrValues of every kind. */
  b = (Bytes){0}; field_str(&b, 2, "VALID"); add_seed(K_ATTR_VALUE, &b);
  b = attr_int(-3); add_seed(K_ATTR_VALUE, &b);
  b = (Bytes){0}; field_fixed32(&b, 4, 0.5f); add_seed(K_ATTR_VALUE, &b);
  b = (Bytes){0}; field_varint(&b, 5, 1); add_seed(K_ATTR_VALUE, &b);
  b = attr_type(1); add_seed(K_ATTR_VALUE, &b);
  { Bytes s = shape_proto(dunk, 2, false); b = attr_wrap(7, &s); add_seed(K_ATTR_VALUE, &b); }
  { Bytes t = tensor_proto_content(1, d23, 2, f6, sizeof f6); b = attr_wrap(8, &t); add_seed(K_ATTR_VALUE, &b); }
  b = (Bytes){0}; field_str(&b, 9, "T"); add_seed(K_ATTR_VALUE, &b);
  { /* func: NameAttrList {name, attr map {key, AttrValue}} */
    Bytes f = {0}, entry = {0}, v = attr_int(1);
    field_str(&f, 1, "my_function");
    field_str(&entry, 1, "k");
    field_msg(&entry, 2, &v);
    field_msg(&f, 2, &entry);
    b = attr_wrap(10, &f);
    add_seed(K_ATTR_VALUE, &b);
  }
  { /* list: s 2, i 3 (packed), f 4 (packed), b 5, type 6, shape 7, tensor 8, func 9 */
    Bytes l = {0}, p = {0};
    field_str(&l, 2, "x"); field_str(&l, 2, "y");
    put_varint(&p, 1); put_varint(&p, 2); put_varint(&p, (uint64_t)-1); field_msg(&l, 3, &p);
    b = attr_wrap(1, &l); add_seed(K_ATTR_VALUE, &b);
    for (int i = 0; i < 2; ++i) { float f = (float)i; put(&p, &f, 4); }
    field_msg(&l, 4, &p);
    b = attr_wrap(1, &l); add_seed(K_ATTR_VALUE, &b);
    field_varint(&l, 5, 1); field_varint(&l, 5, 0);
    b = attr_wrap(1, &l); add_seed(K_ATTR_VALUE, &b);
    put_varint(&p, 1); put_varint(&p, 3); field_msg(&l, 6, &p);
    b = attr_wrap(1, &l); add_seed(K_ATTR_VALUE, &b);
    { Bytes s1 = shape_proto(d23, 2, false), s2 = shape_proto(NULL, 0, true);
      field_msg(&l, 7, &s1); field_msg(&l, 7, &s2); }
    b = attr_wrap(1, &l); add_seed(K_ATTR_VALUE, &b);
    { Bytes t = tensor_proto_content(1, d23, 2, f6, sizeof f6); field_msg(&l, 8, &t); }
    b = attr_wrap(1, &l); add_seed(K_ATTR_VALUE, &b);
    { Bytes f = {0}; field_str(&f, 1, "fn"); field_msg(&l, 9, &f); }
    b = attr_wrap(1, &l); add_seed(K_ATTR_VALUE, &b);
  }
  /* Op spec strings, as TF_OpDefinitionBuilder takes them. */
  static const char* const specs[] = {
      "T: {float, int32} = DT_FLOAT", "N: int >= 2", "x: N * T", "out: T", "y: float",
      "L: list(type) >= 1", "ys: L", "s: string = \"abc\"", "f: float = 1.5",
      "b: bool = true", "p: {'SAME', 'VALID'} = 'SAME'", "li: list(int) = [1, 2]",
      "sh: shape = [2, -1]", "ls: list(shape) = []", "r: Ref(T)", "t: tensor",
      "lt: list({int32, int64}) = [DT_INT32]", "min: int >= -5 = 3", "fn: func",
      "in: resource"};
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; ++i) add_seed_str(K_OP_SPEC, specs[i]);
  /* Tensor dims: bytes read as [dtype, rank, dims...] (see run_dims). */
  {
    static const int64_t dims[][4] = {{1, 2, 2, 3}, {1, 1, -1, 0}, {9, 2, 1ll << 32, 1ll << 31},
                                      {2, 3, 0, 5}};
    for (int i = 0; i < 4; ++i) {
      b = (Bytes){0};
      put(&b, dims[i], sizeof dims[i]);
      add_seed(K_DIMS, &b);
    }
  }
}

/* Hand-written GraphDefs: Consts holding typed values (not tensor_content) that feed
 * ops whose shape functions read constant inputs. */
static void add_hand_written_graphs(void) {
  static const int64_t d2[] = {2}, d3[] = {3}, d22[] = {2, 2};
  Bytes g = {0}, n, t, a;
  /* c = Const float [2,2] from one float_val (repeated); s = Const int32 [2] {4, 1};
   * r = Reshape(c, s); f = Fill(s, scalar); i = Identity(r) with ^f. */
  n = (Bytes){0}; field_str(&n, 1, "c"); field_str(&n, 2, "Const");
  t = tensor_proto_head(1, d22, 2); field_fixed32(&t, 5, 3.0f);
  a = attr_wrap(8, &t); node_attr(&n, "value", &a);
  a = attr_type(1); node_attr(&n, "dtype", &a);
  field_msg(&g, 1, &n);
  n = (Bytes){0}; field_str(&n, 1, "s"); field_str(&n, 2, "Const");
  t = tensor_proto_head(3, d2, 1); field_varint(&t, 7, 4); field_varint(&t, 7, 1);
  a = attr_wrap(8, &t); node_attr(&n, "value", &a);
  a = attr_type(3); node_attr(&n, "dtype", &a);
  field_msg(&g, 1, &n);
  n = (Bytes){0}; field_str(&n, 1, "v"); field_str(&n, 2, "Const");
  t = tensor_proto_head(1, NULL, 0); field_fixed32(&t, 5, 7.0f);
  a = attr_wrap(8, &t); node_attr(&n, "value", &a);
  a = attr_type(1); node_attr(&n, "dtype", &a);
  field_msg(&g, 1, &n);
  n = (Bytes){0}; field_str(&n, 1, "r"); field_str(&n, 2, "Reshape");
  field_str(&n, 3, "c"); field_str(&n, 3, "s:0");
  a = attr_type(1); node_attr(&n, "T", &a);
  field_msg(&g, 1, &n);
  n = (Bytes){0}; field_str(&n, 1, "f"); field_str(&n, 2, "Fill");
  field_str(&n, 3, "s"); field_str(&n, 3, "v");
  a = attr_type(1); node_attr(&n, "T", &a);
  field_msg(&g, 1, &n);
  n = (Bytes){0}; field_str(&n, 1, "i"); field_str(&n, 2, "Identity");
  field_str(&n, 3, "r"); field_str(&n, 3, "^f");
  a = attr_type(1); node_attr(&n, "T", &a);
  field_msg(&g, 1, &n);
  /* u = Unpack(Const int64 [3] from int64_val), num = 3; p = Pack(u:0, u:1, u:2). */
  n = (Bytes){0}; field_str(&n, 1, "k"); field_str(&n, 2, "Const");
  t = tensor_proto_head(9, d3, 1);
  { Bytes p = {0}; put_varint(&p, 5); put_varint(&p, 1ull << 33); field_msg(&t, 10, &p); }
  a = attr_wrap(8, &t); node_attr(&n, "value", &a);
  a = attr_type(9); node_attr(&n, "dtype", &a);
  field_msg(&g, 1, &n);
  n = (Bytes){0}; field_str(&n, 1, "u"); field_str(&n, 2, "Unpack"); field_str(&n, 3, "k");
  a = attr_int(3); node_attr(&n, "num", &a);
  a = attr_type(9); node_attr(&n, "T", &a);
  field_msg(&g, 1, &n);
  n = (Bytes){0}; field_str(&n, 1, "p"); field_str(&n, 2, "Pack");
  field_str(&n, 3, "u"); field_str(&n, 3, "u:1"); field_str(&n, 3, "u:2");
  a = attr_int(3); node_attr(&n, "N", &a);
  a = attr_type(9); node_attr(&n, "T", &a);
  field_msg(&g, 1, &n);
  /* versions {producer: 2474}, and a library message kept as bytes. */
  { Bytes v = {0}; field_varint(&v, 1, 2474); field_msg(&g, 4, &v); }
  { Bytes lib = {0}; field_str(&lib, 1, "opaque"); field_msg(&g, 2, &lib); }
  add_seed(K_GRAPH_DEF, &g);
}

/* ---- Graphs built through the C API, exported as seeds -------------------------------- */

static TF_Status* g_status;

typedef struct {
  TF_Graph* graph;
  TF_OperationDescription* desc;
} Builder;

static void begin(Builder* b, const char* type, const char* name) {
  b->desc = TF_NewOperation(b->graph, type, name);
}
static void input(Builder* b, TF_Operation* op, int index) {
  TF_Output o = {op, index};
  TF_AddInput(b->desc, o);
}
static TF_Operation* finish(Builder* b) {
  TF_Operation* op = TF_FinishOperation(b->desc, g_status);
  if (!status_ok(g_status, "building a seed graph")) die("seed graph", TF_Message(g_status));
  return op;
}
static TF_Operation* const_op(Builder* b, const char* name, TF_DataType dtype, const int64_t* dims,
                              int n, const void* data, size_t len) {
  TF_Tensor* t = TF_AllocateTensor(dtype, dims, n, len);
  if (t == NULL) die("seed tensor", name);
  if (len) memcpy(TF_TensorData(t), data, len);
  begin(b, "Const", name);
  TF_SetAttrTensor(b->desc, "value", t, g_status);
  TF_DeleteTensor(t);
  TF_SetAttrType(b->desc, "dtype", dtype);
  return finish(b);
}
static TF_Operation* i32(Builder* b, const char* name, const int32_t* v, int64_t n) {
  return const_op(b, name, TF_INT32, &n, 1, v, (size_t)n * 4);
}
static TF_Operation* i32_scalar(Builder* b, const char* name, int32_t v) {
  return const_op(b, name, TF_INT32, NULL, 0, &v, 4);
}
static TF_Operation* unary(Builder* b, const char* type, const char* name, TF_Operation* x) {
  begin(b, type, name);
  input(b, x, 0);
  return finish(b);
}
static TF_Operation* binary(Builder* b, const char* type, const char* name, TF_Operation* x,
                            TF_Operation* y) {
  begin(b, type, name);
  input(b, x, 0);
  input(b, y, 0);
  return finish(b);
}

static Bytes export_graph(TF_Graph* graph) {
  TF_Buffer* buf = TF_NewBuffer();
  TF_GraphToGraphDef(graph, buf, g_status);
  if (!status_ok(g_status, "TF_GraphToGraphDef")) die("seed export", TF_Message(g_status));
  Bytes b = {0};
  put(&b, buf->data, buf->length);
  TF_DeleteBuffer(buf);
  return b;
}

/* x: Placeholder float [-1, 3] -> MatMul W -> BiasAdd b -> Relu -> Softmax; a NoOp
 * after it. Kept for the session target: g_mlp, g_mlp_x, g_mlp_out. */
static TF_Graph* g_mlp;
static TF_Operation *g_mlp_x, *g_mlp_out;

static void build_mlp(void) {
  static const int64_t wd[] = {3, 2}, bd[] = {2}, xs[] = {-1, 3};
  static const float w[] = {1, -1, 0.5f, 2, -3, 0.25f}, bias[] = {0.1f, -0.2f};
  Builder b = {TF_NewGraph(), NULL};
  begin(&b, "Placeholder", "x");
  TF_SetAttrType(b.desc, "dtype", TF_FLOAT);
  TF_SetAttrShape(b.desc, "shape", xs, 2);
  TF_Operation* x = finish(&b);
  TF_Operation* mm = binary(&b, "MatMul", "mm", x, const_op(&b, "w", TF_FLOAT, wd, 2, w, sizeof w));
  TF_Operation* ba = binary(&b, "BiasAdd", "ba", mm, const_op(&b, "b", TF_FLOAT, bd, 1, bias, sizeof bias));
  TF_Operation* sm = unary(&b, "Softmax", "sm", unary(&b, "Relu", "relu", ba));
  begin(&b, "NoOp", "done");
  TF_AddControlInput(b.desc, sm);
  finish(&b);
  Bytes g = export_graph(b.graph);
  add_seed(K_GRAPH_DEF, &g);
  g_mlp = b.graph;
  g_mlp_x = x;
  g_mlp_out = sm;
}

/* Ops whose shape functions read constant inputs or list attrs. */
static void build_shape_graph(void) {
  static const int64_t d23[] = {2, 3}, d4[] = {1, 4, 4, 1}, dk[] = {2, 2, 1, 1};
  static const float c6[] = {1, 2, 3, 4, 5, 6}, c16[16] = {1, 2, 3}, k4[] = {1, 1, 1, 1};
  static const int32_t s32[] = {3, 2}, pads[] = {1, 0, 0, 2}, begin3[] = {0, 1}, size3[] = {-1, 2},
                       end3[] = {2, 3}, stride3[] = {1, 1}, perm[] = {1, 0}, mult[] = {2, 1},
                       idx[] = {2, 0};
  Builder b = {TF_NewGraph(), NULL};
  TF_Operation* c = const_op(&b, "c", TF_FLOAT, d23, 2, c6, sizeof c6);
  binary(&b, "Reshape", "reshape", c, i32(&b, "shape", s32, 2));
  binary(&b, "Fill", "fill", i32(&b, "dims", s32, 2), const_op(&b, "v", TF_FLOAT, NULL, 0, c6, 4));
  /* (Inputs are made before begin(): a Builder holds one description at a time.) */
  TF_Operation* start = i32_scalar(&b, "start", 0);
  TF_Operation* limit = i32_scalar(&b, "limit", 10);
  TF_Operation* delta = i32_scalar(&b, "delta", 3);
  begin(&b, "Range", "range");
  input(&b, start, 0);
  input(&b, limit, 0);
  input(&b, delta, 0);
  finish(&b);
  binary(&b, "Tile", "tile", c, i32(&b, "multiples", mult, 2));
  int64_t pd[] = {2, 2};
  binary(&b, "Pad", "pad", c, const_op(&b, "paddings", TF_INT32, pd, 2, pads, sizeof pads));
  TF_Operation* slice_begin = i32(&b, "begin", begin3, 2);
  TF_Operation* slice_size = i32(&b, "size", size3, 2);
  begin(&b, "Slice", "slice");
  input(&b, c, 0);
  input(&b, slice_begin, 0);
  input(&b, slice_size, 0);
  finish(&b);
  TF_Operation* sb = i32(&b, "sb", begin3, 2);
  TF_Operation* se = i32(&b, "se", end3, 2);
  TF_Operation* ss = i32(&b, "ss", stride3, 2);
  begin(&b, "StridedSlice", "strided");
  input(&b, c, 0);
  input(&b, sb, 0);
  input(&b, se, 0);
  input(&b, ss, 0);
  TF_SetAttrInt(b.desc, "shrink_axis_mask", 1);
  TF_SetAttrInt(b.desc, "new_axis_mask", 2);
  finish(&b);
  binary(&b, "ExpandDims", "expand", c, i32_scalar(&b, "axis", -1));
  binary(&b, "Transpose", "transpose", c, i32(&b, "perm", perm, 2));
  TF_Operation* caxis = i32_scalar(&b, "caxis", 1);
  begin(&b, "ConcatV2", "concat");
  TF_Output two[] = {{c, 0}, {c, 0}};
  TF_AddInputList(b.desc, two, 2);
  input(&b, caxis, 0);
  finish(&b);
  begin(&b, "Pack", "pack");
  TF_AddInputList(b.desc, two, 2);
  TF_SetAttrInt(b.desc, "axis", 1);
  finish(&b);
  begin(&b, "Unpack", "unpack");
  input(&b, c, 0);
  TF_SetAttrInt(b.desc, "num", 2);
  finish(&b);
  TF_Operation* indices = i32(&b, "indices", idx, 2);
  TF_Operation* gaxis = i32_scalar(&b, "gaxis", 1);
  begin(&b, "GatherV2", "gather");
  input(&b, c, 0);
  input(&b, indices, 0);
  input(&b, gaxis, 0);
  finish(&b);
  TF_Operation* raxis = i32_scalar(&b, "raxis", 0);
  begin(&b, "Sum", "sum");
  input(&b, c, 0);
  input(&b, raxis, 0);
  TF_SetAttrBool(b.desc, "keep_dims", 1);
  finish(&b);
  binary(&b, "ArgMax", "argmax", c, i32_scalar(&b, "dim", 1));
  TF_Operation* e0 = binary(&b, "ExpandDims", "e0", c, i32_scalar(&b, "a0", 0));
  begin(&b, "Squeeze", "squeeze");
  input(&b, e0, 0);
  int64_t sq[] = {0};
  TF_SetAttrIntList(b.desc, "squeeze_dims", sq, 1);
  finish(&b);
  unary(&b, "Shape", "shape_of", c);
  unary(&b, "Size", "size_of", c);
  unary(&b, "Rank", "rank_of", c);
  begin(&b, "Cast", "cast");
  input(&b, c, 0);
  TF_SetAttrType(b.desc, "DstT", TF_INT32);
  finish(&b);
  TF_Operation* img = const_op(&b, "img", TF_FLOAT, d4, 4, c16, sizeof c16);
  TF_Operation* kernel = const_op(&b, "kernel", TF_FLOAT, dk, 4, k4, sizeof k4);
  int64_t ones[] = {1, 1, 1, 1}, pool[] = {1, 2, 2, 1};
  begin(&b, "Conv2D", "conv");
  input(&b, img, 0);
  input(&b, kernel, 0);
  TF_SetAttrIntList(b.desc, "strides", ones, 4);
  TF_SetAttrString(b.desc, "padding", "SAME", 4);
  finish(&b);
  for (int k = 0; k < 2; ++k) {
    begin(&b, k ? "AvgPool" : "MaxPool", k ? "avgpool" : "maxpool");
    input(&b, img, 0);
    TF_SetAttrIntList(b.desc, "ksize", pool, 4);
    TF_SetAttrIntList(b.desc, "strides", pool, 4);
    TF_SetAttrString(b.desc, "padding", "VALID", 5);
    finish(&b);
  }
  begin(&b, "AddN", "addn");
  TF_Output three[] = {{c, 0}, {c, 0}, {c, 0}};
  TF_AddInputList(b.desc, three, 3);
  finish(&b);
  TF_Operation* ct = unary(&b, "Identity", "ct", binary(&b, "Transpose", "t2", c, i32(&b, "perm2", perm, 2)));
  binary(&b, "BatchMatMulV2", "bmm", c, ct);
  TF_Operation* gt = binary(&b, "Greater", "gt", c, c);
  begin(&b, "SelectV2", "select");
  input(&b, gt, 0);
  input(&b, c, 0);
  input(&b, c, 0);
  finish(&b);
  begin(&b, "PlaceholderWithDefault", "pwd");
  input(&b, c, 0);
  TF_SetAttrType(b.desc, "dtype", TF_FLOAT);
  TF_SetAttrShape(b.desc, "shape", d23, 2);
  finish(&b);
  Bytes g = export_graph(b.graph);
  add_seed(K_GRAPH_DEF, &g);
  TF_DeleteGraph(b.graph);
}

static void add_fixture(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) die("cannot open fixture", path);
  Bytes b = {0};
  uint8_t chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) put(&b, chunk, n);
  fclose(f);
  add_seed(K_GRAPH_DEF, &b);
}

/* ---- Mutations ------------------------------------------------------------------------------ */

static const uint64_t kInterestingVarints[] = {
    0, 1, 2, 0x7f, 0x80, 0xff, 0x3fff, 0x4000, 0x7fffffff, 0x80000000ull, 0xffffffffull,
    0x100000000ull, 1ull << 40, 0x7fffffffffffffffull, 0x8000000000000000ull, ~0ull,
    (uint64_t)-2, (uint64_t)-1000};

static uint64_t interesting_varint(void) {
  return kInterestingVarints[below(sizeof kInterestingVarints / sizeof kInterestingVarints[0])];
}

/* Replaces b[pos, pos+old_len) with `with`. */
static void splice_in(Bytes* b, size_t pos, size_t old_len, const uint8_t* with, size_t n) {
  Bytes out = {0};
  put(&out, b->data, pos);
  put(&out, with, n);
  put(&out, b->data + pos + old_len, b->len - pos - old_len);
  free(b->data);
  *b = out;
}

/* Length of the varint at b[pos], or 0 if none ends inside b. */
static size_t varint_len(const Bytes* b, size_t pos) {
  for (size_t i = pos; i < b->len && i - pos < 10; ++i)
    if (!(b->data[i] & 0x80)) return i - pos + 1;
  return 0;
}

/* Overwrites 4 or 8 bytes at `pos` (when they fit) with an interesting little-endian
 * integer: the elements of tensor_content, packed fixed values. */
static void put_interesting_word(Bytes* b, size_t pos) {
  static const int64_t words[] = {0, 1, -1, -2, 2, 3, 0x7fffffff, -0x7fffffff - 1, 0x10000,
                                  0x7fffffffffffffff, INT64_MIN, 1ll << 32, 1ll << 40};
  int64_t v = words[below(sizeof words / sizeof words[0])];
  size_t n = one_in(2) ? 4 : 8;
  if (pos + n > b->len) return;
  if (n == 4) {
    int32_t v32 = (int32_t)v;
    memcpy(b->data + pos, &v32, 4);
  } else {
    memcpy(b->data + pos, &v, 8);
  }
}

/* Rewrites the value after a varint-typed tag (dims, dtypes, ints, enum values). */
static void rewrite_varint_value(Bytes* b) {
  for (int tries = 0; tries < 16 && b->len; ++tries) {
    size_t p = below((uint32_t)b->len);
    if ((b->data[p] & 7) != 0 || b->data[p] < 8 || (b->data[p] & 0x80) || p + 1 >= b->len) continue;
    size_t n = varint_len(b, p + 1);
    if (n == 0) continue;
    Bytes v = {0};
    put_varint(&v, one_in(3) ? (uint64_t)(int64_t)((int)below(40) - 4) : interesting_varint());
    splice_in(b, p + 1, n, v.data, v.len);
    free(v.data);
    return;
  }
}

static void mutate_once(Bytes* b, enum Kind kind) {
  size_t pos = b->len ? below((uint32_t)b->len) : 0;
  switch (below(14)) {
    case 11:
      put_interesting_word(b, pos & ~(size_t)3);
      break;
    case 12:
    case 13:
      rewrite_varint_value(b);
      break;
    case 0: /* flip a bit */
      if (b->len) b->data[pos] ^= (uint8_t)(1u << below(8));
      break;
    case 1: { /* an interesting byte */
      static const uint8_t bytes[] = {0, 0xff, 0x7f, 0x80, 0x08, 0x0a, 0x12, 0x1a, 0x22, 0x2a, 0x01};
      if (b->len) b->data[pos] = bytes[below(sizeof bytes)];
      break;
    }
    case 2: /* truncate */
      b->len = pos;
      break;
    case 3: { /* insert random bytes */
      uint8_t r[8];
      size_t n = 1 + below(8);
      for (size_t i = 0; i < n; ++i) r[i] = (uint8_t)next_u64();
      splice_in(b, pos, 0, r, n);
      break;
    }
    case 4: /* delete a range */
      if (b->len) splice_in(b, pos, below((uint32_t)(b->len - pos)) + 1, NULL, 0);
      break;
    case 5: { /* insert an interesting varint */
      Bytes v = {0};
      put_varint(&v, interesting_varint());
      splice_in(b, pos, 0, v.data, v.len);
      free(v.data);
      break;
    }
    case 6: { /* corrupt a length: find a length-delimited tag, rewrite the varint after it */
      for (size_t tries = 0; tries < 16 && b->len; ++tries) {
        size_t p = below((uint32_t)b->len);
        if ((b->data[p] & 7) != 2 || p + 1 >= b->len) continue;
        size_t n = varint_len(b, p + 1);
        if (n == 0) continue;
        uint64_t old = 0;
        for (size_t i = 0; i < n; ++i) old |= (uint64_t)(b->data[p + 1 + i] & 0x7f) << (7 * i);
        uint64_t choices[] = {old + 1, old - 1, old * 2, 0, interesting_varint(), old + below(64)};
        Bytes v = {0};
        put_varint(&v, choices[below(6)]);
        splice_in(b, p + 1, n, v.data, v.len);
        free(v.data);
        break;
      }
      break;
    }
    case 7: { /* splice with another seed, of the same kind most of the time */
      const Seed* other = &seeds[below((uint32_t)num_seeds)];
      for (int tries = 0; tries < 8 && other->kind != kind && !one_in(4); ++tries)
        other = &seeds[below((uint32_t)num_seeds)];
      size_t from = other->bytes.len ? below((uint32_t)other->bytes.len) : 0;
      size_t n = other->bytes.len - from;
      if (one_in(2)) b->len = pos; /* prefix of this + suffix of that */
      splice_in(b, pos, 0, other->bytes.data + from, n);
      break;
    }
    case 8: /* duplicate a range: repeated fields, repeated nodes */
      if (b->len) {
        size_t n = below((uint32_t)(b->len - pos)) + 1;
        Bytes chunk = {0};
        put(&chunk, b->data + pos, n);
        splice_in(b, pos, 0, chunk.data, chunk.len);
        free(chunk.data);
      }
      break;
    case 9: { /* wrap everything from pos in a new length-delimited field: deeper nesting */
      Bytes w = {0};
      field_bytes(&w, 1 + (int)below(12), b->data + pos, b->len - pos);
      b->len = pos;
      put(b, w.data, w.len);
      free(w.data);
      break;
    }
    default: { /* overwrite a varint in place with an interesting one */
      size_t n = varint_len(b, pos);
      if (n == 0) break;
      Bytes v = {0};
      put_varint(&v, interesting_varint());
      splice_in(b, pos, n, v.data, v.len);
      free(v.data);
      break;
    }
  }
}

/* A mutated copy of a random seed of `kind`; a small share stay unmutated. */
static Bytes make_input(enum Kind kind) {
  int candidates[MAX_SEEDS], n = 0;
  for (int i = 0; i < num_seeds; ++i)
    if (seeds[i].kind == kind) candidates[n++] = i;
  Bytes b = copy_bytes(&seeds[candidates[below((uint32_t)n)]].bytes);
  if (one_in(16)) return b;
  int rounds = 1 + (int)below(one_in(4) ? 12 : 4);
  if (one_in(2)) {
    /* Values only: the bytes stay well-formed most of the time, so the odd numbers
     * (dims, dtypes, lengths, tensor elements) reach the checks past the parser. */
    for (int i = 0; i < rounds; ++i) {
      if (one_in(2)) rewrite_varint_value(&b);
      else if (b.len) put_interesting_word(&b, below((uint32_t)b.len) & ~(size_t)3);
    }
    return b;
  }
  for (int i = 0; i < rounds; ++i) mutate_once(&b, kind);
  return b;
}

/* ---- Targets -------------------------------------------------------------------------------- */

typedef struct {
  unsigned long long inputs, accepted;
} Counts;
static Counts counts[K_COUNT];
static bool g_run_graphs = true;
static bool g_verbose = false;

static void accepted(enum Kind kind, bool ok) {
  counts[kind].inputs++;
  if (ok) counts[kind].accepted++;
}

/* Every query on every op of `graph`; the values only need to be well-formed. */
static void inspect_graph(TF_Graph* graph) {
  size_t pos = 0;
  TF_Operation* op;
  while ((op = TF_GraphNextOperation(graph, &pos)) != NULL) {
    if (TF_OperationName(op) == NULL || TF_OperationOpType(op) == NULL) die("op without a name", NULL);
    int outputs = TF_OperationNumOutputs(op);
    for (int i = 0; i < outputs; ++i) {
      TF_Output o = {op, i};
      (void)TF_OperationOutputType(o);
      int rank = TF_GraphGetTensorNumDims(graph, o, g_status);
      status_ok(g_status, "TF_GraphGetTensorNumDims");
      if (rank > 0) {
        int64_t* dims = malloc(sizeof(int64_t) * (size_t)rank);
        TF_GraphGetTensorShape(graph, o, dims, rank, g_status);
        status_ok(g_status, "TF_GraphGetTensorShape");
        free(dims);
      }
    }
    int num_attrs = TF_OperationGetNumAttrs(op);
    for (int i = 0; i < num_attrs; ++i) {
      int len = TF_OperationGetAttrNameLength(op, i);
      if (len < 0) die("attr name length", NULL);
      char* name = calloc((size_t)len + 1, 1);
      TF_OperationGetAttrName(op, i, name, g_status);
      status_ok(g_status, "TF_OperationGetAttrName");
      TF_AttrMetadata m = TF_OperationGetAttrMetadata(op, name, g_status);
      status_ok(g_status, "TF_OperationGetAttrMetadata");
      TF_Buffer* buf = TF_NewBuffer();
      TF_OperationGetAttrValueProto(op, name, buf, g_status);
      status_ok(g_status, "TF_OperationGetAttrValueProto");
      TF_DeleteBuffer(buf);
      if (m.type == TF_ATTR_TENSOR && !m.is_list) {
        TF_Tensor* t = NULL;
        TF_OperationGetAttrTensor(op, name, &t, g_status);
        if (status_ok(g_status, "TF_OperationGetAttrTensor")) TF_DeleteTensor(t);
      } else if (m.type == TF_ATTR_SHAPE && !m.is_list) {
        buf = TF_NewBuffer();
        TF_OperationGetAttrTensorShapeProto(op, name, buf, g_status);
        status_ok(g_status, "TF_OperationGetAttrTensorShapeProto");
        TF_DeleteBuffer(buf);
      }
      free(name);
    }
    TF_Buffer* node = TF_NewBuffer();
    TF_OperationToNodeDef(op, node, g_status);
    status_ok(g_status, "TF_OperationToNodeDef");
    TF_DeleteBuffer(node);
  }
}

/* Runs one output of a random op of `graph` (consts, shapes, kernels on the values). */
static void run_some_output(TF_Graph* graph) {
  TF_Operation* ops[64];
  size_t pos = 0;
  int n = 0;
  TF_Operation* op;
  while (n < 64 && (op = TF_GraphNextOperation(graph, &pos)) != NULL) ops[n++] = op;
  if (n == 0) return;
  op = ops[below((uint32_t)n)];
  TF_SessionOptions* opts = TF_NewSessionOptions();
  TF_Session* session = TF_NewSession(graph, opts, g_status);
  TF_DeleteSessionOptions(opts);
  if (!status_ok(g_status, "TF_NewSession")) return;
  int outputs = TF_OperationNumOutputs(op);
  TF_Output fetch = {op, outputs ? (int)below((uint32_t)outputs) : 0};
  TF_Tensor* value = NULL;
  if (outputs)
    TF_SessionRun(session, NULL, NULL, NULL, 0, &fetch, &value, 1, NULL, 0, NULL, g_status);
  else
    TF_SessionRun(session, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation* const*)&op, 1,
                  NULL, g_status);
  if (status_ok(g_status, "TF_SessionRun") && outputs) {
    if (value == NULL) die("TF_SessionRun", "OK without a value");
    TF_DeleteTensor(value);
  } else if (value != NULL) {
    die("TF_SessionRun", "a value despite an error");
  }
  TF_DeleteSession(session, g_status);
  status_ok(g_status, "TF_DeleteSession");
}

static void run_graph_def(const Bytes* in) {
  TF_Graph* graph = TF_NewGraph();
  /* Something to map inputs to and depend on. */
  TF_OperationDescription* d = TF_NewOperation(graph, "Placeholder", "feed");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation* feed = TF_FinishOperation(d, g_status);
  if (!status_ok(g_status, "TF_FinishOperation")) die("placeholder", TF_Message(g_status));

  static const char* const names[] = {"x", "c", "s", "r", "mm", "u", "feed", "", "w", "sm"};
  TF_ImportGraphDefOptions* opts = TF_NewImportGraphDefOptions();
  if (one_in(3)) TF_ImportGraphDefOptionsSetPrefix(opts, one_in(2) ? "imported" : "feed");
  if (one_in(4)) TF_ImportGraphDefOptionsSetDefaultDevice(opts, one_in(2) ? "/device:CPU:0" : "??");
  if (one_in(4)) {
    TF_Output dst = {feed, one_in(4) ? 3 : 0};
    TF_ImportGraphDefOptionsAddInputMapping(opts, names[below(10)], (int)below(3) - 1, dst);
  }
  if (one_in(6)) TF_ImportGraphDefOptionsRemapControlDependency(opts, names[below(10)], feed);
  if (one_in(6)) TF_ImportGraphDefOptionsAddControlDependency(opts, feed);
  if (one_in(8)) TF_ImportGraphDefOptionsAddReturnOutput(opts, names[below(10)], (int)below(4) - 1);
  if (one_in(8)) TF_ImportGraphDefOptionsAddReturnOperation(opts, names[below(10)]);

  TF_Buffer* buf = TF_NewBufferFromString(in->data, in->len);
  TF_ImportGraphDefResults* results = NULL;
  switch (below(3)) {
    case 0:
      results = TF_GraphImportGraphDefWithResults(graph, buf, opts, g_status);
      if ((results != NULL) != (TF_GetCode(g_status) == TF_OK)) die("import", "results vs status");
      break;
    case 1:
      TF_GraphImportGraphDef(graph, buf, opts, g_status);
      break;
    default: {
      int n = TF_ImportGraphDefOptionsNumReturnOutputs(opts);
      TF_Output outs[4];
      TF_GraphImportGraphDefWithReturnOutputs(graph, buf, opts, outs, n, g_status);
      break;
    }
  }
  TF_DeleteBuffer(buf);
  TF_DeleteImportGraphDefOptions(opts);
  bool ok = status_ok(g_status, "TF_GraphImportGraphDef");
  accepted(K_GRAPH_DEF, ok);
  if (g_verbose && !ok) fprintf(stderr, "  import: %s\n", TF_Message(g_status));
  if (results != NULL) {
    int n;
    TF_Output* outs;
    TF_Operation** opers;
    const char** missing;
    int* indexes;
    TF_ImportGraphDefResultsReturnOutputs(results, &n, &outs);
    TF_ImportGraphDefResultsReturnOperations(results, &n, &opers);
    TF_ImportGraphDefResultsMissingUnusedInputMappings(results, &n, &missing, &indexes);
    for (int i = 0; i < n; ++i)
      if (missing[i] == NULL) die("missing input mapping without a name", NULL);
    TF_DeleteImportGraphDefResults(results);
  }
  if (ok) {
    inspect_graph(graph);
    /* What the runtime writes, it must read back. */
    Bytes again = export_graph(graph);
    TF_Graph* copy = TF_NewGraph();
    TF_Buffer* b2 = TF_NewBufferFromString(again.data, again.len);
    TF_GraphImportGraphDef(copy, b2, NULL, g_status);
    if (!status_ok(g_status, "re-import")) die("an exported graph does not import", TF_Message(g_status));
    TF_DeleteBuffer(b2);
    free(again.data);
    if (g_run_graphs && one_in(3)) run_some_output(copy);
    TF_DeleteGraph(copy);
  }
  TF_DeleteGraph(graph);
}

/* An op that takes the attr under test; names match the seeds' kinds loosely, so most
 * mutated values meet an attr of another kind as well. */
typedef struct {
  const char* op;
  const char* attr;
  int inputs; /* float inputs to add: all from one Const */
} AttrSite;
static const AttrSite kAttrSites[] = {
    {"Const", "value", 0},         {"Const", "dtype", 0},       {"Placeholder", "shape", 0},
    {"Placeholder", "dtype", 0},   {"Cast", "DstT", 1},         {"Squeeze", "squeeze_dims", 1},
    {"AvgPool", "ksize", 1},       {"MaxPool", "padding", 1},   {"Unpack", "num", 1},
    {"AddN", "N", 2},              {"StridedSlice", "shrink_axis_mask", 1},
    {"Identity", "_private", 1},   {"Identity", "T", 1},        {"BiasAdd", "data_format", 2},
};

static TF_Operation* float_const(TF_Graph* graph) {
  static const int64_t dims[] = {1, 2, 2, 1};
  static const float v[] = {1, 2, 3, 4};
  Builder b = {graph, NULL};
  return const_op(&b, "in", TF_FLOAT, dims, 4, v, sizeof v);
}

/* The attrs a site needs besides the one under test, so that good values pass. */
static void complete_site(TF_OperationDescription* d, const AttrSite* site) {
  static const int64_t ones[] = {1, 1, 1, 1};
  if (!strcmp(site->op, "Const") && strcmp(site->attr, "dtype")) TF_SetAttrType(d, "dtype", TF_FLOAT);
  if (!strcmp(site->op, "Placeholder") && strcmp(site->attr, "dtype")) TF_SetAttrType(d, "dtype", TF_FLOAT);
  if (!strcmp(site->op, "Cast") && strcmp(site->attr, "DstT")) TF_SetAttrType(d, "DstT", TF_INT32);
  if (!strcmp(site->op, "AvgPool") || !strcmp(site->op, "MaxPool")) {
    if (strcmp(site->attr, "ksize")) TF_SetAttrIntList(d, "ksize", ones, 4);
    TF_SetAttrIntList(d, "strides", ones, 4);
    if (strcmp(site->attr, "padding")) TF_SetAttrString(d, "padding", "SAME", 4);
  }
}

static TF_Operation* add_site_op(TF_Graph* graph, const AttrSite* site, const char* name,
                                 TF_Operation* in, const void* proto, size_t len, bool* set_ok) {
  TF_OperationDescription* d = TF_NewOperation(graph, site->op, name);
  if (site->inputs == 2 && !strcmp(site->op, "AddN")) {
    TF_Output two[] = {{in, 0}, {in, 0}};
    TF_AddInputList(d, two, 2);
  } else {
    for (int i = 0; i < site->inputs; ++i) TF_AddInput(d, (TF_Output){in, 0});
  }
  complete_site(d, site);
  TF_SetAttrValueProto(d, site->attr, proto, len, g_status);
  *set_ok = status_ok(g_status, "TF_SetAttrValueProto");
  TF_Operation* op = TF_FinishOperation(d, g_status);
  bool ok = status_ok(g_status, "TF_FinishOperation");
  if (ok != (op != NULL)) die("TF_FinishOperation", "result vs status");
  return op;
}

static void run_attr_value(const Bytes* in) {
  /* Any message bytes also stand in for a ConfigProto. */
  TF_SessionOptions* config = TF_NewSessionOptions();
  TF_SetConfig(config, in->data, in->len, g_status);
  status_ok(g_status, "TF_SetConfig");
  TF_DeleteSessionOptions(config);
  TF_Graph* graph = TF_NewGraph();
  TF_Operation* x = float_const(graph);
  const AttrSite* site = &kAttrSites[below(sizeof kAttrSites / sizeof kAttrSites[0])];
  bool set_ok;
  TF_Operation* op = add_site_op(graph, site, "site", x, in->data, in->len, &set_ok);
  accepted(K_ATTR_VALUE, set_ok);
  if (op != NULL) inspect_graph(graph);
  if (op != NULL && set_ok) {
    /* The value as the runtime writes it must be accepted again. */
    TF_Buffer* buf = TF_NewBuffer();
    TF_OperationGetAttrValueProto(op, site->attr, buf, g_status);
    if (!status_ok(g_status, "TF_OperationGetAttrValueProto")) die("attr read back", TF_Message(g_status));
    TF_Operation* again = add_site_op(graph, site, "again", x, buf->data, buf->length, &set_ok);
    if (!set_ok || again == NULL) die("a value the runtime wrote is refused", TF_Message(g_status));
    TF_DeleteBuffer(buf);
    if (g_run_graphs && one_in(4)) run_some_output(graph);
  }
  TF_DeleteGraph(graph);
}

static void run_shape(const Bytes* in) {
  TF_Graph* graph = TF_NewGraph();
  TF_OperationDescription* d = TF_NewOperation(graph, "Placeholder", "p");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrTensorShapeProto(d, "shape", in->data, in->len, g_status);
  bool ok = status_ok(g_status, "TF_SetAttrTensorShapeProto");
  /* The same bytes cut in pieces, as a list(shape) (a private attr: unchecked kind). */
  const void* protos[3];
  size_t lens[3];
  size_t cut1 = in->len ? below((uint32_t)in->len + 1) : 0;
  size_t cut2 = cut1 + (in->len > cut1 ? below((uint32_t)(in->len - cut1) + 1) : 0);
  protos[0] = in->data; lens[0] = cut1;
  protos[1] = in->data + cut1; lens[1] = cut2 - cut1;
  protos[2] = in->data + cut2; lens[2] = in->len - cut2;
  TF_SetAttrTensorShapeProtoList(d, "_shapes", protos, lens, 1 + (int)below(3), g_status);
  status_ok(g_status, "TF_SetAttrTensorShapeProtoList");
  accepted(K_SHAPE, ok);
  TF_Operation* op = TF_FinishOperation(d, g_status);
  if (status_ok(g_status, "TF_FinishOperation")) {
    inspect_graph(graph);
    TF_Buffer* list[3] = {NULL, NULL, NULL};
    TF_OperationGetAttrTensorShapeProtoList(op, "_shapes", list, 3, g_status);
    if (status_ok(g_status, "TF_OperationGetAttrTensorShapeProtoList"))
      for (int i = 0; i < 3; ++i) TF_DeleteBuffer(list[i]);
    int64_t storage[8], *dims[3];
    int num_dims[3];
    TF_OperationGetAttrShapeList(op, "_shapes", dims, num_dims, 3, storage, 8, g_status);
    status_ok(g_status, "TF_OperationGetAttrShapeList");
    /* Odd dims on the placeholder's output: from the bytes, with a rank from -2 to 6. */
    int rank = (int)below(9) - 2;
    int64_t set[6] = {0};
    for (int i = 0; i < 6 && (size_t)i * 8 < in->len; ++i)
      memcpy(&set[i], in->data + i * 8, in->len - (size_t)i * 8 >= 8 ? 8 : in->len - (size_t)i * 8);
    TF_GraphSetTensorShape(graph, (TF_Output){op, 0}, set, rank, g_status);
    status_ok(g_status, "TF_GraphSetTensorShape");
    TF_GraphSetTensorShape(graph, (TF_Output){op, (int)below(3) - 1}, set, rank, g_status);
    status_ok(g_status, "TF_GraphSetTensorShape");
    /* The same dims as a shape attr, through the setter without a status. */
    TF_OperationDescription* d2 = TF_NewOperation(graph, "Placeholder", "p2");
    TF_SetAttrType(d2, "dtype", TF_FLOAT);
    TF_SetAttrShape(d2, "shape", set, rank);
    TF_FinishOperation(d2, g_status);
    status_ok(g_status, "TF_FinishOperation (TF_SetAttrShape)");
  }
  TF_DeleteGraph(graph);
}

static void run_tensor(const Bytes* in) {
  Bytes attr = {0};
  field_bytes(&attr, 8, in->data, in->len);
  TF_Graph* graph = TF_NewGraph();
  TF_OperationDescription* d = TF_NewOperation(graph, "Const", "t");
  TF_SetAttrValueProto(d, "value", attr.data, attr.len, g_status);
  status_ok(g_status, "TF_SetAttrValueProto");
  static const TF_DataType dtypes[] = {TF_FLOAT, TF_INT32, TF_INT64, TF_DOUBLE, TF_BOOL, TF_HALF, TF_STRING};
  TF_DataType dtype = dtypes[below(7)];
  /* Mostly the value's own dtype (the seeds start with it): a Const whose dtype attr
   * differs is refused while the graph is built, and would keep most inputs from the
   * consumers below. */
  if (in->len >= 2 && in->data[0] == 0x08 && in->data[1] < 0x80 && !one_in(4))
    dtype = (TF_DataType)in->data[1];
  TF_SetAttrType(d, "dtype", dtype);
  TF_Operation* op = TF_FinishOperation(d, g_status);
  bool ok = status_ok(g_status, "TF_FinishOperation");
  accepted(K_TENSOR, ok);
  if (ok) {
    TF_Tensor* t = NULL;
    TF_OperationGetAttrTensor(op, "value", &t, g_status);
    if (status_ok(g_status, "TF_OperationGetAttrTensor")) TF_DeleteTensor(t);
    /* Consumers whose shape functions read the value. */
    static const char* const users[] = {"Reshape", "Fill", "Tile", "ExpandDims", "Transpose", "Range", "Pad"};
    TF_OperationDescription* u = TF_NewOperation(graph, users[below(7)], "user");
    TF_AddInput(u, (TF_Output){op, 0});
    TF_AddInput(u, (TF_Output){op, 0});
    if (one_in(2)) TF_AddInput(u, (TF_Output){op, 0});
    TF_FinishOperation(u, g_status);
    status_ok(g_status, "TF_FinishOperation (consumer)");
    inspect_graph(graph);
    if (g_run_graphs && one_in(4)) run_some_output(graph);
  }
  free(attr.data);
  TF_DeleteGraph(graph);
}

static void run_op_spec(const Bytes* in) {
  /* The bytes as a C string: up to the first NUL. */
  char* spec = calloc(in->len + 1, 1);
  if (in->len) memcpy(spec, in->data, in->len);
  /* A fresh name each time, so that a good spec registers (and is counted) rather than
   * clashing with an earlier one; now and then the name starts with the spec. */
  char name[256];
  snprintf(name, sizeof name, "%.200s%llu", one_in(8) ? spec : "FuzzSpecOp",
           (unsigned long long)g_iteration);
  TF_OpDefinitionBuilder* b = TF_NewOpDefinitionBuilder(name);
  switch (below(3)) {
    case 0: TF_OpDefinitionBuilderAddAttr(b, spec); break;
    case 1: TF_OpDefinitionBuilderAddInput(b, spec); break;
    default: TF_OpDefinitionBuilderAddOutput(b, spec); break;
  }
  if (one_in(2)) TF_OpDefinitionBuilderAddAttr(b, "T: type");
  if (one_in(2)) TF_OpDefinitionBuilderAddOutput(b, "out: T");
  if (one_in(4)) TF_OpDefinitionBuilderDeprecated(b, (int)next_u64(), spec);
  TF_RegisterOpDefinition(b, g_status);
  accepted(K_OP_SPEC, status_ok(g_status, "TF_RegisterOpDefinition"));
  free(spec);
}

static int g_deallocations;
static void count_deallocation(void* data, size_t len, void* arg) {
  (void)len;
  (void)arg;
  free(data);
  ++g_deallocations;
}

/* Bytes as [dtype, rank, dims...] (int64 each): tensors, eager attrs and graph shapes. */
static void run_dims(const Bytes* in) {
  int64_t words[8] = {0};
  if (in->len) memcpy(words, in->data, in->len < sizeof words ? in->len : sizeof words);
  TF_DataType dtype = (TF_DataType)(words[0] & 0x7f);
  int rank = (int)words[1];
  if (rank > 6) rank = 6;
  const int64_t* dims = &words[2];
  /* The byte size the caller claims: right (with wrap-around), or off. */
  uint64_t len = TF_DataTypeSize(dtype);
  for (int i = 0; i < rank; ++i) len *= (uint64_t)dims[i];
  if (one_in(3)) len += below(3) - 1;
  TF_Tensor* t = TF_AllocateTensor(dtype, dims, rank, (size_t)len);
  accepted(K_DIMS, t != NULL);
  if (t != NULL && TF_TensorByteSize(t) > (1u << 20)) { /* real, but slow to copy around */
    TF_DeleteTensor(t);
    t = NULL;
  }
  size_t small = len < 4096 ? (size_t)len : 4096;
  void* data = malloc(small ? small : 1);
  g_deallocations = 0;
  TF_Tensor* n = TF_NewTensor(dtype, dims, rank, data, small, count_deallocation, NULL);
  if (n == NULL && g_deallocations != 1) die("TF_NewTensor", "refused without calling the deallocator once");
  if (n != NULL) {
    TF_DeleteTensor(n);
    if (g_deallocations != 1) die("TF_NewTensor", "deleted without calling the deallocator once");
  }
  if (t != NULL) {
    if (TF_NumDims(t) != rank) die("TF_NumDims", "differs from the rank given");
    (void)TF_TensorElementCount(t);
    /* As an attr value, in a graph and in an eager op. */
    TF_Graph* graph = TF_NewGraph();
    TF_OperationDescription* d = TF_NewOperation(graph, "Const", "t");
    TF_SetAttrTensor(d, "value", t, g_status);
    status_ok(g_status, "TF_SetAttrTensor");
    TF_SetAttrType(d, "dtype", dtype);
    TF_Operation* op = TF_FinishOperation(d, g_status);
    if (status_ok(g_status, "TF_FinishOperation")) {
      TF_GraphSetTensorShape(graph, (TF_Output){op, 0}, dims, rank, g_status);
      status_ok(g_status, "TF_GraphSetTensorShape");
      inspect_graph(graph);
    }
    TF_Tensor* view = TF_AllocateTensor(TF_UINT8, NULL, 0, 1);
    if (view != NULL) {
      TF_TensorBitcastFrom(t, (TF_DataType)(words[0] >> 8 & 0x7f), view, dims, rank, g_status);
      status_ok(g_status, "TF_TensorBitcastFrom");
      TF_DeleteTensor(view);
    }
    TF_DeleteGraph(graph);
  }
  /* Eager: a shape attr and a tensor handle with these dims. */
  TFE_ContextOptions* o = TFE_NewContextOptions();
  TFE_Context* ctx = TFE_NewContext(o, g_status);
  TFE_DeleteContextOptions(o);
  if (status_ok(g_status, "TFE_NewContext")) {
    static const char* const ops[] = {"PlaceholderWithDefault", "Reshape", "Squeeze", "Unpack", "Identity"};
    const char* name = ops[below(5)];
    TFE_Op* op = TFE_NewOp(ctx, name, g_status);
    if (status_ok(g_status, "TFE_NewOp")) {
      TFE_TensorHandle* h = NULL;
      if (t != NULL) {
        h = TFE_NewTensorHandle(t, g_status);
        if (status_ok(g_status, "TFE_NewTensorHandle")) {
          TFE_OpAddInput(op, h, g_status);
          status_ok(g_status, "TFE_OpAddInput");
          if (!strcmp(name, "Reshape")) {
            TFE_OpAddInput(op, h, g_status);
            status_ok(g_status, "TFE_OpAddInput");
          }
        }
      }
      /* The attrs of the op picked, set from the same words. */
      if (!strcmp(name, "PlaceholderWithDefault")) {
        TFE_OpSetAttrShape(op, "shape", dims, rank, g_status);
        status_ok(g_status, "TFE_OpSetAttrShape");
        TFE_OpSetAttrType(op, "dtype", dtype);
      } else if (!strcmp(name, "Squeeze")) {
        TFE_OpSetAttrIntList(op, "squeeze_dims", dims, rank < 0 ? 0 : rank);
      } else if (!strcmp(name, "Unpack")) {
        TFE_OpSetAttrInt(op, "num", dims[0]);
        TFE_OpSetAttrInt(op, "axis", dims[1]);
      }
      if (one_in(8)) { /* an attr the op does not have */
        const int64_t* shapes[2] = {dims, dims};
        int ranks[2] = {rank, rank < 0 ? 0 : rank - 1};
        TFE_OpSetAttrShapeList(op, "_shapes", shapes, ranks, 2, g_status);
        status_ok(g_status, "TFE_OpSetAttrShapeList");
      }
      TFE_TensorHandle* out[4] = {NULL, NULL, NULL, NULL};
      int num_out = 4;
      if (g_run_graphs) {
        TFE_Execute(op, out, &num_out, g_status);
        if (status_ok(g_status, "TFE_Execute"))
          for (int i = 0; i < num_out; ++i) TFE_DeleteTensorHandle(out[i]);
      }
      if (h != NULL) TFE_DeleteTensorHandle(h);
      TFE_DeleteOp(op);
    }
    TFE_DeleteContext(ctx);
  }
  if (t != NULL) TF_DeleteTensor(t);
}

/* Mismatched feeds and fetches on the MLP graph: wrong dtype, rank, size, NULL values,
 * a feed given twice, indexes out of range, an operation of another graph. */
static void run_session_misuse(void) {
  TF_SessionOptions* opts = TF_NewSessionOptions();
  if (one_in(4)) {
    static const uint8_t config[] = {0x10, 0x01, 0x2a};
    TF_SetConfig(opts, config, 1 + below(3), g_status);
    status_ok(g_status, "TF_SetConfig");
  }
  TF_Session* session = TF_NewSession(g_mlp, opts, g_status);
  TF_DeleteSessionOptions(opts);
  if (!status_ok(g_status, "TF_NewSession")) die("session", TF_Message(g_status));
  static const TF_DataType dtypes[] = {TF_FLOAT, TF_INT32, TF_DOUBLE, TF_STRING, TF_BOOL};
  int64_t dims[3] = {(int64_t)below(3), below(2) ? 3 : (int64_t)below(5), 1};
  int rank = (int)below(4);
  TF_DataType dtype = one_in(2) ? TF_FLOAT : dtypes[below(5)];
  uint64_t elements = 1;
  for (int i = 0; i < rank; ++i) elements *= (uint64_t)dims[i];
  size_t size = TF_DataTypeSize(dtype) ? TF_DataTypeSize(dtype) * elements : 8;
  TF_Tensor* value = TF_AllocateTensor(dtype, dims, rank, size);
  if (value != NULL && size) memset(TF_TensorData(value), 0, size);
  TF_Output feeds[2] = {{g_mlp_x, 0}, {g_mlp_x, one_in(4) ? 1 : 0}};
  TF_Tensor* values[2] = {one_in(8) ? NULL : value, value};
  int num_feeds = one_in(6) ? 2 : 1;
  TF_Output fetches[2] = {{g_mlp_out, one_in(6) ? (int)below(4) - 1 : 0}, {g_mlp_x, 0}};
  if (one_in(8)) fetches[1].oper = TF_GraphOperationByName(g_mlp, "done");
  int num_fetches = 1 + (int)below(2);
  TF_Tensor* outs[2] = {NULL, NULL};
  TF_SessionRun(session, NULL, feeds, values, num_feeds, fetches, outs, num_fetches, NULL, 0, NULL, g_status);
  bool ok = status_ok(g_status, "TF_SessionRun");
  for (int i = 0; i < num_fetches; ++i) {
    if (ok && outs[i] == NULL) die("TF_SessionRun", "OK with a NULL output");
    if (!ok && outs[i] != NULL) die("TF_SessionRun", "an output despite an error");
    if (outs[i] != NULL) TF_DeleteTensor(outs[i]);
  }
  if (value != NULL) TF_DeleteTensor(value);
  TF_CloseSession(session, g_status);
  TF_DeleteSession(session, g_status);
}

/* NULL for a required pointer argument of a function with a status: the status must
 * say so (INVALID_ARGUMENT), never a crash. */
static void run_null_args(void) {
  TF_Graph* graph = TF_NewGraph();
  TF_OperationDescription* d = TF_NewOperation(graph, "Placeholder", "p");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  const TF_Output x = {g_mlp_x, 0};
  const int64_t dims[2] = {2, 3};
  TF_DataType type;
  TFE_TensorHandle* retvals[1];
  int num_retvals = 1;
  switch (below(18)) {
    case 0: TF_FinishOperation(NULL, g_status); break;
    case 1: TF_FinishOperation(TF_NewOperation(NULL, "NoOp", "n"), g_status); break;
    case 2: TF_SetAttrValueProto(d, NULL, "", 0, g_status); break;
    case 3: TF_SetAttrValueProto(d, "shape", NULL, 3, g_status); break;
    case 4: TF_SetAttrTensorShapeProto(d, "shape", NULL, 3, g_status); break;
    case 5: TF_SetAttrTensor(d, "value", NULL, g_status); break;
    case 6: TF_OperationGetAttrType(NULL, "dtype", &type, g_status); break;
    case 7: TF_OperationGetAttrType(g_mlp_x, NULL, &type, g_status); break;
    case 8: TF_OperationGetAttrType(g_mlp_x, "dtype", NULL, g_status); break;
    case 9: TF_OperationGetAttrValueProto(g_mlp_x, "dtype", NULL, g_status); break;
    case 10: TF_GraphGetTensorNumDims(NULL, x, g_status); break;
    case 11: TF_GraphSetTensorShape(g_mlp, x, NULL, 2, g_status); break;
    case 12: TF_GraphToGraphDef(graph, NULL, g_status); break;
    case 13: TF_GraphImportGraphDef(graph, NULL, NULL, g_status); break;
    case 14: TF_SessionRun(NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, g_status); break;
    case 15: TFE_NewOp(NULL, "Identity", g_status); break;
    case 16: TFE_Execute(NULL, retvals, &num_retvals, g_status); break;
    default: TF_TensorBitcastFrom(NULL, TF_FLOAT, NULL, dims, 2, g_status); break;
  }
  if (status_ok(g_status, "a call with a NULL argument") || TF_GetCode(g_status) != TF_INVALID_ARGUMENT)
    die("a NULL argument", "not reported as INVALID_ARGUMENT");
  TF_FinishOperation(d, g_status);
  status_ok(g_status, "TF_FinishOperation");
  TF_DeleteGraph(graph);
}

/* TF_LoadLibrary of files that are not libraries: text, an empty file, a truncated ELF
 * header, a folder, a missing path. Once per run: the runtime remembers failed paths. */
static void run_load_library_once(void) {
  g_target = "TF_LoadLibrary";
  const char* tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  /* text, empty, and the first bytes of a 64-bit ELF header */
  static const char contents[3][16] = {"not a library\n", "", "\x7f" "ELF\x02\x01\x01"};
  static const size_t sizes[3] = {14, 0, 16};
  for (int i = 0; i < 3; ++i) {
    char path[4096];
    snprintf(path, sizeof path, "%s/fuzz_capi_lib_XXXXXX", tmp);
    int fd = mkstemp(path);
    if (fd < 0) continue;
    if (write(fd, contents[i], sizes[i]) < 0) { /* the load fails either way */ }
    close(fd);
    TF_Library* lib = TF_LoadLibrary(path, g_status);
    if (status_ok(g_status, "TF_LoadLibrary") || lib != NULL) die("TF_LoadLibrary", "loaded a non-library");
    unlink(path);
  }
  const char* others[] = {tmp, "/nonexistent/fuzz_capi.so", ""};
  for (int i = 0; i < 3; ++i) {
    TF_Library* lib = TF_LoadLibrary(others[i], g_status);
    if (status_ok(g_status, "TF_LoadLibrary") || lib != NULL) die("TF_LoadLibrary", others[i]);
  }
}

/* ---- Driver --------------------------------------------------------------------------------- */

static void one_iteration(void) {
  uint32_t pick = below(100);
  enum Kind kind = pick < 40 ? K_GRAPH_DEF : pick < 58 ? K_ATTR_VALUE : pick < 68 ? K_SHAPE
                 : pick < 80 ? K_TENSOR : pick < 88 ? K_OP_SPEC : pick < 96 ? K_DIMS : K_COUNT;
  if (kind == K_COUNT) {
    g_target = pick < 98 ? "session misuse" : "NULL arguments";
    if (pick < 98) run_session_misuse();
    else run_null_args();
    return;
  }
  g_target = kKindNames[kind];
  Bytes in = make_input(kind);
  switch (kind) {
    case K_GRAPH_DEF: run_graph_def(&in); break;
    case K_ATTR_VALUE: run_attr_value(&in); break;
    case K_SHAPE: run_shape(&in); break;
    case K_TENSOR: run_tensor(&in); break;
    case K_OP_SPEC: run_op_spec(&in); break;
    default: run_dims(&in); break;
  }
  free(in.data);
}

int main(int argc, char** argv) {
  unsigned long long seed = 1, iterations = 10000, start = 0;
  unsigned timeout = 20;
  int num_fixtures = 0;
  const char* fixtures[16];
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--iterations") && i + 1 < argc) iterations = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--start") && i + 1 < argc) start = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) timeout = (unsigned)strtoul(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--no-run")) g_run_graphs = false;
    else if (!strcmp(argv[i], "--verbose")) g_verbose = true;
    else if (argv[i][0] != '-' && num_fixtures < 16) fixtures[num_fixtures++] = argv[i];
    else {
      fprintf(stderr, "usage: %s [--seed N] [--iterations N] [--start N] [--timeout S] [--no-run] "
                      "[--verbose] [FIXTURE.pb ...]\n", argv[0]);
      return 2;
    }
  }
#ifndef __SANITIZE_ADDRESS__
  /* Without ASan's allocation limit, cap the address space so that a tensor of
   * absurd size fails to allocate (and must be reported) instead of swapping. */
  struct rlimit cap = {(rlim_t)8 << 30, (rlim_t)8 << 30};
  setrlimit(RLIMIT_AS, &cap);
#endif
  signal(SIGALRM, on_timeout);
  g_seed = seed;
  g_status = TF_NewStatus();
  rng = seed;
  add_value_seeds();
  add_hand_written_graphs();
  build_mlp();
  build_shape_graph();
  for (int i = 0; i < num_fixtures; ++i) add_fixture(fixtures[i]);
  if (start == 0) run_load_library_once();

  for (unsigned long long i = start; i < start + iterations; ++i) {
    g_iteration = i;
    uint64_t state = seed * 0x9e3779b97f4a7c15ull ^ i;
    rng = splitmix(&state);
    if (g_verbose) fprintf(stderr, "iteration %llu\n", i);
    alarm(timeout);
    one_iteration();
  }
  alarm(0);

  printf("fuzz_capi: seed %llu, %llu inputs from %d seeds\n", seed, iterations, num_seeds);
  for (int k = 0; k < K_COUNT; ++k)
    printf("  %-17s %8llu inputs, %8llu accepted\n", kKindNames[k], counts[k].inputs, counts[k].accepted);
  TF_DeleteGraph(g_mlp);
  for (int i = 0; i < num_seeds; ++i) free(seeds[i].bytes.data);
  TF_DeleteStatus(g_status);
  return 0;
}
