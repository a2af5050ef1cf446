// The numbering of a logical device mesh's positions, shared by the planners, the exports and
// the page: row-major, axis 0 major, so an S01 dimension's shards follow the devices in order.
#pragma once

namespace autopar {

// The device at position (r, c) of a mesh with `cols` columns: r * cols + c.
inline int mesh_position_device(int r, int c, int cols) { return r * cols + c; }

}  // namespace autopar
