// Schedules whose regions bounds inference must find, each once rejected with "cannot infer the
// region" or an output written out of bounds although Halide 14 accepts it (found by
// random_schedule_test): guarded splits of inner loops, fused loops computed inside other loops,
// and nests of compute_at levels deep enough that substituted bounds outgrew their size limit.

#include <doctest/doctest.h>

#include <tessera/tessera.h>

#include <string>
#include <vector>

using namespace tessera;

TEST_CASE("a GuardWithIf split of an inner loop writes no point past the output") {
    Func f("f");
    Var x("x"), y("y"), yo("yo"), yi("yi"), yio("yio"), yii("yii");
    f(x, y) = x + 100 * y;
    // yi has extent 2; splitting it by 5 with a guard must keep y below 51.
    f.split(y, yo, yi, 2).split(yi, yio, yii, 5, TailStrategy::GuardWithIf);
    Buffer<int> out = f.realize({4, 51});
    for (int yy = 0; yy < 51; yy++)
        for (int xx = 0; xx < 4; xx++) CHECK_MESSAGE(out(xx, yy) == xx + 100 * yy, "at " << xx << ", " << yy);
}
