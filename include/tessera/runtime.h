#ifndef TESSERA_RUNTIME_H
#define TESSERA_RUNTIME_H
/* The C interface between compiled pipelines and the programs that call them. Usable from C and
 * C++ with no other Tessera header and no LLVM. */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Type codes, as in tessera::Type::Code. */
typedef enum tessera_type_code_t {
    tessera_type_int = 0,
    tessera_type_uint = 1,
    tessera_type_float = 2,
    tessera_type_handle = 3
} tessera_type_code_t;

typedef struct tessera_type_t {
    uint8_t code; /* a tessera_type_code_t */
    uint8_t bits;
    uint16_t lanes;
} tessera_type_t;

typedef struct tessera_dimension_t {
    int32_t min, extent, stride; /* stride in elements */
    uint32_t flags;
} tessera_dimension_t;

/* A view of memory with a type and a shape: element (x0, x1, ...) lives at
 * host + sum_i (xi - dim[i].min) * dim[i].stride elements. */
typedef struct tessera_buffer_t {
    uint64_t device;
    const void* device_interface;
    uint8_t* host;
    uint64_t flags;
    tessera_type_t type;
    int32_t dimensions;
    tessera_dimension_t* dim;
    void* padding;
} tessera_buffer_t;

/* Error codes returned by compiled pipelines. Zero is success. */
enum tessera_error_code_t {
    tessera_error_none = 0,
    tessera_error_generic = -1,
    tessera_error_bad_type = -2,
    tessera_error_bad_dimensions = -3,
    tessera_error_buffer_too_small = -4,
    tessera_error_null_host = -5,
    tessera_error_out_of_memory = -6,
    tessera_error_bad_argument = -7,
    tessera_error_bound_violated = -8,       /* a Func's bound() is smaller than the region needed */
    tessera_error_null_buffer = -9,          /* a null tessera_buffer_t* passed for a buffer argument */
    tessera_error_param_out_of_range = -10,  /* a scalar argument outside its Param's range */
    tessera_error_access_out_of_bounds = -11 /* a load or store outside its storage (check_bounds) */
};

/* Called with the full text of every error a pipeline reports. The default prints to stderr;
 * the JIT installs its own to turn errors into exceptions. */
typedef void (*tessera_error_handler_t)(void* user_context, const char* message);
tessera_error_handler_t tessera_set_error_handler(tessera_error_handler_t handler);

/* Memory for a pipeline's intermediate buffers. Replaceable; must return 64-byte aligned memory
 * or null. */
typedef void* (*tessera_malloc_t)(void* user_context, uint64_t size);
typedef void (*tessera_free_t)(void* user_context, void* ptr);
void tessera_set_custom_allocator(tessera_malloc_t malloc_fn, tessera_free_t free_fn);

/* The number of threads parallel loops use, the calling thread included (0: the default,
 * TESSERA_NUM_THREADS if set, else the core count). Takes effect at the next parallel loop that
 * starts while no other runs. Returns the previous setting. */
int tessera_set_num_threads(int n);

/* Entry points called by generated code. */
void* tessera_malloc(void* user_context, uint64_t size);
void tessera_free(void* user_context, void* ptr);
void tessera_error_begin(void* user_context);
void tessera_error_append_string(void* user_context, const char* s);
void tessera_error_append_int(void* user_context, int64_t x);
void tessera_error_append_uint(void* user_context, uint64_t x);
void tessera_error_append_float(void* user_context, double x);
int32_t tessera_error_end(void* user_context, int32_t code);
void tessera_print_begin(void* user_context);
void tessera_print_append_string(void* user_context, const char* s);
void tessera_print_append_int(void* user_context, int64_t x);
void tessera_print_append_uint(void* user_context, uint64_t x);
void tessera_print_append_float(void* user_context, double x);
void tessera_print_end(void* user_context);

/* One iteration of a parallel loop: the body of the loop at `index`, with the values it uses from
 * the enclosing code in `closure`. Returns 0, or the error code it has already reported. */
typedef int32_t (*tessera_task_t)(void* user_context, int32_t index, uint8_t* closure);
/* Runs task(user_context, i, closure) for every i in [min, min + extent) on the runtime's thread
 * pool, the calling thread included, and returns when all have finished: 0, or the first nonzero
 * code a task returned (iterations not yet started when a task fails may be skipped). A task may
 * itself call tessera_do_par_for. */
int32_t tessera_do_par_for(void* user_context, tessera_task_t task, int32_t min, int32_t extent,
                           uint8_t* closure);

/* Instruction-set features, numbered as tessera::Target::Feature numbers them. A library compiled
 * for several targets calls tessera_can_use_target_features to pick the first whose features this
 * CPU has. */
typedef enum tessera_target_feature_t {
    tessera_feature_sse41 = 0,
    tessera_feature_avx,
    tessera_feature_avx2,
    tessera_feature_fma,
    tessera_feature_f16c,
    tessera_feature_avx512,
    tessera_feature_avx512_skylake,
    tessera_feature_avx512_cannonlake,
    tessera_feature_avx512_sapphirerapids,
    tessera_feature_avx512_vnni,
    tessera_feature_avx512_bf16,
    tessera_feature_avxvnni
} tessera_target_feature_t;
/* Nonzero when the running CPU has every feature whose bit (1 << tessera_target_feature_t) is set. */
int32_t tessera_can_use_target_features(uint64_t features);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_RUNTIME_H */
