#include "lowering/names.h"

namespace tessera::lowering {

std::string loop_var(const std::string& func, int stage, const std::string& var) {
    return func + ".s" + std::to_string(stage) + "." + var;
}
std::string loop_min(const std::string& func, int stage, const std::string& var) {
    return loop_var(func, stage, var) + ".min";
}
std::string loop_max(const std::string& func, int stage, const std::string& var) {
    return loop_var(func, stage, var) + ".max";
}
std::string dim_loop_min(const std::string& func, int stage, const std::string& dim) {
    return loop_var(func, stage, dim) + ".loop_min";
}
std::string dim_loop_extent(const std::string& func, int stage, const std::string& dim) {
    return loop_var(func, stage, dim) + ".loop_extent";
}
std::string realized_min(const std::string& func, int dim) {
    return func + ".realized.min." + std::to_string(dim);
}
std::string realized_extent(const std::string& func, int dim) {
    return func + ".realized.extent." + std::to_string(dim);
}
std::string required_min(const std::string& func, int dim) {
    return func + ".required.min." + std::to_string(dim);
}
std::string required_max(const std::string& func, int dim) {
    return func + ".required.max." + std::to_string(dim);
}
std::string value_buffer(const std::string& func, int index, int values) {
    return values == 1 ? func : func + "." + std::to_string(index);
}
std::string buffer_struct(const std::string& buffer) { return buffer + ".buffer"; }
std::string buffer_min(const std::string& buffer, int dim) { return buffer + ".min." + std::to_string(dim); }
std::string buffer_extent(const std::string& buffer, int dim) {
    return buffer + ".extent." + std::to_string(dim);
}
std::string buffer_stride(const std::string& buffer, int dim) {
    return buffer + ".stride." + std::to_string(dim);
}

std::string gpu_block_id(int dim) { return std::string("__block_id_") + "xyz"[dim]; }

std::string gpu_thread_id(int dim) { return std::string("__thread_id_") + "xyz"[dim]; }

}  // namespace tessera::lowering
