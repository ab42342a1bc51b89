/* tessera/runtime.h compiles as C11 on its own and describes memory as it says: a buffer filled by
 * hand over a static array reads back each element at
 * host + sum_i (xi - dim[i].min) * dim[i].stride. Exits nonzero on the first mismatch. */
#include <tessera/runtime.h>

#include <stdint.h>
#include <stdio.h>

enum { WIDTH = 5, HEIGHT = 3 };

/* Stored transposed (x is the outer index of the array) to make the strides matter. */
static int16_t storage[WIDTH][HEIGHT];

static int16_t value_at(int x, int y) { return (int16_t)(100 * x - 7 * y); }

static const int16_t* element(const tessera_buffer_t* b, int x, int y) {
    const int16_t* host = (const int16_t*)b->host;
    return host + (x - b->dim[0].min) * b->dim[0].stride + (y - b->dim[1].min) * b->dim[1].stride;
}

int main(void) {
    tessera_dimension_t shape[2] = {{-2, WIDTH, HEIGHT, 0}, {10, HEIGHT, 1, 0}};
    tessera_buffer_t b = {0};
    b.host = (uint8_t*)&storage[0][0];
    b.type.code = tessera_type_int;
    b.type.bits = 16;
    b.type.lanes = 1;
    b.dimensions = 2;
    b.dim = shape;

    for (int x = 0; x < WIDTH; x++)
        for (int y = 0; y < HEIGHT; y++) storage[x][y] = value_at(x, y);

    for (int y = 10; y < 10 + HEIGHT; y++) {
        for (int x = -2; x < -2 + WIDTH; x++) {
            int16_t got = *element(&b, x, y), want = value_at(x + 2, y - 10);
            if (got != want) {
                fprintf(stderr, "at (%d, %d): read %d, stored %d\n", x, y, got, want);
                return 1;
            }
        }
    }
    if (element(&b, -2 + WIDTH - 1, 10 + HEIGHT - 1) != &storage[WIDTH - 1][HEIGHT - 1]) {
        fprintf(stderr, "the last element is not the last of the array\n");
        return 1;
    }

    /* The runtime's entry points link from C: their names are not mangled. */
    void* p = tessera_malloc(NULL, 100);
    if (!p || (uintptr_t)p % 64 != 0) {
        fprintf(stderr, "tessera_malloc gave %p, not 64-byte aligned memory\n", p);
        return 1;
    }
    tessera_free(NULL, p);
    return 0;
}
