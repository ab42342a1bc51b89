// The device operations on a buffer that every GPU API shares: which device interface a buffer
// uses, and the dirty flags that decide whether a copy is needed at all. The interfaces
// themselves (cuda_memory.cpp) copy whenever they are asked.

#include <cstdint>

#include "tessera/runtime.h"

namespace {

bool is_set(const tessera_buffer_t* buf, unsigned flag) { return (buf->flags & flag) != 0; }

void clear(tessera_buffer_t* buf, unsigned flag) { buf->flags &= ~uint64_t(flag); }

int32_t report(void* user_context, const char* function, const char* what, int32_t code) {
    tessera_error_begin(user_context);
    tessera_error_append_string(user_context, function);
    tessera_error_append_string(user_context, ": ");
    tessera_error_append_string(user_context, what);
    return tessera_error_end(user_context, code);
}

int32_t report_other_interface(void* user_context, const char* function, const tessera_buffer_t* buf,
                               const tessera_device_interface_t* wanted) {
    tessera_error_begin(user_context);
    tessera_error_append_string(user_context, function);
    tessera_error_append_string(user_context, ": the buffer already has device memory of ");
    tessera_error_append_string(user_context,
                                buf->device_interface ? buf->device_interface->name : "no interface");
    tessera_error_append_string(user_context, ", not of ");
    tessera_error_append_string(user_context, wanted->name);
    tessera_error_append_string(user_context,
                                ". Copy it to the host and free it (tessera_device_free) first.");
    return tessera_error_end(user_context, tessera_error_bad_argument);
}

}  // namespace

extern "C" {

int32_t tessera_device_malloc(void* user_context, tessera_buffer_t* buf,
                              const tessera_device_interface_t* iface) {
    const char* function = "tessera_device_malloc";
    if (!buf) return report(user_context, function, "null buffer.", tessera_error_null_buffer);
    if (!iface)
        return report(user_context, function, "no device interface (e.g. tessera_cuda_device_interface()).",
                      tessera_error_bad_argument);
    if (buf->device) {
        if (buf->device_interface != iface) return report_other_interface(user_context, function, buf, iface);
        return 0;
    }
    return iface->device_malloc(user_context, buf);
}

int32_t tessera_device_free(void* user_context, tessera_buffer_t* buf) {
    const char* function = "tessera_device_free";
    if (!buf) return report(user_context, function, "null buffer.", tessera_error_null_buffer);
    if (buf->device) {
        if (!buf->device_interface)
            return report(user_context, function, "the buffer has device memory but no device interface.",
                          tessera_error_bad_argument);
        if (int32_t error = buf->device_interface->device_free(user_context, buf)) return error;
    }
    clear(buf, TESSERA_BUFFER_DEVICE_DIRTY);
    return 0;
}

int32_t tessera_copy_to_device(void* user_context, tessera_buffer_t* buf,
                               const tessera_device_interface_t* iface) {
    const char* function = "tessera_copy_to_device";
    if (!buf) return report(user_context, function, "null buffer.", tessera_error_null_buffer);
    if (!iface) iface = buf->device_interface;
    if (!iface)
        return report(user_context, function,
                      "the buffer has no device memory and no device interface was given (e.g. "
                      "tessera_cuda_device_interface()).",
                      tessera_error_bad_argument);
    if (is_set(buf, TESSERA_BUFFER_HOST_DIRTY) && is_set(buf, TESSERA_BUFFER_DEVICE_DIRTY))
        return report(
            user_context, function,
            "the buffer is dirty on both the host and the device, so either copy would lose writes.",
            tessera_error_bad_argument);
    if (buf->device && buf->device_interface != iface)
        return report_other_interface(user_context, function, buf, iface);
    const bool fresh = !buf->device;
    if (fresh) {
        if (int32_t error = iface->device_malloc(user_context, buf)) return error;
    }
    if ((fresh || is_set(buf, TESSERA_BUFFER_HOST_DIRTY)) && buf->host) {
        if (int32_t error = iface->copy_to_device(user_context, buf)) return error;
    }
    clear(buf, TESSERA_BUFFER_HOST_DIRTY);
    return 0;
}

int32_t tessera_copy_to_host(void* user_context, tessera_buffer_t* buf) {
    const char* function = "tessera_copy_to_host";
    if (!buf) return report(user_context, function, "null buffer.", tessera_error_null_buffer);
    if (!is_set(buf, TESSERA_BUFFER_DEVICE_DIRTY)) return 0;
    if (!buf->device || !buf->device_interface)
        return report(user_context, function, "the buffer is marked device-dirty but has no device memory.",
                      tessera_error_bad_argument);
    if (!buf->host)
        return report(user_context, function, "the buffer has no host memory to copy into.",
                      tessera_error_null_host);
    if (int32_t error = buf->device_interface->copy_to_host(user_context, buf)) return error;
    clear(buf, TESSERA_BUFFER_DEVICE_DIRTY);
    return 0;
}

int32_t tessera_device_sync(void* user_context, tessera_buffer_t* buf) {
    if (!buf) return report(user_context, "tessera_device_sync", "null buffer.", tessera_error_null_buffer);
    if (!buf->device_interface) return 0;
    return buf->device_interface->device_sync(user_context, buf);
}

}  // extern "C"
