// MatMul (batched, numpy broadcasting of the batch dimensions) and Gemm.
//
// As convolutions, a matrix product is an `accumulators` Func reduced over k and the operator's
// output reading it; the schedule keeps a register tile of the accumulators, columns vectorized by
// rows unrolled, across the whole reduction (apps/matmul's tile), in the loops of the Func the
// group realizes.

#include "graph/ops/broadcast.h"
#include "graph/ops/operator.h"

namespace tessera::graph {
namespace {

struct ProductFuncs {
    Func accumulators;
    RDom k;
};

void schedule_matrix_product(const ProductFuncs& p, const Func& out, const std::vector<int64_t>& shape,
                             const Target& target) {
    std::vector<Var> v = out.args();  // n, m, batch... (innermost first)
    std::vector<Var> a = p.accumulators.args();
    const int lanes = target.natural_vector_size(out.type());
    const int64_t columns = shape.back(), rows = shape.size() >= 2 ? shape[shape.size() - 2] : 1;
    int tile_columns = 2 * lanes, tile_rows = lanes >= 16 ? 8 : 6;
    if (columns < tile_columns) tile_columns = columns >= lanes ? lanes : int(columns);
    if (rows < tile_rows) tile_rows = int(rows);
    Func output = out;
    Func accumulators = p.accumulators;
    Var xo("xo"), xi("xi"), yo("yo"), yi("yi");
    if (v.size() == 1) {
        output.split(v[0], xo, xi, tile_columns, TailStrategy::ShiftInwards).vectorize(xi);
        accumulators.compute_at(output, xo).vectorize(a[0], tile_columns);
        accumulators.update().reorder(a[0], p.k).vectorize(a[0], tile_columns);
        return;
    }
    output.tile(v[0], v[1], xo, yo, xi, yi, tile_columns, tile_rows, TailStrategy::ShiftInwards)
        .reorder(xi, yi, xo, yo)
        .vectorize(xi)
        .unroll(yi);
    // Rows of tiles in parallel, and the batch's matrices, fused with them when there are several.
    Var parallel_loop = yo;
    for (size_t d = 2; d < v.size(); d++) {
        Var fused("batch_rows" + std::to_string(d));
        output.fuse(parallel_loop, v[d], fused);
        parallel_loop = fused;
    }
    output.parallel(parallel_loop);
    accumulators.compute_at(output, xo).vectorize(a[0], tile_columns).unroll(a[1], tile_rows);
    accumulators.update().reorder(a[0], a[1], p.k).vectorize(a[0], tile_columns).unroll(a[1], tile_rows);
}

OpResult with_schedule(const TensorFunc& out, const ProductFuncs& p) {
    return {{out}, [p](const Func& output, const std::vector<int64_t>& shape, const Target& target) {
                schedule_matrix_product(p, output, shape, target);
            }};
}

Expr multiply_add(const Expr& a, const Expr& b, const Expr& acc) {
    return a.type().is_float() ? fma(a, b, acc) : acc + a * b;
}

// numpy's matmul: a 1-D operand becomes a matrix of one row (a) or one column (b), and that
// dimension is dropped from the result; the batch dimensions broadcast.
OpResult matmul(const OpContext& ctx) {
    TensorFunc a = ctx.input(0), b = ctx.input(1);
    if (a.type != b.type)
        TESSERA_GRAPH_ERROR(ctx) << "multiplies " << type_name(a.type) << " by " << type_name(b.type) << ".";
    if (a.rank() == 0 || b.rank() == 0) TESSERA_GRAPH_ERROR(ctx) << "takes tensors of rank 1 or more.";
    const bool a_vector = a.rank() == 1, b_vector = b.rank() == 1;
    std::vector<int64_t> as = a.shape, bs = b.shape;
    if (a_vector) as.insert(as.begin(), 1);
    if (b_vector) bs.push_back(1);
    const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
    if (bs[bs.size() - 2] != k)
        TESSERA_GRAPH_ERROR(ctx) << "the inner dimensions differ: " << k << " against " << bs[bs.size() - 2]
                                 << ".";
    const std::vector<int64_t> batch = broadcast_shapes(
        ctx,
        {std::vector<int64_t>(as.begin(), as.end() - 2), std::vector<int64_t>(bs.begin(), bs.end() - 2)});
    std::vector<int64_t> full = batch;
    full.push_back(m);
    full.push_back(n);
    ProductFuncs p{Func(), RDom(0, int(k), ctx.func_name("k"))};
    TensorFunc acc = define_tensor(ctx.func_name("accumulators"), a.type, full,
                                   [&](const std::vector<Expr>&) { return cast(a.type, 0); });
    std::vector<Var> vars = acc.func.args();
    std::vector<Expr> index(vars.rbegin(), vars.rend());  // outermost first
    // An operand of rank 2 or more, at a row and column of one matrix of the batch.
    auto matrix_index = [&](const TensorFunc& t, const Expr& row, const Expr& column) {
        const size_t batch_rank = t.shape.size() - 2;
        std::vector<Expr> i;
        for (size_t d = 0; d < batch_rank; d++) {
            const size_t out_d = batch.size() - batch_rank + d;
            i.push_back(t.shape[d] == 1 && batch[out_d] != 1 ? Expr(0) : index[out_d]);
        }
        i.push_back(row);
        i.push_back(column);
        return i;
    };
    const Expr mi = index[batch.size()], ni = index[batch.size() + 1];
    const std::vector<Expr> a_at = a_vector ? std::vector<Expr>{p.k} : matrix_index(a, mi, p.k);
    const std::vector<Expr> b_at = b_vector ? std::vector<Expr>{p.k} : matrix_index(b, p.k, ni);
    acc.func(std::vector<Expr>(vars.begin(), vars.end())) = multiply_add(a(a_at), b(b_at), acc(index));
    p.accumulators = acc.func;
    std::vector<int64_t> shape = batch;
    if (!a_vector) shape.push_back(m);
    if (!b_vector) shape.push_back(n);
    TensorFunc out = define_tensor(ctx.func_name(), a.type, shape, [&](const std::vector<Expr>& i) {
        std::vector<Expr> at(i.begin(), i.begin() + batch.size());
        at.push_back(a_vector ? Expr(0) : i[batch.size()]);
        at.push_back(b_vector ? Expr(0) : i.back());
        return acc(at);
    });
    return with_schedule(out, p);
}

// Gemm: alpha * A' * B' + beta * C, A' and B' transposed where transA, transB say; C broadcasts.
OpResult gemm(const OpContext& ctx) {
    const TensorFunc& a = ctx.input(0);
    const TensorFunc& b = ctx.input(1);
    if (a.rank() != 2 || b.rank() != 2) TESSERA_GRAPH_ERROR(ctx) << "A and B must be matrices.";
    if (a.type != b.type)
        TESSERA_GRAPH_ERROR(ctx) << "multiplies " << type_name(a.type) << " by " << type_name(b.type) << ".";
    const bool ta = ctx.attributes().get_int("transA", 0) != 0,
               tb = ctx.attributes().get_int("transB", 0) != 0;
    const float alpha = ctx.attributes().get_float("alpha", 1.0f),
                beta = ctx.attributes().get_float("beta", 1.0f);
    const int64_t m = ta ? a.shape[1] : a.shape[0], k = ta ? a.shape[0] : a.shape[1];
    const int64_t n = tb ? b.shape[0] : b.shape[1], kb = tb ? b.shape[1] : b.shape[0];
    if (k != kb) TESSERA_GRAPH_ERROR(ctx) << "the inner dimensions differ: " << k << " against " << kb << ".";
    const std::vector<int64_t> shape{m, n};
    if (ctx.has_input(2) && broadcast_shapes(ctx, {shape, ctx.input(2).shape}) != shape)
        TESSERA_GRAPH_ERROR(ctx) << "C does not broadcast to the result's shape.";
    ProductFuncs p{Func(), RDom(0, int(k), ctx.func_name("k"))};
    TensorFunc acc = define_tensor(ctx.func_name("accumulators"), a.type, shape,
                                   [&](const std::vector<Expr>&) { return cast(a.type, 0); });
    std::vector<Var> vars = acc.func.args();
    const Expr mi = vars[1], ni = vars[0];
    const Expr a_value = ta ? a({p.k, mi}) : a({mi, p.k});
    const Expr b_value = tb ? b({ni, p.k}) : b({p.k, ni});
    acc.func(std::vector<Expr>(vars.begin(), vars.end())) = multiply_add(a_value, b_value, acc({mi, ni}));
    p.accumulators = acc.func;
    TensorFunc out = define_tensor(ctx.func_name(), a.type, shape, [&](const std::vector<Expr>& i) {
        Expr y = acc(i);
        if (alpha != 1.0f) y = cast(a.type, alpha) * y;
        if (ctx.has_input(2)) {
            Expr c = broadcast_read(ctx.input(2), i, shape);
            y = y + (beta != 1.0f ? cast(a.type, beta) * c : c);
        }
        return y;
    });
    return with_schedule(out, p);
}

}  // namespace

void register_matrix_product_operators() {
    register_operator({"MatMul", OpKind::Anchor, 2, 2, matmul});
    register_operator({"Gemm", OpKind::Anchor, 2, 3, gemm});
}

}  // namespace tessera::graph
