// Lesson 7: where a producer is computed.
//
// When one Func reads another, the schedule also says *where* the producer is computed relative to
// its consumer. There are three things to trade against each other:
//   - redundant work: a producer computed in small pieces recomputes the points that neighbouring
//     pieces share;
//   - locality: a producer computed just before it is used is still in cache when it is read;
//     one computed all at once has long left the cache by the time the consumer reads it;
//   - parallelism: independent pieces can run on separate threads.
// Every placement gives the same values; this lesson prints each loop nest and checks that.

#include <tessera/tessera.h>
#include <cstdio>
#include <string>

using namespace tessera;

namespace {

constexpr int kWidth = 37, kHeight = 29;  // not multiples of any factor below, on purpose

// The two-stage pipeline in plain C++.
int producer_value(int x, int y) { return (x * x + 3 * y) % 17; }
int consumer_value(int x, int y) {
    return producer_value(x, y) + producer_value(x + 1, y) + producer_value(x, y + 1) +
           producer_value(x + 1, y + 1);
}

bool check(Func consumer, const std::string& schedule) {
    std::printf("--- %s ---\n", schedule.c_str());
    consumer.print_loop_nest();
    Buffer<int> out = consumer.realize({kWidth, kHeight});
    for (int y = 0; y < kHeight; y++)
        for (int x = 0; x < kWidth; x++)
            if (out(x, y) != consumer_value(x, y)) {
                std::printf("MISMATCH under '%s' at (%d, %d): %d, expected %d\n", schedule.c_str(), x, y,
                            out(x, y), consumer_value(x, y));
                return false;
            }
    std::printf("(values as expected)\n\n");
    return true;
}

// A fresh producer and consumer for each schedule: the consumer sums a 2 x 2 neighbourhood of
// the producer, so neighbouring consumer points share producer points.
struct TwoStages {
    Var x{"x"}, y{"y"};
    Func producer{"producer"}, consumer{"consumer"};
    TwoStages() {
        producer(x, y) = (x * x + 3 * y) % 17;
        consumer(x, y) = producer(x, y) + producer(x + 1, y) + producer(x, y + 1) + producer(x + 1, y + 1);
    }
};

}  // namespace

int main() {
    bool ok = true;

    // 1. Inline (the default for a pure producer): the producer's expression is pasted into the
    // consumer. No storage, perfect locality, but each producer point is computed four times,
    // once for each consumer point that reads it.
    {
        TwoStages p;
        ok &= check(p.consumer, "producer inlined (the default)");
    }

    // 2. compute_root: all of the producer, over the (kWidth + 1) x (kHeight + 1) region the
    // consumer needs, into a buffer of its own; then all of the consumer. No point is computed
    // twice, but the whole intermediate is written to memory and read back later, cold.
    {
        TwoStages p;
        p.producer.compute_root();
        ok &= check(p.consumer, "producer.compute_root()");
    }

    // 3. compute_at(consumer, y): inside the consumer's loop over rows, compute the two rows of
    // the producer that this row needs, then the row of the consumer. The producer's storage is
    // two rows, read while they are hot; but each producer row is computed twice, once for each
    // consumer row that reads it.
    {
        TwoStages p;
        p.producer.compute_at(p.consumer, p.y);
        ok &= check(p.consumer, "producer.compute_at(consumer, y)");
    }

    // 4. store_root + compute_at: the producer's storage is allocated once, at the root, for the
    // whole region, while its values are still computed row by row inside the consumer's loop.
    // Halide would then slide the window, computing only the one new row per iteration. Tessera
    // has no sliding-window pass yet, so here the work is that of (3); what changes is that the
    // buffer is allocated once for the pipeline instead of once per row.
    {
        TwoStages p;
        p.producer.store_root().compute_at(p.consumer, p.y);
        ok &= check(p.consumer, "producer.store_root().compute_at(consumer, y)");
    }

    // 5. Per tile: the consumer in tiles of 8 x 8, and the producer computed for one tile at a
    // time (a 9 x 9 region). Only the tile's border is recomputed by the neighbouring tile, so
    // the redundant work is small, and a tile's producer fits easily in the L1 cache.
    {
        TwoStages p;
        Var x_outer("x_outer"), y_outer("y_outer"), x_inner("x_inner"), y_inner("y_inner");
        p.consumer.tile(p.x, p.y, x_outer, y_outer, x_inner, y_inner, 8, 8);
        p.producer.compute_at(p.consumer, x_outer);
        ok &= check(p.consumer, "consumer in 8 x 8 tiles, producer.compute_at(consumer, x_outer)");
    }

    // 6. The same per tile, with the rows of tiles run in parallel and the inner loops of both
    // stages vectorized. Tiles are independent (each computes its own piece of the producer), so
    // they can run on separate threads; this is why compute_at a tile is the usual CPU schedule.
    {
        TwoStages p;
        Var x_outer("x_outer"), y_outer("y_outer"), x_inner("x_inner"), y_inner("y_inner");
        p.consumer.tile(p.x, p.y, x_outer, y_outer, x_inner, y_inner, 16, 8)
            .parallel(y_outer)
            .vectorize(x_inner, 8);
        p.producer.compute_at(p.consumer, x_outer).vectorize(p.x, 8);
        ok &= check(p.consumer, "parallel tiles, both stages vectorized");
    }

    // 7. Three stages: a 3 x 3 box blur of an image, as two separable passes. The image is itself
    // a Func (a pattern computed on the fly), inlined into blur_x. blur_y is split into strips of
    // 8 rows that run in parallel and are vectorized along x; blur_x is computed per strip, 10 rows
    // for the 8 of blur_y, so only 2 rows in 8 are computed twice.
    {
        auto pattern = [](int x0, int y0) { return uint16_t((x0 * 37 + y0 * 101 + x0 * y0) & 0xfff); };
        Var x("x"), y("y"), y_outer("y_outer"), y_inner("y_inner");
        Func image("image"), blur_x("blur_x"), blur_y("blur_y");
        image(x, y) = cast<uint16_t>((x * 37 + y * 101 + x * y) & 0xfff);
        blur_x(x, y) = (image(x - 1, y) + image(x, y) + image(x + 1, y)) / 3;
        blur_y(x, y) = (blur_x(x, y - 1) + blur_x(x, y) + blur_x(x, y + 1)) / 3;
        blur_y.split(y, y_outer, y_inner, 8).parallel(y_outer).vectorize(x, 8);
        blur_x.compute_at(blur_y, y_outer).vectorize(x, 8);

        std::printf("--- three stages: image -> blur_x -> blur_y, strips of 8 rows in parallel ---\n");
        blur_y.print_loop_nest();
        Buffer<uint16_t> out = blur_y.realize({kWidth, kHeight});
        auto bx = [&](int x0, int y0) {
            return uint16_t((pattern(x0 - 1, y0) + pattern(x0, y0) + pattern(x0 + 1, y0)) / 3);
        };
        bool blur_ok = true;
        for (int y0 = 0; y0 < kHeight; y0++)
            for (int x0 = 0; x0 < kWidth; x0++) {
                const uint16_t want = uint16_t((bx(x0, y0 - 1) + bx(x0, y0) + bx(x0, y0 + 1)) / 3);
                if (out(x0, y0) != want) {
                    if (blur_ok)
                        std::printf("MISMATCH in the blur at (%d, %d): %d, expected %d\n", x0, y0,
                                    out(x0, y0), want);
                    blur_ok = false;
                }
            }
        if (blur_ok) std::printf("(blur values as expected)\n\n");
        ok &= blur_ok;
    }

    std::printf(ok ? "lesson 7: every placement computed the same values\n" : "lesson 7: FAILED\n");
    return ok ? 0 : 1;
}
