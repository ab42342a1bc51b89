#pragma once
// Statements of the loop-nest IR, and the Stmt handle.

#include <memory>
#include <string>
#include <vector>

#include "ir/expr_nodes.h"
#include "tessera/memory_type.h"

namespace tessera::ir {

struct StmtNode : std::enable_shared_from_this<StmtNode> {
    explicit StmtNode(IRKind k) : kind(k) {}
    virtual ~StmtNode() = default;
    const IRKind kind;
};

class Stmt {
public:
    Stmt() = default;
    explicit Stmt(std::shared_ptr<const StmtNode> node) : node_(std::move(node)) {}
    bool defined() const { return node_ != nullptr; }
    const StmtNode* get() const { return node_.get(); }
    bool same_as(const Stmt& other) const { return node_ == other.node_; }
    long use_count() const { return node_.use_count(); }
    template <typename T>
    const T* as() const {
        return node_ && int(node_->kind) == T::static_kind ? static_cast<const T*>(node_.get()) : nullptr;
    }

private:
    std::shared_ptr<const StmtNode> node_;
};

inline Stmt handle_of(const StmtNode* node) { return Stmt(node->shared_from_this()); }

template <typename T, IRKind K>
struct StmtNodeOf : StmtNode {
    static constexpr int static_kind = int(K);
    StmtNodeOf() : StmtNode(K) {}
};

struct LetStmt : StmtNodeOf<LetStmt, IRKind::LetStmt> {
    std::string name;
    Expr value;
    Stmt body;
    static Stmt make(const std::string& name, Expr value, Stmt body);
    // Frees a chain of lets iteratively, not one stack frame per let.
    ~LetStmt() override;
};

// If condition is false, report message (an ErrorMessage call) and leave the pipeline with an
// error code.
struct AssertStmt : StmtNodeOf<AssertStmt, IRKind::AssertStmt> {
    Expr condition, message;
    static Stmt make(Expr condition, Expr message);
};

// Marks where a Func is produced (is_producer) or consumed; only for readability and for
// passes that need to find a Func's production.
struct ProducerConsumer : StmtNodeOf<ProducerConsumer, IRKind::ProducerConsumer> {
    std::string name;
    bool is_producer;
    Stmt body;
    static Stmt make(const std::string& name, bool is_producer, Stmt body);
};

// Tensorized: a loop that a schedule tensorized, replaced with its nest by the tensorize pass (or run
// as a serial loop where the tile is not whole); no other pass sees one. GPUBlock, GPUThread and
// GPULane: a loop over the blocks of a GPU kernel, over the threads of a block, or over the lanes
// of a warp (a thread loop of at most 32 iterations).
enum class ForKind : uint8_t {
    Serial,
    Parallel,
    Vectorized,
    Unrolled,
    Tensorized,
    GPUBlock,
    GPUThread,
    GPULane
};
// Whether a loop of this kind runs over a GPU's threads (GPUThread or GPULane), or over its blocks
// or threads.
inline bool is_gpu_thread_loop(ForKind k) { return k == ForKind::GPUThread || k == ForKind::GPULane; }
inline bool is_gpu_loop(ForKind k) { return k == ForKind::GPUBlock || is_gpu_thread_loop(k); }
const char* for_kind_name(ForKind k);

struct For : StmtNodeOf<For, IRKind::For> {
    std::string name;
    Expr min, extent;
    ForKind for_kind;
    Stmt body;
    static Stmt make(const std::string& name, Expr min, Expr extent, ForKind kind, Stmt body);
};

// A store into a flat allocation or output buffer (after storage flattening).
struct Store : StmtNodeOf<Store, IRKind::Store> {
    std::string name;
    Expr value, index;
    // Of a vector store, when defined: only the lanes where it is true are written (see Load).
    Expr predicate;
    static Stmt make(const std::string& name, Expr value, Expr index, Expr predicate = Expr());
};

// A multi-dimensional store of a Func's values (before storage flattening); one value per
// Tuple element.
struct Provide : StmtNodeOf<Provide, IRKind::Provide> {
    std::string name;
    std::vector<Expr> values, args;
    static Stmt make(const std::string& name, std::vector<Expr> values, std::vector<Expr> args);
};

// A flat allocation of extents' product elements of `type`, live in body.
struct Allocate : StmtNodeOf<Allocate, IRKind::Allocate> {
    std::string name;
    Type type;
    std::vector<Expr> extents;
    // Auto and Heap allocate with tessera_malloc; Stack and Register (whose extents must then be
    // constants) on the stack of the function that holds the Allocate.
    MemoryType memory_type = MemoryType::Auto;
    Stmt body;
    static Stmt make(const std::string& name, Type type, std::vector<Expr> extents, Stmt body,
                     MemoryType memory_type = MemoryType::Auto);
};

struct Free : StmtNodeOf<Free, IRKind::Free> {
    std::string name;
    static Stmt make(const std::string& name);
};

struct Range {
    Expr min, extent;
};
using Region = std::vector<Range>;

// The multi-dimensional storage of a Func over bounds, one buffer per Tuple element (before
// storage flattening).
struct Realize : StmtNodeOf<Realize, IRKind::Realize> {
    std::string name;
    std::vector<Type> types;
    Region bounds;
    Stmt body;
    static Stmt make(const std::string& name, std::vector<Type> types, Region bounds, Stmt body);
};

// A sequence of statements. Kept flat: make() splices nested blocks, so long sequences are
// walked by iteration, not recursion.
struct Block : StmtNodeOf<Block, IRKind::Block> {
    std::vector<Stmt> stmts;
    static Stmt make(std::vector<Stmt> stmts);
    static Stmt make(Stmt first, Stmt rest);
};

struct IfThenElse : StmtNodeOf<IfThenElse, IRKind::IfThenElse> {
    Expr condition;
    Stmt then_case, else_case;  // else_case may be undefined
    static Stmt make(Expr condition, Stmt then_case, Stmt else_case = Stmt());
};

struct Evaluate : StmtNodeOf<Evaluate, IRKind::Evaluate> {
    Expr value;
    static Stmt make(Expr value);
};

// The body's stores to the producer (an update scheduled atomic()) are each one indivisible
// read-modify-write of their element, so that parallel iterations may update the same element.
struct Atomic : StmtNodeOf<Atomic, IRKind::Atomic> {
    std::string producer;
    Stmt body;
    static Stmt make(const std::string& producer, Stmt body);
};

}  // namespace tessera::ir
