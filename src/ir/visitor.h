#pragma once
// The read-only traversal of IR. Override the visit() of the nodes you care about and call the
// base to continue into children. Let and LetStmt chains and Blocks are walked iteratively: the
// base visit() of a Let or LetStmt walks the whole chain below it, so an override of those is
// called once per chain, with its head, and must walk the chain itself (see the printer).

#include "ir/node_list.h"
#include "ir/stmt.h"

namespace tessera::ir {

class Visitor {
public:
    virtual ~Visitor() = default;
    void include(const Expr& e);
    void include(const Stmt& s);

protected:
#define TESSERA_DECLARE_VISIT(T) virtual void visit(const T*);
    TESSERA_FOR_EACH_EXPR(TESSERA_DECLARE_VISIT)
    TESSERA_FOR_EACH_STMT(TESSERA_DECLARE_VISIT)
#undef TESSERA_DECLARE_VISIT
};

}  // namespace tessera::ir
