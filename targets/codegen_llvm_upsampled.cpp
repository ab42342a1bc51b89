// Vector loads of an up-sampling's reads: an index ramp(b, 1, n) / k (plus a scalar offset) repeats
// each element k times, so its lanes cover at most n / k + 1 neighbouring elements. One masked
// dense load of them and a shuffle replace the gather LLVM would otherwise emit (pyramids read
// every coarser level this way). The shuffle depends on b modulo k, known only when the code runs:
// one shuffle per remainder, chosen by a select.

#include <optional>

#include "ir/ir_util.h"
#include "targets/codegen_llvm_class.h"

namespace tessera::targets::detail {
namespace {

constexpr int largest_factor = 4;

struct UpsampledIndex {
    Expr base;    // b
    int factor;   // k
    Expr offset;  // added to every lane after the division
};

// index as ramp(b, 1, n) / k + offset, where offset is a scalar (broadcast) sum.
std::optional<UpsampledIndex> match_upsampled(const Expr& index) {
    auto scalar_of = [](const Expr& e) -> Expr {
        const ir::Broadcast* b = e.as<ir::Broadcast>();
        return b ? b->value : Expr();
    };
    if (const ir::Div* div = index.as<ir::Div>()) {
        const ir::Ramp* ramp = div->a.as<ir::Ramp>();
        const Expr k = scalar_of(div->b);
        const std::optional<int64_t> factor = k.defined() ? ir::as_const_int(k) : std::nullopt;
        if (!ramp || !ir::is_const(ramp->stride, 1) || !factor || *factor < 2 || *factor > largest_factor)
            return std::nullopt;
        return UpsampledIndex{ramp->base, int(*factor), ir::make_zero(ramp->base.type())};
    }
    if (const ir::Add* add = index.as<ir::Add>()) {
        if (Expr s = scalar_of(add->b); s.defined())
            if (auto m = match_upsampled(add->a))
                return UpsampledIndex{m->base, m->factor, ir::Add::make(m->offset, s)};
        if (Expr s = scalar_of(add->a); s.defined())
            if (auto m = match_upsampled(add->b))
                return UpsampledIndex{m->base, m->factor, ir::Add::make(m->offset, s)};
    }
    if (const ir::Sub* sub = index.as<ir::Sub>()) {
        if (Expr s = scalar_of(sub->b); s.defined())
            if (auto m = match_upsampled(sub->a))
                return UpsampledIndex{m->base, m->factor, ir::Sub::make(m->offset, s)};
    }
    return std::nullopt;
}

}  // namespace

llvm::Value* CodeGenLLVM::upsampled_load(const ir::Load* op) {
    const Type t = op->type, element = t.element_of();
    if (t.is_bool() || op->index.type().element_of() != Int(32)) return nullptr;
    const std::optional<UpsampledIndex> m = match_upsampled(op->index);
    if (!m) return nullptr;
    const int lanes = t.lanes(), k = m->factor;
    const int span = (lanes + k - 2) / k + 1;  // the most elements the lanes read
    const Expr k_expr = ir::make_const(Int(32), int64_t(k));
    // Division and modulo round down, so b = first * k + remainder with remainder in [0, k).
    llvm::Value* first = codegen_index(op->name, ir::Add::make(ir::Div::make(m->base, k_expr), m->offset));
    llvm::Value* remainder = codegen(ir::Mod::make(m->base, k_expr));
    llvm::Value* mask = nullptr;
    llvm::Value* spread = nullptr;
    llvm::Type* span_type = llvm::FixedVectorType::get(memory_type(element), span);
    llvm::Value* address = element_address(op->name, element, first);
    // Per remainder r: lane i reads element (r + i) / k; the elements past the last lane's stay
    // unread, for they may lie past the buffer's end.
    std::vector<llvm::Value*> is_remainder(static_cast<size_t>(k));
    for (int r = 0; r < k; r++)
        is_remainder[size_t(r)] =
            builder_.CreateICmpEQ(remainder, llvm::ConstantInt::get(remainder->getType(), r));
    for (int r = k - 1; r >= 0; r--) {
        const int last = (r + lanes - 1) / k;
        std::vector<llvm::Constant*> lanes_read(static_cast<size_t>(span));
        for (int j = 0; j < span; j++) lanes_read[size_t(j)] = builder_.getInt1(j <= last);
        llvm::Value* m_r = llvm::ConstantVector::get(lanes_read);
        mask = mask ? builder_.CreateSelect(is_remainder[size_t(r)], m_r, mask) : m_r;
    }
    llvm::Value* whole =
        tag_access(builder_.CreateMaskedLoad(span_type, address, llvm::Align(element.bytes()), mask,
                                             llvm::Constant::getNullValue(span_type)),
                   op->name);
    for (int r = k - 1; r >= 0; r--) {
        std::vector<int> pattern(static_cast<size_t>(lanes));
        for (int i = 0; i < lanes; i++) pattern[size_t(i)] = (r + i) / k;
        llvm::Value* v = builder_.CreateShuffleVector(whole, pattern);
        spread = spread ? builder_.CreateSelect(is_remainder[size_t(r)], v, spread) : v;
    }
    return spread;
}

}  // namespace tessera::targets::detail
