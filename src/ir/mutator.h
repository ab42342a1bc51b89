#pragma once
// The rewriting traversal of IR. Override visit() for the nodes to rewrite; the base rebuilds a
// node only when a child changed, so unchanged subtrees stay shared. Let and LetStmt chains and
// Blocks are rebuilt iteratively: as in Visitor, an override of visit(Let) or visit(LetStmt) is
// called with the head of each chain and must handle the chain itself.

#include "ir/node_list.h"
#include "ir/stmt.h"

namespace tessera::ir {

class Mutator {
public:
    virtual ~Mutator() = default;
    virtual Expr mutate(const Expr& e);
    virtual Stmt mutate(const Stmt& s);

protected:
#define TESSERA_DECLARE_VISIT(T) virtual Expr visit(const T*);
    TESSERA_FOR_EACH_EXPR(TESSERA_DECLARE_VISIT)
#undef TESSERA_DECLARE_VISIT
#define TESSERA_DECLARE_VISIT(T) virtual Stmt visit(const T*);
    TESSERA_FOR_EACH_STMT(TESSERA_DECLARE_VISIT)
#undef TESSERA_DECLARE_VISIT
};

}  // namespace tessera::ir
