#pragma once
// How the matrix-product schedules share rows among threads.

#include <tessera/tessera.h>

namespace tessera_apps {

// Rows per band when `rows` are cut into `tasks` bands of whole tiles of `tile_rows`, as equal as
// can be; at least one tile, so that a guarded band is never empty of tiles.
inline tessera::Expr rows_per_band(const tessera::Expr& rows, int tile_rows, int tasks) {
    return tessera::max(tile_rows, (rows + tile_rows * tasks - 1) / (tile_rows * tasks) * tile_rows);
}

}  // namespace tessera_apps
