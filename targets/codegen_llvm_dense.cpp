// Dense vector loads and stores. A vector whose lane count is not a power of two is accessed in
// pieces that are (24 lanes as 16 and 8): LLVM gives such a vector a memory size rounded up to a
// power of two, so SROA cannot promote a stack or register array accessed by them, and the rows of
// a register tile 24 floats wide went through memory lane by lane, ten times slower than the
// 16-wide tile. Power-of-two pieces map onto whole registers and promote cleanly.

#include <bit>
#include <numeric>
#include <vector>

#include "targets/codegen_llvm_class.h"

namespace tessera::targets::detail {
namespace {

// The lane counts of the pieces: powers of two, largest first, summing to lanes.
std::vector<int> power_of_two_pieces(int lanes) {
    std::vector<int> pieces;
    for (int left = lanes; left > 0; left -= pieces.back()) pieces.push_back(std::bit_floor(unsigned(left)));
    return pieces;
}

// Lanes [first, first + count) of v.
llvm::Value* lanes_of(llvm::IRBuilder<>& builder, llvm::Value* v, int first, int count) {
    std::vector<int> mask(count);
    for (int i = 0; i < count; i++) mask[i] = first + i;
    return builder.CreateShuffleVector(v, mask);
}

// a followed by b, as one vector.
llvm::Value* concatenate(llvm::IRBuilder<>& builder, llvm::Value* a, llvm::Value* b) {
    const int na = int(llvm::cast<llvm::FixedVectorType>(a->getType())->getNumElements());
    const int nb = int(llvm::cast<llvm::FixedVectorType>(b->getType())->getNumElements());
    // A shuffle takes two operands of one type: widen b to a's lanes first (b is never wider, the
    // pieces being largest first), its extra lanes unused.
    std::vector<int> widen(na, -1);
    for (int i = 0; i < nb; i++) widen[i] = i;
    llvm::Value* wide_b = nb == na ? b : builder.CreateShuffleVector(b, widen);
    // Lanes 0 .. na - 1 are a's; na onwards are wide_b's first lanes, which are b.
    std::vector<int> mask(na + nb);
    std::iota(mask.begin(), mask.end(), 0);
    return builder.CreateShuffleVector(a, wide_b, mask);
}

}  // namespace

llvm::Align CodeGenLLVM::dense_alignment(const std::string&, Type t, const Expr&) const {
    return llvm::Align(t.element_of().bytes());
}

llvm::Value* CodeGenLLVM::dense_load(const std::string& buffer, Type t, llvm::Value* first_index,
                                     llvm::Align align) {
    const Type element = t.element_of();
    llvm::Value* address = element_address(buffer, element, first_index);
    if (std::has_single_bit(unsigned(t.lanes())))
        return tag_access(builder_.CreateAlignedLoad(memory_type(t), address, align), buffer);
    llvm::Value* whole = nullptr;
    int offset = 0;
    for (int lanes : power_of_two_pieces(t.lanes())) {
        llvm::Value* piece_address =
            builder_.CreateConstInBoundsGEP1_64(memory_type(element), address, uint64_t(offset));
        llvm::Type* piece_type = llvm::FixedVectorType::get(memory_type(element), lanes);
        const llvm::Align piece_align = llvm::commonAlignment(align, uint64_t(offset) * element.bytes());
        llvm::Value* piece =
            tag_access(builder_.CreateAlignedLoad(piece_type, piece_address, piece_align), buffer);
        whole = whole ? concatenate(builder_, whole, piece) : piece;
        offset += lanes;
    }
    return whole;
}

// The span the lanes cover is read with one masked dense load, its lanes past the last element
// masked off (so that nothing beyond what the lanes read is touched), and every stride-th lane
// kept: shuffles, where a gather fetches lane by lane. (A stride-2 convolution's gathers ran four
// times slower in some processes than in others, with the addresses of its buffers.)
llvm::Value* CodeGenLLVM::strided_load(const std::string& buffer, Type t, llvm::Value* first_index,
                                       int stride) {
    const Type element = t.element_of();
    const int lanes = t.lanes(), span = stride * lanes, used = stride * (lanes - 1) + 1;
    std::vector<llvm::Constant*> mask(span);
    for (int i = 0; i < span; i++) mask[i] = builder_.getInt1(i < used);
    llvm::Type* span_type = llvm::FixedVectorType::get(memory_type(element), span);
    llvm::Value* address = element_address(buffer, element, first_index);
    llvm::Value* whole =
        tag_access(builder_.CreateMaskedLoad(span_type, address, llvm::Align(element.bytes()),
                                             llvm::ConstantVector::get(mask)),
                   buffer);
    std::vector<int> lanes_kept(lanes);
    for (int i = 0; i < lanes; i++) lanes_kept[i] = i * stride;
    return builder_.CreateShuffleVector(whole, lanes_kept);
}

void CodeGenLLVM::dense_store(const std::string& buffer, llvm::Value* value, Type t, llvm::Value* first_index,
                              llvm::Align align) {
    const Type element = t.element_of();
    llvm::Value* address = element_address(buffer, element, first_index);
    if (std::has_single_bit(unsigned(t.lanes()))) {
        tag_access(builder_.CreateAlignedStore(value, address, align), buffer);
        return;
    }
    int offset = 0;
    for (int lanes : power_of_two_pieces(t.lanes())) {
        llvm::Value* piece_address =
            builder_.CreateConstInBoundsGEP1_64(memory_type(element), address, uint64_t(offset));
        const llvm::Align piece_align = llvm::commonAlignment(align, uint64_t(offset) * element.bytes());
        tag_access(
            builder_.CreateAlignedStore(lanes_of(builder_, value, offset, lanes), piece_address, piece_align),
            buffer);
        offset += lanes;
    }
}

}  // namespace tessera::targets::detail
