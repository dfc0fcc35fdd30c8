// Per-frame constants; mirrors struct demo_frame_constants in demo.h.
layout(set = 0, binding = 0, std140) uniform Frame {
    mat4 view_proj;
    mat4 inv_view_proj;
    mat4 light_view_proj;
    vec4 light_dir; // xyz: towards the light, w: ambient
    vec4 grid;      // x: columns, y: rows, z: tile size, w: time
    vec4 viewport;  // x: width, y: height, z: 1/width, w: 1/height
    uvec4 counts;   // x: tiles, y: boxes per tile, z: shadow map size
} frame;
