#pragma once
// X-macro lists of the IR node classes, so that dispatch code names each class once.
// clang-format reflows these lists differently on each run; they are kept by hand.

// clang-format off
#define TESSERA_FOR_EACH_BINARY_EXPR(X) \
    X(Add) X(Sub) X(Mul) X(Div) X(Mod) X(Min) X(Max) X(EQ) X(NE) X(LT) X(LE) X(GT) X(GE) X(And) X(Or)

#define TESSERA_FOR_EACH_EXPR(X) \
    X(IntImm) X(UIntImm) X(FloatImm) X(StringImm) X(Cast) X(Reinterpret) X(Variable) \
    TESSERA_FOR_EACH_BINARY_EXPR(X) \
    X(Not) X(Select) X(Load) X(Ramp) X(Broadcast) X(Let) X(Call)

#define TESSERA_FOR_EACH_STMT(X) \
    X(LetStmt) X(AssertStmt) X(ProducerConsumer) X(For) X(Store) X(Provide) X(Allocate) X(Free) \
    X(Realize) X(Block) X(IfThenElse) X(Evaluate) X(Atomic)
// clang-format on
