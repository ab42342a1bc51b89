// Lesson 4: reductions with RDom.
//
// A pure definition gives every point a value. An update definition then changes some points,
// possibly iterating over a reduction domain (RDom) in order: this is how sums, histograms and
// scans are written.

#include <tessera/tessera.h>
#include <cstdio>

using namespace tessera;

int main() {
    Buffer<uint8_t> image = load_image<uint8_t>("apps/images/rgb8.png");
    Var i("i"), x("x");

    // A histogram of the red channel: start at zero everywhere, then add one at the bin of every
    // pixel. RDom r(0, w, 0, h) iterates r.x innermost, then r.y.
    RDom r(0, image.width(), 0, image.height());
    Func histogram("histogram");
    histogram(i) = 0;
    histogram(image(r.x, r.y, 0)) += 1;
    Buffer<int> counts = histogram.realize({256});

    long total = 0;
    for (int k = 0; k < 256; k++) total += counts(k);
    if (total != long(image.width()) * image.height()) return 1;

    // Inline reductions: sum() over the RDom an expression uses, here a column sum.
    RDom row(0, image.height());
    Func column_sum("column_sum");
    column_sum(x) = sum(cast<int>(image(x, row, 0)));
    Buffer<int> sums = column_sum.realize({image.width()});
    for (int k = 0; k < image.width(); k++) {
        int expected = 0;
        for (int j = 0; j < image.height(); j++) expected += image(k, j, 0);
        if (sums(k) != expected) return 1;
    }

    // argmax() gives where the maximum is, then the value.
    Tuple brightest = argmax(image(r.x, r.y, 0));
    Func where("where");
    where() = brightest;
    Realization found = where.realize();
    Buffer<int> bx = found[0], by = found[1];
    Buffer<uint8_t> bv = found[2];
    std::printf("lesson 4: %ld pixels counted; the first brightest red (%d) is at (%d, %d)\n", total,
                int(bv()), bx(), by());
    return image(bx(), by(), 0) == bv() ? 0 : 1;
}
