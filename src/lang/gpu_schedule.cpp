// The GPU schedule primitives of Stage and Func: loops marked to run as the blocks and threads of
// a kernel, and the tilings that make them.

#include "schedule/stage_primitives.h"
#include "tessera/func.h"

namespace tessera {

Stage& Stage::gpu_blocks(const VarOrRVar& x) {
    schedule::set_loop_kind(ref(), x.name(), ir::ForKind::GPUBlock);
    function_->touch();
    return *this;
}

Stage& Stage::gpu_blocks(const VarOrRVar& x, const VarOrRVar& y) { return gpu_blocks(x).gpu_blocks(y); }

Stage& Stage::gpu_blocks(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& z) {
    return gpu_blocks(x).gpu_blocks(y).gpu_blocks(z);
}

Stage& Stage::gpu_threads(const VarOrRVar& x) {
    schedule::set_loop_kind(ref(), x.name(), ir::ForKind::GPUThread);
    function_->touch();
    return *this;
}

Stage& Stage::gpu_threads(const VarOrRVar& x, const VarOrRVar& y) { return gpu_threads(x).gpu_threads(y); }

Stage& Stage::gpu_threads(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& z) {
    return gpu_threads(x).gpu_threads(y).gpu_threads(z);
}

Stage& Stage::gpu_lanes(const VarOrRVar& x) {
    schedule::set_loop_kind(ref(), x.name(), ir::ForKind::GPULane);
    function_->touch();
    return *this;
}

Stage& Stage::gpu_single_thread() {
    schedule::stage_schedule(ref()).gpu_single_thread = true;
    function_->touch();
    return *this;
}

Stage& Stage::gpu(const VarOrRVar& bx, const VarOrRVar& tx) { return gpu_blocks(bx).gpu_threads(tx); }

Stage& Stage::gpu(const VarOrRVar& bx, const VarOrRVar& by, const VarOrRVar& tx, const VarOrRVar& ty) {
    return gpu_blocks(bx, by).gpu_threads(tx, ty);
}

Stage& Stage::gpu(const VarOrRVar& bx, const VarOrRVar& by, const VarOrRVar& bz, const VarOrRVar& tx,
                  const VarOrRVar& ty, const VarOrRVar& tz) {
    return gpu_blocks(bx, by, bz).gpu_threads(tx, ty, tz);
}

Stage& Stage::gpu_tile(const VarOrRVar& x, const VarOrRVar& bx, const VarOrRVar& tx, const Expr& x_size,
                       TailStrategy tail) {
    return split(x, bx, tx, x_size, tail).gpu_blocks(bx).gpu_threads(tx);
}

Stage& Stage::gpu_tile(const VarOrRVar& x, const VarOrRVar& tx, const Expr& x_size, TailStrategy tail) {
    return gpu_tile(x, x, tx, x_size, tail);
}

Stage& Stage::gpu_tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& bx, const VarOrRVar& by,
                       const VarOrRVar& tx, const VarOrRVar& ty, const Expr& x_size, const Expr& y_size,
                       TailStrategy tail) {
    return tile(x, y, bx, by, tx, ty, x_size, y_size, tail).gpu_blocks(bx, by).gpu_threads(tx, ty);
}

Stage& Stage::gpu_tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& tx, const VarOrRVar& ty,
                       const Expr& x_size, const Expr& y_size, TailStrategy tail) {
    return gpu_tile(x, y, x, y, tx, ty, x_size, y_size, tail);
}

Stage& Stage::gpu_tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& z, const VarOrRVar& bx,
                       const VarOrRVar& by, const VarOrRVar& bz, const VarOrRVar& tx, const VarOrRVar& ty,
                       const VarOrRVar& tz, const Expr& x_size, const Expr& y_size, const Expr& z_size,
                       TailStrategy tail) {
    split(x, bx, tx, x_size, tail).split(y, by, ty, y_size, tail).split(z, bz, tz, z_size, tail);
    return reorder({tx, ty, tz, bx, by, bz}).gpu_blocks(bx, by, bz).gpu_threads(tx, ty, tz);
}

Stage& Stage::gpu_tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& z, const VarOrRVar& tx,
                       const VarOrRVar& ty, const VarOrRVar& tz, const Expr& x_size, const Expr& y_size,
                       const Expr& z_size, TailStrategy tail) {
    return gpu_tile(x, y, z, x, y, z, tx, ty, tz, x_size, y_size, z_size, tail);
}

Func& Func::gpu_blocks(const VarOrRVar& x) {
    Stage(*this).gpu_blocks(x);
    return *this;
}

Func& Func::gpu_blocks(const VarOrRVar& x, const VarOrRVar& y) {
    Stage(*this).gpu_blocks(x, y);
    return *this;
}

Func& Func::gpu_blocks(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& z) {
    Stage(*this).gpu_blocks(x, y, z);
    return *this;
}

Func& Func::gpu_threads(const VarOrRVar& x) {
    Stage(*this).gpu_threads(x);
    return *this;
}

Func& Func::gpu_threads(const VarOrRVar& x, const VarOrRVar& y) {
    Stage(*this).gpu_threads(x, y);
    return *this;
}

Func& Func::gpu_threads(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& z) {
    Stage(*this).gpu_threads(x, y, z);
    return *this;
}

Func& Func::gpu_lanes(const VarOrRVar& x) {
    Stage(*this).gpu_lanes(x);
    return *this;
}

Func& Func::gpu_single_thread() {
    Stage(*this).gpu_single_thread();
    return *this;
}

Func& Func::gpu(const VarOrRVar& bx, const VarOrRVar& tx) {
    Stage(*this).gpu(bx, tx);
    return *this;
}

Func& Func::gpu(const VarOrRVar& bx, const VarOrRVar& by, const VarOrRVar& tx, const VarOrRVar& ty) {
    Stage(*this).gpu(bx, by, tx, ty);
    return *this;
}

Func& Func::gpu(const VarOrRVar& bx, const VarOrRVar& by, const VarOrRVar& bz, const VarOrRVar& tx,
                const VarOrRVar& ty, const VarOrRVar& tz) {
    Stage(*this).gpu(bx, by, bz, tx, ty, tz);
    return *this;
}

Func& Func::gpu_tile(const VarOrRVar& x, const VarOrRVar& bx, const VarOrRVar& tx, const Expr& x_size,
                     TailStrategy tail) {
    Stage(*this).gpu_tile(x, bx, tx, x_size, tail);
    return *this;
}

Func& Func::gpu_tile(const VarOrRVar& x, const VarOrRVar& tx, const Expr& x_size, TailStrategy tail) {
    Stage(*this).gpu_tile(x, tx, x_size, tail);
    return *this;
}

Func& Func::gpu_tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& bx, const VarOrRVar& by,
                     const VarOrRVar& tx, const VarOrRVar& ty, const Expr& x_size, const Expr& y_size,
                     TailStrategy tail) {
    Stage(*this).gpu_tile(x, y, bx, by, tx, ty, x_size, y_size, tail);
    return *this;
}

Func& Func::gpu_tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& tx, const VarOrRVar& ty,
                     const Expr& x_size, const Expr& y_size, TailStrategy tail) {
    Stage(*this).gpu_tile(x, y, tx, ty, x_size, y_size, tail);
    return *this;
}

Func& Func::gpu_tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& z, const VarOrRVar& bx,
                     const VarOrRVar& by, const VarOrRVar& bz, const VarOrRVar& tx, const VarOrRVar& ty,
                     const VarOrRVar& tz, const Expr& x_size, const Expr& y_size, const Expr& z_size,
                     TailStrategy tail) {
    Stage(*this).gpu_tile(x, y, z, bx, by, bz, tx, ty, tz, x_size, y_size, z_size, tail);
    return *this;
}

Func& Func::gpu_tile(const VarOrRVar& x, const VarOrRVar& y, const VarOrRVar& z, const VarOrRVar& tx,
                     const VarOrRVar& ty, const VarOrRVar& tz, const Expr& x_size, const Expr& y_size,
                     const Expr& z_size, TailStrategy tail) {
    Stage(*this).gpu_tile(x, y, z, tx, ty, tz, x_size, y_size, z_size, tail);
    return *this;
}

}  // namespace tessera
