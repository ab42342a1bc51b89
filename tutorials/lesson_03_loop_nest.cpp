// Lesson 3: reading the loop nest.
//
// The same algorithm can be computed in many orders and placements. print_loop_nest() shows what
// the current schedule does, and compile_to_lowered_stmt() writes the full lowered statement.

#include <tessera/tessera.h>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace tessera;

int main() {
    Var x("x"), y("y");
    Func producer("producer"), consumer("consumer");
    producer(x, y) = x * y;
    consumer(x, y) = producer(x, y) + producer(x + 1, y);

    // By default a pure producer is inlined: its definition is substituted into its consumer and
    // there is only one loop nest.
    std::printf("inlined producer:\n");
    consumer.print_loop_nest();

    // compute_root() computes all of the producer first, into its own buffer, over exactly the
    // region the consumer needs (one column more than the consumer, here).
    producer.compute_root();
    std::printf("\nproducer computed at root:\n");
    consumer.print_loop_nest();

    // The lowered statement shows the bounds inference worked out and the buffer checks.
    const char* dir = std::getenv("TESSERA_OUTPUT_DIR");
    std::string path = std::string(dir ? dir : ".") + "/lesson_03.stmt";
    consumer.compile_to_lowered_stmt(path, {});
    std::printf("\nwrote the lowered statement to %s\n", path.c_str());

    // Both schedules compute the same values.
    Buffer<int> out = consumer.realize({10, 4});
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 10; i++)
            if (out(i, j) != i * j + (i + 1) * j) return 1;
    std::printf("lesson 3: both schedules give the same values\n");
    return 0;
}
