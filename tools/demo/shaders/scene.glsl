// Procedural scene shared by the shadow and gbuffer vertex shaders: no vertex buffers.
// gl_VertexIndex picks a corner of a unit box (36 vertices), gl_InstanceIndex a box: draw i
// of the pass uses firstInstance = i * boxes_per_tile, so one draw is one tile of the grid
// (a floor slab and eight buildings).

vec3 box_corner(uint v, out vec3 normal)
{
    const uint quad[6] = uint[6](0u, 1u, 2u, 0u, 2u, 3u);
    uint face = v / 6u;
    uint q = quad[v % 6u];
    uint axis = face >> 1;
    float s = (face & 1u) == 0u ? 1.0 : -1.0;
    vec3 n = vec3(0.0), u = vec3(0.0), w = vec3(0.0);
    n[axis] = s;
    u[(axis + 1u) % 3u] = 1.0;
    w[(axis + 2u) % 3u] = 1.0;
    float su = (q == 1u || q == 2u) ? 0.5 : -0.5;
    float sw = (q >= 2u) ? 0.5 : -0.5;
    normal = n;
    return 0.5 * n + su * u + sw * w;
}

void box_instance(uint instance, out vec3 center, out vec3 size, out vec3 albedo)
{
    uint per_tile = frame.counts.y;
    uint tile = instance / per_tile;
    uint j = instance % per_tile;
    uint cols = uint(frame.grid.x);
    float ts = frame.grid.z;
    vec2 tc = (vec2(float(tile % cols), float(tile / cols)) - 0.5 * (frame.grid.xy - 1.0)) * ts;
    if (j == 0u) {
        center = vec3(tc.x, -0.05 * ts, tc.y);
        size = vec3(0.96 * ts, 0.1 * ts, 0.96 * ts);
        albedo = vec3(0.5, 0.52, 0.48) + 0.15 * hash_unorm(tile * 13u + 7u);
        return;
    }
    uint cell = j - 1u;
    if (cell >= 4u)
        cell += 1u; // leave the centre cell of the 3x3 layout empty
    vec2 sub = (vec2(float(cell % 3u), float(cell / 3u)) - 1.0) * (ts / 3.0);
    float h = (0.3 + 1.2 * hash_unorm(instance * 3u + 1u)) * min(ts, 1.5);
    float wd = ts / 3.0 * (0.45 + 0.3 * hash_unorm(instance * 3u + 2u));
    center = vec3(tc.x + sub.x, 0.5 * h, tc.y + sub.y);
    size = vec3(wd, h, wd);
    albedo = vec3(0.12) + 0.8 * vec3(hash_unorm(instance * 7u + 3u), hash_unorm(instance * 7u + 4u),
                                     hash_unorm(instance * 7u + 5u));
}

vec3 scene_vertex(out vec3 normal, out vec3 albedo)
{
    vec3 center, size;
    box_instance(uint(gl_InstanceIndex), center, size, albedo);
    return center + size * box_corner(uint(gl_VertexIndex), normal);
}
