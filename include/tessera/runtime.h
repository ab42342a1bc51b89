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

/* A GPU API's memory operations (see "Device memory" below). */
typedef struct tessera_device_interface_t tessera_device_interface_t;

/* A view of memory with a type and a shape: element (x0, x1, ...) lives at
 * host + sum_i (xi - dim[i].min) * dim[i].stride elements, and, when `device` is set, at the same
 * offset from `device` in the memory of the GPU API that device_interface names. `device` is set
 * by the device interface's allocation, and kernels rely on it being aligned to 16 bytes. */
typedef struct tessera_buffer_t {
    uint64_t device;
    const tessera_device_interface_t* device_interface;
    uint8_t* host;
    uint64_t flags; /* TESSERA_BUFFER_HOST_DIRTY, TESSERA_BUFFER_DEVICE_DIRTY */
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
    tessera_error_bound_violated = -8,        /* a Func's bound() is smaller than the region needed */
    tessera_error_null_buffer = -9,           /* a null tessera_buffer_t* passed for a buffer argument */
    tessera_error_param_out_of_range = -10,   /* a scalar argument outside its Param's range */
    tessera_error_access_out_of_bounds = -11, /* a load or store outside its storage (check_bounds) */
    tessera_error_no_cuda_driver = -12,       /* libcuda.so.1 (or TESSERA_CUDA_DRIVER) cannot be loaded */
    tessera_error_no_cuda_device = -13,       /* the driver loads but finds no CUDA device */
    tessera_error_cuda_call_failed = -14,     /* a CUDA driver call returned an error */
    tessera_error_cuda_device_too_old = -15   /* the device cannot run the kernels' PTX */
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
/* The full text of the last error reported on the calling thread ("" if none), as the error
 * handler received it: for wrappers that turn a returned code into an exception or a message. */
const char* tessera_error_last_message(void);

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

/* Device memory.
 *
 * A buffer may also live in a GPU's memory: `device` is then the address there of the element at
 * the mins and device_interface the API that allocated it. The flags say which copy is newer: a
 * program that writes the host memory sets TESSERA_BUFFER_HOST_DIRTY (writing through
 * tessera::Buffer's element accessors does not set it, as in Halide: call set_host_dirty()), and
 * whatever writes the device memory sets TESSERA_BUFFER_DEVICE_DIRTY. Both set is an error. The
 * device memory holds the host memory's layout, from its lowest to its highest element. */
#define TESSERA_BUFFER_HOST_DIRTY 1u
#define TESSERA_BUFFER_DEVICE_DIRTY 2u

/* One GPU API's operations on one buffer; each returns 0 or a code it has reported. They act
 * unconditionally: the dirty flags are the business of the tessera_* functions below. */
struct tessera_device_interface_t {
    const char* name; /* "cuda" */
    /* Sets buf->device and buf->device_interface to new memory for buf's shape. */
    int32_t (*device_malloc)(void* user_context, tessera_buffer_t* buf);
    /* Frees buf->device (or keeps it for reuse) and clears device and device_interface. */
    int32_t (*device_free)(void* user_context, tessera_buffer_t* buf);
    int32_t (*copy_to_device)(void* user_context, tessera_buffer_t* buf);
    int32_t (*copy_to_host)(void* user_context, tessera_buffer_t* buf);
    /* Waits for the device's work on buf to finish. */
    int32_t (*device_sync)(void* user_context, tessera_buffer_t* buf);
};

/* CUDA, through the driver API loaded at first use from libcuda.so.1 (or the library the
 * environment variable TESSERA_CUDA_DRIVER names). */
const tessera_device_interface_t* tessera_cuda_device_interface(void);

/* Gives buf device memory from iface, unless it has some already. */
int32_t tessera_device_malloc(void* user_context, tessera_buffer_t* buf,
                              const tessera_device_interface_t* iface);
/* Frees buf's device memory, if any, and clears TESSERA_BUFFER_DEVICE_DIRTY. */
int32_t tessera_device_free(void* user_context, tessera_buffer_t* buf);
/* Allocates device memory if there is none (iface null: buf's own interface), copies the host
 * memory to it if the host is dirty or the allocation is new (and there is host memory), and
 * clears TESSERA_BUFFER_HOST_DIRTY. */
int32_t tessera_copy_to_device(void* user_context, tessera_buffer_t* buf,
                               const tessera_device_interface_t* iface);
/* Copies the device memory to the host memory if the device is dirty, and clears
 * TESSERA_BUFFER_DEVICE_DIRTY; does nothing otherwise. */
int32_t tessera_copy_to_host(void* user_context, tessera_buffer_t* buf);
/* Waits for the device's work on buf; 0 at once for a buffer with no device memory. */
int32_t tessera_device_sync(void* user_context, tessera_buffer_t* buf);

/* How the runtime obtains the CUDA context it works in, replaceable as Halide's
 * halide_cuda_acquire_context is. acquire sets *cu_context (a CUcontext) and returns 0, or returns
 * a code it has reported; with create zero it may leave *cu_context null rather than make one.
 * release is called once after each successful acquire. The default acquire retains the primary
 * context of device 0 (once, for the life of the process); the default release does nothing.
 * Null for either restores both defaults. Set them while no GPU work runs. */
typedef int32_t (*tessera_cuda_acquire_context_t)(void* user_context, void** cu_context, int32_t create);
typedef int32_t (*tessera_cuda_release_context_t)(void* user_context);
void tessera_cuda_set_context_handlers(tessera_cuda_acquire_context_t acquire,
                                       tessera_cuda_release_context_t release);

/* Loads a pipeline's PTX into the context the handlers above give, once per context:
 * *module_state (null at first; a pipeline keeps one per PTX text) caches the modules and lives
 * for the process. */
int32_t tessera_cuda_initialize_kernels(void* user_context, void** module_state, const char* ptx,
                                        int32_t ptx_size);
/* Runs kernel `entry` of module_state's PTX (loading it first in a context new to it) on
 * blocks_x * blocks_y * blocks_z blocks of threads_x * threads_y * threads_z threads with
 * shared_bytes of dynamic shared memory, and waits for it to finish. kernel_args is cuLaunchKernel's
 * kernelParams: a pointer to each argument's value, a buffer's being its 64-bit device address. */
int32_t tessera_cuda_run(void* user_context, void* module_state, const char* entry, int32_t blocks_x,
                         int32_t blocks_y, int32_t blocks_z, int32_t threads_x, int32_t threads_y,
                         int32_t threads_z, int32_t shared_bytes, void** kernel_args);

/* The compute capability of device 0 times ten plus its minor (90 for sm_90) in *capability, and
 * 0; or, with nothing reported, tessera_error_no_cuda_driver, tessera_error_no_cuda_device or
 * tessera_error_cuda_call_failed. */
int32_t tessera_cuda_device_capability(int32_t* capability);

/* Frees the device memory kept for reuse after device_free. */
void tessera_cuda_release_unused_device_allocations(void);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_RUNTIME_H */
